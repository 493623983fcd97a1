resource "gkesim_cluster" "primary" {
  name               = "primary"
  initial_node_count = 3
}

resource "gkesim_workload" "api" {
  cluster  = gkesim_cluster.primary.name
  name     = "api"
  replicas = 4
  cpu      = "50m"
}

# Drains evict at most one api pod at a time; the next waits until a replacement is ready.
resource "gkesim_pod_disruption_budget" "api" {
  cluster = gkesim_cluster.primary.name
  name    = "api"
  selector {
    match_labels = {
      "app.kubernetes.io/name" = gkesim_workload.api.name
    }
  }
  max_unavailable = "1"
}

output "disruptions_allowed" {
  value = gkesim_pod_disruption_budget.api.disruptions_allowed
}
