resource "gkesim_cluster" "primary" {
  name = "primary"
}

# Read after the pool's changes are applied (depends_on), so that an apply that returned at a
# blue-green soak shows the upgrade still running.
data "gkesim_node_pool_upgrade_status" "default" {
  cluster    = gkesim_cluster.primary.id
  name       = "default-pool"
  depends_on = [gkesim_cluster.primary]
}

output "upgrade" {
  value = {
    strategy         = data.gkesim_node_pool_upgrade_status.default.strategy
    in_progress      = data.gkesim_node_pool_upgrade_status.default.in_progress
    phase            = data.gkesim_node_pool_upgrade_status.default.phase
    nodes_by_version = data.gkesim_node_pool_upgrade_status.default.nodes_by_version
    eta              = data.gkesim_node_pool_upgrade_status.default.eta
  }
}
