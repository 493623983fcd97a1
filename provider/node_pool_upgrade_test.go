package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Upgrade strategies from Terraform: upgrade_settings without perma-diffs, version changes with
// each strategy, returning at a blue-green soak, and the upgrade status data source.

// poolJSON is the part of a node pool the tests read from the API.
type poolJSON struct {
	Version         string `json:"version"`
	Status          string `json:"status"`
	UpgradeSettings struct {
		Strategy          string `json:"strategy"`
		MaxSurge          int    `json:"maxSurge"`
		MaxUnavailable    int    `json:"maxUnavailable"`
		BlueGreenSettings *struct {
			NodePoolSoakDuration  string `json:"nodePoolSoakDuration"`
			StandardRolloutPolicy *struct {
				BatchPercentage   *float64 `json:"batchPercentage"`
				BatchNodeCount    *int     `json:"batchNodeCount"`
				BatchSoakDuration string   `json:"batchSoakDuration"`
			} `json:"standardRolloutPolicy"`
		} `json:"blueGreenSettings"`
	} `json:"upgradeSettings"`
	UpdateInfo *struct {
		BlueGreenInfo struct {
			Phase string `json:"phase"`
		} `json:"blueGreenInfo"`
	} `json:"updateInfo"`
	InstanceGroupUrls []string `json:"instanceGroupUrls"`
}

func getPool(endpoint, cluster, pool string) (*poolJSON, error) {
	var p poolJSON
	code, err := apiGet(endpoint, "projects/"+testProject+"/locations/"+testZone+"/clusters/"+cluster+"/nodePools/"+pool, &p)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("node pool %s: HTTP %d", pool, code)
	}
	return &p, err
}

// checkPool checks the node pool as the API shows it.
func checkPool(endpoint, cluster, pool string, check func(*poolJSON) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		p, err := getPool(endpoint, cluster, pool)
		if err != nil {
			return err
		}
		return check(p)
	}
}

// advanceClock moves the emulator's clock (running every event due meanwhile).
func advanceClock(t *testing.T, endpoint, d string) {
	t.Helper()
	resp, err := http.Post(endpoint+"/emulator/v1/clock:advance", "application/json", bytes.NewReader([]byte(`{"duration":"`+d+`"}`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("clock:advance %s: HTTP %d", d, resp.StatusCode)
	}
}

// setTimeScale sets the emulator's emulated seconds per wall second.
func setTimeScale(t *testing.T, endpoint string, scale float64) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPatch, endpoint+"/emulator/v1/clock", strings.NewReader(fmt.Sprintf(`{"timeScale": %g}`, scale)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("set time scale %g: HTTP %d", scale, resp.StatusCode)
	}
}

// poolEvents lists the types of a pool's events in the emulator's event log.
func poolEvents(endpoint, cluster, pool, typ string) ([]string, error) {
	resp, err := http.Get(endpoint + "/emulator/v1/events?cluster=" + cluster + "&nodePool=" + pool + "&type=" + typ)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Events []struct {
			Message string `json:"message"`
		} `json:"events"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	var msgs []string
	for _, e := range out.Events {
		msgs = append(msgs, e.Message)
	}
	return msgs, nil
}

func usPath(rest ...string) tfjsonpath.Path {
	p := tfjsonpath.New("upgrade_settings").AtSliceIndex(0)
	for _, r := range rest {
		p = p.AtMapKey(r)
	}
	return p
}

func bgPath(rest ...string) tfjsonpath.Path {
	return usPath().AtMapKey("blue_green_settings").AtSliceIndex(0).AtMapKey(rest[0])
}

func standardPath(attr string) tfjsonpath.Path {
	return bgPath("standard_rollout_policy").AtSliceIndex(0).AtMapKey(attr)
}

// upgrade_settings never leaves a plan behind: without the block, with some attributes, with
// blue-green values the user sets and GKE's defaults for those left out
// (terraform-provider-google #13157, #16064, #17008, #17164).
func TestAccNodePool_upgradeSettingsNoPermadiff(t *testing.T) {
	ep := parallelEmulator(t)
	config := func(settings string) string {
		return providerConfig(ep) + clusterForPools("acc-us", "") + `
resource "gkesim_node_pool" "test" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-a"
  node_count = 2
` + settings + "\n}"
	}
	const res = "gkesim_node_pool.test"
	empty := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	withEmpty := func(pre ...plancheck.PlanCheck) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: pre, PostApplyPostRefresh: empty.PostApplyPostRefresh}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_node_pool"),
		Steps: []resource.TestStep{
			{
				// No block: GKE's default (SURGE 1/0) is not in state, and nothing to plan.
				Config:            config(""),
				ConfigPlanChecks:  empty,
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(res, tfjsonpath.New("upgrade_settings"), knownvalue.ListSizeExact(0))},
				Check: checkPool(ep, "acc-us", "pool-a", func(p *poolJSON) error {
					if us := p.UpgradeSettings; us.Strategy != "SURGE" || us.MaxSurge != 1 || us.MaxUnavailable != 0 {
						return fmt.Errorf("upgradeSettings %+v, want GKE's default SURGE 1/0", us)
					}
					return nil
				}),
			},
			{
				// A new block with only max_surge: the rest planned as GKE's defaults, known.
				Config: config(`upgrade_settings {
    max_surge = 2
  }`),
				ConfigPlanChecks: withEmpty(
					plancheck.ExpectKnownValue(res, usPath("strategy"), knownvalue.StringExact("SURGE")),
					plancheck.ExpectKnownValue(res, usPath("max_unavailable"), knownvalue.Int64Exact(0)),
				),
			},
			{
				Config: config(`upgrade_settings {
    max_surge       = 2
    max_unavailable = 2
  }`),
				ConfigPlanChecks: empty,
			},
			{
				// Only max_surge changes: max_unavailable stays 2 (#13157), in the plan and on GKE.
				Config: config(`upgrade_settings {
    max_surge = 3
  }`),
				ConfigPlanChecks: withEmpty(plancheck.ExpectKnownValue(res, usPath("max_unavailable"), knownvalue.Int64Exact(2))),
				Check: checkPool(ep, "acc-us", "pool-a", func(p *poolJSON) error {
					if us := p.UpgradeSettings; us.MaxSurge != 3 || us.MaxUnavailable != 2 {
						return fmt.Errorf("upgradeSettings %+v, want maxSurge 3 and maxUnavailable still 2", us)
					}
					return nil
				}),
			},
			{
				// Blue-green with a batch percentage only: the soaks are GKE's defaults, known at plan.
				Config: config(`upgrade_settings {
    strategy = "BLUE_GREEN"
    blue_green_settings {
      standard_rollout_policy {
        batch_percentage = 0.3
      }
    }
  }`),
				ConfigPlanChecks: withEmpty(
					plancheck.ExpectKnownValue(res, bgPath("node_pool_soak_duration"), knownvalue.StringExact("3600s")),
					plancheck.ExpectKnownValue(res, standardPath("batch_soak_duration"), knownvalue.StringExact("0s")),
					plancheck.ExpectKnownValue(res, standardPath("batch_node_count"), knownvalue.Null()),
				),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, standardPath("batch_percentage"), knownvalue.Float64Exact(0.3)),
				},
			},
			{
				// Values the user sets are sent and read back (#17008), whatever was there before.
				Config: config(`upgrade_settings {
    strategy = "BLUE_GREEN"
    blue_green_settings {
      node_pool_soak_duration = "600s"
      standard_rollout_policy {
        batch_node_count    = 2
        batch_soak_duration = "60s"
      }
    }
  }`) + `
data "gkesim_node_pool" "test" {
  cluster    = gkesim_cluster.c.name
  name       = gkesim_node_pool.test.name
  depends_on = [gkesim_node_pool.test]
}`,
				ConfigPlanChecks: withEmpty(plancheck.ExpectKnownValue(res, standardPath("batch_percentage"), knownvalue.Null())),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gkesim_node_pool.test", tfjsonpath.New("upgrade_settings"), knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"strategy": knownvalue.StringExact("BLUE_GREEN"), "max_surge": knownvalue.Int64Exact(3), "max_unavailable": knownvalue.Int64Exact(2),
						"blue_green_settings": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
							"node_pool_soak_duration":   knownvalue.StringExact("600s"),
							"autoscaled_rollout_policy": knownvalue.Null(),
							"standard_rollout_policy": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
								"batch_percentage": knownvalue.Null(), "batch_node_count": knownvalue.Int64Exact(2), "batch_soak_duration": knownvalue.StringExact("60s"),
							})}),
						})}),
					})})),
				},
				Check: checkPool(ep, "acc-us", "pool-a", func(p *poolJSON) error {
					bg := p.UpgradeSettings.BlueGreenSettings
					if p.UpgradeSettings.Strategy != "BLUE_GREEN" || bg == nil || bg.NodePoolSoakDuration != "600s" || bg.StandardRolloutPolicy == nil ||
						bg.StandardRolloutPolicy.BatchNodeCount == nil || *bg.StandardRolloutPolicy.BatchNodeCount != 2 ||
						bg.StandardRolloutPolicy.BatchPercentage != nil || bg.StandardRolloutPolicy.BatchSoakDuration != "60s" {
						b, _ := json.Marshal(p.UpgradeSettings)
						return fmt.Errorf("upgradeSettings %s, want BLUE_GREEN with the configured values", b)
					}
					return nil
				}),
			},
			{
				ResourceName: res, ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"timeouts", "management"}, // GKE reports it; the configuration leaves it out
			},
			{
				// Back to surge: the blue-green settings go, max_surge and max_unavailable stay.
				Config: config(`upgrade_settings {
    strategy = "SURGE"
  }`),
				ConfigPlanChecks: withEmpty(plancheck.ExpectKnownValue(res, usPath("max_surge"), knownvalue.Int64Exact(3))),
				Check: checkPool(ep, "acc-us", "pool-a", func(p *poolJSON) error {
					if us := p.UpgradeSettings; us.Strategy != "SURGE" || us.BlueGreenSettings != nil || us.MaxSurge != 3 || us.MaxUnavailable != 2 {
						return fmt.Errorf("upgradeSettings %+v, want SURGE 3/2 without blue-green settings", us)
					}
					return nil
				}),
			},
			{
				// Removing the block leaves GKE's settings as they are.
				Config:           config(""),
				ConfigPlanChecks: empty,
				Check: checkPool(ep, "acc-us", "pool-a", func(p *poolJSON) error {
					if us := p.UpgradeSettings; us.MaxSurge != 3 || us.MaxUnavailable != 2 {
						return fmt.Errorf("upgradeSettings %+v, want them left at 3/2", us)
					}
					return nil
				}),
			},
		},
	})
}

// Mistakes local to upgrade_settings fail at plan time, before any request.
func TestAccNodePool_upgradeSettingsPlanErrors(t *testing.T) {
	bg := func(inner string) string {
		return "upgrade_settings {\nstrategy = \"BLUE_GREEN\"\nblue_green_settings {\n" + inner + "\n}\n}"
	}
	// Terraform wraps messages: a space in a pattern matches any run of white space.
	ws := func(cases []planErrorCase) []planErrorCase {
		for i := range cases {
			cases[i].want = strings.ReplaceAll(cases[i].want, " ", `\s+`)
		}
		return cases
	}
	testPlanErrors(t, "gkesim_node_pool", ws([]planErrorCase{
		{`upgrade_settings { strategy = "ROLLING" }`, `(?s)strategy.*value must be one of`},
		{"upgrade_settings {\nmax_surge = 0\nmax_unavailable = 0\n}", `(?s)No upgrade concurrency.*at least one of them must be greater than zero`},
		{"upgrade_settings {\nstrategy = \"BLUE_GREEN\"\nmax_surge = 0\nmax_unavailable = 0\n}", `(?s)No upgrade concurrency.*BLUE_GREEN pool still upgrades with surge`},
		{`upgrade_settings { max_unavailable = -1 }`, `(?s)max_unavailable.*must be at least 0`},
		{"upgrade_settings {\nblue_green_settings {}\n}", `(?s)blue_green_settings only applies to strategy = "BLUE_GREEN"`},
		{bg("standard_rollout_policy {}\nautoscaled_rollout_policy {}"), `only one of standard_rollout_policy and autoscaled_rollout_policy`},
		{bg("standard_rollout_policy {\nbatch_percentage = 0.5\nbatch_node_count = 2\n}"), `only one of batch_percentage and batch_node_count`},
		{bg("standard_rollout_policy {\nbatch_percentage = 1.5\n}"), `(?s)batch_percentage.*must be between 0.* and 1`},
		{bg("standard_rollout_policy {\nbatch_node_count = -1\n}"), `(?s)batch_node_count.*must be at least 0`},
		{bg(`node_pool_soak_duration = "1h"`), `(?s)"1h" is not a duration in seconds`},
		{bg(`node_pool_soak_duration = "604801s"`), `(?s)at most 7 days`},
		{bg("standard_rollout_policy {\nbatch_soak_duration = \"-5s\"\n}"), `not a duration in seconds`},
		{bg("node_pool_soak_duration = \"60s\"\nautoscaled_rollout_policy {}"), `(?s)no node pool soak phase`},
		{bg("autoscaled_rollout_policy {\nwait_for_drain_duration = \"700000s\"\n}"), `at most 7 days`},
		{`upgrade_settings { strategy = "SHORT_LIVED" }`, `(?s)SHORT_LIVED needs flex-start nodes`},
		{"node_config {\nflex_start = true\n}\nupgrade_settings { strategy = \"BLUE_GREEN\" }", `(?s)Strategy not allowed for flex-start nodes`},
		{"node_config {\nflex_start = true\n}\nupgrade_settings { max_surge = 2 }", `SHORT_LIVED has no parameters`},
	}))
}

// A rule that needs GKE's state is GKE's to check: its message reaches the user verbatim.
func TestAccNodePool_autoscaledBlueGreenNeedsAutoscaling(t *testing.T) {
	ep := parallelEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: providerConfig(ep) + clusterForPools("acc-abg", "") + `
resource "gkesim_node_pool" "test" {
  cluster = gkesim_cluster.c.name
  name    = "pool-a"
  upgrade_settings {
    strategy = "BLUE_GREEN"
    blue_green_settings {
      autoscaled_rollout_policy {}
    }
  }
}`,
			ExpectError: regexp.MustCompile(`(?s)autoscaled\s+blue-green\s+upgrades\s+need\s+the\s+cluster\s+autoscaler\s+on\s+the\s+node\s+pool;\s+enable\s+autoscaling\s+first\s+\(see\s+https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-abg-1\)`),
		}},
	})
}

// Changing version upgrades the nodes with the pool's strategy; the apply waits for the end and
// the plan after it is empty.
func TestAccNodePool_upgradeStrategies(t *testing.T) {
	cases := []struct {
		name, settings, nodeConfig string
		// events a pool's upgrade must have logged (type, message fragment)
		eventType, event string
	}{
		{name: "surge-default", eventType: "UpgradeStarted", event: "maxSurge=1 maxUnavailable=0"},
		{name: "surge-0-2", settings: "upgrade_settings {\n    max_surge = 0\n    max_unavailable = 2\n  }", eventType: "UpgradeStarted", event: "maxSurge=0 maxUnavailable=2"},
		{name: "blue-green", settings: `upgrade_settings {
    strategy = "BLUE_GREEN"
    blue_green_settings {
      node_pool_soak_duration = "120s"
      standard_rollout_policy {
        batch_node_count    = 1
        batch_soak_duration = "10s"
      }
    }
  }`, eventType: "BlueGreenPhase", event: "DELETING_BLUE_POOL"},
		{name: "short-lived", nodeConfig: "node_config {\n    flex_start = true\n  }", eventType: "UpgradeStarted", event: "short-lived upgrade"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ep := parallelEmulator(t)
			versions := serverVersions(t, ep)
			from, to := versions[1], versions[0]
			config := func(version string) string {
				return providerConfig(ep) + clusterForPools("acc-strat", fmt.Sprintf("min_master_version = %q", to)) + fmt.Sprintf(`
resource "gkesim_node_pool" "test" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-a"
  node_count = 3
  version    = %q
  %s
  %s
}`, version, tc.settings, tc.nodeConfig)
			}
			nodesOn := func(v string) resource.TestCheckFunc {
				if tc.name == "short-lived" {
					// R-SL-1: the nodes keep running the old version until they are interrupted.
					return func(*terraform.State) error { return nil }
				}
				return checkNodesOnVersion(ep, "acc-strat", "pool-a", v, "e2-medium", 3)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             checkGone(ep, "gkesim_node_pool"),
				Steps: []resource.TestStep{
					{Config: config(from), Check: nodesOn(from)},
					{
						Config: config(to),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("gkesim_node_pool.test", plancheck.ResourceActionUpdate)},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("version"), knownvalue.StringExact(to)),
							statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("status"), knownvalue.StringExact("RUNNING")),
						},
						Check: resource.ComposeTestCheckFunc(nodesOn(to),
							checkPool(ep, "acc-strat", "pool-a", func(p *poolJSON) error {
								if p.Version != to || p.UpdateInfo != nil || len(p.InstanceGroupUrls) != 1 {
									return fmt.Errorf("pool after the upgrade: version %s, updateInfo %v, %d instance groups; want %s, none, 1", p.Version, p.UpdateInfo, len(p.InstanceGroupUrls), to)
								}
								return nil
							}),
							func(*terraform.State) error {
								msgs, err := poolEvents(ep, "acc-strat", "pool-a", tc.eventType)
								if err != nil {
									return err
								}
								if !strings.Contains(strings.Join(msgs, "\n"), tc.event) {
									return fmt.Errorf("%s events %q, want one with %q", tc.eventType, msgs, tc.event)
								}
								return nil
							}),
					},
				},
			})
		})
	}
}

// runningUpgrade is the name of the running UPGRADE_NODES operation of a zonal test pool.
func runningUpgrade(endpoint, cluster, pool string) (string, error) {
	var ops struct {
		Operations []struct {
			Name, OperationType, Status, TargetLink string
		} `json:"operations"`
	}
	if _, err := apiGet(endpoint, "projects/"+testProject+"/locations/"+testZone+"/operations", &ops); err != nil {
		return "", err
	}
	for _, op := range ops.Operations {
		if op.OperationType == "UPGRADE_NODES" && op.Status != "DONE" && strings.HasSuffix(op.TargetLink, "/clusters/"+cluster+"/nodePools/"+pool) {
			return op.Name, nil
		}
	}
	return "", fmt.Errorf("no running upgrade of %s/%s", cluster, pool)
}

// blueGreenPool is a 2-node blue-green pool that soaks a day, with the upgrade status data source
// read after it.
func blueGreenPool(endpoint, cluster, master, version, labels string) string {
	return providerConfig(endpoint) + clusterForPools(cluster, fmt.Sprintf("min_master_version = %q", master)) + fmt.Sprintf(`
resource "gkesim_node_pool" "test" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-a"
  node_count = 2
  version    = %q
  node_config {
    labels = %s
  }
  upgrade_settings {
    strategy = "BLUE_GREEN"
    blue_green_settings {
      node_pool_soak_duration = "86400s"
      standard_rollout_policy {
        batch_node_count = 1
      }
    }
  }
  blue_green_return_at_soak = true
}

data "gkesim_node_pool_upgrade_status" "s" {
  cluster    = gkesim_cluster.c.name
  name       = gkesim_node_pool.test.name
  depends_on = [gkesim_node_pool.test]
}
`, version, labels)
}

// With blue_green_return_at_soak the apply returns once the blue pool is drained; the upgrade
// soaks on, the plan after the apply is empty, a later apply that changes the pool waits for
// the upgrade instead of failing on GKE's "please wait", and once the emulated day has passed the
// blue pool is gone (terraform-provider-google #16770).
func TestAccNodePool_blueGreenReturnAtSoak(t *testing.T) {
	ep := parallelEmulator(t)
	versions := serverVersions(t, ep)
	from, to := versions[1], versions[0]
	const ds, res = "data.gkesim_node_pool_upgrade_status.s", "gkesim_node_pool.test"
	versionCounts := func(counts map[string]int64) knownvalue.Check {
		m := map[string]knownvalue.Check{}
		for v, n := range counts {
			m[v] = knownvalue.Int64Exact(n)
		}
		return knownvalue.MapExact(m)
	}
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_node_pool"),
		Steps: []resource.TestStep{
			{
				Config: blueGreenPool(ep, "acc-soak", to, from, `{ tier = "a" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("in_progress"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("strategy"), knownvalue.StringExact("BLUE_GREEN")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("phase"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("nodes_by_version"), versionCounts(map[string]int64{from: 2})),
				},
			},
			{
				// The apply returns in the soak; the state shows the target version. The clock
				// slows down so that the day of soak outlasts the checks (~3 minutes of wall time).
				PreConfig:        func() { setTimeScale(t, ep, 500) },
				Config:           blueGreenPool(ep, "acc-soak", to, to, `{ tier = "a" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("version"), knownvalue.StringExact(to)),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("node_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("in_progress"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("paused"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("phase"), knownvalue.StringExact("NODE_POOL_SOAKING")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("target_version"), knownvalue.StringExact(to)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("nodes_done"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("nodes_total"), knownvalue.Int64Exact(2)),
					// The drained blue nodes stay until the soak ends.
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("nodes_by_version"), versionCounts(map[string]int64{from: 2, to: 2})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("zones"), knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"zone": knownvalue.StringExact(testZone), "nodes_by_version": versionCounts(map[string]int64{from: 2, to: 2}),
					})})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("blue_instance_group_urls"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("green_instance_group_urls"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("operation"), knownvalue.StringRegexp(regexp.MustCompile(`^operation-`))),
				},
				Check: resource.ComposeTestCheckFunc(
					checkPool(ep, "acc-soak", "pool-a", func(p *poolJSON) error {
						if p.UpdateInfo == nil || p.UpdateInfo.BlueGreenInfo.Phase != "NODE_POOL_SOAKING" || p.Status != "RECONCILING" {
							return fmt.Errorf("pool after the apply: status %s, updateInfo %+v; want RECONCILING in NODE_POOL_SOAKING", p.Status, p.UpdateInfo)
						}
						return nil
					}),
					func(s *terraform.State) error {
						// The blue pool goes a day after the soak started; the upgrade ends after that.
						a := s.RootModule().Resources[ds].Primary.Attributes
						started, err1 := time.Parse(time.RFC3339, a["started_time"])
						deletion, err2 := time.Parse(time.RFC3339, a["blue_pool_deletion_start_time"])
						eta, err3 := time.Parse(time.RFC3339, a["eta"])
						if err := errors.Join(err1, err2, err3); err != nil {
							return err
						}
						if d := deletion.Sub(started); d < 24*time.Hour || d > 25*time.Hour || !eta.After(deletion) {
							return fmt.Errorf("started %s, blue pool deletion %s, ETA %s: want the deletion a day (and the soak) after the start, the ETA after it", started, deletion, eta)
						}
						return nil
					}),
			},
			{
				// 20 of the 24 hours pass; a label change then waits for the rest of the soak and
				// the blue pool deletion (GKE would refuse it meanwhile) and is applied after.
				PreConfig: func() {
					advanceClock(t, ep, "20h")
					setTimeScale(t, ep, testTimeStep)
				},
				Config:           blueGreenPool(ep, "acc-soak", to, to, `{ tier = "b" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("in_progress"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("phase"), knownvalue.Null()),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("nodes_by_version"), versionCounts(map[string]int64{to: 2})),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("status"), knownvalue.StringExact("RUNNING")),
				},
				Check: resource.ComposeTestCheckFunc(
					checkNodesOnVersion(ep, "acc-soak", "pool-a", to, "e2-medium", 2),
					checkPool(ep, "acc-soak", "pool-a", func(p *poolJSON) error {
						if p.UpdateInfo != nil || p.Version != to || len(p.InstanceGroupUrls) != 1 {
							return fmt.Errorf("pool: version %s, updateInfo %+v, %d groups; want %s, none, 1", p.Version, p.UpdateInfo, len(p.InstanceGroupUrls), to)
						}
						return nil
					})),
			},
		},
	})
}

// A cancelled blue-green upgrade pauses in its phase (R-BG-7): the plan shows the version change
// again, and applying it resumes the upgrade.
func TestAccNodePool_blueGreenCancelResume(t *testing.T) {
	ep := parallelEmulator(t)
	versions := serverVersions(t, ep)
	from, to := versions[1], versions[0]
	cancel := func() {
		op, err := runningUpgrade(ep, "acc-resume", "pool-a")
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post(ep+"/v1/projects/"+testProject+"/locations/"+testZone+"/operations/"+op+":cancel", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("cancel %s: HTTP %d", op, resp.StatusCode)
		}
	}
	const ds = "data.gkesim_node_pool_upgrade_status.s"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_node_pool"),
		Steps: []resource.TestStep{
			{Config: blueGreenPool(ep, "acc-resume", to, from, "{}")},
			{
				PreConfig: func() { setTimeScale(t, ep, 500) }, // the day of soak outlasts the steps
				Config:    blueGreenPool(ep, "acc-resume", to, to, "{}"),
			},
			{
				// Paused in the soak: GKE reports the old version, so the plan upgrades again.
				PreConfig:          cancel,
				Config:             blueGreenPool(ep, "acc-resume", to, to, "{}"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: blueGreenPool(ep, "acc-resume", to, to, "{}"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gkesim_node_pool.test", plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("in_progress"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("phase"), knownvalue.StringExact("NODE_POOL_SOAKING")),
				},
				Check: func(*terraform.State) error {
					msgs, err := poolEvents(ep, "acc-resume", "pool-a", "UpgradeResumed")
					if err != nil || len(msgs) != 1 {
						return fmt.Errorf("UpgradeResumed events %q (%v), want one", msgs, err)
					}
					return nil
				},
			},
			{
				PreConfig: func() { advanceClock(t, ep, "48h") },
				Config:    blueGreenPool(ep, "acc-resume", to, to, "{}"),
				Check:     checkNodesOnVersion(ep, "acc-resume", "pool-a", to, "e2-medium", 2),
			},
		},
	})
}
