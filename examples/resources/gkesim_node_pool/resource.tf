resource "gkesim_cluster" "primary" {
  name                     = "primary"
  location                 = "us-central1"
  remove_default_node_pool = true
}

resource "gkesim_node_pool" "general" {
  cluster    = gkesim_cluster.primary.id
  name       = "general"
  node_count = 2 # per zone: 6 nodes in the cluster's three zones

  node_config {
    machine_type = "e2-standard-4"
    disk_size_gb = 50
    labels = {
      workload = "general"
    }
    taint {
      key    = "dedicated"
      value  = "general"
      effect = "PREFER_NO_SCHEDULE"
    }
  }

  management {
    auto_repair  = true
    auto_upgrade = true
  }
}
