# terraform-provider-google (hashicorp/google) against the gkesim emulator: a regional cluster
# with its default pool removed and one node pool, written as for real GKE. Only the provider
# block differs from a configuration for Google Cloud. See README.md in this directory.
#
# Not applied by the repository's tests: hashicorp/google comes from the Terraform Registry,
# which the test machines cannot reach. Run it by hand against `gkesim serve`.

terraform {
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 6.50.0"
    }
  }
}

provider "google" {
  project = "demo-project"
  region  = "us-central1"

  # Exactly these values. The container endpoint is the bare root: the provider appends the
  # API version itself and does not strip a "/v1/" given here for http URLs. The Compute
  # endpoint (instance group sizes of node pools) carries its version.
  container_custom_endpoint = "http://127.0.0.1:8790/"
  compute_custom_endpoint   = "http://127.0.0.1:8790/compute/v1/"

  # The emulator checks no credentials; any token keeps the provider from looking for them.
  access_token = "gkesim"
}

resource "google_container_cluster" "primary" {
  name                     = "tpg-demo"
  location                 = "us-central1"
  remove_default_node_pool = true
  initial_node_count       = 1
  deletion_protection      = false

  release_channel {
    channel = "REGULAR"
  }

  resource_labels = {
    team = "platform"
  }
}

resource "google_container_node_pool" "general" {
  name       = "general"
  cluster    = google_container_cluster.primary.id
  location   = "us-central1"
  node_count = 1

  node_config {
    machine_type = "e2-standard-4"
  }

  management {
    auto_repair  = true
    auto_upgrade = true
  }

  upgrade_settings {
    strategy        = "SURGE"
    max_surge       = 2
    max_unavailable = 0
  }
}

output "cluster" {
  value = "${google_container_cluster.primary.name}: control plane ${google_container_cluster.primary.master_version}, endpoint ${google_container_cluster.primary.endpoint}"
}
