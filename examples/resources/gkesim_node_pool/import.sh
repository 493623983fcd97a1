# Any of these forms; the short ones use the provider's project.
terraform import gkesim_node_pool.general projects/demo-project/locations/us-central1/clusters/primary/nodePools/general
terraform import gkesim_node_pool.general demo-project/us-central1/primary/general
terraform import gkesim_node_pool.general us-central1/primary/general
