# The quickstart `make demo` applies: a regional cluster with two node pools.
# The steps, from the repository root of a fresh clone, are in README.md next to this file.

terraform {
  required_providers {
    gkesim = {
      source = "gkesim/gkesim"
    }
  }
}

provider "gkesim" {
  project  = "demo-project"
  location = "us-central1"
}

# Without a release_channel block GKE enrolls the cluster in REGULAR.
resource "gkesim_cluster" "demo" {
  name                     = "demo"
  remove_default_node_pool = true
}

resource "gkesim_node_pool" "web" {
  cluster    = gkesim_cluster.demo.id
  name       = "web"
  node_count = 2

  node_config {
    machine_type = "e2-standard-4"
    labels = {
      tier = "web"
    }
  }
}

resource "gkesim_node_pool" "batch" {
  cluster    = gkesim_cluster.demo.id
  name       = "batch"
  node_count = 1

  node_config {
    machine_type = "n2-standard-8"
    spot         = true
    taint {
      key    = "workload"
      value  = "batch"
      effect = "NO_SCHEDULE"
    }
  }
}

data "gkesim_server_config" "now" {}

output "cluster" {
  value = {
    endpoint       = gkesim_cluster.demo.endpoint
    master_version = gkesim_cluster.demo.master_version
    zones          = gkesim_cluster.demo.node_locations
  }
}

output "node_pools" {
  value = {
    for p in [gkesim_node_pool.web, gkesim_node_pool.batch] :
    p.name => "${p.node_count} x ${length(p.instance_group_urls)} zones, ${p.node_config[0].machine_type}, ${p.version}"
  }
}

output "versions_available" {
  value = data.gkesim_server_config.now.release_channel_default_version
}
