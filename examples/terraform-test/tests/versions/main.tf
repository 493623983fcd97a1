# A helper module for the tests: versions at the emulator's clock (the version table moves with
# emulated time, so tests read it instead of hard-coding versions).
terraform {
  required_providers {
    gkesim = {
      source = "gkesim/gkesim"
    }
  }
}

data "gkesim_server_config" "now" {}

locals {
  latest = data.gkesim_server_config.now.default_cluster_version
  parts  = split(".", local.latest)
  # Node versions of the minor before the default's, newest first.
  previous_minor = [
    for v in data.gkesim_server_config.now.valid_node_versions : v
    if startswith(v, format("%s.%d.", local.parts[0], tonumber(local.parts[1]) - 1))
  ]
}

output "latest" {
  description = "The version a new cluster's control plane gets."
  value       = local.latest
}

output "previous" {
  description = "The newest node version one minor behind it."
  value       = local.previous_minor[0]
}
