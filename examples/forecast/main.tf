# A pool, a workload under a PodDisruptionBudget, and the forecast of upgrading the pool's nodes
# to the control plane's version. forecast.tftest.hcl gates the upgrade on the forecast with
# `terraform test` against the gkesim emulator (./test.sh starts one).

resource "gkesim_cluster" "this" {
  name                     = "shop"
  location                 = "us-central1-a"
  remove_default_node_pool = true

  release_channel {
    channel = "UNSPECIFIED"
  }
}

resource "gkesim_maintenance_policy" "this" {
  cluster = gkesim_cluster.this.id

  daily_maintenance_window {
    start_time = "03:00" # four hours from 03:00 UTC
  }
}

resource "gkesim_node_pool" "web" {
  cluster    = gkesim_cluster.this.id
  name       = "web"
  node_count = 3
  version    = var.node_version

  management {
    auto_repair  = true
    auto_upgrade = false
  }

  upgrade_settings {
    strategy        = "SURGE"
    max_surge       = var.max_surge
    max_unavailable = 0
  }
}

resource "gkesim_workload" "web" {
  cluster    = gkesim_cluster.this.id
  name       = "web"
  replicas   = 6
  cpu        = "100m"
  depends_on = [gkesim_node_pool.web]
}

# Drains evict one web pod at a time; the next waits until a replacement is ready.
resource "gkesim_pod_disruption_budget" "web" {
  cluster = gkesim_cluster.this.id
  name    = "web"
  selector {
    match_labels = {
      "app.kubernetes.io/name" = gkesim_workload.web.name
    }
  }
  max_unavailable = "1"
}

# What upgrading the pool's nodes to the control plane's version ("-") would do if it were
# asked for now, computed on a copy of the emulator's simulation: nothing changes.
data "gkesim_node_pool_upgrade_forecast" "upgrade" {
  cluster    = gkesim_cluster.this.id
  node_pool  = gkesim_node_pool.web.name
  version    = "-"
  depends_on = [gkesim_pod_disruption_budget.web]
}
