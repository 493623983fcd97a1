# Any of these forms; the short ones use the provider's project.
terraform import gkesim_pod_disruption_budget.api projects/demo-project/locations/us-central1-a/clusters/primary/namespaces/default/poddisruptionbudgets/api
terraform import gkesim_pod_disruption_budget.api demo-project/us-central1-a/primary/default/api
terraform import gkesim_pod_disruption_budget.api us-central1-a/primary/default/api
