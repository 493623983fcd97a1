resource "gkesim_cluster" "primary" {
  name = "primary"
}

# The pool GKE creates with the cluster.
data "gkesim_node_pool" "default" {
  cluster = gkesim_cluster.primary.id
  name    = "default-pool"
}

output "machine_type" {
  value = data.gkesim_node_pool.default.node_config[0].machine_type
}
