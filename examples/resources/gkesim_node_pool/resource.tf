resource "gkesim_cluster" "primary" {
  name                     = "primary"
  location                 = "us-central1"
  remove_default_node_pool = true
}

resource "gkesim_node_pool" "general" {
  cluster    = gkesim_cluster.primary.id
  name       = "general"
  node_count = 2 # per zone at creation: 6 nodes in the cluster's three zones

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

  # Without a management block auto_repair and auto_upgrade are on, as GKE sets them.

  # The cluster autoscaler keeps each zone between 1 and 5 nodes. node_count is the size at
  # creation; when the autoscaler changes the size the plan stays empty.
  autoscaling {
    min_node_count = 1
    max_node_count = 5
  }

  # Surge upgrades: two extra nodes per zone at a time, none taken down before its
  # replacement is ready.
  upgrade_settings {
    strategy        = "SURGE"
    max_surge       = 2
    max_unavailable = 0
  }
}

resource "gkesim_node_pool" "web" {
  cluster    = gkesim_cluster.primary.id
  name       = "web"
  node_count = 1

  # Blue-green upgrades: a full green pool first, then the blue nodes drained half a pool
  # at a time with ten minutes between batches, then an hour's soak before the blue pool
  # is deleted. The apply returns when the soak starts.
  upgrade_settings {
    strategy = "BLUE_GREEN"
    blue_green_settings {
      node_pool_soak_duration = "3600s"
      standard_rollout_policy {
        batch_percentage    = 0.5
        batch_soak_duration = "600s"
      }
    }
  }
  blue_green_return_at_soak = true
}
