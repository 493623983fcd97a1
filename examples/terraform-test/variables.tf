variable "name" {
  description = "The cluster's name."
  type        = string
  default     = "shop"
}

variable "location" {
  description = "Region (a regional cluster, nodes in three zones) or zone."
  type        = string
  default     = "us-central1"
}

variable "node_version" {
  description = "The node pools' GKE version; null: the control plane's."
  type        = string
  default     = null
}

variable "nodes_per_zone" {
  description = "Nodes of each pool in each zone."
  type        = number
  default     = 1
}

variable "maintenance_start_time" {
  description = "Start of the daily four-hour maintenance window, HH:MM in UTC."
  type        = string
  default     = "03:00"
}

variable "freeze" {
  description = "A change freeze: no automatic upgrades at all from start to end (RFC 3339)."
  type = object({
    start = string
    end   = string
  })
  default = null
}
