# Blue-green node upgrades: a regional pool of 2 nodes per zone serving a Deployment, upgraded
# by creating a whole green pool, draining the blue one half a pool at a time,
# soaking, then deleting the blue pool (docs/guides/blue-green-upgrades.md). The apply that changes the version returns
# when the soak starts (blue_green_return_at_soak); the soak (a day of emulated time, about a
# minute and a half at gkesim's default 1000x) and the blue pool deletion go on without it.
#
# The steps, from the repository root of a fresh clone, are in README.md next to this file.

terraform {
  required_providers {
    gkesim = {
      source = "gkesim/gkesim"
    }
  }
}

provider "gkesim" {
  project  = "demo-project"
  location = "us-central1"
}

variable "node_version" {
  description = "Node version of the web pool; by default the patch before the control plane's. Change it to upgrade the nodes blue-green."
  type        = string
  default     = null
}

data "gkesim_server_config" "now" {}

locals {
  master = gkesim_cluster.shop.master_version
  minor  = join(".", slice(split(".", local.master), 0, 2))
  older  = [for v in data.gkesim_server_config.now.valid_node_versions : v if startswith(v, "${local.minor}.") && v != local.master]
}

resource "gkesim_cluster" "shop" {
  name                     = "shop"
  remove_default_node_pool = true
}

resource "gkesim_node_pool" "web" {
  cluster    = gkesim_cluster.shop.id
  name       = "web"
  node_count = 2
  version    = coalesce(var.node_version, local.older[0])

  node_config {
    machine_type = "e2-standard-4"
  }

  upgrade_settings {
    strategy = "BLUE_GREEN"
    blue_green_settings {
      node_pool_soak_duration = "86400s"
      standard_rollout_policy {
        batch_percentage    = 0.5
        batch_soak_duration = "120s"
      }
    }
  }
  blue_green_return_at_soak = true
}

resource "gkesim_workload" "storefront" {
  cluster  = gkesim_cluster.shop.id
  name     = "storefront"
  replicas = 6
  cpu      = "500m"
  memory   = "512Mi"

  node_selector = {
    "cloud.google.com/gke-nodepool" = gkesim_node_pool.web.name
  }
}

data "gkesim_node_pool_upgrade_status" "web" {
  cluster    = gkesim_cluster.shop.id
  name       = gkesim_node_pool.web.name
  depends_on = [gkesim_node_pool.web]
}

output "upgrade_to" {
  description = "The control plane's version: the newest the nodes may run."
  value       = local.master
}

output "upgrade_settings" {
  description = "What GKE will do on the next node-recreating change, with its defaults filled in."
  value       = gkesim_node_pool.web.upgrade_settings[0]
}

output "upgrade_status" {
  value = {
    strategy         = data.gkesim_node_pool_upgrade_status.web.strategy
    in_progress      = data.gkesim_node_pool_upgrade_status.web.in_progress
    phase            = data.gkesim_node_pool_upgrade_status.web.phase
    nodes_by_version = data.gkesim_node_pool_upgrade_status.web.nodes_by_version
    blue_deletion_at = data.gkesim_node_pool_upgrade_status.web.blue_pool_deletion_start_time
    eta              = data.gkesim_node_pool_upgrade_status.web.eta
  }
}
