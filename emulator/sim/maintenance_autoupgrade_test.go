package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/autoupgrade"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// upgradeSeen is one upgrade operation the simulation ran.
type upgradeSeen struct {
	op       *model.Operation
	from, to catalog.Version
	kind     model.UpgradeKind
}

func (u upgradeSeen) String() string {
	return fmt.Sprintf("%s %s %s -> %s at %s", u.kind, u.op.Pool, u.from, u.to, u.op.StartTime.Format(time.RFC3339))
}

// runMonths runs the world day by day until `until`, and returns the automatic upgrades it
// started, in order, from the cluster's records.
func runMonths(t *testing.T, w *World, c *model.Cluster, until time.Time) []upgradeSeen {
	t.Helper()
	for i := 0; w.engine.Now().Before(until) && i < 2000; i++ {
		w.RunUntil(core.MinTime(w.engine.Now().Add(model.Day), until))
	}
	var out []upgradeSeen
	for _, r := range c.AutoMaintenance.History {
		op := w.st.Operations[r.Op]
		if op == nil || op.ErrorCode != 0 || op.Status != api.OpStatusDone {
			t.Fatalf("automatic upgrade %+v did not finish: %+v", r, op)
		}
		from, _ := catalog.ParseVersion(r.From)
		to, _ := catalog.ParseVersion(r.To)
		// Never past the channel target that had reached the cluster.
		if reached := autoupgrade.ChannelTarget(c.ReleaseChannel, r.Start.Add(-autoupgrade.RolloutOffset(c))); to.Compare(reached) > 0 {
			t.Errorf("automatic upgrade %+v goes past the target %s that had reached the cluster", r, reached)
		}
		out = append(out, upgradeSeen{op: op, from: from, to: to, kind: r.Kind})
	}
	return out
}

// A REGULAR cluster with a weekday-night window (8 h from 22:00 UTC, Monday to Friday) follows
// its channel's target over six emulated months, and every automatic upgrade starts inside the
// window (R-MW-1).
func TestAutoUpgradesOnlyInsideTheWindow(t *testing.T) {
	w, c := maintenanceCluster(t, testStart)
	setPolicy(t, w, c, &api.MaintenanceWindow{RecurringWindow: recurring("2026-11-02T22:00:00Z", "2026-11-03T06:00:00Z", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")})
	ws := maintenance.NewWindowSchedule(c.MaintenancePolicy)
	start := c.MasterVersion
	ups := runMonths(t, w, c, testStart.AddDate(0, 6, 0))

	count := map[model.UpgradeKind]int{}
	for _, u := range ups {
		count[u.kind]++
		at := u.op.StartTime
		if ss := ws.Spans(at, at.Add(time.Second)); len(ss) == 0 || ss[0].Start.After(at) {
			t.Errorf("%s started outside the window", u)
		}
		if wd := at.Add(-22 * time.Hour).Weekday(); wd == time.Saturday || wd == time.Sunday {
			t.Errorf("%s started on a weekend night", u)
		}
	}
	// Six months of the Regular channel: a patch every four weeks, and the minors that become
	// its default in December (1.37) and April (1.38).
	if count[model.ControlPlanePatch] < 6 || count[model.ControlPlaneMinor] != 2 || count[model.NodePatch] < 6 || count[model.NodeMinor] != 2 {
		t.Errorf("automatic upgrades %v, want at least 6 patches and exactly 2 minors of the control plane and of the nodes:\n%v", count, ups)
	}
	target := autoupgrade.ChannelTarget(api.ChannelRegular, w.engine.Now().Add(-autoupgrade.RolloutSpread))
	if master, _ := catalog.ParseVersion(c.MasterVersion); master.Compare(target) < 0 || c.Pools[0].Spec.Version != c.MasterVersion {
		t.Errorf("after six months: control plane %s (from %s), nodes %s; the channel's target is %s", c.MasterVersion, start, c.Pools[0].Spec.Version, target)
	}
}

// With a NO_MINOR_UPGRADES exclusion the cluster takes patches but no minor until the exclusion
// expires (R-EX-1); three minors behind by then, it catches up one minor a month (R-EX-5),
// nodes following the control plane.
func TestNoMinorUpgradesThenOneMinorAMonth(t *testing.T) {
	w, c := maintenanceCluster(t, testStart, func(in *api.Cluster) { in.InitialClusterVersion = "1.35" })
	expiry := ts("2027-04-30T00:00:00Z") // within 180 days, before 1.35's end of support (2027-05-17)
	setPolicy(t, w, c, &api.MaintenanceWindow{MaintenanceExclusions: map[string]*api.TimeWindow{
		"api-migration": exclusion(testStart.Format(time.RFC3339), expiry.Format(time.RFC3339), api.ScopeNoMinorUpgrades)}})
	ups := runMonths(t, w, c, ts("2027-08-01T00:00:00Z"))

	var minors []upgradeSeen
	patches := map[model.UpgradeKind]int{}
	for _, u := range ups {
		isMinor := u.to.Minor != u.from.Minor
		if isMinor != (u.kind == model.ControlPlaneMinor || u.kind == model.NodeMinor) {
			t.Errorf("%s: kind does not match the versions", u)
		}
		switch {
		case !isMinor && u.op.StartTime.Before(expiry):
			patches[u.kind]++
		case isMinor && u.op.StartTime.Before(expiry):
			t.Errorf("%s: a minor upgrade during the NO_MINOR_UPGRADES exclusion", u)
		case u.kind == model.ControlPlaneMinor:
			minors = append(minors, u)
		}
	}
	if patches[model.ControlPlanePatch] < 4 || patches[model.NodePatch] < 4 {
		t.Errorf("patches during the exclusion: %v, want at least 4 of the control plane and of the nodes:\n%v", patches, ups)
	}
	// 1.35 -> 1.36 as the exclusion ends, then 1.37 and 1.38 a month apart each.
	if len(minors) != 3 || minors[0].from.Minor != 35 || minors[2].to.Minor != 38 {
		t.Fatalf("control-plane minor upgrades after the exclusion: %v, want 1.35 -> 1.36 -> 1.37 -> 1.38", minors)
	}
	if d := minors[0].op.StartTime.Sub(expiry); d < 0 || d > time.Hour {
		t.Errorf("first minor upgrade %s after the exclusion expired, want at once", d)
	}
	for i := 1; i < len(minors); i++ {
		if d := minors[i].op.StartTime.Sub(minors[i-1].op.StartTime); d < 30*model.Day || d > 31*model.Day {
			t.Errorf("minor upgrades %s apart (%s, %s), want one a month", d, minors[i-1], minors[i])
		}
	}
	for _, m := range minors {
		if !nodesFollowed(ups, m) {
			t.Errorf("node pool did not follow %s before the next minor upgrade:\n%v", m, ups)
		}
	}
	if c.Pools[0].Spec.Version != c.MasterVersion {
		t.Errorf("node pool on %s, control plane on %s", c.Pools[0].Spec.Version, c.MasterVersion)
	}
}

// nodesFollowed says whether a node minor upgrade to the control plane's new minor followed m.
func nodesFollowed(ups []upgradeSeen, m upgradeSeen) bool {
	for _, u := range ups {
		if u.kind == model.NodeMinor && u.to.Minor == m.to.Minor && u.op.StartTime.After(m.op.StartTime) {
			return true
		}
	}
	return false
}

// A NO_UPGRADES exclusion holds everything; after it the pending rollout runs at once.
func TestNoUpgradesExclusionHoldsTheRollout(t *testing.T) {
	w, c := maintenanceCluster(t, testStart)
	// The Regular target changes on 2026-11-15; hold 2026-11-10 .. 2026-12-05.
	setPolicy(t, w, c, &api.MaintenanceWindow{MaintenanceExclusions: map[string]*api.TimeWindow{
		"freeze": exclusion("2026-11-10T00:00:00Z", "2026-12-05T00:00:00Z", "")}})
	ups := runMonths(t, w, c, ts("2026-12-10T00:00:00Z"))
	if len(ups) < 2 {
		t.Fatalf("upgrades %v, want the control plane and the nodes after the freeze", ups)
	}
	for _, u := range ups {
		if u.op.StartTime.Before(ts("2026-12-05T00:00:00Z")) {
			t.Errorf("%s ran during the NO_UPGRADES exclusion", u)
		}
	}
	if ups[0].kind != model.ControlPlanePatch || !ups[0].op.StartTime.Equal(ts("2026-12-05T00:00:00Z")) {
		t.Errorf("first upgrade %s, want the control-plane patch as the freeze ends", ups[0])
	}
	info, err := w.autoupgrade.ClusterUpgradeInfo("proj", "us-central1-a", "c1")
	if err != nil || len(info.UpgradeDetails) != len(ups) || info.UpgradeDetails[0].State != "SUCCEEDED" || info.UpgradeDetails[0].StartType != "AUTOMATIC" {
		t.Errorf("upgrade info %+v (%v), want the %d automatic upgrades", info, err, len(ups))
	}
}

// R-MW-4: node auto-repair is not governed by the policy: a node failing outside the window and
// during a NO_UPGRADES exclusion is repaired in about ten minutes under AUTO_REPAIR_NODES; in a
// pool without auto-repair it stays NotReady.
func TestNodeAutoRepairIgnoresMaintenancePolicy(t *testing.T) {
	for _, autoRepair := range []bool{true, false} {
		t.Run(fmt.Sprintf("autoRepair=%v", autoRepair), func(t *testing.T) {
			w, c := maintenanceCluster(t, testStart, func(in *api.Cluster) {
				in.ReleaseChannel = &api.ReleaseChannel{Channel: api.ChannelUnspecified}
				in.NodePools[0].Management = &api.NodeManagement{AutoUpgrade: true, AutoRepair: autoRepair}
			})
			now := w.engine.Now()
			setPolicy(t, w, c, &api.MaintenanceWindow{
				RecurringWindow: recurring(now.Add(12*time.Hour).Format(time.RFC3339), now.Add(20*time.Hour).Format(time.RFC3339), "FREQ=DAILY"),
				MaintenanceExclusions: map[string]*api.TimeWindow{
					"freeze": exclusion(now.Add(-time.Hour).Format(time.RFC3339), now.Add(5*model.Day).Format(time.RFC3339), "")}})
			if ok, _ := w.maintenance.MaintenanceAllows(c, model.NodeDisruption, w.engine.Now()); ok {
				t.Fatal("the policy allows node disruption now; the test needs it not to")
			}
			victim := core.SortedNodeNames(c)[0]
			if _, err := w.autoupgrade.FailNode("proj", "us-central1-a", "c1", victim); err != nil {
				t.Fatal(err)
			}
			if ready := nodeCondition(w.core.RenderK8sNode(c, c.Nodes[victim]), corev1.NodeReady); ready.Status != "Unknown" || !c.Nodes[victim].Unschedulable {
				t.Fatalf("failed node reads Ready=%s, unschedulable=%v", ready.Status, c.Nodes[victim].Unschedulable)
			}
			advance(w, 30*time.Minute)
			var repairs []*model.Operation
			for _, op := range w.core.ListOperations("proj", "us-central1-a") {
				if op.Type == api.OpAutoRepairNodes {
					repairs = append(repairs, op)
				}
			}
			if !autoRepair {
				if len(repairs) != 0 || c.Nodes[victim] == nil || !c.NodeFailed(victim) {
					t.Fatalf("without auto-repair: repairs %v, node %v", repairs, c.Nodes[victim])
				}
				return
			}
			if len(repairs) != 1 || repairs[0].Status != api.OpStatusDone || repairs[0].ErrorCode != 0 {
				t.Fatalf("repairs %+v, want one AUTO_REPAIR_NODES done", repairs)
			}
			if d := repairs[0].StartTime.Sub(now); d < autoupgrade.AutoRepairDetection || d > autoupgrade.AutoRepairDetection+time.Minute {
				t.Errorf("repair started %s after the failure, want about %s", d, autoupgrade.AutoRepairDetection)
			}
			if c.Nodes[victim] != nil || len(c.Nodes) != 2 || c.NodeFailed(victim) {
				t.Errorf("after the repair: failed node present=%v, %d nodes", c.Nodes[victim] != nil, len(c.Nodes))
			}
			for _, n := range c.Nodes {
				if n.State != model.NodeReady {
					t.Errorf("node %s is %s after the repair", n.Name, n.State)
				}
			}
		})
	}
}

// nodeCondition finds a node's condition of type t.
func nodeCondition(n *corev1.Node, t corev1.NodeConditionType) corev1.NodeCondition {
	for _, c := range n.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return corev1.NodeCondition{}
}

// R-MW-4: a minor at its end of support is upgraded whatever the policy, on the control plane
// and then on the nodes. A 1.35 cluster held on its minor (NO_MINOR_OR_NODE_UPGRADES until end
// of support) and frozen from a week before 1.35's end of support (2027-05-17) for 26 days
// (NO_UPGRADES) has its control plane moved to 1.36 at the end of support and its node pool
// right after, both during the freeze; nothing else runs in the freeze.
func TestEndOfSupportUpgradesIgnoreThePolicy(t *testing.T) {
	w, c := maintenanceCluster(t, testStart, func(in *api.Cluster) { in.InitialClusterVersion = "1.35" })
	_, eos := w.maintenance.EndOfSupport(c)
	freezeStart, freezeEnd := ts("2027-05-10T00:00:00Z"), ts("2027-06-05T00:00:00Z")
	if !eos.After(freezeStart) || !eos.Before(freezeEnd) {
		t.Fatalf("1.35's end of support is %s, want it inside the freeze %s .. %s", eos, freezeStart, freezeEnd)
	}
	hold := exclusion(testStart.Format(time.RFC3339), "", api.ScopeNoMinorOrNodeUpgrades)
	hold.MaintenanceExclusionOptions.EndTimeBehavior = api.EndTimeUntilEndOfSupport
	setPolicy(t, w, c, &api.MaintenanceWindow{MaintenanceExclusions: map[string]*api.TimeWindow{
		"hold":   hold,
		"freeze": exclusion(freezeStart.Format(time.RFC3339), freezeEnd.Format(time.RFC3339), api.ScopeNoUpgrades)}})
	ups := runMonths(t, w, c, freezeEnd.Add(-model.Day))

	var inFreeze []upgradeSeen
	for _, u := range ups {
		if !u.op.StartTime.Before(freezeStart) {
			inFreeze = append(inFreeze, u)
		}
	}
	if len(inFreeze) != 2 || inFreeze[0].kind != model.ControlPlaneMinor || inFreeze[1].kind != model.NodeMinor {
		t.Fatalf("upgrades during the freeze: %v, want the control plane's and the node pool's mandatory 1.35 -> 1.36", inFreeze)
	}
	cp, np := inFreeze[0], inFreeze[1]
	if cp.from.Minor != 35 || cp.to.Minor != 36 || np.from.Minor != 35 || np.to.Minor != 36 {
		t.Errorf("mandatory upgrades %v, want 1.35 -> 1.36", inFreeze)
	}
	if d := cp.op.StartTime.Sub(eos); d < 0 || d > time.Hour {
		t.Errorf("control plane upgraded %s after 1.35's end of support, want within the hour", d)
	}
	if d := np.op.StartTime.Sub(cp.op.EndTime); d < 0 || d > time.Hour {
		t.Errorf("node pool upgraded %s after the control plane finished, want within the hour", d)
	}
	started := mustEvents(w, "AutoUpgradeStarted")
	mandatory := 0
	for _, e := range started {
		if strings.Contains(e.Message, "mandatory: minor at end of support") {
			mandatory++
		}
	}
	if mandatory != 2 {
		t.Errorf("%d AutoUpgradeStarted entries say the upgrade is mandatory, want 2: %v", mandatory, started)
	}
}
