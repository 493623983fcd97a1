package sim

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
)

// Scenario tests of the node upgrade strategies, read as the documentation's examples, with
// numbers over emulated time.

// upgradeVersions returns two node versions of one minor at the test date: from < to.
func upgradeVersions(t *testing.T, w *World) (from, to catalog.Version) {
	t.Helper()
	reg := catalog.VersionsAt(w.engine.Now()).Channels[api.ChannelRegular].Valid
	to, from = reg[0], reg[1]
	if from.Minor != to.Minor {
		t.Fatalf("no two patches of one minor in %v", reg)
	}
	return from, to
}

// upgradeCluster creates a running zonal cluster on version to with one pool on version from.
func upgradeCluster(t *testing.T, pool *api.NodePool) (*World, *model.Cluster, catalog.Version, catalog.Version) {
	t.Helper()
	w := newTestWorld(t)
	from, to := upgradeVersions(t, w)
	pool.Version = from.String()
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c1", InitialClusterVersion: to.String(), ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified},
		NodePools: []*api.NodePool{pool},
	}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	advance(w, time.Minute)
	return w, w.core.Cluster("proj", "us-central1-a", "c1"), from, to
}

func startUpgrade(t *testing.T, w *World, pool, version string) *model.Operation {
	t.Helper()
	op, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", pool, &api.UpdateNodePoolRequest{NodeVersion: version})
	if err != nil {
		t.Fatalf("UpdateNodePool: %v", err)
	}
	return op
}

func nodesOn(c *model.Cluster, pool, version string) int {
	n := 0
	for _, node := range c.Nodes {
		if node.Pool == pool && node.Spec.Version == version && node.State != model.NodeDeleting {
			n++
		}
	}
	return n
}

// R-SURGE-5: a single-zone pool of 5 nodes with maxSurge=2, maxUnavailable=1 holds between 4
// and 7 nodes throughout (sampled every 10 emulated seconds), and ends with all 5 upgraded.
func TestSurgeWorkedExampleStaysWithinFourToSeven(t *testing.T) {
	w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 5,
		UpgradeSettings: &api.UpgradeSettings{MaxSurge: 2, MaxUnavailable: 1}})
	op := startUpgrade(t, w, "pool-a", to.String())
	lo, hi, maxNew := 100, 0, 0
	for i := 0; i < 2000 && op.Status != api.OpStatusDone; i++ {
		advance(w, 10*time.Second)
		ready, vms, surge := 0, 0, 0
		for _, n := range c.Nodes {
			if n.State == model.NodeDeleting {
				continue
			}
			vms++
			if n.State != model.NodeProvisioning {
				ready++
			}
			if n.UpgradeRole == model.RoleSurge {
				surge++
			}
		}
		lo, hi, maxNew = min(lo, ready), max(hi, vms), max(maxNew, surge)
	}
	if op.Status != api.OpStatusDone || op.ErrorCode != 0 {
		t.Fatalf("upgrade %s %q", op.Status, op.StatusMessage)
	}
	if lo < 4 || hi > 7 {
		t.Fatalf("the pool held %d..%d nodes, want within 4..7 (R-SURGE-5)", lo, hi)
	}
	if maxNew != 2 {
		t.Fatalf("at most %d surge nodes at once, want exactly maxSurge=2", maxNew)
	}
	if got := nodesOn(c, "pool-a", to.String()); got != 5 || len(c.Nodes) != 5 {
		t.Fatalf("%d of %d nodes on the new version, want 5 of 5", got, len(c.Nodes))
	}
}

// R-SURGE-8: the four profiles on a 30-node pool. Fast ones (20 nodes at a time) beat the
// balanced default (one surge node at a time), which beats the slowest (one node recreated in
// place at a time); never more than 20 nodes change at once (R-SURGE-2).
func TestSurgeProfilesOrder(t *testing.T) {
	profiles := []struct {
		name           string
		surge, unavail int32
	}{
		{"balanced", 1, 0}, {"fast-no-surge", 0, 20}, {"fast-surge", 20, 0}, {"slow-no-surge", 0, 1},
	}
	took := map[string]time.Duration{}
	for _, pr := range profiles {
		w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 30,
			Config:          &api.NodeConfig{MachineType: "e2-standard-4"},
			UpgradeSettings: &api.UpgradeSettings{MaxSurge: pr.surge, MaxUnavailable: pr.unavail}})
		op := startUpgrade(t, w, "pool-a", to.String())
		start, peak := w.engine.Now(), 0
		for i := 0; i < 5000 && op.Status != api.OpStatusDone; i++ {
			advance(w, 10*time.Second)
			inFlight := 0
			for _, n := range c.Nodes {
				if n.UpgradeRole == model.RoleSurge || n.UpgradeRole == model.RoleRecreate || (n.UpgradeRole == model.RoleReplaced && n.State != model.NodeDeleting) {
					inFlight++
				}
			}
			peak = max(peak, inFlight)
		}
		if op.Status != api.OpStatusDone || nodesOn(c, "pool-a", to.String()) != 30 {
			t.Fatalf("%s: upgrade not done: %s, %d nodes upgraded", pr.name, op.Status, nodesOn(c, "pool-a", to.String()))
		}
		if peak > upgrade.MaxUpgradeConcurrency {
			t.Fatalf("%s: %d nodes in flight at once, cap is 20 (R-SURGE-2)", pr.name, peak)
		}
		took[pr.name] = w.engine.Now().Sub(start)
	}
	t.Logf("30-node upgrade took: %v", took)
	if !(took["fast-surge"] < took["balanced"] && took["fast-no-surge"] < took["balanced"] && took["balanced"] < took["slow-no-surge"]) {
		t.Fatalf("durations %v: want fast-surge, fast-no-surge < balanced < slow-no-surge (R-SURGE-8)", took)
	}
	if took["fast-surge"] > 15*time.Minute || took["slow-no-surge"] < 60*time.Minute {
		t.Fatalf("durations %v: fast profiles should take minutes, the slowest over an hour for 30 nodes", took)
	}
}

// R-SURGE-6: without capacity for a surge node the upgrade waits instead of failing, and goes on
// once capacity returns.
func TestSurgeWaitsForCapacity(t *testing.T) {
	w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 2})
	f, err := w.core.AddFault(model.Fault{Kind: core.FaultStockout, Zone: "us-central1-a"})
	if err != nil {
		t.Fatal(err)
	}
	op := startUpgrade(t, w, "pool-a", to.String())
	advance(w, 2*time.Hour)
	if op.Status != api.OpStatusRunning || nodesOn(c, "pool-a", to.String()) != 0 {
		t.Fatalf("during the stockout: op %s, %d nodes upgraded; want RUNNING and none", op.Status, nodesOn(c, "pool-a", to.String()))
	}
	waits, _ := w.engine.Events(engine.EventFilter{Type: "WaitingForCapacity"})
	if len(waits) == 0 || !strings.Contains(waits[0].Message, "GCE_STOCKOUT") {
		t.Fatalf("no WaitingForCapacity event naming GCE_STOCKOUT: %v", waits)
	}
	if err := w.core.DeleteFault(f.ID); err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	if op.ErrorCode != 0 || nodesOn(c, "pool-a", to.String()) != 2 {
		t.Fatalf("after the stockout: %q, %d upgraded", op.StatusMessage, nodesOn(c, "pool-a", to.String()))
	}
}

// R-SURGE-9: cancel, resume and rollback of a surge upgrade.
func TestSurgeCancelResumeRollback(t *testing.T) {
	w, c, from, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 6})
	op := startUpgrade(t, w, "pool-a", to.String())
	advance(w, 5*time.Minute)
	if err := w.gke.CancelOperation("proj", "us-central1-a", op.ID); err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	upgraded := nodesOn(c, "pool-a", to.String())
	if op.ErrorCode != core.CodeCancelled || upgraded == 0 || upgraded == 6 {
		t.Fatalf("after cancel: code %d, %d upgraded; want a cancelled op and a pool on two versions", op.ErrorCode, upgraded)
	}
	// Rollback returns the upgraded nodes; the others are untouched.
	untouched := map[string]bool{}
	for name, n := range c.Nodes {
		if n.Spec.Version == from.String() {
			untouched[name] = true
		}
	}
	rb, err := w.upgrade.RollbackNodePool("proj", "us-central1-a", "c1", "pool-a", &api.RollbackNodePoolUpgradeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, rb, 2*time.Hour)
	if nodesOn(c, "pool-a", from.String()) != 6 {
		t.Fatalf("after rollback %d nodes on %s, want 6", nodesOn(c, "pool-a", from.String()), from)
	}
	for name := range untouched {
		if c.Nodes[name] == nil {
			t.Fatalf("rollback recreated node %s, which was never upgraded", name)
		}
	}
	// Nothing left to roll back; a successful upgrade cannot be rolled back.
	if _, err := w.upgrade.RollbackNodePool("proj", "us-central1-a", "c1", "pool-a", nil); err == nil {
		t.Fatal("second rollback accepted")
	}
	op = startUpgrade(t, w, "pool-a", to.String())
	runOp(t, w, op, 3*time.Hour)
	if _, err := w.upgrade.RollbackNodePool("proj", "us-central1-a", "c1", "pool-a", nil); err == nil || !strings.Contains(err.Error(), "#r-surge-9") {
		t.Fatalf("rollback after a successful upgrade: %v", err)
	}
	// Resume: cancel half way, then update to the same version again.
	w2, c2, _, to2 := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 4})
	op = startUpgrade(t, w2, "pool-a", to2.String())
	advance(w2, 4*time.Minute)
	w2.gke.CancelOperation("proj", "us-central1-a", op.ID)
	runOp(t, w2, op, time.Hour)
	op = startUpgrade(t, w2, "pool-a", to2.String())
	runOp(t, w2, op, time.Hour)
	if op.ErrorCode != 0 || nodesOn(c2, "pool-a", to2.String()) != 4 {
		t.Fatalf("resumed upgrade: %q, %d of 4 upgraded", op.StatusMessage, nodesOn(c2, "pool-a", to2.String()))
	}
}

// bgPool is a 10-node pool upgraded blue-green with batches of 30%.
func bgPool(batchSoak, poolSoak string) *api.NodePool {
	pct := 0.3
	return &api.NodePool{Name: "pool-a", InitialNodeCount: 10, UpgradeSettings: &api.UpgradeSettings{
		Strategy: api.StrategyBlueGreen,
		BlueGreenSettings: &api.BlueGreenSettings{
			StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchPercentage: &pct, BatchSoakDuration: batchSoak},
			NodePoolSoakDuration:  poolSoak,
		}}}
}

// eventTimes returns the emulated times of events of a type whose message contains text.
func eventTimes(w *World, typ, text string) []time.Time {
	evs, _ := w.engine.Events(engine.EventFilter{Type: typ})
	var out []time.Time
	for _, e := range evs {
		if strings.Contains(e.Message, text) {
			at, _ := time.Parse(time.RFC3339, e.Time)
			out = append(out, at)
		}
	}
	return out
}

// R-BG-1..5: phases in order; batchPercentage 0.3 of 10 nodes drains in batches of 3, 3, 3, 1
// with the batch soak after each; the pool soaks nodePoolSoakDuration; then the blue pool goes.
// During the upgrade the pool has both groups and twice the nodes.
func TestBlueGreenPhasesBatchesAndSoaks(t *testing.T) {
	w, c, _, to := upgradeCluster(t, bgPool("600s", "3600s"))
	mustCreateDeployment(t, w, c, deployment("web", 10, "100m"))
	advance(w, time.Minute)
	op := startUpgrade(t, w, "pool-a", to.String())
	var phases []string
	maxNodes, maxGroups := 0, 0
	for i := 0; i < 10000 && op.Status != api.OpStatusDone; i++ {
		advance(w, 10*time.Second)
		p := c.Pool("pool-a")
		if p.Upgrade != nil && p.Upgrade.BG != nil {
			if len(phases) == 0 || phases[len(phases)-1] != p.Upgrade.BG.Phase {
				phases = append(phases, p.Upgrade.BG.Phase)
			}
			maxGroups = max(maxGroups, len(p.Groups))
		}
		maxNodes = max(maxNodes, len(c.Nodes))
	}
	if op.Status != api.OpStatusDone || op.ErrorCode != 0 {
		t.Fatalf("upgrade %s %q", op.Status, op.StatusMessage)
	}
	want := []string{model.PhaseCreatingGreen, model.PhaseCordoningBlue, model.PhaseDrainingBlue, model.PhaseSoaking, model.PhaseDeletingBlue}
	if strings.Join(phases, ",") != strings.Join(want, ",") {
		// Short phases may fall between samples; the log has them all.
		logged, _ := w.engine.Events(engine.EventFilter{Type: "BlueGreenPhase"})
		var seen []string
		for _, e := range logged {
			seen = append(seen, strings.SplitN(e.Message, ":", 2)[0])
		}
		if strings.Join(seen, ",") != strings.Join(want, ",") {
			t.Fatalf("phases %v (log %v), want %v (R-BG-2)", phases, seen, want)
		}
	}
	if maxNodes != 20 || maxGroups != 2 {
		t.Fatalf("peak %d nodes in %d groups, want 20 in 2 (blue and green, R-BG-1)", maxNodes, maxGroups)
	}
	batches, _ := w.engine.Events(engine.EventFilter{Type: "BlueGreenBatch"})
	var sizes []int
	for _, e := range batches {
		if strings.HasPrefix(e.Message, "draining batch") {
			sizes = append(sizes, strings.Count(e.Message, "gke-"))
		}
	}
	if fmt.Sprint(sizes) != "[3 3 3 1]" {
		t.Fatalf("batch sizes %v, want [3 3 3 1] (0.3 x 10 rounded down, R-BG-3)", sizes)
	}
	drained := eventTimes(w, "BlueGreenBatch", "drained;")
	starts := eventTimes(w, "BlueGreenBatch", "draining batch")
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(drained[i-1]); gap < 600*time.Second {
			t.Fatalf("batch %d started %s after batch %d was drained, want >= the 600s batch soak (R-BG-4)", i+1, gap, i)
		}
	}
	soak := eventTimes(w, "BlueGreenSoak", "soaking the node pool")
	del := eventTimes(w, "BlueGreenPhase", model.PhaseDeletingBlue)
	if len(drained) != 4 || len(soak) != 1 || soak[0].Sub(drained[3]) != 600*time.Second {
		t.Fatalf("last batch drained %v, pool soak from %v: want the 600s batch soak after the last batch too (R-BG-4)", drained, soak)
	}
	if len(soak) != 1 || len(del) != 1 || del[0].Sub(soak[0]) != time.Hour {
		t.Fatalf("soak %v, deletion %v: want deletion exactly 3600s after the soak started (R-BG-4)", soak, del)
	}
	if nodesOn(c, "pool-a", to.String()) != 10 || len(c.Nodes) != 10 || len(c.Pool("pool-a").Groups) != 1 {
		t.Fatalf("after the upgrade: %d nodes, %d on %s, %d groups", len(c.Nodes), nodesOn(c, "pool-a", to.String()), to, len(c.Pool("pool-a").Groups))
	}
	if running, _ := podCounts(c, "web"); running != 10 {
		t.Fatalf("web has %d running pods after the upgrade, want 10", running)
	}
	checkTemplateCounts(t, w, c)
}

// R-BG-4: the soaks are capped together at 7 days, counted as they elapse. Each case drains
// 10 blue nodes in batches of batchNodeCount and reads from the event log when each batch
// started and was drained and when blue pool deletion began: the soak after batch i is the
// gap to batch i+1, and the gap from the last batch to deletion is its soak plus the pool's.
func TestBlueGreenSevenDaySoakCap(t *testing.T) {
	const day = 24 * time.Hour
	for _, tc := range []struct {
		name                string
		batch               int32
		batchSoak, poolSoak string
		gaps                []time.Duration
	}{
		// The case: 4 + 4 days would be 8; the second soak stops at 7 days in all and
		// the pool soak is skipped.
		{"two batches soaking 4 days", 5, "345600s", "3600s", []time.Duration{4 * day, 3 * day}},
		// 3 + 3 + 1 (cut) days; the fourth batch drains without soaking; deletion at once.
		{"four batches soaking 3 days", 3, "259200s", "3600s", []time.Duration{3 * day, 3 * day, 1 * day, 0}},
		// 1 + 1 days of batch soaks leave 5 of the pool's 7.
		{"pool soak of 7 days after batch soaks", 5, "86400s", "604800s", []time.Duration{day, day + 5*day}},
		// Below 7 days nothing is cut.
		{"under the cap", 5, "86400s", "172800s", []time.Duration{day, day + 2*day}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			batch := tc.batch
			w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 10, UpgradeSettings: &api.UpgradeSettings{
				Strategy: api.StrategyBlueGreen,
				BlueGreenSettings: &api.BlueGreenSettings{
					StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchNodeCount: &batch, BatchSoakDuration: tc.batchSoak},
					NodePoolSoakDuration:  tc.poolSoak,
				}}})
			op := startUpgrade(t, w, "pool-a", to.String())
			advance(w, 8*day)
			if op.Status != api.OpStatusDone || op.ErrorCode != 0 || nodesOn(c, "pool-a", to.String()) != 10 {
				t.Fatalf("after 8 days: op %s %q, %d of 10 nodes on %s", op.Status, op.StatusMessage, nodesOn(c, "pool-a", to.String()), to)
			}
			starts := eventTimes(w, "BlueGreenBatch", "draining batch")
			drained := eventTimes(w, "BlueGreenBatch", "drained;")
			deletion := eventTimes(w, "BlueGreenPhase", model.PhaseDeletingBlue)
			if len(starts) != len(tc.gaps) || len(drained) != len(tc.gaps) || len(deletion) != 1 {
				t.Fatalf("%d batches started, %d drained, deletion %v; want %d batches and one deletion", len(starts), len(drained), deletion, len(tc.gaps))
			}
			var gaps []time.Duration
			for i := range drained {
				next := deletion[0]
				if i+1 < len(starts) {
					next = starts[i+1]
				}
				gaps = append(gaps, next.Sub(drained[i]))
			}
			if fmt.Sprint(gaps) != fmt.Sprint(tc.gaps) {
				t.Fatalf("soak after each batch (the last one's with the pool soak) %v, want %v: blue deletion at %s, last batch drained at %s (R-BG-4)",
					gaps, tc.gaps, deletion[0].Format(time.RFC3339), drained[len(drained)-1].Format(time.RFC3339))
			}
		})
	}
}

// advanceToPhase runs until the pool's blue-green upgrade is in phase.
func advanceToPhase(t *testing.T, w *World, c *model.Cluster, phase string) {
	t.Helper()
	for i := 0; i < 20000; i++ {
		if u := c.Pool("pool-a").Upgrade; u != nil && u.BG != nil && u.BG.Phase == phase {
			return
		}
		advance(w, 5*time.Second)
	}
	t.Fatalf("never reached phase %s", phase)
}

// R-BG-7: rollback from each phase leaves only the blue pool, uncordoned, on the old version.
func TestBlueGreenRollbackFromEachPhase(t *testing.T) {
	for _, phase := range []string{model.PhaseCreatingGreen, model.PhaseCordoningBlue, model.PhaseDrainingBlue, model.PhaseSoaking} {
		t.Run(phase, func(t *testing.T) {
			w, c, from, to := upgradeCluster(t, bgPool("600s", "3600s"))
			op := startUpgrade(t, w, "pool-a", to.String())
			advance(w, 2*time.Second)
			if phase != model.PhaseCreatingGreen {
				advanceToPhase(t, w, c, phase)
			}
			if err := w.gke.CancelOperation("proj", "us-central1-a", op.ID); err != nil {
				t.Fatal(err)
			}
			if op.Status != api.OpStatusDone || op.ErrorCode != core.CodeCancelled || !c.Pool("pool-a").Upgrade.Paused {
				t.Fatalf("cancel in %s: op %s code %d; want the upgrade paused (R-BG-7)", phase, op.Status, op.ErrorCode)
			}
			blueGroups := append([]string(nil), c.Pool("pool-a").Upgrade.BG.Blue...)
			rb, err := w.upgrade.RollbackNodePool("proj", "us-central1-a", "c1", "pool-a", &api.RollbackNodePoolUpgradeRequest{RespectPdb: true})
			if err != nil {
				t.Fatal(err)
			}
			runOp(t, w, rb, 3*time.Hour)
			p := c.Pool("pool-a")
			if rb.ErrorCode != 0 || p.Upgrade != nil || len(p.Groups) != 1 || p.Groups[0].Name != blueGroups[0] {
				t.Fatalf("after rollback from %s: %q, upgrade %v, groups %d", phase, rb.StatusMessage, p.Upgrade, len(p.Groups))
			}
			if nodesOn(c, "pool-a", from.String()) != 10 || len(c.Nodes) != 10 || p.Spec.Version != from.String() {
				t.Fatalf("after rollback from %s: %d nodes, %d on %s", phase, len(c.Nodes), nodesOn(c, "pool-a", from.String()), from)
			}
			for _, n := range c.Nodes {
				if n.Unschedulable {
					t.Fatalf("node %s still cordoned after the rollback", n.Name)
				}
			}
		})
	}
}

// R-BG-7: complete skips the rest of the soak; cancel pauses; resume continues from the phase;
// the delete phase cannot be cancelled; complete outside the soak is refused.
func TestBlueGreenCompleteCancelResume(t *testing.T) {
	w, c, _, to := upgradeCluster(t, bgPool("0s", "86400s"))
	op := startUpgrade(t, w, "pool-a", to.String())
	advanceToPhase(t, w, c, model.PhaseDrainingBlue)
	if err := w.upgrade.CompleteNodePoolUpgrade("proj", "us-central1-a", "c1", "pool-a"); err == nil {
		t.Fatal("completeUpgrade accepted outside the soak phase")
	}
	if err := w.gke.CancelOperation("proj", "us-central1-a", op.ID); err != nil {
		t.Fatal(err)
	}
	paused := w.engine.Now()
	advance(w, time.Hour)
	if p := c.Pool("pool-a"); p.Upgrade.BG.Phase != model.PhaseDrainingBlue {
		t.Fatalf("paused upgrade moved to %s", p.Upgrade.BG.Phase)
	}
	// A different version is refused while paused; the same one resumes.
	if _, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{NodeVersion: c.Pool("pool-a").Spec.Version}); err == nil {
		t.Fatal("a different target accepted while paused")
	}
	op = startUpgrade(t, w, "pool-a", to.String())
	advanceToPhase(t, w, c, model.PhaseSoaking)
	if w.engine.Now().Sub(paused) < time.Hour {
		t.Fatal("resumed too early")
	}
	soakStart := w.engine.Now()
	if err := w.upgrade.CompleteNodePoolUpgrade("proj", "us-central1-a", "c1", "pool-a"); err != nil {
		t.Fatal(err)
	}
	if phase := c.Pool("pool-a").Upgrade.BG.Phase; phase != model.PhaseDeletingBlue {
		t.Fatalf("after completeUpgrade the phase is %s, want DELETING_BLUE_POOL", phase)
	}
	if err := w.gke.CancelOperation("proj", "us-central1-a", op.ID); err == nil || !strings.Contains(err.Error(), "cannot be paused") {
		t.Fatalf("cancel in the delete phase: %v", err)
	}
	runOp(t, w, op, time.Hour)
	if op.ErrorCode != 0 || w.engine.Now().Sub(soakStart) > 30*time.Minute {
		t.Fatalf("upgrade after completeUpgrade: %q, took %s more (the 24 h soak was skipped)", op.StatusMessage, w.engine.Now().Sub(soakStart))
	}
}

// R-BG-5: the delete phase deletes pods a PodDisruptionBudget protects (it does not evict).
func TestBlueGreenDeletePhaseIgnoresPDB(t *testing.T) {
	w, c, _, to := upgradeCluster(t, bgPool("0s", "60s"))
	mustCreateDeployment(t, w, c, deployment("db", 2, "100m"))
	advance(w, time.Minute)
	if _, err := w.kubeapi.CreatePDB(c, "default", pdbMin("db", "100%")); err != nil {
		t.Fatal(err)
	}
	op := startUpgrade(t, w, "pool-a", to.String())
	runOp(t, w, op, 6*time.Hour)
	if op.ErrorCode != 0 {
		t.Fatal(op.StatusMessage)
	}
	deleted, _ := w.engine.Events(engine.EventFilter{Type: "PodDeleted"})
	n := 0
	for _, e := range deleted {
		if strings.Contains(e.Message, "default/db-") && strings.Contains(e.Message, "without eviction") {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d db pods deleted in the delete phase, want 2 (their PDB allowed no eviction, R-BG-5)", n)
	}
}

// R-ABG-1: autoscaled blue-green needs the autoscaler on the pool and a recent control plane.
// R-ABG-6: it is refused, with a 400 naming the field and the rule, on pools created by node
// auto-provisioning, at creation and on update; Autopilot's auto-provisioned pool refuses
// blue-green altogether (R-UPG-3).
func TestAutoscaledBlueGreenValidation(t *testing.T) {
	w := newTestWorld(t)
	abg := &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
		AutoscaledRolloutPolicy: &api.AutoscaledRolloutPolicy{}}}
	_, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1",
		NodePools: []*api.NodePool{{Name: "p", InitialNodeCount: 1, UpgradeSettings: abg}}}})
	if err == nil || !strings.Contains(err.Error(), "#r-abg-1") || !strings.Contains(err.Error(), "autoscaler") {
		t.Fatalf("without autoscaling: %v", err)
	}
	// A control plane older than 1.34.0-gke.2201000: at a date when 1.34.0 is the newest minor.
	old := New(Options{Seed: 1, Start: catalog.ScheduleOf(34).RapidEntry.Add(time.Hour)})
	_, err = old.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1",
		InitialClusterVersion: "1.34", ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelRapid},
		NodePools: []*api.NodePool{{Name: "p", InitialNodeCount: 1, UpgradeSettings: abg,
			Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 3}}}}})
	if err == nil || !strings.Contains(err.Error(), "1.34.0-gke.2201000") {
		t.Fatalf("old control plane: %v", err)
	}
	// Both policies, or both batch sizes, are refused; a 0 batch is accepted (it skips the drain).
	zero := int32(0)
	pct := 0.5
	for name, bg := range map[string]*api.BlueGreenSettings{
		"both policies": {StandardRolloutPolicy: &api.StandardRolloutPolicy{}, AutoscaledRolloutPolicy: &api.AutoscaledRolloutPolicy{}},
		"both sizes":    {StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchNodeCount: &zero, BatchPercentage: &pct}},
		"long soak":     {NodePoolSoakDuration: "700000s"},
	} {
		_, err := model.NormalizeUpgradeSettings(&api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: bg}, "upgradeSettings", model.UpgradeContext{Master: "1.36.1-gke.1"})
		if err == nil {
			t.Fatalf("%s accepted", name)
		}
	}
	us, err := model.NormalizeUpgradeSettings(&api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
		StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchNodeCount: &zero}}}, "upgradeSettings", model.UpgradeContext{})
	if err != nil || *us.BlueGreenSettings.StandardRolloutPolicy.BatchNodeCount != 0 || us.BlueGreenSettings.NodePoolSoakDuration != "3600s" {
		t.Fatalf("batchNodeCount 0: %+v %v", us.BlueGreenSettings, err)
	}

	// R-ABG-6: pools created by node auto-provisioning.
	w = newTestWorld(t)
	createTestCluster(t, w, "us-central1-a", &api.NodePool{Name: "default-pool", InitialNodeCount: 1})
	nap := func(us *api.UpgradeSettings) *api.NodePool {
		return &api.NodePool{Name: "nap-1", InitialNodeCount: 1, UpgradeSettings: us,
			Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 3, Autoprovisioned: true}}
	}
	wantABG6 := func(what string, err error) {
		t.Helper()
		e, ok := model.AsError(err)
		if !ok || e.HTTPCode != 400 || e.Status != "INVALID_ARGUMENT" || !strings.Contains(e.Message, "upgradeSettings.blueGreenSettings.autoscaledRolloutPolicy") ||
			!strings.Contains(e.Message, "node auto-provisioning") || !strings.Contains(e.Message, "#r-abg-6") {
			t.Fatalf("%s: %v, want a 400 INVALID_ARGUMENT naming upgradeSettings.blueGreenSettings.autoscaledRolloutPolicy and R-ABG-6", what, err)
		}
	}
	_, err = w.gke.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: nap(abg)})
	wantABG6("creating an auto-provisioned pool with autoscaled blue-green", err)
	op, err := w.gke.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: nap(nil)})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	_, err = w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "nap-1", &api.UpdateNodePoolRequest{UpgradeSettings: abg})
	wantABG6("switching an auto-provisioned pool to autoscaled blue-green", err)
	if s := w.core.Cluster("proj", "us-central1-a", "c1").Pool("nap-1").UpgradeSettings.Strategy; s != api.StrategySurge {
		t.Fatalf("the refused update changed the strategy to %s", s)
	}
	_, err = w.gke.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{Name: "mine", InitialNodeCount: 1,
		UpgradeSettings: abg, Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 3}}})
	if err != nil {
		t.Fatalf("a user-created autoscaled pool with autoscaled blue-green: %v", err)
	}
	ap := New(Options{Seed: 1, Start: testStart})
	op, err = ap.gke.CreateCluster("proj", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1", Autopilot: &api.Autopilot{Enabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, ap, op, time.Hour)
	_, err = ap.gke.UpdateNodePool("proj", "us-central1", "c1", "default-pool", &api.UpdateNodePoolRequest{UpgradeSettings: abg})
	if err == nil || !strings.Contains(err.Error(), "#r-upg-3") {
		t.Fatalf("autoscaled blue-green on Autopilot's auto-provisioned pool: %v, want refused (R-UPG-3)", err)
	}
}

// R-SL-1: a flex-start pool's nodes move to the new configuration as they are interrupted,
// within seven days; the operation does not wait for them.
func TestShortLivedTransition(t *testing.T) {
	w, c, from, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 4, Config: &api.NodeConfig{FlexStart: true}})
	if s := c.Pool("pool-a").UpgradeSettings.Strategy; s != api.StrategyShortLived {
		t.Fatalf("flex-start pool strategy %s, want SHORT_LIVED (R-UPG-3)", s)
	}
	op := startUpgrade(t, w, "pool-a", to.String())
	runOp(t, w, op, 10*time.Minute)
	if nodesOn(c, "pool-a", from.String()) != 4 {
		t.Fatalf("existing nodes replaced at once; they should run until interrupted")
	}
	advance(w, 7*24*time.Hour)
	if nodesOn(c, "pool-a", to.String()) != 4 || len(c.Nodes) != 4 {
		t.Fatalf("after 7 days: %d of %d nodes on %s (R-SL-1)", nodesOn(c, "pool-a", to.String()), len(c.Nodes), to)
	}
	if _, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{
		UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategySurge, MaxSurge: 1}}); err == nil {
		t.Fatal("a flex-start pool accepted the SURGE strategy (R-UPG-3)")
	}
}

// R-SURGE-1: a pool created without upgradeSettings gets maxSurge 1 and maxUnavailable 0
// (rendered as GKE does, the zero omitted), and both 0 is refused. Upgrading a regional pool
// of 2 nodes per zone, each zone peaks at 3 VMs (its size + 1) and never has fewer than 2
// schedulable ready nodes; zone by zone, the pool peaks at 7.
func TestSurgeDefaultsOneSurgeNoUnavailable(t *testing.T) {
	w := newTestWorld(t)
	from, to := upgradeVersions(t, w)
	op, err := w.gke.CreateCluster("proj", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c1", InitialClusterVersion: to.String(), ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified},
		NodePools: []*api.NodePool{{Name: "pool-a", InitialNodeCount: 2, Version: from.String()}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", "us-central1", "c1")
	us := w.gke.RenderNodePool(c, c.Pool("pool-a"), testLinks).UpgradeSettings
	if got := mustJSON(us); got != `{"maxSurge":1,"strategy":"SURGE"}` {
		t.Fatalf("default upgradeSettings %s, want maxSurge 1, maxUnavailable 0 (omitted), SURGE (R-SURGE-1)", got)
	}
	_, err = w.gke.UpdateNodePool("proj", "us-central1", "c1", "pool-a", &api.UpdateNodePoolRequest{
		UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategySurge}})
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, "upgradeSettings") || !strings.Contains(e.Message, "#r-surge-1") {
		t.Fatalf("maxSurge 0 and maxUnavailable 0: %v, want a 400 naming upgradeSettings and R-SURGE-1", err)
	}

	op, err = w.gke.UpdateNodePool("proj", "us-central1", "c1", "pool-a", &api.UpdateNodePoolRequest{NodeVersion: to.String()})
	if err != nil {
		t.Fatal(err)
	}
	peak, minReady, pool := map[string]int{}, map[string]int{}, 0
	for i := 0; i < 2000 && op.Status != api.OpStatusDone; i++ {
		advance(w, 5*time.Second)
		vms, ready := map[string]int{}, map[string]int{}
		for _, n := range c.Nodes {
			if n.State == model.NodeDeleting {
				continue
			}
			vms[n.Zone]++
			if n.State == model.NodeReady {
				ready[n.Zone]++
			}
		}
		for _, z := range c.Locations {
			peak[z] = max(peak[z], vms[z])
			if _, seen := minReady[z]; !seen {
				minReady[z] = ready[z]
			}
			minReady[z] = min(minReady[z], ready[z])
		}
		pool = max(pool, sum(vms))
	}
	if op.ErrorCode != 0 || nodesOn(c, "pool-a", to.String()) != 6 {
		t.Fatalf("upgrade: %q, %d of 6 nodes on %s", op.StatusMessage, nodesOn(c, "pool-a", to.String()), to)
	}
	for _, z := range c.Locations {
		if peak[z] != 3 || minReady[z] != 2 {
			t.Fatalf("zone %s: peak %d VMs, at least %d schedulable ready; want 3 (size 2 + maxSurge 1) and 2 (maxUnavailable 0)", z, peak[z], minReady[z])
		}
	}
	if pool != 7 {
		t.Fatalf("the pool peaked at %d VMs, want 7: one surge node, one zone at a time", pool)
	}
}

// R-SURGE-4: with maxSurge 0 and maxUnavailable 1 each node is cordoned, drained (a pod its
// PodDisruptionBudget holds is deleted after 1 hour), recreated in place with the new version,
// and back in service once ready. The pool never has more than its 3 VMs, never more than 1
// unavailable, and no node is created.
func TestSurgeMaxUnavailableRecreatesInPlace(t *testing.T) {
	w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 3,
		Config: &api.NodeConfig{MachineType: "e2-standard-4"}, UpgradeSettings: &api.UpgradeSettings{MaxSurge: 0, MaxUnavailable: 1}})
	mustCreateDeployment(t, w, c, deployment("db", 1, "100m"))
	advance(w, time.Minute)
	if _, err := w.kubeapi.CreatePDB(c, "default", pdbMin("db", "100%")); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for name := range c.Nodes {
		names[name] = true
	}
	op := startUpgrade(t, w, "pool-a", to.String())
	start := w.engine.Now()
	maxVMs, maxUnavailable := 0, 0
	for i := 0; i < 5000 && op.Status != api.OpStatusDone; i++ {
		advance(w, 5*time.Second)
		unavailable := 0
		for _, n := range c.Nodes {
			if n.State != model.NodeReady {
				unavailable++
			}
		}
		maxVMs, maxUnavailable = max(maxVMs, len(c.Nodes)), max(maxUnavailable, unavailable)
	}
	if op.ErrorCode != 0 || nodesOn(c, "pool-a", to.String()) != 3 {
		t.Fatalf("upgrade: %q, %d of 3 nodes on %s", op.StatusMessage, nodesOn(c, "pool-a", to.String()), to)
	}
	if maxVMs != 3 || maxUnavailable != 1 {
		t.Fatalf("peak %d VMs and %d unavailable nodes, want 3 (maxSurge 0) and 1 (maxUnavailable 1)", maxVMs, maxUnavailable)
	}
	if created := eventTimes(w, "NodeCreating", ""); len(created) != 3 || created[2].After(start) {
		t.Fatalf("%d NodeCreating events, want only the 3 from the pool's creation: nodes are recreated in place", len(created))
	}
	for name := range names {
		n := c.Nodes[name]
		if n == nil || n.State != model.NodeReady || n.Unschedulable {
			t.Fatalf("node %s after the upgrade: %+v, want the same node back in service", name, n)
		}
		// Cordon, drain, recreate, ready: in that order, each step after the one before.
		steps := []time.Time{}
		for _, s := range []struct{ typ, text string }{
			{"NodeCordoned", name}, {"NodeDraining", name}, {"NodeDrained", name}, {"NodeRecreating", name}, {"NodeReady", name},
		} {
			at := eventTimes(w, s.typ, s.text)
			if len(at) == 0 {
				t.Fatalf("node %s: no %s event", name, s.typ)
			}
			steps = append(steps, at[len(at)-1])
		}
		for i := 1; i < len(steps); i++ {
			if steps[i].Before(steps[i-1]) || steps[i].Before(start) {
				t.Fatalf("node %s: steps at %v, want cordon <= drain <= drained <= recreate <= ready after %v", name, steps, start)
			}
		}
	}
	// The node running db: its eviction was blocked; the pod was deleted 1 hour into the drain.
	deleted := mustEvents(w, "PodDeleted")
	if len(deleted) == 0 || !strings.Contains(deleted[0].Message, "default/db-") || !strings.Contains(deleted[0].Message, "timeout of 1h0m0s") {
		t.Fatalf("PodDeleted events %v, want db deleted at the 1 h PodDisruptionBudget timeout", deleted)
	}
	drainStart := eventTimes(w, "NodeDraining", deleted[0].Node)
	at, _ := time.Parse(time.RFC3339, deleted[0].Time)
	if len(drainStart) == 0 || at.Sub(drainStart[0]) != time.Hour {
		t.Fatalf("db deleted at %v, drain of %s started %v: want exactly 1 h later", at, deleted[0].Node, drainStart)
	}
}

// R-SURGE-7: the surge nodes of a Spot pool are Spot, and GKE cordons and drains an old node
// without waiting for its Spot surge node to be ready; an on-demand pool waits.
func TestSurgeSpotDoesNotWaitForSurgeNodes(t *testing.T) {
	for _, spot := range []bool{true, false} {
		t.Run(fmt.Sprintf("spot=%v", spot), func(t *testing.T) {
			w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 3, Config: &api.NodeConfig{Spot: spot}})
			op := startUpgrade(t, w, "pool-a", to.String())
			runOp(t, w, op, time.Hour)
			if op.ErrorCode != 0 || nodesOn(c, "pool-a", to.String()) != 3 {
				t.Fatalf("upgrade: %q, %d of 3 upgraded", op.StatusMessage, nodesOn(c, "pool-a", to.String()))
			}
			cordons := 0
			for _, e := range mustEvents(w, "NodeCordoned") {
				i := strings.Index(e.Message, "replaced by surge node ")
				if i < 0 {
					continue
				}
				surge := e.Message[i+len("replaced by surge node "):]
				if n := c.Nodes[surge]; n == nil || n.Spec.Spot != spot {
					t.Fatalf("surge node %s: %+v, want Spot=%v like the pool", surge, n, spot)
				}
				cordoned, _ := time.Parse(time.RFC3339, e.Time)
				ready := eventTimes(w, "NodeReady", surge)
				if len(ready) != 1 {
					t.Fatalf("surge node %s ready %v", surge, ready)
				}
				if early := cordoned.Before(ready[0]); early != spot {
					t.Fatalf("old node %s cordoned at %s, its surge node %s ready at %s: before=%v, want %v",
						e.Node, cordoned.Format(time.TimeOnly), surge, ready[0].Format(time.TimeOnly), early, spot)
				}
				cordons++
			}
			if cordons != 3 {
				t.Fatalf("%d old nodes cordoned for a surge node, want 3", cordons)
			}
		})
	}
}

// R-UPG-2: a pool configured for blue-green uses it for a version change and for changes of
// machine type, image type and disk size: each runs the five phases in order, the pool peaks
// at twice its 3 nodes in two instance groups, and ends with 3 nodes of the new configuration.
func TestBlueGreenCarriesVersionAndMachineChanges(t *testing.T) {
	one := int32(1)
	for _, tc := range []struct {
		name   string
		req    api.UpdateNodePoolRequest // a NodeVersion is replaced by the newer patch
		detail string
	}{
		{"version", api.UpdateNodePoolRequest{NodeVersion: "newer"}, "version "},
		{"machine type", api.UpdateNodePoolRequest{MachineType: "e2-standard-4"}, "machine type e2-medium -> e2-standard-4"},
		{"image type", api.UpdateNodePoolRequest{ImageType: "UBUNTU_CONTAINERD"}, "image type COS_CONTAINERD -> UBUNTU_CONTAINERD"},
		{"disk size", api.UpdateNodePoolRequest{DiskSizeGb: 200}, "disk size 100 -> 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 3, UpgradeSettings: &api.UpgradeSettings{
				Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
					StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchNodeCount: &one}, NodePoolSoakDuration: "600s"}}})
			blue := c.Pool("pool-a").Spec
			req := tc.req
			if req.NodeVersion != "" {
				req.NodeVersion = to.String()
			}
			op, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &req)
			if err != nil {
				t.Fatal(err)
			}
			peakNodes, peakGroups := 0, 0
			for i := 0; i < 2000 && op.Status != api.OpStatusDone; i++ {
				advance(w, 10*time.Second)
				peakNodes, peakGroups = max(peakNodes, len(c.Nodes)), max(peakGroups, len(c.Pool("pool-a").Groups))
			}
			if op.Status != api.OpStatusDone || op.ErrorCode != 0 || op.Type != api.OpUpgradeNodes {
				t.Fatalf("%s %s: %q", op.Type, op.Status, op.StatusMessage)
			}
			started := mustEvents(w, "UpgradeStarted")
			if len(started) != 1 || !strings.HasPrefix(started[0].Message, "blue-green upgrade") || !strings.Contains(started[0].Message, tc.detail) {
				t.Fatalf("UpgradeStarted %v, want one blue-green upgrade of %q (R-UPG-2)", started, tc.detail)
			}
			var phases []string
			for _, e := range mustEvents(w, "BlueGreenPhase") {
				if phase := strings.SplitN(e.Message, ":", 2)[0]; len(phases) == 0 || phases[len(phases)-1] != phase {
					phases = append(phases, phase)
				}
			}
			want := []string{model.PhaseCreatingGreen, model.PhaseCordoningBlue, model.PhaseDrainingBlue, model.PhaseSoaking, model.PhaseDeletingBlue}
			if strings.Join(phases, ",") != strings.Join(want, ",") {
				t.Fatalf("phases %v, want %v (R-BG-2)", phases, want)
			}
			if peakNodes != 6 || peakGroups != 2 {
				t.Fatalf("peak %d nodes in %d groups, want 6 in 2 (blue and green)", peakNodes, peakGroups)
			}
			for _, n := range c.Nodes {
				if n.Spec == blue || n.Spec != c.Pool("pool-a").Spec {
					t.Fatalf("node %s after the change: %+v, want the pool's new %+v", n.Name, n.Spec, c.Pool("pool-a").Spec)
				}
			}
			if len(c.Nodes) != 3 || len(c.Pool("pool-a").Groups) != 1 {
				t.Fatalf("after the change: %d nodes in %d groups, want 3 in 1", len(c.Nodes), len(c.Pool("pool-a").Groups))
			}
		})
	}
}

// A finished upgrade operation says what was done, not where the upgrade was: its detail and
// progress metrics keep no ETA, phase or zone from before it finished, whether it succeeded
// or was cancelled; and the detail still names the change (the CLI and the upgrade status
// data source read the target version from it).
func TestFinishedUpgradeOperationShowsNoStaleProgress(t *testing.T) {
	one := int32(1)
	blueGreen := &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
		StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchNodeCount: &one}, NodePoolSoakDuration: "600s"}}
	for _, tc := range []struct {
		name     string
		settings *api.UpgradeSettings
		cancelAt time.Duration // 0: run to the end
		want     string
	}{
		{"surge done", nil, 0, "Node pool pool-a upgrade done"},
		{"blue-green done", blueGreen, 0, "Node pool pool-a upgrade done"},
		{"surge cancelled", nil, 3 * time.Minute, "Cancelled the upgrade of node pool pool-a"},
		{"blue-green cancelled in the soak", blueGreen, 8 * time.Minute, "it is paused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 3, UpgradeSettings: tc.settings})
			op := startUpgrade(t, w, "pool-a", to.String())
			sawETA := false
			for i := 0; i < 2000 && op.Status != api.OpStatusDone; i++ {
				advance(w, 10*time.Second)
				sawETA = sawETA || (op.Status == api.OpStatusRunning && strings.Contains(op.Detail, "; ETA "))
				if tc.cancelAt > 0 && w.engine.Now().Sub(op.StartTime) >= tc.cancelAt && op.Status == api.OpStatusRunning {
					if err := w.gke.CancelOperation("proj", "us-central1-a", op.ID); err != nil {
						t.Fatal(err)
					}
					runOp(t, w, op, time.Hour)
				}
			}
			if op.Status != api.OpStatusDone || !sawETA {
				t.Fatalf("op %s; an ETA was shown while it ran: %v", op.Status, sawETA)
			}
			out := w.core.RenderOperation(op, testLinks)
			for _, stale := range []string{"ETA", "us-central1-a", model.PhaseCreatingGreen, model.PhaseCordoningBlue, model.PhaseDrainingBlue, model.PhaseSoaking, model.PhaseDeletingBlue} {
				if strings.Contains(out.Detail, stale) || strings.Contains(out.StatusMessage, stale) {
					t.Fatalf("finished operation: detail %q, statusMessage %q: shows %q from before it finished", out.Detail, out.StatusMessage, stale)
				}
			}
			if !strings.Contains(out.Detail, tc.want) || !strings.Contains(out.Detail, "-> "+to.String()) {
				t.Fatalf("finished operation detail %q, want %q and the target version %s", out.Detail, tc.want, to)
			}
			if out.Progress != nil {
				for _, m := range out.Progress.Metrics {
					if m.StringValue != "" {
						t.Fatalf("finished operation keeps the position metric %s=%q", m.Name, m.StringValue)
					}
				}
			}
		})
	}
}

// R-UPG-1, R-UPG-2: gVNIC, image streaming, kubelet and Linux node configuration and
// Confidential nodes can only change on new VMs: a change replaces every node through the
// pool's surge settings, on a blue-green pool too; the same settings sent again, or a switch
// sent off that was never on, replace nothing.
func TestSettingsThatNeedNewVMsRecreateNodesThroughSurge(t *testing.T) {
	one := int32(1)
	for _, tc := range []struct {
		name     string
		settings *api.UpgradeSettings
	}{
		{"surge pool", &api.UpgradeSettings{MaxSurge: 1}},
		{"blue-green pool", &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, MaxSurge: 1, BlueGreenSettings: &api.BlueGreenSettings{
			StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchNodeCount: &one}, NodePoolSoakDuration: "600s"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, c, _, _ := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 3, UpgradeSettings: tc.settings})
			p := c.Pool("pool-a")
			update := func(extra string) *model.Operation {
				t.Helper()
				req := &api.UpdateNodePoolRequest{}
				if err := json.Unmarshal([]byte(extra), req); err != nil {
					t.Fatal(err)
				}
				op, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", req)
				if err != nil {
					t.Fatal(err)
				}
				return op
			}
			names := func() []string { return slices.Sorted(maps.Keys(c.Nodes)) }

			// A switch sent off that was never on changes nothing.
			before := names()
			op := update(`{"gvnic": {"enabled": false}}`)
			runOp(t, w, op, time.Hour)
			if got := names(); !slices.Equal(got, before) || len(mustEvents(w, "UpgradeStarted")) != 0 {
				t.Fatalf("gvnic off on a pool without it replaced nodes %v -> %v", before, got)
			}

			op = update(`{"gvnic": {"enabled": true}, "kubeletConfig": {"cpuManagerPolicy": "static", "cpuCfsQuota": true}}`)
			peak := 0
			for i := 0; i < 2000 && op.Status != api.OpStatusDone; i++ {
				w.RunUntil(w.engine.Now().Add(time.Second))
				vms := 0
				for _, n := range c.Nodes {
					if n.Pool == "pool-a" {
						vms++
					}
				}
				peak = max(peak, vms)
			}
			if op.Status != api.OpStatusDone || op.ErrorCode != 0 || op.Type != api.OpUpgradeNodes {
				t.Fatalf("%s %s: %q", op.Type, op.Status, op.StatusMessage)
			}
			started := mustEvents(w, "UpgradeStarted")
			if len(started) != 1 || !strings.HasPrefix(started[0].Message, "surge upgrade") || !strings.Contains(started[0].Message, "node settings that need new VMs") {
				t.Fatalf("UpgradeStarted %v, want one surge upgrade of the node settings (R-UPG-1, R-UPG-2)", started)
			}
			if peak != 4 {
				t.Fatalf("peak %d VMs in the pool, want 3 + maxSurge 1 (R-SURGE-2)", peak)
			}
			after := names()
			for _, n := range after {
				if slices.Contains(before, n) {
					t.Fatalf("node %s was kept through a change of gVNIC and kubelet configuration; nodes %v -> %v", n, before, after)
				}
				if c.Nodes[n].Spec != p.Spec || p.Spec.Settings == "" {
					t.Fatalf("node %s runs %+v, want the pool's %+v", n, c.Nodes[n].Spec, p.Spec)
				}
			}

			// The same settings again, spelled otherwise, replace nothing.
			op = update(`{"kubeletConfig": {"cpuCfsQuota": true, "cpuManagerPolicy": "static"}, "gvnic": {"enabled": true}}`)
			runOp(t, w, op, time.Hour)
			if got := names(); !slices.Equal(got, after) || len(mustEvents(w, "UpgradeStarted")) != 1 {
				t.Fatalf("the same settings sent again replaced nodes %v -> %v", after, got)
			}
		})
	}
}
