# `cluster` is imported as the cluster's name; a configuration that writes its id instead
# (`cluster = gkesim_cluster.primary.id`) names the same cluster, and the plan stays empty.
# Any of these forms; the short ones use the provider's project.
terraform import gkesim_load_balancer_service.web projects/demo-project/locations/us-central1/clusters/primary/namespaces/default/services/web
terraform import gkesim_load_balancer_service.web demo-project/us-central1/primary/default/web
terraform import gkesim_load_balancer_service.web us-central1/primary/default/web
