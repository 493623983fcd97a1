package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The import round trip, for every resource of every runnable scenario: apply the scenario,
// forget every resource (`removed` blocks that do not destroy), then, in a new test case with a
// state of its own that starts empty, import every resource with an import block into the
// scenario's own configuration. The plan that imports them is empty: each resource is imported
// and nothing is created, updated or replaced; after the import is applied the plan is empty
// again.

var managedResourceRE = regexp.MustCompile(`(?m)^resource\s+"([a-z0-9_]+)"\s+"([A-Za-z0-9_-]+)"`)

// scenarioResources lists the managed resources a configuration declares (TYPE.NAME).
func scenarioResources(config string) []string {
	var out []string
	for _, m := range managedResourceRE.FindAllStringSubmatch(config, -1) {
		out = append(out, m[1]+"."+m[2])
	}
	return out
}

// forgetAll is a configuration that takes every resource out of the state and leaves it where
// it is (Terraform's `removed` block with destroy = false).
func forgetAll(provider string, addresses []string) string {
	var b strings.Builder
	b.WriteString(provider)
	for _, a := range addresses {
		fmt.Fprintf(&b, "\nremoved {\n  from = %s\n  lifecycle {\n    destroy = false\n  }\n}\n", a)
	}
	return b.String()
}

// importBlocks writes an import block for each address, with the import id that address had.
func importBlocks(ids map[string]string) string {
	var b strings.Builder
	for _, a := range slices.Sorted(maps.Keys(ids)) {
		fmt.Fprintf(&b, "\nimport {\n  to = %s\n  id = %q\n}\n", a, ids[a])
	}
	return b.String()
}

// recordIDs is a Check that records the id of every managed resource in the state.
func recordIDs(ids map[string]string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for address, rs := range s.RootModule().Resources {
			if strings.HasPrefix(address, "data.") {
				continue
			}
			if rs.Primary == nil || rs.Primary.ID == "" {
				return fmt.Errorf("%s has no id in the state", address)
			}
			ids[address] = rs.Primary.ID
		}
		return nil
	}
}

// expectImported is a plan check that the plan imports exactly the given resources, and names
// the attributes of any resource that it would change besides (ExpectEmptyPlan only names the
// resource).
type expectImported struct{ addresses []string }

func (e expectImported) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var imported []string
	var errs []error
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Change == nil {
			continue
		}
		if rc.Change.Importing != nil {
			imported = append(imported, rc.Address)
		}
		if !rc.Change.Actions.NoOp() && rc.Mode == tfjson.ManagedResourceMode {
			errs = append(errs, fmt.Errorf("%s %v: %s", rc.Address, rc.Change.Actions, strings.Join(changedPaths("", rc.Change.Before, rc.Change.After), "; ")))
		}
	}
	sort.Strings(imported)
	if want := slices.Sorted(slices.Values(e.addresses)); !slices.Equal(imported, want) {
		errs = append(errs, fmt.Errorf("the plan imports %v, want every resource of the scenario: %v", imported, want))
	}
	resp.Error = errors.Join(errs...)
}

// changedPaths lists where two JSON values differ, with both values.
func changedPaths(at string, before, after any) []string {
	bm, okB := before.(map[string]any)
	am, okA := after.(map[string]any)
	if okB && okA {
		var out []string
		for _, k := range slices.Sorted(maps.Keys(bm)) {
			out = append(out, changedPaths(at+"."+k, bm[k], am[k])...)
		}
		for _, k := range slices.Sorted(maps.Keys(am)) {
			if _, ok := bm[k]; !ok {
				out = append(out, changedPaths(at+"."+k, nil, am[k])...)
			}
		}
		return out
	}
	bl, okB := before.([]any)
	al, okA := after.([]any)
	if okB && okA && len(bl) == len(al) {
		var out []string
		for i := range bl {
			out = append(out, changedPaths(fmt.Sprintf("%s[%d]", at, i), bl[i], al[i])...)
		}
		return out
	}
	if reflect.DeepEqual(before, after) {
		return nil
	}
	return []string{fmt.Sprintf("%s: %v -> %v", strings.TrimPrefix(at, "."), before, after)}
}

// withoutOutputs drops the output blocks of a configuration: in a state that starts empty an
// output is always planned (it has no prior value), whatever the resources do.
func withoutOutputs(config string) string {
	out, _ := stripBlock(config, "output ")
	return out
}

func TestAccImportRoundTripScenarios(t *testing.T) {
	dirs, err := filepath.Glob("../examples/scenarios/*")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || filepath.Base(dir) == otherProviderExample {
			continue
		}
		ran++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			ep := testEmulator(t)
			config := exampleConfig(t, dir, ep)
			addresses := scenarioResources(config)
			if len(addresses) == 0 {
				t.Fatalf("%s declares no resource", dir)
			}
			_, providers := stripBlock(config, `provider "gkesim" {`)
			provider := strings.Join(providers, "\n")
			ids := map[string]string{}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{
					{Config: config, Check: recordIDs(ids)},
					{Config: forgetAll(provider, addresses)},
				},
			})
			if t.Failed() {
				return
			}
			if got := slices.Sorted(maps.Keys(ids)); !slices.Equal(got, slices.Sorted(slices.Values(addresses))) {
				t.Fatalf("the applied state holds %v, the configuration declares %v", got, addresses)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             checkGone(ep, "gkesim_cluster"),
				Steps: []resource.TestStep{{
					Config: withoutOutputs(config) + importBlocks(ids),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						expectImported{addresses}, plancheck.ExpectEmptyPlan(),
					}},
				}},
			})
		})
	}
	if ran < 6 {
		t.Fatalf("found %d runnable scenarios, want at least 6", ran)
	}
}

// An import cannot read the provider's own settings: right after it, wait_for_ready = true in
// the configuration plans nothing and the state keeps the default; the next update of the
// workload plans it, and after that apply the state has it.
func TestAccImportedSettingsTakeEffectWithTheNextUpdate(t *testing.T) {
	ep := testEmulator(t)
	config := func(replicas int) string {
		return providerConfig(ep) + fmt.Sprintf(`
resource "gkesim_cluster" "c" {
  name               = "acc-imported-settings"
  initial_node_count = 2
}
resource "gkesim_workload" "web" {
  cluster        = gkesim_cluster.c.name
  name           = "web"
  replicas       = %d
  cpu            = "10m"
  wait_for_ready = true
}`, replicas)
	}
	addresses := []string{"gkesim_cluster.c", "gkesim_workload.web"}
	ids := map[string]string{}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(1), Check: recordIDs(ids)},
			{Config: forgetAll(providerConfig(ep), addresses)},
		},
	})
	if t.Failed() {
		return
	}
	waitForReady := func(want bool) []statecheck.StateCheck {
		return []statecheck.StateCheck{statecheck.ExpectKnownValue("gkesim_workload.web", tfjsonpath.New("wait_for_ready"), knownvalue.Bool(want))}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_cluster"),
		Steps: []resource.TestStep{
			{
				Config: config(1) + importBlocks(ids),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectImported{addresses}, plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: waitForReady(false),
			},
			{
				Config: config(2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gkesim_workload.web", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("gkesim_workload.web", tfjsonpath.New("wait_for_ready"), knownvalue.Bool(true)),
				}},
				ConfigStateChecks: waitForReady(true),
			},
		},
	})
}
