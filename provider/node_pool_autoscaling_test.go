package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	container "google.golang.org/api/container/v1"
)

// The cluster autoscaler from Terraform: a pool's limits (R-CA-3) and location policy (R-CA-6),
// the cluster's profile (R-CA-8), and node_count while the autoscaler owns the size.

// autoscalingJSON is a pool's autoscaling as the API shows it.
type autoscalingJSON struct {
	Enabled           bool   `json:"enabled"`
	MinNodeCount      int    `json:"minNodeCount"`
	MaxNodeCount      int    `json:"maxNodeCount"`
	TotalMinNodeCount int    `json:"totalMinNodeCount"`
	TotalMaxNodeCount int    `json:"totalMaxNodeCount"`
	LocationPolicy    string `json:"locationPolicy"`
}

// checkAutoscaling checks a pool's autoscaling on the API against want.
func checkAutoscaling(endpoint, cluster, pool string, want autoscalingJSON) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var p struct {
			Autoscaling autoscalingJSON `json:"autoscaling"`
		}
		code, err := apiGet(endpoint, "projects/"+testProject+"/locations/"+testZone+"/clusters/"+cluster+"/nodePools/"+pool, &p)
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("read node pool %s: HTTP %d: %v", pool, code, err)
		}
		if p.Autoscaling != want {
			return fmt.Errorf("pool %s autoscaling is %+v, want %+v", pool, p.Autoscaling, want)
		}
		return nil
	}
}

// What goes to GKE: the configured pair with its minimum sent even when 0 (as
// terraform-provider-google sends it), or enabled=false without a block.
func TestExpandAutoscaling(t *testing.T) {
	null := types.Int64Null()
	cases := []struct {
		name string
		in   []autoscalingModel
		want string
	}{
		{"off", nil, `{"enabled":false}`},
		{"per zone from 0", []autoscalingModel{{MinNodeCount: types.Int64Value(0), MaxNodeCount: types.Int64Value(3), TotalMinNodeCount: null, TotalMaxNodeCount: null,
			LocationPolicy: types.StringValue("ANY")}}, `{"enabled":true,"locationPolicy":"ANY","maxNodeCount":3,"minNodeCount":0}`},
		{"total, policy left to GKE", []autoscalingModel{{MinNodeCount: null, MaxNodeCount: null, TotalMinNodeCount: null, TotalMaxNodeCount: types.Int64Value(12),
			LocationPolicy: types.StringUnknown()}}, `{"enabled":true,"totalMaxNodeCount":12,"totalMinNodeCount":0}`},
	}
	for _, tc := range cases {
		b, err := json.Marshal(expandAutoscaling(tc.in))
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: got %s (%v), want %s", tc.name, b, err, tc.want)
		}
	}
}

// GKE omits counts of 0: they read back as the configuration has them (null or 0); an import
// and the data source set the pair in use; autoscaling off is no block.
func TestFlattenAutoscaling(t *testing.T) {
	gke := &container.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 3, LocationPolicy: "BALANCED"}
	null := types.Int64Null()
	cases := []struct {
		name  string
		gke   *container.NodePoolAutoscaling
		prior []autoscalingModel
		mode  blockMode
		want  []autoscalingModel
	}{
		{"min left out stays null", gke, []autoscalingModel{{MinNodeCount: null, MaxNodeCount: types.Int64Value(3)}}, blocksAsConfigured,
			[]autoscalingModel{{MinNodeCount: null, MaxNodeCount: types.Int64Value(3), TotalMinNodeCount: null, TotalMaxNodeCount: null, LocationPolicy: types.StringValue("BALANCED")}}},
		{"min 0 stays 0", gke, []autoscalingModel{{MinNodeCount: types.Int64Value(0), MaxNodeCount: types.Int64Value(3)}}, blocksAsConfigured,
			[]autoscalingModel{{MinNodeCount: types.Int64Value(0), MaxNodeCount: types.Int64Value(3), TotalMinNodeCount: null, TotalMaxNodeCount: null, LocationPolicy: types.StringValue("BALANCED")}}},
		{"import sets the pair in use", gke, nil, blocksOnImport,
			[]autoscalingModel{{MinNodeCount: types.Int64Value(0), MaxNodeCount: types.Int64Value(3), TotalMinNodeCount: null, TotalMaxNodeCount: null, LocationPolicy: types.StringValue("BALANCED")}}},
		{"off in the resource", &container.NodePoolAutoscaling{}, []autoscalingModel{{MaxNodeCount: types.Int64Value(3)}}, blocksAsConfigured, nil},
		{"off in the data source", nil, nil, blocksAlways, []autoscalingModel{}},
	}
	for _, tc := range cases {
		got := flattenAutoscaling(tc.gke, tc.prior, tc.mode)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func asPath(attr string) tfjsonpath.Path {
	return tfjsonpath.New("autoscaling").AtSliceIndex(0).AtMapKey(attr)
}

// Autoscaling on an existing pool, per zone -> total -> per zone, import, off: each change is one
// UpdateCluster (desiredNodePoolAutoscaling) and the plan after it is empty.
func TestAccNodePool_autoscaling(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster, addr = "acc-as", "gkesim_node_pool.test"
	config := func(autoscaling string) string {
		return providerConfig(ep) + clusterForPools(cluster, "") + fmt.Sprintf(`
resource "gkesim_node_pool" "test" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-a"
  node_count = 2
  %s
}
data "gkesim_node_pool" "test" {
  cluster    = gkesim_cluster.c.name
  name       = gkesim_node_pool.test.name
  depends_on = [gkesim_node_pool.test]
}`, autoscaling)
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_node_pool"),
		Steps: []resource.TestStep{
			{
				Config: config(""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("autoscaling"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue("data.gkesim_node_pool.test", tfjsonpath.New("autoscaling"), knownvalue.ListSizeExact(0)),
				},
				Check: checkAutoscaling(ep, cluster, "pool-a", autoscalingJSON{}),
			},
			{
				// On, per zone; the location policy is planned as GKE's default for a non-Spot pool.
				Config: config("autoscaling {\n    min_node_count = 1\n    max_node_count = 4\n  }"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, asPath("location_policy"), knownvalue.StringExact("BALANCED")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("autoscaling").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"min_node_count": knownvalue.Int64Exact(1), "max_node_count": knownvalue.Int64Exact(4),
						"total_min_node_count": knownvalue.Null(), "total_max_node_count": knownvalue.Null(),
						"location_policy": knownvalue.StringExact("BALANCED"),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_count"), knownvalue.Int64Exact(2)),
				},
				Check: checkAutoscaling(ep, cluster, "pool-a", autoscalingJSON{Enabled: true, MinNodeCount: 1, MaxNodeCount: 4, LocationPolicy: "BALANCED"}),
			},
			{
				// Total limits for the whole pool, and the other location policy.
				Config:           config("autoscaling {\n    total_min_node_count = 2\n    total_max_node_count = 6\n    location_policy = \"ANY\"\n  }"),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, asPath("total_max_node_count"), knownvalue.Int64Exact(6)),
					statecheck.ExpectKnownValue(addr, asPath("max_node_count"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.gkesim_node_pool.test", tfjsonpath.New("autoscaling").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"min_node_count": knownvalue.Null(), "max_node_count": knownvalue.Null(),
						"total_min_node_count": knownvalue.Int64Exact(2), "total_max_node_count": knownvalue.Int64Exact(6),
						"location_policy": knownvalue.StringExact("ANY"),
					})),
				},
				Check: checkAutoscaling(ep, cluster, "pool-a", autoscalingJSON{Enabled: true, TotalMinNodeCount: 2, TotalMaxNodeCount: 6, LocationPolicy: "ANY"}),
			},
			{
				// Back to per zone, from 0; location_policy left out keeps ANY.
				Config: config("autoscaling {\n    min_node_count = 0\n    max_node_count = 3\n  }"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, asPath("location_policy"), knownvalue.StringExact("ANY")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, asPath("min_node_count"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(addr, asPath("total_max_node_count"), knownvalue.Null()),
				},
				Check: checkAutoscaling(ep, cluster, "pool-a", autoscalingJSON{Enabled: true, MaxNodeCount: 3, LocationPolicy: "ANY"}),
			},
			{
				// The autoscaler has removed the pool's unneeded second node meanwhile (R-CA-2):
				// the state kept node_count = 2 without a diff, and so does an import (the size the
				// pool was created with). GKE reports management; the configuration leaves it out.
				ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "management"},
			},
			{
				// Off: GKE answers "autoscaling": {} and the block is gone.
				Config:           config(""),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("autoscaling"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_count"), knownvalue.Int64Exact(2)),
				},
				Check: checkAutoscaling(ep, cluster, "pool-a", autoscalingJSON{}),
			},
		},
	})
}

// A pool created with autoscaling sends it in the create request; a Spot pool's location policy
// is planned as ANY, an on-demand pool's as BALANCED (R-CA-6), also when a change of spot
// replaces the pool.
func TestAccNodePool_autoscalingAtCreate(t *testing.T) {
	ep := parallelEmulator(t)
	const addr = "gkesim_node_pool.p"
	config := func(spot bool) string {
		return providerConfig(ep) + clusterForPools("acc-as-create", "") + fmt.Sprintf(`
resource "gkesim_node_pool" "p" {
  cluster            = gkesim_cluster.c.name
  name               = "pool-a"
  initial_node_count = 0
  node_config {
    spot = %t
  }
  autoscaling {
    total_max_node_count = 10
  }
}`, spot)
	}
	planned := func(action plancheck.ResourceActionType, policy string) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, action),
			plancheck.ExpectKnownValue(addr, asPath("location_policy"), knownvalue.StringExact(policy)),
		}}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:           config(true),
				ConfigPlanChecks: planned(plancheck.ResourceActionCreate, "ANY"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, asPath("total_min_node_count"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("initial_node_count"), knownvalue.Int64Exact(0)),
				},
				Check: checkAutoscaling(ep, "acc-as-create", "pool-a", autoscalingJSON{Enabled: true, TotalMaxNodeCount: 10, LocationPolicy: "ANY"}),
			},
			{
				Config:           config(false),
				ConfigPlanChecks: planned(plancheck.ResourceActionDestroyBeforeCreate, "BALANCED"),
				Check:            checkAutoscaling(ep, "acc-as-create", "pool-a", autoscalingJSON{Enabled: true, TotalMaxNodeCount: 10, LocationPolicy: "BALANCED"}),
			},
		},
	})
}

// scaleConfig is a cluster with an e2-standard-4 pool pool-a, a workload web of replicas pods
// of 1 CPU on it (the apply waits until they are ready), and pool-a's data source read after
// both.
func scaleConfig(ep, cluster, profile, nodeCount, autoscaling string, replicas int) string {
	return providerConfig(ep) + clusterForPools(cluster, fmt.Sprintf("cluster_autoscaling {\n    autoscaling_profile = %q\n  }", profile)) + fmt.Sprintf(`
resource "gkesim_node_pool" "a" {
  cluster = gkesim_cluster.c.name
  name    = "pool-a"
  %s
  node_config {
    machine_type = "e2-standard-4"
  }
  %s
}
resource "gkesim_workload" "web" {
  cluster        = gkesim_cluster.c.name
  name           = "web"
  replicas       = %d
  cpu            = "1"
  memory         = "256Mi"
  wait_for_ready = true
  node_selector  = { "cloud.google.com/gke-nodepool" = gkesim_node_pool.a.name }
}
data "gkesim_node_pool" "a" {
  cluster    = gkesim_cluster.c.name
  name       = gkesim_node_pool.a.name
  depends_on = [gkesim_node_pool.a, gkesim_workload.web]
}`, nodeCount, autoscaling, replicas)
}

// nodesFor is the size pool-a needs for replicas pods of 1 CPU when fit of them fit on its first
// node: a new e2-standard-4 node (3920m allocatable, a little of it for GKE's DaemonSet pods)
// takes 3.
func nodesFor(replicas, fit int) int64 {
	return int64(1 + (replicas-fit+2)/3)
}

// A workload with more replicas than the pool's one node can run makes the autoscaler add
// nodes (R-CA-1); node_count keeps the configured 1, so the plans after the scale-up, and after
// the scale-down once the replicas are gone (R-CA-2, R-CA-8), are empty. The data source shows
// the size.
func TestAccNodePool_autoscalerOwnsNodeCount(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster, replicas = "acc-as-scale", 8
	const on = "autoscaling {\n    min_node_count = 1\n    max_node_count = 5\n  }"
	config := func(replicas int) string {
		return scaleConfig(ep, cluster, "OPTIMIZE_UTILIZATION", "node_count = 1", on, replicas)
	}
	var fit int // pods of 1 CPU pool-a's first node takes
	size := func(want func() int64) statecheck.StateCheck {
		return statecheck.ExpectKnownValue("data.gkesim_node_pool.a", tfjsonpath.New("node_count"), knownvalue.Int64Func(expectInt(func() int { return int(want()) })))
	}
	events := func(typ string, want func() int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := poolEvents(ep, cluster, "pool-a", typ)
			if err != nil || len(got) != want() {
				return fmt.Errorf("pool-a has %d %s events, want %d (%v): %v", len(got), typ, want(), err, got)
			}
			return nil
		}
	}
	peak := func() int64 { return nodesFor(replicas, fit) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            config(0),
				ConfigStateChecks: []statecheck.StateCheck{size(func() int64 { return 1 })},
			},
			{
				PreConfig: func() {
					fit = podsThatFit(t, ep, cluster, "pool-a", "1", "256Mi")
					if fit >= replicas || fit == 0 {
						t.Fatalf("one e2-standard-4 node takes %d pods of 1 CPU: the test needs some but not all %d to fit", fit, replicas)
					}
					t.Logf("pool-a's node has room for %d of the %d pods: the autoscaler should grow the pool to %d nodes", fit, replicas, peak())
				},
				// The apply waits until every replica is ready: the autoscaler has added nodes.
				Config: config(replicas),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_workload.web", tfjsonpath.New("ready_replicas"), knownvalue.Int64Exact(replicas)),
					statecheck.ExpectKnownValue("gkesim_node_pool.a", tfjsonpath.New("node_count"), knownvalue.Int64Exact(1)),
					size(peak),
				},
				Check: events("ScaleUp", func() int { return 1 }),
			},
			{
				// Time passes; the pool stays at its size; the plan stays empty.
				PreConfig:        func() { advanceClock(t, ep, "30m") },
				Config:           config(replicas),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_node_pool.a", tfjsonpath.New("node_count"), knownvalue.Int64Exact(1)),
					size(peak),
				},
			},
			{
				// No replicas: with OPTIMIZE_UTILIZATION the empty nodes go after a minute unneeded
				// (R-CA-8), down to min_node_count (R-CA-4); node_count never showed a diff.
				Config: config(0),
			},
			{
				PreConfig:        func() { advanceClock(t, ep, "30m") },
				Config:           config(0),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_node_pool.a", tfjsonpath.New("node_count"), knownvalue.Int64Exact(1)),
					size(func() int64 { return 1 }),
				},
				Check: events("ScaleDown", func() int { return int(peak()) - 1 }),
			},
		},
	})
}

// node_count next to autoscaling: a changed node_count is a one-off resize, which GKE takes
// even below the minimum (R-CA-4); removing autoscaling resizes the pool to a configured
// node_count, and a node_count left out becomes the pool's size at that moment.
func TestAccNodePool_nodeCountWithAutoscaling(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster, replicas = "acc-as-count", 8
	const on = "autoscaling {\n    min_node_count = 3\n    max_node_count = 5\n  }"
	config := func(nodeCount, autoscaling string, replicas int) string {
		return scaleConfig(ep, cluster, "BALANCED", nodeCount, autoscaling, replicas)
	}
	const pool, data = "gkesim_node_pool.a", "data.gkesim_node_pool.a"
	count := func(addr string, n int64) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_count"), knownvalue.Int64Exact(n))
	}
	fit := 0 // pods of 1 CPU pool-a's one node takes, read before the workload
	grown := func(addr string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_count"), knownvalue.Int64Func(expectInt(func() int { return int(nodesFor(replicas, fit)) })))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            config("node_count = 3", on, 0),
				ConfigStateChecks: []statecheck.StateCheck{count(pool, 3), count(data, 3)},
			},
			{
				// Below the minimum: GKE resizes, the autoscaler leaves it (nothing is pending).
				Config: config("node_count = 1", on, 0),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(pool, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{count(pool, 1), count(data, 1)},
			},
			{
				// Pending pods: the autoscaler grows the pool (from below its minimum, R-CA-4).
				PreConfig:         func() { fit = podsThatFit(t, ep, cluster, "pool-a", "1", "256Mi") },
				Config:            config("node_count = 1", on, replicas),
				ConfigStateChecks: []statecheck.StateCheck{count(pool, 1), grown(data)},
			},
			{
				// Autoscaling off: node_count = 1 owns the size again and the apply resizes to it.
				Config:            config("node_count = 1", "", replicas),
				ConfigStateChecks: []statecheck.StateCheck{count(pool, 1), count(data, 1)},
				Check: func(*terraform.State) error {
					got, err := poolEvents(ep, cluster, "pool-a", "NodePoolResizing")
					if err != nil || len(got) != 2 || got[1] != "resizing node pool pool-a to 1 nodes per zone (1 zones)" {
						return fmt.Errorf("pool-a's resizes: %q (%v), want the one of step 2 and one back to 1 node", got, err)
					}
					return nil
				},
			},
			{
				// On again with node_count left out: it keeps 1 while the autoscaler grows the pool.
				Config:            config("", on, replicas),
				ConfigStateChecks: []statecheck.StateCheck{count(pool, 1)},
			},
			{
				// Off with node_count left out: it becomes the pool's size, known after the apply.
				PreConfig: func() { advanceClock(t, ep, "10m") },
				Config:    config("", "", replicas),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectUnknownValue(pool, tfjsonpath.New("node_count"))},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					grown(pool),
					statecheck.CompareValuePairs(pool, tfjsonpath.New("node_count"), data, tfjsonpath.New("node_count"), compare.ValuesSame()),
				},
			},
		},
	})
}

// Mistakes local to autoscaling fail at plan time, naming the attribute and the rule.
func TestAccNodePool_autoscalingInvalid(t *testing.T) {
	as := func(body string) string { return "autoscaling {\n" + body + "\n}" }
	testPlanErrors(t, "gkesim_node_pool", []planErrorCase{
		{as("min_node_count = 1\nmax_node_count = 3\ntotal_max_node_count = 9"), `(?s)Per-zone and total autoscaling limits together.*mutually\s+exclusive\s+\(see\s+https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/cluster-autoscaler#r-ca-3\)`},
		{as("max_node_count = 3\ntotal_min_node_count = 1"), `Per-zone and total autoscaling limits together`},
		{as("min_node_count = 3\nmax_node_count = 2"), wrappedText("autoscaling.min_node_count (3) must be less than or equal to max_node_count (2).").String()},
		{as("total_min_node_count = 7\ntotal_max_node_count = 6"), wrappedText("autoscaling.total_min_node_count (7) must be less than or equal to total_max_node_count (6).").String()},
		{as("min_node_count = -1\nmax_node_count = 2"), wrappedText("autoscaling.min_node_count is -1; node counts must be 0 or more.").String()},
		{as("total_min_node_count = -2\ntotal_max_node_count = 2"), `(?s)Negative node count.*total_min_node_count is -2`},
		{as("max_node_count = 1001"), wrappedText("autoscaling.max_node_count is 1001; GKE allows at most 1000 (nodes per zone of a node pool).").String()},
		{as("total_max_node_count = 15001"), wrappedText("autoscaling.total_max_node_count is 15001; GKE allows at most 15000 (nodes in a cluster).").String()},
		{as(""), `(?s)No autoscaling maximum.*set max_node_count \(per zone\) or\s+total_max_node_count`},
		{as("min_node_count = 1"), wrappedText("autoscaling sets min_node_count but not max_node_count").String()},
		{as("total_min_node_count = 1"), wrappedText("autoscaling sets total_min_node_count but not total_max_node_count").String()},
		{as("min_node_count = 0\nmax_node_count = 0"), wrappedText("autoscaling.max_node_count is 0: the maximum must be at least 1").String()},
		{as("max_node_count = 3\nlocation_policy = \"ZONAL\""), `(?s)location_policy.*value must be one of`},
		{as("max_node_count = 3") + "\n" + as("max_node_count = 4"), `(?s)autoscaling.*at most 1`},
	})
}

// The cluster's autoscaling profile changes in place (desiredClusterAutoscaling); removing the
// block leaves GKE's profile as it is, and adding it back sets the configured one.
func TestAccCluster_autoscalingProfile(t *testing.T) {
	ep := parallelEmulator(t)
	const name = "acc-profile"
	config := func(block string) string {
		return providerConfig(ep) + fmt.Sprintf(`
resource "gkesim_cluster" "test" {
  name = %q
  %s
}`, name, block)
	}
	profile := func(p string) string {
		return fmt.Sprintf("cluster_autoscaling {\n    autoscaling_profile = %q\n  }", p)
	}
	checkProfile := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			var cl struct {
				Autoscaling struct {
					AutoscalingProfile string `json:"autoscalingProfile"`
				} `json:"autoscaling"`
			}
			if _, err := apiGet(ep, "projects/"+testProject+"/locations/"+testZone+"/clusters/"+name, &cl); err != nil {
				return err
			}
			if got := cl.Autoscaling.AutoscalingProfile; got != want {
				return fmt.Errorf("autoscaling profile is %q, want %q", got, want)
			}
			return nil
		}
	}
	const addr = "gkesim_cluster.test"
	inPlace := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_cluster"),
		Steps: []resource.TestStep{
			{Config: config(profile("BALANCED")), Check: checkProfile("BALANCED")},
			{
				Config: config(profile("OPTIMIZE_UTILIZATION")), ConfigPlanChecks: inPlace,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("cluster_autoscaling").AtSliceIndex(0).AtMapKey("autoscaling_profile"), knownvalue.StringExact("OPTIMIZE_UTILIZATION")),
				},
				Check: checkProfile("OPTIMIZE_UTILIZATION"),
			},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "release_channel"}},
			{
				Config: config(""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("cluster_autoscaling"), knownvalue.ListSizeExact(0)),
				},
				Check: checkProfile("OPTIMIZE_UTILIZATION"),
			},
			{Config: config(profile("BALANCED")), ConfigPlanChecks: inPlace, Check: checkProfile("BALANCED")},
		},
	})
}

// Autoscaled blue-green needs autoscaling on the pool (R-ABG-1), so one apply that turns both on
// enables autoscaling first, and one that goes back to surge and turns autoscaling off changes the
// strategy first.
func TestAccNodePool_autoscalingWithAutoscaledBlueGreen(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster, addr = "acc-as-abg", "gkesim_node_pool.test"
	config := func(body string) string {
		return providerConfig(ep) + clusterForPools(cluster, "") + fmt.Sprintf(`
resource "gkesim_node_pool" "test" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-a"
  node_count = 1
  %s
}`, body)
	}
	const abg = `autoscaling {
    max_node_count = 3
  }
  upgrade_settings {
    strategy = "BLUE_GREEN"
    blue_green_settings {
      autoscaled_rollout_policy {}
    }
  }`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("")},
			{
				Config: config(abg),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, usPath("strategy"), knownvalue.StringExact("BLUE_GREEN")),
					statecheck.ExpectKnownValue(addr, asPath("max_node_count"), knownvalue.Int64Exact(3)),
				},
				Check: checkAutoscaling(ep, cluster, "pool-a", autoscalingJSON{Enabled: true, MaxNodeCount: 3, LocationPolicy: "BALANCED"}),
			},
			{
				Config: config("upgrade_settings {\n    strategy = \"SURGE\"\n  }"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, usPath("strategy"), knownvalue.StringExact("SURGE")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("autoscaling"), knownvalue.ListSizeExact(0)),
				},
				Check: checkAutoscaling(ep, cluster, "pool-a", autoscalingJSON{}),
			},
		},
	})
}
