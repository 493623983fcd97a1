output "forecast" {
  description = "The forecast of the upgrade to the control plane's version."
  value = {
    headline         = data.gkesim_node_pool_upgrade_forecast.upgrade.headline
    recreates_nodes  = data.gkesim_node_pool_upgrade_forecast.upgrade.recreates_nodes
    finished         = data.gkesim_node_pool_upgrade_forecast.upgrade.finished
    duration_seconds = data.gkesim_node_pool_upgrade_forecast.upgrade.duration_seconds
    drains_held      = data.gkesim_node_pool_upgrade_forecast.upgrade.drains_held
    pods_forced      = data.gkesim_node_pool_upgrade_forecast.upgrade.pods_forced
    peak_extra_vms   = data.gkesim_node_pool_upgrade_forecast.upgrade.peak_extra_vms
  }
}
