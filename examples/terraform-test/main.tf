# A small GKE module of the kind a platform team keeps: a regional cluster with a general pool
# that surges one node at a time and a batch pool that upgrades blue-green, a daily
# maintenance window and an optional change freeze. tests/cluster.tftest.hcl tests it with
# `terraform test` against the gkesim emulator.

resource "gkesim_cluster" "this" {
  name                     = var.name
  location                 = var.location
  remove_default_node_pool = true

  # Versions are pinned by the module's caller, not by a release channel.
  release_channel {
    channel = "UNSPECIFIED"
  }
}

resource "gkesim_node_pool" "general" {
  cluster    = gkesim_cluster.this.id
  name       = "general"
  node_count = var.nodes_per_zone
  version    = var.node_version

  node_config {
    machine_type = "e2-standard-4"
  }

  management {
    auto_repair  = true
    auto_upgrade = false
  }

  upgrade_settings {
    strategy        = "SURGE"
    max_surge       = 1
    max_unavailable = 0
  }
}

resource "gkesim_node_pool" "batch" {
  cluster    = gkesim_cluster.this.id
  name       = "batch"
  node_count = var.nodes_per_zone
  version    = var.node_version

  node_config {
    machine_type = "n2-standard-8"
  }

  management {
    auto_repair  = true
    auto_upgrade = false
  }

  upgrade_settings {
    strategy = "BLUE_GREEN"
    blue_green_settings {
      node_pool_soak_duration = "600s"
      standard_rollout_policy {
        batch_node_count    = 1
        batch_soak_duration = "60s"
      }
    }
  }
}

resource "gkesim_maintenance_policy" "this" {
  cluster = gkesim_cluster.this.id

  daily_maintenance_window {
    start_time = var.maintenance_start_time
  }

  dynamic "maintenance_exclusion" {
    for_each = var.freeze == null ? [] : [var.freeze]
    content {
      exclusion_name = "freeze"
      start_time     = maintenance_exclusion.value.start
      end_time       = maintenance_exclusion.value.end
      exclusion_options {
        scope = "NO_UPGRADES"
      }
    }
  }
}

# Read after the pools are applied: what the last upgrade left.
data "gkesim_node_pool_upgrade_status" "general" {
  cluster    = gkesim_cluster.this.id
  name       = gkesim_node_pool.general.name
  depends_on = [gkesim_node_pool.general]
}

data "gkesim_node_pool_upgrade_status" "batch" {
  cluster    = gkesim_cluster.this.id
  name       = gkesim_node_pool.batch.name
  depends_on = [gkesim_node_pool.batch]
}

data "gkesim_nodes" "all" {
  cluster    = gkesim_cluster.this.id
  depends_on = [gkesim_node_pool.general, gkesim_node_pool.batch]
}

data "gkesim_maintenance_schedule" "this" {
  cluster      = gkesim_maintenance_policy.this.id
  window_count = 3
}
