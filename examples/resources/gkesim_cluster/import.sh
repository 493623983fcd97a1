# After an import the plan is empty for a configuration that describes the cluster as it is.
# release_channel is imported as GKE reports it (REGULAR by default; a configuration without
# the block then plans its removal once, which changes nothing), and remove_default_node_pool
# is true when the cluster has no default-pool.
# Any of these forms; the short ones use the provider's project.
terraform import gkesim_cluster.primary projects/demo-project/locations/us-central1/clusters/primary
terraform import gkesim_cluster.primary demo-project/us-central1/primary
terraform import gkesim_cluster.primary us-central1/primary
