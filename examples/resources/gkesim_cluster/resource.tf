# A regional cluster whose node pools are managed separately.
resource "gkesim_cluster" "primary" {
  name                     = "primary"
  location                 = "us-central1"
  node_locations           = ["us-central1-a", "us-central1-b"]
  remove_default_node_pool = true
  enable_l4_ilb_subsetting = true

  # Without the block GKE enrolls the cluster in REGULAR.
  release_channel {
    channel = "STABLE"
  }

  cluster_autoscaling {
    autoscaling_profile = "OPTIMIZE_UTILIZATION"
  }

  resource_labels = {
    team = "platform"
  }
}
