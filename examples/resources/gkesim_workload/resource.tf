resource "gkesim_cluster" "primary" {
  name                     = "primary"
  location                 = "us-central1"
  remove_default_node_pool = true
}

# One e2-standard-4 node per zone, tainted for the web tier.
resource "gkesim_node_pool" "web" {
  cluster    = gkesim_cluster.primary.id
  name       = "web"
  node_count = 1

  node_config {
    machine_type = "e2-standard-4"
    taint {
      key    = "dedicated"
      value  = "web"
      effect = "NO_SCHEDULE"
    }
  }
}

resource "gkesim_workload" "web" {
  cluster  = gkesim_cluster.primary.id
  name     = "web"
  replicas = 12
  cpu      = "500m"
  memory   = "512Mi"
  labels = {
    tier = "web"
  }

  # Only on the web pool; the pool's NO_SCHEDULE taint is NoSchedule on its nodes.
  node_selector = {
    "cloud.google.com/gke-nodepool" = gkesim_node_pool.web.name
  }
  toleration {
    key    = "dedicated"
    value  = "web"
    effect = "NoSchedule"
  }

  termination_grace_period_seconds = 60
}

output "web" {
  value = "${gkesim_workload.web.ready_replicas} of ${gkesim_workload.web.replicas} ready, ${gkesim_workload.web.pending_replicas} Pending, on ${length(gkesim_workload.web.nodes)} nodes"
}
