package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/views"
)

// Tests of the aggregate views: each is checked against the model or the event log it is
// drawn from, on the documentation's scenarios.

// spanStates lists a timeline row's states in order.
func spanStates(n *api.TimelineNode) string {
	var s []string
	for _, sp := range n.Spans {
		s = append(s, sp.State)
	}
	return strings.Join(s, ",")
}

func bandLabels(tl *api.OperationTimeline, kind string) []string {
	var out []string
	for _, b := range tl.Bands {
		if b.Kind == kind {
			out = append(out, b.Label)
		}
	}
	return out
}

// R-BG-2..4 on the timeline: the five phases in order as bands, the batches of 3, 3, 3, 1 and
// a soak after each (600 s) then the pool soak (1 h); ten blue rows cordoned, drained and
// deleted, ten green rows created and ready; the bands tile the operation without gaps.
func TestTimelineBlueGreen(t *testing.T) {
	w, c, _, to := upgradeCluster(t, bgPool("600s", "3600s"))
	mustCreateDeployment(t, w, c, deployment("web", 10, "100m"))
	advance(w, time.Minute)
	op := startUpgrade(t, w, "pool-a", to.String())
	advance(w, 20*time.Minute)
	mid, err := w.views.OperationTimeline("proj", "us-central1-a", op.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if mid.Strategy != upgrade.StrategyBlueGreen || mid.Operation.Status != api.OpStatusRunning {
		t.Fatalf("mid-upgrade timeline: strategy %q, status %q", mid.Strategy, mid.Operation.Status)
	}
	if got := bandLabels(mid, "phase"); len(got) == 0 || got[len(got)-1] != c.Pool("pool-a").Upgrade.BG.Phase {
		t.Fatalf("mid-upgrade phases %v, want the last to be the pool's phase %s", got, c.Pool("pool-a").Upgrade.BG.Phase)
	}
	runOp(t, w, op, 24*time.Hour)
	tl, err := w.views.OperationTimeline("proj", "-", op.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{model.PhaseCreatingGreen, model.PhaseCordoningBlue, model.PhaseDrainingBlue, model.PhaseSoaking, model.PhaseDeletingBlue}
	if got := bandLabels(tl, "phase"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("phase bands %v, want %v (R-BG-2)", got, want)
	}
	if got := bandLabels(tl, "batch"); fmt.Sprint(got) != "[batch 1 batch 2 batch 3 batch 4]" {
		t.Fatalf("batch bands %v, want 4 batches (R-BG-3)", got)
	}
	soaks := 0
	for _, b := range tl.Bands {
		if b.Kind != "soak" {
			continue
		}
		soaks++
		length := b.To - b.From
		if b.Label == "node pool soak" && length != 3600 || b.Label != "node pool soak" && length != 600 {
			t.Errorf("soak band %q lasts %gs, want 600 s per batch and 3600 s for the pool (R-BG-4)", b.Label, length)
		}
	}
	if soaks != 5 {
		t.Errorf("%d soak bands, want 4 batch soaks and the pool soak", soaks)
	}
	var phases []*api.TimelineBand
	for _, b := range tl.Bands {
		if b.Kind == "phase" {
			phases = append(phases, b)
		}
	}
	end, _ := time.Parse(time.RFC3339, tl.End)
	start, _ := time.Parse(time.RFC3339, tl.Start)
	for i := 1; i < len(phases); i++ {
		if phases[i].From != phases[i-1].To {
			t.Errorf("phase %s ends at %g but %s starts at %g", phases[i-1].Label, phases[i-1].To, phases[i].Label, phases[i].From)
		}
	}
	if last := phases[len(phases)-1]; last.To != end.Sub(start).Seconds() {
		t.Errorf("the last phase ends at %g, the operation at %g", last.To, end.Sub(start).Seconds())
	}
	roles := map[string]int{}
	for _, n := range tl.Nodes {
		roles[n.Role]++
		if n.Zone != "us-central1-a" {
			t.Errorf("node %s in zone %q", n.Name, n.Zone)
		}
		switch states := spanStates(n); n.Role {
		case views.TimelineOld:
			// Drained in its batch (evictions), then again in the delete phase (pods deleted,
			// R-BG-5), then deleted.
			if states != "ready,cordoned,draining,drained,draining,drained,deleting" {
				t.Errorf("blue node %s went %s, want ready,cordoned,draining,drained,draining,drained,deleting", n.Name, states)
			}
		case views.TimelineNew:
			if states != "creating,ready" {
				t.Errorf("green node %s went %s, want creating,ready", n.Name, states)
			}
		}
	}
	if roles[views.TimelineOld] != 10 || roles[views.TimelineNew] != 10 {
		t.Fatalf("rows %v, want 10 old (blue) and 10 new (green)", roles)
	}
	kinds := map[string]bool{}
	for _, m := range tl.Marks {
		kinds[m.Kind] = true
	}
	if !kinds["UpgradeStarted"] || !kinds["UpgradeDone"] {
		t.Errorf("marks %v, want UpgradeStarted and UpgradeDone", kinds)
	}
	if _, err := w.views.OperationTimeline("proj", "europe-west1", op.ID, 0); err == nil {
		t.Error("an operation asked for in another location was found")
	}
}

// R-SURGE-3/4 on the timeline: a drain a PodDisruptionBudget blocks is held from the first
// blocked eviction, and forced exactly 1 hour after the drain began; the row is then recreated
// in place (maxUnavailable) and ready again.
func TestTimelineSurgeDrainHeldThenForced(t *testing.T) {
	w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 3,
		Config: &api.NodeConfig{MachineType: "e2-standard-4"}, UpgradeSettings: &api.UpgradeSettings{MaxSurge: 0, MaxUnavailable: 1}})
	mustCreateDeployment(t, w, c, deployment("db", 1, "100m"))
	advance(w, time.Minute)
	if _, err := w.kubeapi.CreatePDB(c, "default", pdbMin("db", "100%")); err != nil {
		t.Fatal(err)
	}
	op := startUpgrade(t, w, "pool-a", to.String())
	runOp(t, w, op, 12*time.Hour)
	tl, err := w.views.OperationTimeline("proj", "us-central1-a", op.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Strategy != upgrade.StrategySurge || len(bandLabels(tl, "zone")) != 1 {
		t.Fatalf("strategy %q, zone bands %v: want SURGE with one zone", tl.Strategy, bandLabels(tl, "zone"))
	}
	forced := 0
	for _, n := range tl.Nodes {
		var drainFrom, blockedAt, forcedAt float64 = -1, -1, -1
		for _, sp := range n.Spans {
			if sp.State == api.NodeStateDraining && drainFrom < 0 {
				drainFrom = sp.From
			}
		}
		for _, m := range n.Marks {
			switch m.Kind {
			case "EvictionBlocked":
				blockedAt = m.At
			case "DrainForced":
				forcedAt = m.At
			}
		}
		if forcedAt < 0 {
			continue
		}
		forced++
		if blockedAt < drainFrom || forcedAt-drainFrom != 3600 {
			t.Errorf("node %s: drain from %g, blocked at %g, forced at %g: want forced 3600 s after the drain began (R-SURGE-3)", n.Name, drainFrom, blockedAt, forcedAt)
		}
		if states := spanStates(n); !strings.Contains(states, "draining,held,draining") || !strings.HasSuffix(states, "creating,ready") {
			t.Errorf("node %s went %s, want a held drain, forced, then recreated and ready (R-SURGE-4)", n.Name, states)
		}
	}
	// The db pod moves on to a node upgraded later, whose drain the budget holds again.
	if forced == 0 {
		t.Fatal("no forced drain, want the nodes running the db pod to be forced")
	}
}

// The cluster view counts what the model holds, per pool, zone, version and state, in the
// middle of a blue-green upgrade: blue nodes on the old version, green on the new, and the
// phase the pool reports.
func TestClusterNodeSummaryDuringBlueGreen(t *testing.T) {
	w, c, from, to := upgradeCluster(t, bgPool("600s", "3600s"))
	startUpgrade(t, w, "pool-a", to.String())
	advance(w, 15*time.Minute)
	sum, err := w.views.ClusterNodeSummary("proj", "us-central1-a", "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Pools) != 1 || sum.Pools[0].Upgrade == nil {
		t.Fatalf("pools %+v, want pool-a upgrading", sum.Pools)
	}
	pn := sum.Pools[0]
	if pn.Upgrade.Phase != c.Pool("pool-a").Upgrade.BG.Phase || pn.Upgrade.Strategy != upgrade.StrategyBlueGreen {
		t.Fatalf("upgrade %+v, want phase %s", pn.Upgrade, c.Pool("pool-a").Upgrade.BG.Phase)
	}
	got := map[string]int{}
	for _, z := range pn.Zones {
		for _, nc := range z.Counts {
			got[nc.Version+" "+nc.State] += nc.Count
		}
	}
	want := map[string]int{}
	for _, n := range c.Nodes {
		want[n.Spec.Version+" "+views.ConsoleState(c, n)]++
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	if got[from.String()+" cordoned"]+got[from.String()+" draining"] == 0 || got[to.String()+" ready"] != 10 {
		t.Fatalf("counts %v: want blue nodes cordoned or draining on %s and 10 green ready on %s", got, from, to)
	}
	if int32(sum.Cluster.CurrentNodeCount) != w.gke.RenderCluster(c, core.Links{}, "").CurrentNodeCount {
		t.Errorf("currentNodeCount %d, the cluster says %d", sum.Cluster.CurrentNodeCount, w.gke.RenderCluster(c, core.Links{}, "").CurrentNodeCount)
	}
	if fmt.Sprint(sum.Versions) != fmt.Sprint([]string{from.String(), to.String()}) {
		t.Errorf("versions %v, want %s then %s", sum.Versions, from, to)
	}
	all := w.views.ClusterSummaries()
	if len(all.Clusters) != 1 || len(all.Clusters[0].Operations) != 1 || all.Clusters[0].Operations[0].Type != api.OpUpgradeNodes {
		t.Fatalf("cluster summaries %+v, want one cluster running its upgrade", all.Clusters)
	}
}

// R-CA-1 on the autoscaler view: pending pods grow the pool; the size series starts at the size
// before and ends at the size now, each step at a node's creation; the ScaleUp decision names
// the nodes it created; the NotTriggerScaleUp decisions name their pods.
func TestAutoscalerHistoryScaleUp(t *testing.T) {
	w, c := autoscaledCluster(t, "us-central1", threeZones, &api.NodePool{Name: "auto", InitialNodeCount: 1,
		Config:      &api.NodeConfig{MachineType: "e2-standard-2"},
		Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 3}})
	since := w.engine.Now()
	mustCreateDeployment(t, w, c, deployment("web", 12, "1", onPool("auto")))
	advance(w, 10*time.Minute)
	v, err := w.views.AutoscalerHistory("proj", "us-central1", "c1", since, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ap *api.AutoscalerPool
	for _, p := range v.Pools {
		if p.Name == "auto" {
			ap = p
		}
	}
	if ap == nil || !ap.Enabled || !ap.PerZone || ap.Min != 3 || ap.Max != 9 {
		t.Fatalf("pool %+v, want auto with per-zone limits 1..3 x 3 zones = 3..9 (R-CA-3)", ap)
	}
	first, last := ap.Series[0], ap.Series[len(ap.Series)-1]
	if first[1] != 3 || last[1] != 9 || ap.Size != 9 {
		t.Fatalf("series from %v to %v (size %d), want 3 -> 9", first, last, ap.Size)
	}
	created := 0
	for _, d := range v.Decisions {
		if d.Type == "ScaleUp" && d.Pool == "auto" {
			created += len(d.Nodes)
			for _, n := range d.Nodes {
				if c.Nodes[n] == nil || c.Nodes[n].Pool != "auto" {
					t.Errorf("ScaleUp names node %s, not a node of auto", n)
				}
			}
		}
		if d.Type == "NotTriggerScaleUp" && (len(d.Pods) != 1 || c.Pods[d.Pods[0]] == nil) {
			t.Errorf("NotTriggerScaleUp %q names pods %v, want its pod", d.Message, d.Pods)
		}
	}
	if created != 6 {
		t.Errorf("the ScaleUp decisions name %d nodes, want the 6 added", created)
	}
	pending := 0
	for _, g := range v.Pending {
		pending += g.Count
	}
	if _, want := podCounts(c, "web"); pending != want {
		t.Errorf("%d pending pods in the view, %d in the model", pending, want)
	}
}

// R-EX-4a on the calendar: a daily 4-hour window gives 32 x 4 = 128 counted hours in every 32
// days; a 10-day NO_UPGRADES exclusion takes 40 of them from the periods that hold it all; a
// NO_MINOR_UPGRADES exclusion takes none. The next opening is the schedule's.
func TestMaintenanceCalendarAvailability(t *testing.T) {
	start := ts("2026-03-01T00:00:00Z")
	w, c := maintenanceCluster(t, start, func(in *api.Cluster) { in.ReleaseChannel = &api.ReleaseChannel{Channel: api.ChannelRegular} })
	setPolicy(t, w, c, &api.MaintenanceWindow{
		DailyMaintenanceWindow: &api.DailyMaintenanceWindow{StartTime: "03:00"},
		MaintenanceExclusions: map[string]*api.TimeWindow{
			"freeze": exclusion("2026-03-20T00:00:00Z", "2026-03-30T00:00:00Z", ""),
			"minor":  exclusion("2026-03-05T00:00:00Z", "2026-04-05T00:00:00Z", api.ScopeNoMinorUpgrades),
		}})
	cal, err := w.views.MaintenanceCalendar("proj", "us-central1-a", "c1", 60)
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.Rolling) != 60 || len(cal.Exclusions) != 2 || cal.Window != "daily at 03:00 UTC for 4h" {
		t.Fatalf("calendar: %d rolling days, %d exclusions, window %q", len(cal.Rolling), len(cal.Exclusions), cal.Window)
	}
	if len(cal.Occurrences) < 59 || len(cal.Occurrences) > 61 {
		t.Errorf("%d window occurrences in 60 days, want one a day", len(cal.Occurrences))
	}
	// The period from day 0 holds the whole exclusion; one from day 40 none of it.
	if h := cal.Rolling[0].Hours; h != 128-40 {
		t.Errorf("32 days from %s: %gh, want 128h - 40h of NO_UPGRADES", cal.Rolling[0].Start, h)
	}
	if h := cal.Rolling[40].Hours; h != 128 {
		t.Errorf("32 days from %s: %gh, want 128h", cal.Rolling[40].Start, h)
	}
	if cal.WorstHours != 88 || cal.RequiredHours != 48 {
		t.Errorf("worst %gh from %s (required %gh), want 88h", cal.WorstHours, cal.WorstStart, cal.RequiredHours)
	}
	for _, s := range cal.Available {
		if s.StartTime >= "2026-03-20" && s.StartTime < "2026-03-30" {
			t.Errorf("available stretch %s-%s inside the NO_UPGRADES exclusion", s.StartTime, s.EndTime)
		}
	}
	if cal.Schedule == nil || len(cal.Schedule.Windows) == 0 || cal.Occurrences[0].StartTime != cal.Schedule.Windows[0].StartTime {
		t.Errorf("first occurrence %v, schedule %+v: want the same next opening", cal.Occurrences[0], cal.Schedule)
	}
	for _, e := range cal.Exclusions {
		if e.Name == "minor" && fmt.Sprint(e.Blocks) != "[CONTROL_PLANE_MINOR NODE_MINOR]" {
			t.Errorf("NO_MINOR_UPGRADES blocks %v, want the minor upgrades only (R-EX-1)", e.Blocks)
		}
	}
}

// R-LB-6 on the load balancer history: a Local Service's backends go unhealthy when their
// serving pods move away, at the times the log says, and the spans of each backend tile the
// window without gaps.
func TestLoadBalancerHistoryFollowsHealth(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, "us-central1-a", true, &api.NodePool{Name: "pool-a", InitialNodeCount: 5, Config: &api.NodeConfig{MachineType: "e2-standard-4"}})
	mustCreateDeployment(t, w, c, deployment("web", 3, "1"))
	mustCreateService(t, w, c, lbService("tp-local", local))
	since := w.engine.Now()
	advance(w, 2*time.Minute)
	d := c.Deployments["default/web"]
	in := kuberender.RenderDeployment(d)
	in.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	if _, err := w.kubeapi.UpdateDeployment(c, "default", "web", in); err != nil {
		t.Fatal(err)
	}
	advance(w, 5*time.Minute)
	h, err := w.views.LoadBalancerHistory("proj", "us-central1-a", c.Name, since)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.LoadBalancers) != 1 || h.LoadBalancers[0].Service != "default/tp-local" {
		t.Fatalf("history of %+v, want default/tp-local", h.LoadBalancers)
	}
	now := w.engine.Now().Sub(since).Seconds()
	unhealthy := 0
	for _, b := range h.LoadBalancers[0].Backends {
		if len(b.Spans) == 0 || b.Spans[0].From != 0 || (b.Member && b.Spans[len(b.Spans)-1].To != now) {
			t.Errorf("backend %s spans %+v do not cover the window", b.Node, b.Spans)
		}
		for i, sp := range b.Spans {
			if i > 0 && sp.From != b.Spans[i-1].To {
				t.Errorf("backend %s: gap between spans %+v", b.Node, b.Spans)
			}
			if sp.State == loadbalancers.HealthUnhealthy {
				unhealthy++
			}
		}
		if b.Member && b.Health != c.Services["default/tp-local"].LB.Health[b.Node].State {
			t.Errorf("backend %s health %s, the model says %s", b.Node, b.Health, c.Services["default/tp-local"].LB.Health[b.Node].State)
		}
	}
	evs, _ := w.engine.Events(engine.EventFilter{Type: "LoadBalancerBackendUnhealthy"})
	if unhealthy == 0 || unhealthy < len(evs) {
		t.Errorf("%d unhealthy spans, %d transitions to unhealthy in the log", unhealthy, len(evs))
	}
	if len(h.LoadBalancers[0].Events) == 0 {
		t.Error("no load balancer events (EnsuredLoadBalancer, backends synced) in the history")
	}
}

// R-ABG-2/3 on the timeline: the wait for drain is a band of its own, exactly as long as
// waitForDrainDuration, between cordoning and draining the blue pool.
func TestTimelineAutoscaledBlueGreenWait(t *testing.T) {
	reg := catalog.VersionsAt(testStart).Channels[api.ChannelRegular].Valid
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, abgPool(reg[1], 3, "3600s"))
	mustCreateDeployment(t, w, c, deployment("batch", 3, "1100m", onPool("auto")))
	advance(w, time.Minute)
	op := startUpgrade(t, w, "auto", reg[0].String())
	runOp(t, w, op, 12*time.Hour)
	tl, err := w.views.OperationTimeline("proj", "us-central1-a", op.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Strategy != upgrade.StrategyAutoscaledBG {
		t.Errorf("strategy %q, want %s", tl.Strategy, upgrade.StrategyAutoscaledBG)
	}
	var wait *api.TimelineBand
	for _, b := range tl.Bands {
		if b.Kind == "wait" {
			wait = b
		}
	}
	if wait == nil || wait.To-wait.From != 3600 {
		t.Fatalf("bands %+v: want a wait band of 3600 s (R-ABG-2)", tl.Bands)
	}
	if got := bandLabels(tl, "phase"); !slices.Contains(got, model.PhaseWaitingToDrain) || !slices.Contains(got, model.PhaseDrainingBlue) {
		t.Errorf("phases %v, want the wait and the drain", got)
	}
}

// R-BG-7 on the timeline: a cancel marks the first operation and ends it in its drain phase;
// the resume is marked on the operation that continues it; a rollback after a second cancel
// is a phase band (ROLLBACK_STARTED) of the rollback's operation, with its mark.
func TestTimelineCancelResumeRollbackMarks(t *testing.T) {
	w, c, _, to := upgradeCluster(t, bgPool("600s", "3600s"))
	first := startUpgrade(t, w, "pool-a", to.String())
	advanceToPhase(t, w, c, model.PhaseDrainingBlue)
	if err := w.gke.CancelOperation("proj", "us-central1-a", first.ID); err != nil {
		t.Fatal(err)
	}
	advance(w, 30*time.Minute)
	second := startUpgrade(t, w, "pool-a", to.String())
	advance(w, 5*time.Minute)
	if err := w.gke.CancelOperation("proj", "us-central1-a", second.ID); err != nil {
		t.Fatal(err)
	}
	rb, err := w.upgrade.RollbackNodePool("proj", "us-central1-a", "c1", "pool-a", &api.RollbackNodePoolUpgradeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, rb, 3*time.Hour)
	marks := func(op *model.Operation) map[string]bool {
		tl, err := w.views.OperationTimeline("proj", "us-central1-a", op.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, m := range tl.Marks {
			out[m.Kind] = true
		}
		for _, b := range tl.Bands {
			if b.Kind == "phase" {
				out["phase "+b.Label] = true
			}
		}
		return out
	}
	if m := marks(first); !m["UpgradeCancelled"] || !m["phase "+model.PhaseDrainingBlue] {
		t.Errorf("first operation: %v, want the cancel mark in the drain phase", m)
	}
	if m := marks(second); !m["UpgradeResumed"] || !m["UpgradeCancelled"] {
		t.Errorf("resumed operation: %v, want the resume and the second cancel", m)
	}
	if m := marks(rb); !m["UpgradeRollback"] || !m["phase "+model.PhaseRollback] {
		t.Errorf("rollback operation: %v, want the rollback mark and its phase", m)
	}
}
