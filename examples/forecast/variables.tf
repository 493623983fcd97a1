variable "node_version" {
  description = "The pool's GKE version; null: the control plane's."
  type        = string
  default     = null
}

variable "max_surge" {
  description = "Surge nodes the pool's upgrades create at a time."
  type        = number
  default     = 1
}
