package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// windowCluster is upgradeCluster's cluster (pool on the older patch) with a daily 4-hour
// maintenance window starting at start (UTC, "HH:MM").
func windowCluster(t *testing.T, pool *api.NodePool, start string) (*World, *model.Cluster, catalog.Version, catalog.Version) {
	t.Helper()
	w, c, from, to := upgradeCluster(t, pool)
	setPolicy(t, w, c, &api.MaintenanceWindow{DailyMaintenanceWindow: &api.DailyMaintenanceWindow{StartTime: start}})
	return w, c, from, to
}

// inDailyWindow says whether t falls in the daily 4-hour window starting at hh:mm UTC.
func inDailyWindow(t time.Time, hh, mm int) bool {
	open := time.Date(t.Year(), t.Month(), t.Day(), hh, mm, 0, 0, time.UTC)
	if t.Before(open) {
		open = open.Add(-24 * time.Hour)
	}
	return t.Sub(open) < 4*time.Hour
}

// R-MW-3: an automatic surge upgrade that overruns the window pauses when it closes (nodes
// mid-upgrade finish, no new surge node is created) and resumes when the next window opens.
func TestSurgeAutoUpgradePausesOutsideTheWindow(t *testing.T) {
	// 06:30-10:30 UTC; the cluster is up at about 10:04, so the upgrade has under half an hour.
	w, c, _, to := windowCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 20,
		UpgradeSettings: &api.UpgradeSettings{MaxSurge: 1}}, "06:30")
	p := c.Pool("pool-a")
	target := p.Spec
	target.Version = to.String()
	op := w.upgrade.PlanAutoUpgrade(c, p, target)
	runOp(t, w, op, 48*time.Hour)

	if n := nodesOn(c, "pool-a", to.String()); n != 20 || op.ErrorCode != 0 {
		t.Fatalf("after the upgrade: %d of 20 nodes on %s, error %q", n, to, op.StatusMessage)
	}
	created := eventTimes(w, "NodeCreating", to.String())
	if len(created) != 20 {
		t.Fatalf("%d surge nodes created, want 20", len(created))
	}
	var first, second int
	for _, at := range created {
		if !inDailyWindow(at, 6, 30) {
			t.Errorf("surge node created at %s, outside the 06:30-10:30 window", at.Format(time.RFC3339))
		}
		if at.Day() == 2 {
			first++
		} else {
			second++
		}
	}
	paused, resumed := eventTimes(w, "UpgradePaused", "nodes mid-upgrade finish"), eventTimes(w, "UpgradeResumed", "maintenance allowed until")
	if len(paused) != 1 || len(resumed) != 1 {
		t.Fatalf("paused at %v, resumed at %v: want once each", paused, resumed)
	}
	closeAt, openAt := ts("2026-11-02T10:30:00Z"), ts("2026-11-03T06:30:00Z")
	if paused[0].Before(closeAt) || paused[0].After(closeAt.Add(5*time.Minute)) || !resumed[0].Equal(openAt) {
		t.Errorf("paused at %s (window closed %s), resumed at %s (want %s)", paused[0], closeAt, resumed[0], openAt)
	}
	if first == 0 || second == 0 {
		t.Errorf("surge nodes per day: %d on Nov 2, %d on Nov 3; want the upgrade split over both windows", first, second)
	}
	t.Logf("R-MW-3: %d nodes upgraded before the window closed, %d after it reopened; paused %s, resumed %s, done %s",
		first, second, paused[0].Format(time.RFC3339), resumed[0].Format(time.RFC3339), w.engine.Now().Format(time.RFC3339))
}

// R-BG-8: an automatic blue-green upgrade runs to the end past the window's close.
func TestBlueGreenAutoUpgradeRunsPastTheWindow(t *testing.T) {
	// 10 nodes in batches of 3, 3, 3, 1 with a 10-minute soak after each, then 10 minutes of
	// pool soak: about an hour, started half an hour before the window closes.
	pool := bgPool("600s", "600s")
	w, c, _, to := windowCluster(t, pool, "06:30")
	p := c.Pool(pool.Name)
	target := p.Spec
	target.Version = to.String()
	op := w.upgrade.PlanAutoUpgrade(c, p, target)
	runOp(t, w, op, 6*time.Hour)
	closeAt := ts("2026-11-02T10:30:00Z")
	if len(mustEvents(w, "UpgradePaused")) != 0 || nodesOn(c, pool.Name, to.String()) != int(pool.InitialNodeCount) {
		t.Fatalf("blue-green auto-upgrade paused (%d events) or did not finish", len(mustEvents(w, "UpgradePaused")))
	}
	if !w.engine.Now().After(closeAt) {
		t.Fatalf("the upgrade ended at %s, before the window closed: the test proves nothing", w.engine.Now())
	}
	t.Logf("R-BG-8: blue-green auto-upgrade ran through the window's close at %s and finished at %s", closeAt.Format("15:04"), w.engine.Now().Format("15:04:05"))
}

// R-MW-5: a manual change that only recreates the VMs (machine type) waits for the window;
// a manual version upgrade does not.
func TestManualNodeRecreationWaitsForTheWindow(t *testing.T) {
	w, c, from, to := windowCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 3}, "03:00")
	op, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{MachineType: "e2-standard-4"})
	if err != nil {
		t.Fatal(err)
	}
	w.RunUntil(ts("2026-11-03T02:59:00Z"))
	if op.Status != api.OpStatusRunning || machineCount(c, "e2-standard-4") != 0 {
		t.Fatalf("before the window: operation %s, %d nodes on e2-standard-4; want RUNNING and none", op.Status, machineCount(c, "e2-standard-4"))
	}
	if ev := mustEvents(w, "UpgradeWaiting"); len(ev) != 1 || !strings.Contains(ev[0].Message, "To apply it now, update the node pool to the version it runs") || !strings.Contains(ev[0].Message, "2026-11-03T03:00:00Z") {
		t.Fatalf("UpgradeWaiting events: %v", ev)
	}
	if !strings.Contains(op.Detail, "waiting for a maintenance window") {
		t.Errorf("operation detail %q does not say it waits", op.Detail)
	}
	runOp(t, w, op, 2*time.Hour)
	created := eventTimes(w, "NodeCreating", "e2-standard-4")
	if machineCount(c, "e2-standard-4") != 3 || len(created) == 0 || created[0].Before(ts("2026-11-03T03:00:00Z")) {
		t.Fatalf("machine type change: %d nodes changed, first new node at %v; want 3, not before 03:00", machineCount(c, "e2-standard-4"), created)
	}

	// 08:00 is outside the window; a version upgrade runs at once all the same.
	w.RunUntil(ts("2026-11-03T08:00:00Z"))
	op = startUpgrade(t, w, "pool-a", to.String())
	runOp(t, w, op, time.Hour)
	if started := eventTimes(w, "UpgradeStarted", from.String()+" -> "+to.String()); len(started) != 1 || started[0].After(ts("2026-11-03T08:01:00Z")) {
		t.Fatalf("manual version upgrade started at %v; want at once", started)
	}
}

// R-MW-5's way out: upgrading the pool to the version it runs applies the waiting change now.
// Cancelling a waiting change drops it without touching a node.
func TestDeferredChangeAppliedNowOrCancelled(t *testing.T) {
	w, c, from, _ := windowCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 2}, "03:00")
	op, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{MachineType: "e2-standard-4"})
	if err != nil {
		t.Fatal(err)
	}
	advance(w, 10*time.Minute)
	now, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{NodeVersion: from.String()})
	if err != nil || now.ID != op.ID {
		t.Fatalf("same-version upgrade: op %v, err %v; want the waiting operation %s", now, err, op.ID)
	}
	took := runOp(t, w, op, time.Hour)
	if machineCount(c, "e2-standard-4") != 2 || len(mustEvents(w, "UpgradeForced")) != 1 {
		t.Fatalf("after the same-version upgrade: %d nodes changed", machineCount(c, "e2-standard-4"))
	}

	op, err = w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{DiskSizeGb: 200})
	if err != nil {
		t.Fatal(err)
	}
	advance(w, 10*time.Minute)
	if err := w.gke.CancelOperation("proj", "us-central1-a", op.ID); err != nil {
		t.Fatal(err)
	}
	advance(w, time.Minute)
	p := c.Pool("pool-a")
	if op.Status != api.OpStatusDone || op.ErrorCode == 0 || p.Upgrade != nil || p.Spec.DiskSizeGb == 200 {
		t.Fatalf("cancelled waiting change: op %s code %d, upgrade %+v, disk %d", op.Status, op.ErrorCode, p.Upgrade, p.Spec.DiskSizeGb)
	}
	t.Logf("R-MW-5 override applied the machine-type change in %s, outside the window", took)
}

func machineCount(c *model.Cluster, machine string) int {
	n := 0
	for _, node := range c.Nodes {
		if node.Spec.MachineType == machine && node.State != model.NodeDeleting {
			n++
		}
	}
	return n
}

// R-MW-5's way out works through every way the API offers to upgrade a pool: PUT
// nodePools/{np} and the cluster-level update gcloud sends for `gcloud container clusters
// upgrade C --node-pool NP --cluster-version V` (desiredNodePoolId + desiredNodeVersion, or
// desiredNodeVersion alone when the cluster has one pool). Each starts the waiting change at
// once, under its operation, and the cluster-level one answers as the node-pool one does
// while the change runs (the cluster is busy).
func TestDeferredChangeAppliedNowThroughEveryPath(t *testing.T) {
	for _, tc := range []struct {
		name  string
		apply func(w *World, version string) (*model.Operation, error)
	}{
		{"PUT nodePools/pool-a", func(w *World, v string) (*model.Operation, error) {
			return w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{NodeVersion: v})
		}},
		{"PUT clusters/c1 desiredNodePoolId + desiredNodeVersion", func(w *World, v string) (*model.Operation, error) {
			return w.gke.UpdateCluster("proj", "us-central1-a", "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{DesiredNodePoolId: "pool-a", DesiredNodeVersion: v}})
		}},
		{"PUT clusters/c1 desiredNodeVersion of its only pool", func(w *World, v string) (*model.Operation, error) {
			return w.gke.UpdateCluster("proj", "us-central1-a", "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{DesiredNodeVersion: v}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, c, from, _ := windowCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 2}, "03:00")
			op, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{MachineType: "e2-standard-4"})
			if err != nil {
				t.Fatal(err)
			}
			advance(w, 10*time.Minute)
			if !c.Pool("pool-a").Upgrade.Deferred {
				t.Fatal("the machine-type change does not wait for the window")
			}
			forcedAt := w.engine.Now()
			now, err := tc.apply(w, from.String())
			if err != nil || now == nil || now.ID != op.ID {
				t.Fatalf("same-version upgrade: op %v, err %v; want the waiting operation %s", now, err, op.ID)
			}
			// While it runs, the same request is refused as the cluster is busy, by every path.
			_, err = tc.apply(w, from.String())
			if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, "is currently upgrading cluster c1") {
				t.Fatalf("the same request while the change runs: %v, want GKE's 400 please-wait", err)
			}
			runOp(t, w, op, time.Hour)
			created := eventTimes(w, "NodeCreating", "e2-standard-4")
			if op.ErrorCode != 0 || machineCount(c, "e2-standard-4") != 2 || len(created) == 0 || created[0] != forcedAt {
				t.Fatalf("after the same-version upgrade at %s: %d of 2 nodes changed, first new node at %v; want both, the first at once (R-MW-5)",
					forcedAt.Format(time.TimeOnly), machineCount(c, "e2-standard-4"), created)
			}
		})
	}
}
