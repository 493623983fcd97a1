# `cluster` is imported as the cluster's name; a configuration that writes its id instead
# (`cluster = gkesim_cluster.primary.id`) names the same cluster, and the plan stays empty.
# The policy's id is its cluster's; any of these forms (the short ones use the provider's project).
terraform import gkesim_maintenance_policy.primary projects/demo-project/locations/us-central1/clusters/primary
terraform import gkesim_maintenance_policy.primary demo-project/us-central1/primary
terraform import gkesim_maintenance_policy.primary us-central1/primary
