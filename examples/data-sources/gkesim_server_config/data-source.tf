# Versions available now (at the emulator's emulated time). version_prefix = "1.36." would
# narrow the valid and latest lists to one minor.
data "gkesim_server_config" "current" {}

# Pin a cluster to the REGULAR channel's default version.
resource "gkesim_cluster" "pinned" {
  name               = "pinned"
  min_master_version = data.gkesim_server_config.current.release_channel_default_version["REGULAR"]
}

output "latest_node_version" {
  value = data.gkesim_server_config.current.latest_node_version
}
