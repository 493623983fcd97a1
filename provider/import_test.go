package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// importCommand is one `terraform import ADDRESS ID` line of a docs page's import.sh.
type importCommand struct{ address, id string }

// docsImports reads the import commands a resource's docs page lists.
func docsImports(t *testing.T, dir string) []importCommand {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "import.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var out []importCommand
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && f[0] == "terraform" && f[1] == "import" {
			out = append(out, importCommand{address: f[2], id: f[3]})
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s/import.sh lists no terraform import command", dir)
	}
	return out
}

// Every resource imports with each id form its docs page lists, in the docs' own example
// configuration, and the plan after the import is empty: no replacement, no update. Each
// import is an import block planned against the applied example with the resource taken out
// of the state, so the plan shows exactly what importing would do.
func TestAccImportDocsExamples(t *testing.T) {
	dirs, err := filepath.Glob("../examples/resources/*")
	if err != nil || len(dirs) < 6 {
		t.Fatalf("resource examples %v (%v)", dirs, err)
	}
	for _, dir := range dirs {
		imports := docsImports(t, dir)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			ep := testEmulator(t)
			config := exampleConfig(t, dir, ep)
			steps := []resource.TestStep{{Config: config}}
			for _, imp := range imports {
				steps = append(steps, resource.TestStep{
					Config: config, ResourceName: imp.address, ImportState: true,
					ImportStateKind: resource.ImportBlockWithID, ImportStateId: imp.id,
					ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				})
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             checkGone(ep, "gkesim_cluster"),
				Steps:                    steps,
			})
		})
	}
}

// A cluster's name and its id are the same `cluster` reference in plan and read: switching a
// configuration from one to the other plans nothing, for a node pool and for a Kubernetes
// object; naming another cluster still replaces them.
func TestAccClusterReferenceNameOrID(t *testing.T) {
	ep := parallelEmulator(t)
	config := func(ref string) string {
		return providerConfig(ep) + fmt.Sprintf(`
resource "gkesim_cluster" "a" {
  name = "acc-ref-a"
}
resource "gkesim_cluster" "b" {
  name = "acc-ref-b"
}
resource "gkesim_node_pool" "np" {
  cluster    = %[1]s
  name       = "extra"
  node_count = 1
}
resource "gkesim_pod_disruption_budget" "pdb" {
  cluster         = %[1]s
  name            = "web"
  max_unavailable = "1"
  selector {
    match_labels = { app = "web" }
  }
}`, ref)
	}
	nothing := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_cluster"),
		Steps: []resource.TestStep{
			{Config: config("gkesim_cluster.a.name")},
			{Config: config("gkesim_cluster.a.id"), ConfigPlanChecks: nothing},
			{Config: config(`"projects/acc-project/locations/us-central1-a/clusters/acc-ref-a"`), ConfigPlanChecks: nothing},
			{Config: config(`"acc-ref-a"`), ConfigPlanChecks: nothing},
			{
				Config: config("gkesim_cluster.b.id"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gkesim_node_pool.np", plancheck.ResourceActionReplace),
					plancheck.ExpectResourceAction("gkesim_pod_disruption_budget.pdb", plancheck.ResourceActionReplace),
				}},
			},
		},
	})
}
