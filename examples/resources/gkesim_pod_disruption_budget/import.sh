# `cluster` is imported as the cluster's name; a configuration that writes its id instead
# (`cluster = gkesim_cluster.primary.id`) names the same cluster, and the plan stays empty.
# Any of these forms; the short ones use the provider's project.
terraform import gkesim_pod_disruption_budget.api projects/demo-project/locations/us-central1-a/clusters/primary/namespaces/default/poddisruptionbudgets/api
terraform import gkesim_pod_disruption_budget.api demo-project/us-central1-a/primary/default/api
terraform import gkesim_pod_disruption_budget.api us-central1-a/primary/default/api
