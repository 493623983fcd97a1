# The four load balancers of a GKE LoadBalancer Service side by side, on a cluster with 30 nodes
# and GKE subsetting (docs/guides/load-balancers.md says which GKE builds when):
#
#   ilb-cluster  internal, Cluster: a GCE_VM_IP NEG per zone with a random but stable subset
#                of 25 of the 30 nodes, every one of them healthy
#   ilb-local    internal, Local: only the nodes running a serving pod
#   netlb-rbs    external, cloud.google.com/l4-rbs: backend service on the zonal instance groups
#   netlb-tp     external: target pool with every node; Local, so only nodes with a serving
#                pod pass the health check on the Service's healthCheckNodePort
#
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

resource "gkesim_cluster" "lbs" {
  name                     = "lbs"
  remove_default_node_pool = true
  enable_l4_ilb_subsetting = true
}

resource "gkesim_node_pool" "general" {
  cluster    = gkesim_cluster.lbs.name
  name       = "general"
  node_count = 10 # per zone: 30 nodes

  node_config {
    machine_type = "e2-standard-4"
  }
}

resource "gkesim_workload" "web" {
  cluster    = gkesim_cluster.lbs.name
  name       = "web"
  replicas   = 6
  cpu        = "2"
  depends_on = [gkesim_node_pool.general]
}

# internal, Cluster: NEGs with 25 of the 30 nodes.
resource "gkesim_load_balancer_service" "ilb_cluster" {
  cluster  = gkesim_cluster.lbs.name
  name     = "ilb-cluster"
  internal = true
  selector = { "app.kubernetes.io/name" = gkesim_workload.web.name }
  port {
    port        = 80
    target_port = "8080"
  }
}

# internal, Local: NEGs with the nodes that run a serving pod.
resource "gkesim_load_balancer_service" "ilb_local" {
  cluster                 = gkesim_cluster.lbs.name
  name                    = "ilb-local"
  internal                = true
  external_traffic_policy = "Local"
  selector                = { "app.kubernetes.io/name" = gkesim_workload.web.name }
  port {
    port        = 80
    target_port = "8080"
  }
}

# external with l4-rbs: backend service on the zonal instance groups.
resource "gkesim_load_balancer_service" "netlb_rbs" {
  cluster     = gkesim_cluster.lbs.name
  name        = "netlb-rbs"
  annotations = { "cloud.google.com/l4-rbs" = "enabled" }
  selector    = { "app.kubernetes.io/name" = gkesim_workload.web.name }
  port {
    port        = 80
    target_port = "8080"
  }
}

# external: target pool, Local.
resource "gkesim_load_balancer_service" "netlb_tp" {
  cluster                 = gkesim_cluster.lbs.name
  name                    = "netlb-tp"
  external_traffic_policy = "Local"
  selector                = { "app.kubernetes.io/name" = gkesim_workload.web.name }
  port {
    port        = 80
    target_port = "8080"
  }
}

output "load_balancers" {
  value = { for s in [gkesim_load_balancer_service.ilb_cluster, gkesim_load_balancer_service.ilb_local, gkesim_load_balancer_service.netlb_rbs, gkesim_load_balancer_service.netlb_tp] :
  s.name => "${s.load_balancer_kind} at ${s.ip}: ${s.healthy_node_count} of ${s.backend_node_count} backends healthy" }
}

output "netlb_tp_ip" {
  value = gkesim_load_balancer_service.netlb_tp.ip
}
