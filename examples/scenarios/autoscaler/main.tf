# The cluster autoscaler: a regional cluster with the OPTIMIZE_UTILIZATION profile, an on-demand
# pool of one node per zone that may grow to four per zone, and a Spot pool that starts empty and
# may grow to twelve nodes in all. The web workload needs more CPU than the three on-demand nodes
# have, and the batch workload only runs on Spot nodes, so the apply waits while the autoscaler
# adds nodes for the pending pods: the on-demand pool in every zone (location policy
# BALANCED), the Spot pool where there is capacity (ANY, GKE's default for Spot). What the
# autoscaler does and why: docs/guides/cluster-autoscaler.md.
# node_count keeps its configured value while the autoscaler changes the size, so
# `terraform plan` stays empty; the output nodes_per_zone shows the sizes.
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

variable "web_replicas" {
  description = "Replicas of web (1 CPU each) on the on-demand pool."
  type        = number
  default     = 16
}

variable "batch_replicas" {
  description = "Replicas of batch (1 CPU each) on the Spot pool."
  type        = number
  default     = 6
}

resource "gkesim_cluster" "elastic" {
  name                     = "elastic"
  remove_default_node_pool = true

  cluster_autoscaling {
    autoscaling_profile = "OPTIMIZE_UTILIZATION"
  }
}

resource "gkesim_node_pool" "on_demand" {
  cluster    = gkesim_cluster.elastic.name
  name       = "on-demand"
  node_count = 1 # per zone, at creation; the autoscaler owns the size from then on

  node_config {
    machine_type = "e2-standard-4"
  }

  autoscaling {
    min_node_count = 1
    max_node_count = 4 # per zone: 3 to 12 nodes in the region's three zones
  }
}

resource "gkesim_node_pool" "spot" {
  cluster            = gkesim_cluster.elastic.name
  name               = "spot"
  initial_node_count = 0

  node_config {
    machine_type = "e2-standard-4"
    spot         = true
  }

  autoscaling {
    total_min_node_count = 0
    total_max_node_count = 12 # across all zones; location_policy defaults to ANY for Spot
  }
}

resource "gkesim_workload" "web" {
  cluster        = gkesim_cluster.elastic.name
  name           = "web"
  replicas       = var.web_replicas
  cpu            = "1"
  memory         = "512Mi"
  wait_for_ready = true

  node_selector = {
    "cloud.google.com/gke-nodepool" = gkesim_node_pool.on_demand.name
  }
}

resource "gkesim_workload" "batch" {
  cluster        = gkesim_cluster.elastic.name
  name           = "batch"
  replicas       = var.batch_replicas
  cpu            = "1"
  memory         = "512Mi"
  spot           = true
  wait_for_ready = true

  # spot = true selects Spot nodes (cloud.google.com/gke-spot): the Spot pool's.
  depends_on = [gkesim_node_pool.spot]
}

# The nodes of each pool, read after the workloads are ready.
data "gkesim_nodes" "on_demand" {
  cluster    = gkesim_cluster.elastic.name
  node_pool  = gkesim_node_pool.on_demand.name
  depends_on = [gkesim_workload.web, gkesim_workload.batch]
}

data "gkesim_nodes" "spot" {
  cluster    = gkesim_cluster.elastic.name
  node_pool  = gkesim_node_pool.spot.name
  depends_on = [gkesim_workload.web, gkesim_workload.batch]
}

output "nodes_per_zone" {
  description = "Nodes of each pool per zone now; node_count in the resources stays as configured."
  value = {
    for pool, nodes in { on_demand = data.gkesim_nodes.on_demand.nodes, spot = data.gkesim_nodes.spot.nodes } :
    pool => { for z in distinct([for n in nodes : n.zone]) : z => length([for n in nodes : n if n.zone == z]) }
  }
}

output "ready" {
  value = {
    web   = gkesim_workload.web.ready_replicas
    batch = gkesim_workload.batch.ready_replicas
  }
}
