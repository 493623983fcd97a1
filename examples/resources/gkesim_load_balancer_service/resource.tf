resource "gkesim_cluster" "primary" {
  name                     = "primary"
  location                 = "us-central1"
  remove_default_node_pool = true
  enable_l4_ilb_subsetting = true
}

resource "gkesim_node_pool" "web" {
  cluster    = gkesim_cluster.primary.id
  name       = "web"
  node_count = 2 # per zone: 6 nodes

  node_config {
    machine_type = "e2-standard-4"
  }
}

resource "gkesim_workload" "web" {
  cluster    = gkesim_cluster.primary.id
  name       = "web"
  replicas   = 3
  cpu        = "1"
  depends_on = [gkesim_node_pool.web]
}

# Internal, GKE subsetting on: a backend service with one GCE_VM_IP NEG per zone.
# Local: only the nodes running a serving pod are NEG endpoints and pass the health check;
# the pods see the client's address.
resource "gkesim_load_balancer_service" "web" {
  cluster                 = gkesim_cluster.primary.id
  name                    = "web"
  internal                = true
  external_traffic_policy = "Local"
  selector                = { "app.kubernetes.io/name" = gkesim_workload.web.name }

  port {
    name        = "http"
    port        = 80
    target_port = "8080"
  }
  port {
    name        = "https"
    port        = 443
    target_port = "8443"
  }
}

# External, created with cloud.google.com/l4-rbs: a backend service-based external
# passthrough Network Load Balancer on the cluster's zonal instance groups.
resource "gkesim_load_balancer_service" "public" {
  cluster     = gkesim_cluster.primary.id
  name        = "web-public"
  selector    = { "app.kubernetes.io/name" = gkesim_workload.web.name }
  annotations = { "cloud.google.com/l4-rbs" = "enabled" }

  port {
    port        = 80
    target_port = "8080"
  }
}

output "internal" {
  value = "${gkesim_load_balancer_service.web.ip} (${gkesim_load_balancer_service.web.load_balancer_kind}): ${gkesim_load_balancer_service.web.healthy_node_count} of ${gkesim_load_balancer_service.web.backend_node_count} backends healthy"
}

output "public" {
  value = "${gkesim_load_balancer_service.public.ip} (${gkesim_load_balancer_service.public.load_balancer_kind}): ${gkesim_load_balancer_service.public.healthy_node_count} of ${gkesim_load_balancer_service.public.backend_node_count} backends healthy"
}
