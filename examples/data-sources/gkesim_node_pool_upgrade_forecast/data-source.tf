resource "gkesim_cluster" "primary" {
  name = "primary"
}

# What moving default-pool to e2-standard-4 with two surge nodes would do if it were asked for
# now: computed on a copy of the emulator's simulation, nothing changes.
data "gkesim_node_pool_upgrade_forecast" "bigger" {
  cluster      = gkesim_cluster.primary.id
  node_pool    = "default-pool"
  machine_type = "e2-standard-4"

  upgrade_settings {
    max_surge = 2
  }
}

output "forecast" {
  value = {
    headline         = data.gkesim_node_pool_upgrade_forecast.bigger.headline
    duration_seconds = data.gkesim_node_pool_upgrade_forecast.bigger.duration_seconds
    drains_held      = data.gkesim_node_pool_upgrade_forecast.bigger.drains_held
    pods_forced      = data.gkesim_node_pool_upgrade_forecast.bigger.pods_forced
    peak_extra_vms   = data.gkesim_node_pool_upgrade_forecast.bigger.peak_extra_vms
  }
}
