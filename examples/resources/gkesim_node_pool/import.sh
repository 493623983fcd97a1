# `cluster` is imported as the cluster's name; a configuration that writes its id instead
# (`cluster = gkesim_cluster.primary.id`) names the same cluster, and the plan stays empty.
# management is imported as GKE reports it; with autoscaling, node_count is the size the pool
# was created with (the autoscaler owns the current one).
# Any of these forms; the short ones use the provider's project.
terraform import gkesim_node_pool.general projects/demo-project/locations/us-central1/clusters/primary/nodePools/general
terraform import gkesim_node_pool.general demo-project/us-central1/primary/general
terraform import gkesim_node_pool.general us-central1/primary/general
