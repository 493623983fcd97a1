# Gate a node-pool upgrade on its forecast: the pool runs a version one minor behind the
# control plane, and the forecast of upgrading it must finish inside the 4-hour maintenance
# window, force no pod out, and need at most 3 extra VMs. Run it with ./test.sh.

provider "gkesim" {
  project       = "forecast-test"
  location      = "us-central1-a"
  poll_interval = "100ms"
}

# The versions the emulator offers now (the module examples/terraform-test's tests use).
run "versions" {
  module {
    source = "../terraform-test/tests/versions"
  }
}

run "forecast" {
  variables {
    node_version = run.versions.previous
  }

  assert {
    condition     = data.gkesim_node_pool_upgrade_forecast.upgrade.recreates_nodes && data.gkesim_node_pool_upgrade_forecast.upgrade.nodes == 3
    error_message = "the upgrade recreates the 3 nodes: ${data.gkesim_node_pool_upgrade_forecast.upgrade.headline}"
  }
  assert {
    condition     = data.gkesim_node_pool_upgrade_forecast.upgrade.finished && data.gkesim_node_pool_upgrade_forecast.upgrade.duration_seconds <= 4 * 3600
    error_message = "finishes inside the window (4 hours): ${data.gkesim_node_pool_upgrade_forecast.upgrade.headline}"
  }
  assert {
    condition     = data.gkesim_node_pool_upgrade_forecast.upgrade.pods_forced == 0
    error_message = "forces no pod: ${jsonencode(data.gkesim_node_pool_upgrade_forecast.upgrade.pods_forced_names)}"
  }
  assert {
    condition     = data.gkesim_node_pool_upgrade_forecast.upgrade.peak_extra_vms <= 3
    error_message = "needs at most 3 extra VMs: ${data.gkesim_node_pool_upgrade_forecast.upgrade.headline}"
  }
}

# Three surge nodes at a time still fit the budget of 3 extra VMs, and go faster.
run "surge_3" {
  variables {
    node_version = run.versions.previous
    max_surge    = 3
  }

  assert {
    condition     = data.gkesim_node_pool_upgrade_forecast.upgrade.peak_extra_vms == 3
    error_message = "max_surge = 3 peaks at 3 extra VMs: ${data.gkesim_node_pool_upgrade_forecast.upgrade.headline}"
  }
  assert {
    condition     = data.gkesim_node_pool_upgrade_forecast.upgrade.pods_forced == 0 && data.gkesim_node_pool_upgrade_forecast.upgrade.duration_seconds <= 4 * 3600
    error_message = "forces no pod and finishes inside the window: ${data.gkesim_node_pool_upgrade_forecast.upgrade.headline}"
  }
}
