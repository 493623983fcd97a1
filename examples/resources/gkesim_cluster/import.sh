# Any of these forms; the short ones use the provider's project.
terraform import gkesim_cluster.primary projects/demo-project/locations/us-central1/clusters/primary
terraform import gkesim_cluster.primary demo-project/us-central1/primary
terraform import gkesim_cluster.primary us-central1/primary
