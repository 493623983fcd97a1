# Workloads on a small pool: 40 pods of 500m CPU on three e2-standard-4 nodes. Each node has
# 3920m allocatable CPU, part of it requested by GKE's system pods, so about 20 pods run and
# the rest stay Pending ("0/3 nodes are available: 3 Insufficient cpu."). The budget allows
# one pod down at a time; with half the pods Pending it allows none, so a node drain (an
# upgrade, a resize) waits for it up to GKE's one-hour limit before deleting the pods anyway.
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
  location = "us-central1-a"
}

resource "gkesim_cluster" "shop" {
  name                     = "shop"
  remove_default_node_pool = true
}

resource "gkesim_node_pool" "general" {
  cluster    = gkesim_cluster.shop.name
  name       = "general"
  node_count = 3

  node_config {
    machine_type = "e2-standard-4"
  }
}

resource "gkesim_workload" "web" {
  cluster  = gkesim_cluster.shop.name
  name     = "web"
  replicas = 40
  cpu      = "500m"
  memory   = "256Mi"

  node_selector = {
    "cloud.google.com/gke-nodepool" = gkesim_node_pool.general.name
  }
}

resource "gkesim_pod_disruption_budget" "web" {
  cluster = gkesim_cluster.shop.name
  name    = "web"
  selector {
    match_labels = {
      "app.kubernetes.io/name" = gkesim_workload.web.name
    }
  }
  max_unavailable = "1"
}

data "gkesim_nodes" "general" {
  cluster    = gkesim_cluster.shop.name
  node_pool  = gkesim_node_pool.general.name
  depends_on = [gkesim_workload.web]
}

output "web" {
  value = {
    ready   = gkesim_workload.web.ready_replicas
    pending = gkesim_workload.web.pending_replicas
    nodes   = gkesim_workload.web.nodes
  }
}

output "budget" {
  value = {
    expected_pods       = gkesim_pod_disruption_budget.web.expected_pods
    current_healthy     = gkesim_pod_disruption_budget.web.current_healthy
    disruptions_allowed = gkesim_pod_disruption_budget.web.disruptions_allowed
  }
}

output "cpu_requested" {
  value = { for n in data.gkesim_nodes.general.nodes : n.name => "${n.requested_cpu} of ${n.allocatable_cpu}" }
}
