resource "gkesim_cluster" "primary" {
  name = "primary"
}

data "gkesim_cluster" "primary" {
  name     = gkesim_cluster.primary.name
  location = gkesim_cluster.primary.location
}

output "node_pools" {
  value = data.gkesim_cluster.primary.node_pool_names
}
