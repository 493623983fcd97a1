output "cluster_id" {
  value = gkesim_cluster.this.id
}

output "master_version" {
  value = gkesim_cluster.this.master_version
}

output "zones" {
  value = gkesim_cluster.this.node_locations
}

# Per pool: the strategy, whether an upgrade runs, and Ready nodes by version.
output "upgrades" {
  value = {
    for s in [data.gkesim_node_pool_upgrade_status.general, data.gkesim_node_pool_upgrade_status.batch] :
    s.name => {
      strategy         = s.strategy
      in_progress      = s.in_progress
      nodes_by_version = s.nodes_by_version
    }
  }
}

output "nodes" {
  value = [for n in data.gkesim_nodes.all.nodes : {
    name      = n.name
    node_pool = n.node_pool
    zone      = n.zone
    state     = n.state
    version   = n.version
  }]
}

# The emulated time the schedule was computed at, the next open windows, and per kind of
# upgrade whether it may run now and what blocks it.
output "maintenance" {
  value = {
    now      = data.gkesim_maintenance_schedule.this.now
    windows  = data.gkesim_maintenance_schedule.this.windows
    upgrades = { for u in data.gkesim_maintenance_schedule.this.upgrades : u.kind => u }
  }
}

# The change freeze in force (var.freeze), for a later test run to keep it as it was.
output "freeze" {
  value = var.freeze
}
