package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccPodDisruptionBudget_basic(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster = "acc-pdb"
	config := func(budget string) string {
		return providerConfig(ep) + `
resource "gkesim_cluster" "c" {
  name = "` + cluster + `"
}
` + budget
	}
	budget := func(field, value string) string {
		return fmt.Sprintf(`
resource "gkesim_workload" "web" {
  cluster  = gkesim_cluster.c.name
  name     = "web"
  replicas = 4
  cpu      = "20m"
}
resource "gkesim_pod_disruption_budget" "web" {
  cluster = gkesim_cluster.c.name
  name    = "web"
  selector {
    match_labels = { "app.kubernetes.io/name" = gkesim_workload.web.name }
  }
  %s = %q
}`, field, value)
	}
	const addr = "gkesim_pod_disruption_budget.web"
	status := func(expected, healthy, desired, allowed int64) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("expected_pods"), knownvalue.Int64Exact(expected)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("current_healthy"), knownvalue.Int64Exact(healthy)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("desired_healthy"), knownvalue.Int64Exact(desired)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("disruptions_allowed"), knownvalue.Int64Exact(allowed)),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkKubeGone(ep, "gkesim_pod_disruption_budget"),
		Steps: []resource.TestStep{
			{
				Config: config(budget("min_available", "3")),
				ConfigStateChecks: append(status(4, 4, 3, 1),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("projects/acc-project/locations/us-central1-a/clusters/acc-pdb/namespaces/default/poddisruptionbudgets/web")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("min_available"), knownvalue.StringExact("3")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("max_unavailable"), knownvalue.Null()),
				),
			},
			{
				// 50% of 4 unavailable: 2 healthy needed, 2 evictions allowed.
				Config: config(budget("max_unavailable", "50%")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("disruptions_allowed")),
					},
				},
				ConfigStateChecks: status(4, 4, 2, 2),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
			},
			{
				ResourceName: addr, ImportState: true, ImportStateId: "us-central1-a/acc-pdb/default/web", ImportStateVerify: true,
			},
			{
				// Destroying the workload and the budget leaves no Deployment and no pod behind.
				Config: config(""),
				Check: func(*terraform.State) error {
					if code, err := kubeGet(ep, cluster, "/apis/apps/v1/namespaces/default/deployments/web", nil); err != nil || code != 404 {
						return fmt.Errorf("deployment web: HTTP %d, %v", code, err)
					}
					if pods, err := podsOf(ep, cluster, "web", ""); err != nil || len(pods) > 0 {
						return fmt.Errorf("%d pods of web left (%v)", len(pods), err)
					}
					return nil
				},
			},
		},
	})
}

func TestAccPodDisruptionBudget_invalid(t *testing.T) {
	const selector = "selector {\n match_labels = { app = \"web\" }\n}\n"
	testPlanErrors(t, "gkesim_pod_disruption_budget", []planErrorCase{
		{selector + "min_available = \"1\"\nmax_unavailable = \"1\"", `(?s)Invalid Attribute Combination.*min_available.*max_unavailable`},
		{selector, `(?s)Missing Attribute Configuration.*Exactly one of these attributes must be configured`},
		{selector + `min_available = "150%"`, `(?s)Invalid count.*"150%"`},
		{selector + `max_unavailable = "one"`, `(?s)Invalid count.*"one"`},
		{`min_available = "1"`, `(?s)selector.*must have a configuration value`},
	})
}
