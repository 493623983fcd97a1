resource "gkesim_cluster" "primary" {
  name                     = "primary"
  remove_default_node_pool = true
}

resource "gkesim_node_pool" "general" {
  cluster    = gkesim_cluster.primary.name
  name       = "general"
  node_count = 2
  node_config {
    machine_type = "e2-standard-4"
  }
}

# The pool's nodes and what GKE's system pods already request on each.
data "gkesim_nodes" "general" {
  cluster   = gkesim_cluster.primary.name
  node_pool = gkesim_node_pool.general.name
}

output "nodes" {
  value = {
    for n in data.gkesim_nodes.general.nodes :
    n.name => "${n.state} in ${n.zone}: ${n.requested_cpu} of ${n.allocatable_cpu} CPU and ${n.requested_memory} of ${n.allocatable_memory} requested by ${n.pods} pods"
  }
}
