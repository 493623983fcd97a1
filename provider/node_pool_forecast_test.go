package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

// planWarnings is a provider server that records the warnings its plans give: Terraform shows
// them, and terraform-plugin-testing has no check for them.
type planWarnings struct {
	tfprotov6.ProviderServer
	mu       sync.Mutex
	warnings []string // "summary: detail"
}

func (p *planWarnings) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := p.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		p.mu.Lock()
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityWarning {
				p.warnings = append(p.warnings, d.Summary+": "+d.Detail)
			}
		}
		p.mu.Unlock()
	}
	return resp, err
}

// take returns the warnings recorded so far and forgets them.
func (p *planWarnings) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.warnings
	p.warnings = nil
	return w
}

func (p *planWarnings) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"gkesim": func() (tfprotov6.ProviderServer, error) {
			p.ProviderServer = providerserver.NewProtocol6(New("test")())()
			return p, nil
		},
	}
}

// forecastConfig is a 3-node zonal pool with 3 replicas of a workload under a PodDisruptionBudget
// that lets one pod go at a time, so that the drains of an upgrade wait for replacements.
func forecastConfig(endpoint, cluster, master, version, extra string) string {
	return providerConfig(endpoint) + clusterForPools(cluster, fmt.Sprintf("min_master_version = %q", master)) + fmt.Sprintf(`
resource "gkesim_node_pool" "test" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-a"
  node_count = 3
  version    = %q
}

resource "gkesim_workload" "api" {
  cluster    = gkesim_cluster.c.name
  name       = "api"
  replicas   = 3
  cpu        = "100m"
  depends_on = [gkesim_node_pool.test]
}

resource "gkesim_pod_disruption_budget" "api" {
  cluster = gkesim_cluster.c.name
  name    = "api"
  selector {
    match_labels = {
      "app.kubernetes.io/name" = gkesim_workload.api.name
    }
  }
  max_unavailable = "1"
}
%s`, version, extra)
}

// The plan of a node pool's version change warns with the forecast's headline; the plan that
// creates the pool (cluster not known yet) and a plan that changes nothing give none.
func TestAccNodePool_forecastWarning(t *testing.T) {
	ep := testEmulator(t)
	versions := serverVersions(t, ep)
	from, to := versions[1], versions[0]
	pw := &planWarnings{}
	var versionChange []string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: pw.factories(),
		Steps: []resource.TestStep{
			{Config: forecastConfig(ep, "acc-fw", to, from, "")},
			{
				Config:    forecastConfig(ep, "acc-fw", to, from, ""),
				PreConfig: func() { pw.take() }, // the creation's plans
				PlanOnly:  true,
			},
			{
				Config: forecastConfig(ep, "acc-fw", to, to, ""),
				PreConfig: func() {
					if w := forecastWarnings(pw.take()); len(w) > 0 {
						t.Errorf("plans without a change warned: %q", w)
					}
				},
				PlanOnly: true, ExpectNonEmptyPlan: true,
			},
			{
				// A forecast the emulator refuses is a one-line warning; the plan goes on.
				Config:    forecastConfig(ep, "acc-fw", to, "1.99.9-gke.9", ""),
				PreConfig: func() { versionChange = forecastWarnings(pw.take()) },
				PlanOnly:  true, ExpectNonEmptyPlan: true,
			},
		},
	})
	refused := forecastWarnings(pw.take())
	if len(refused) == 0 || !strings.Contains(refused[0], "Forecast (gkesim): could not forecast the change of pool-a: ") || strings.Contains(refused[0], "\n") {
		t.Errorf("the plan of a version the emulator does not have warned %q; want one line saying the forecast could not be made", refused)
	}
	w := versionChange
	if len(w) == 0 {
		t.Fatal("the plan of the version change gave no forecast warning")
	}
	want := fmt.Sprintf("Forecast (gkesim): recreating 3 nodes (version %s -> %s) with ", from, to)
	for _, frag := range []string{want, " takes ", "held by PDBs (longest ", " by default/api)", "0 pods forced at the 1-hour timeout", "0 pods left Pending", "peak +1 VM ("} {
		if !strings.Contains(w[0], frag) {
			t.Errorf("forecast warning %q\nwant it to contain %q", w[0], frag)
		}
	}
}

// forecastWarnings keeps the forecast warnings.
func forecastWarnings(all []string) []string {
	var out []string
	for _, w := range all {
		if i := strings.Index(w, "Forecast (gkesim): "); i >= 0 {
			out = append(out, w[i:])
		}
	}
	return out
}

// data.gkesim_node_pool_upgrade_forecast says what the version change then does when it is
// applied: its duration, the drains a PodDisruptionBudget held, the peak of extra VMs.
func TestAccNodePoolUpgradeForecast_agreesWithTheChange(t *testing.T) {
	ep := testEmulator(t)
	versions := serverVersions(t, ep)
	from, to := versions[1], versions[0]
	forecast := fmt.Sprintf(`
data "gkesim_node_pool_upgrade_forecast" "f" {
  cluster    = gkesim_cluster.c.name
  node_pool  = gkesim_node_pool.test.name
  version    = %q
  depends_on = [gkesim_pod_disruption_budget.api]
}`, to)
	got := map[string]string{}
	capture := func(attrs ...string) resource.TestCheckFunc {
		var checks []resource.TestCheckFunc
		for _, a := range attrs {
			checks = append(checks, resource.TestCheckResourceAttrWith("data.gkesim_node_pool_upgrade_forecast.f", a, func(v string) error {
				got[a] = v
				return nil
			}))
		}
		return resource.ComposeTestCheckFunc(checks...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: forecastConfig(ep, "acc-fc", to, from, forecast),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "recreates_nodes", "true"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "reasons.0", fmt.Sprintf("version %s -> %s", from, to)),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "finished", "true"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "waits_for_window", "false"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "nodes", "3"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "vms_before", "3"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "pods_forced", "0"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "pods_left_pending", "0"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "zones.#", "1"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "pdb_holds.0.pdb", "default/api"),
					capture("duration_seconds", "drains_held", "peak_extra_vms", "peak_vms", "longest_hold_seconds"),
				),
			},
			{
				// A resize to one node: nothing recreated, two of the three nodes drained.
				Config: forecastConfig(ep, "acc-fc", to, from, `
data "gkesim_node_pool_upgrade_forecast" "f" {
  cluster    = gkesim_cluster.c.name
  node_pool  = gkesim_node_pool.test.name
  node_count = 1
  depends_on = [gkesim_pod_disruption_budget.api]
}`),
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "recreates_nodes", "false"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "finished", "true"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "vms_before", "3"),
					resource.TestCheckResourceAttr("data.gkesim_node_pool_upgrade_forecast.f", "peak_extra_vms", "0"),
					resource.TestCheckResourceAttrWith("data.gkesim_node_pool_upgrade_forecast.f", "reasons.0", func(v string) error {
						if !strings.Contains(v, "resizes node pool pool-a to 1 nodes per zone") {
							return fmt.Errorf("reasons.0 = %q, want the resize named", v)
						}
						return nil
					}),
				),
			},
			{
				Config: forecastConfig(ep, "acc-fc", to, to, ""),
				Check: func(*terraform.State) error {
					did, err := upgradeDid(ep, "acc-fc", "pool-a")
					if err != nil {
						return err
					}
					t.Logf("forecast %v; the change: %+v", got, did)
					want := map[string]float64{"drains_held": float64(did.heldDrains), "peak_extra_vms": float64(did.peakExtra), "peak_vms": float64(3 + did.peakExtra)}
					for k, v := range want {
						if g, _ := strconv.ParseFloat(got[k], 64); g != v {
							return fmt.Errorf("forecast %s = %s; the change did %g", k, got[k], v)
						}
					}
					if did.heldDrains == 0 {
						return fmt.Errorf("the change had no drain held: the test's budget should hold some")
					}
					// The forecast ran at the plan, the change some emulated minutes later (the
					// clock runs at 5000x) on a cluster at rest: the same steps, to the second.
					fd, _ := strconv.ParseFloat(got["duration_seconds"], 64)
					if math.Abs(fd-did.duration.Seconds()) > 1 {
						return fmt.Errorf("forecast duration_seconds = %g; the change took %s", fd, did.duration)
					}
					return nil
				},
			},
		},
	})
}

// upgradeOutcome is what an applied upgrade of a pool did, from the emulator's event log.
type upgradeOutcome struct {
	duration   time.Duration
	heldDrains int
	peakExtra  int
}

// upgradeDid reads the last upgrade of a pool from the event log: UpgradeStarted to UpgradeDone,
// the nodes whose drains had an eviction refused, and the most VMs created and not yet deleted.
func upgradeDid(endpoint, cluster, pool string) (*upgradeOutcome, error) {
	resp, err := http.Get(endpoint + "/emulator/v1/events?cluster=" + cluster + "&nodePool=" + pool)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Events []struct {
			Time, Type, Node string
		} `json:"events"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	start := -1
	for i, e := range out.Events {
		if e.Type == "UpgradeStarted" {
			start = i
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no upgrade of %s in the event log", pool)
	}
	var o upgradeOutcome
	held := map[string]bool{}
	started, _ := time.Parse(time.RFC3339Nano, out.Events[start].Time)
	extra := 0
	for _, e := range out.Events[start:] {
		switch e.Type {
		case "EvictionBlocked":
			held[e.Node] = true
		case "NodeCreating":
			extra++
			o.peakExtra = max(o.peakExtra, extra)
		case "NodeDeleted":
			extra--
		case "UpgradeDone":
			done, _ := time.Parse(time.RFC3339Nano, e.Time)
			o.duration = done.Sub(started)
		}
	}
	if o.duration == 0 {
		return nil, fmt.Errorf("the upgrade of %s did not finish", pool)
	}
	o.heldDrains = len(held)
	return &o, nil
}

func TestForecastHeadline(t *testing.T) {
	at := time.Date(2026, 11, 3, 3, 0, 0, 0, time.UTC)
	f := &client.Forecast{
		RecreatesNodes: true, Reasons: []string{"version 1.33.4-gke.1 -> 1.33.5-gke.1"}, Strategy: "surge (max surge 1, max unavailable 0)",
		Requested: at.Add(-90 * time.Minute), Started: at, Finished: true, DurationSeconds: 3725, Nodes: 3,
		Drains: []client.ForecastDrain{{Node: "a"}, {Node: "b"}}, PDBs: []client.ForecastPDB{{PDB: "default/api", Drains: 1, LongestSeconds: 95}},
		Forced:      []client.ForecastPod{{Pod: "db-0", Why: client.ForcedPDBTimeout}, {Pod: "x", Why: "deadline"}},
		LeftPending: []client.ForecastPod{{Pod: "big"}},
		VMs:         client.ForecastVMs{Before: 3, Peak: 4, PeakExtra: 1, VMHours: 4.25},
	}
	f.Drains[0].Holds = append(f.Drains[0].Holds, struct {
		PDB             string  `json:"pdb"`
		DurationSeconds float64 `json:"durationSeconds"`
	}{PDB: "default/api", DurationSeconds: 95})
	want := "Forecast (gkesim): recreating 3 nodes (version 1.33.4-gke.1 -> 1.33.5-gke.1) with surge (max surge 1, max unavailable 0) takes 1h2m5s, " +
		"starting at 2026-11-03T03:00:00Z after waiting 1h30m for the maintenance window; 1 drain held by PDBs (longest 1m35s by default/api); " +
		"1 pod forced at the 1-hour timeout; 1 pod left Pending; peak +1 VM (4.2 VM-hours)"
	if got := forecastHeadline(f); got != want {
		t.Errorf("headline\n got %s\nwant %s", got, want)
	}
	if got := forecastHeadline(&client.Forecast{Reasons: []string{"labels only: recreates none"}}); got != "Forecast (gkesim): the change recreates no node (labels only: recreates none)." {
		t.Errorf("headline of a change that recreates none: %s", got)
	}
}
