package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
)

// R-SURGE-2/2a/5/7: the limits of a surge upgrade hold at every emulated event, not only at
// sampled instants. The test runs the world one event at a time and, after each, counts per
// zone of N nodes (N fixed by the pool's size):
//
//   - VMs in any state (creating, booting, ready, cordoned, draining, deleting) <= N + min(maxSurge, 20);
//   - ready, schedulable nodes >= N - maxUnavailable (not for Spot pools, R-SURGE-7);
//   - nodes being upgraded at once <= min(maxSurge + maxUnavailable, 20, N), where a node is
//     being upgraded from the moment its replacement VM is requested (or, for maxUnavailable,
//     it is cordoned) until its old VM is gone (or, recreated in place, is ready again);
//   - only one zone is being upgraded at a time.
//
// The slots are counted from the event log (what a user sees), not from the upgrade's own
// bookkeeping: a surge slot opens at NodeCreating and closes when the old node it replaces
// ("replaced by surge node X") is deleted; a maxUnavailable slot opens when the node is
// cordoned for recreation and closes when it is ready again.

// surgeShape is a pool and the upgrade settings it is upgraded with.
type surgeShape struct {
	name           string
	location       string // a zone (zonal cluster) or a region (three zones)
	perZone        int32
	surge, unavail int32
	spot           bool
	replicas       int32 // pods of a Deployment on the pool, so that drains take time
}

// surgeObserver checks the invariants after every event of one pool's surge upgrade.
type surgeObserver struct {
	c                    *model.Cluster
	pool                 string
	size                 map[string]int // N per zone
	surge, unavail, slot int            // settings and min(maxSurge+maxUnavailable, 20) before the zone cap
	spot                 bool
	seq                  int64
	replacedBy           map[string]string // old node -> the surge node it makes way for
	surgeOpen            map[string]string // surge VM -> zone, until its old node is gone
	recreateOpen         map[string]string // node recreated in place -> zone, until ready again
	peakSlots, peakVMs   map[string]int
	minReady             map[string]int
	events               int
}

func newSurgeObserver(w *World, c *model.Cluster, pool string, surge, unavail int, spot bool) *surgeObserver {
	o := &surgeObserver{c: c, pool: pool, surge: surge, unavail: unavail, slot: min(surge+unavail, upgrade.MaxUpgradeConcurrency), spot: spot,
		seq: w.st.Log.LastSeq, size: map[string]int{}, replacedBy: map[string]string{}, surgeOpen: map[string]string{},
		recreateOpen: map[string]string{}, peakSlots: map[string]int{}, peakVMs: map[string]int{}, minReady: map[string]int{}}
	for _, n := range c.Nodes {
		if n.Pool == pool {
			o.size[n.Zone]++
		}
	}
	for z, n := range o.size {
		o.minReady[z] = n
	}
	return o
}

// follow reads the log entries the last event added.
func (o *surgeObserver) follow(w *World) {
	log := &w.st.Log
	for i := log.Len() - 1; i >= 0 && log.Peek(i).Seq > o.seq; i-- {
		defer o.apply(log.At(i)) // deferred calls run oldest first
	}
	o.seq = w.st.Log.LastSeq
}

func (o *surgeObserver) apply(e model.LogEntry) {
	if e.Pool != o.pool || e.Node == "" {
		return
	}
	const replaced = "replaced by surge node "
	zone := ""
	if n := o.c.Nodes[e.Node]; n != nil {
		zone = n.Zone
	}
	switch e.Type {
	case "NodeCreating":
		o.surgeOpen[e.Node] = zone
	case "NodeCordoned", "NodeDeleting":
		if i := strings.Index(e.Message, replaced); i >= 0 {
			o.replacedBy[e.Node] = e.Message[i+len(replaced):]
		} else if e.Type == "NodeCordoned" && strings.Contains(e.Message, "(maxUnavailable)") {
			o.recreateOpen[e.Node] = zone
		}
	case "NodeDeleted":
		if s, ok := o.replacedBy[e.Node]; ok {
			delete(o.surgeOpen, s)
			delete(o.replacedBy, e.Node)
		}
	case "NodeReady":
		delete(o.recreateOpen, e.Node)
	}
}

// check verifies the invariants after an event.
func (o *surgeObserver) check(t *testing.T, w *World) {
	t.Helper()
	o.follow(w)
	o.events++
	vms, ready, slots := map[string]int{}, map[string]int{}, map[string]int{}
	for _, n := range o.c.Nodes {
		if n.Pool != o.pool {
			continue
		}
		vms[n.Zone]++
		if n.State == model.NodeReady && !n.Unschedulable {
			ready[n.Zone]++
		}
	}
	for _, z := range o.surgeOpen {
		slots[z]++
	}
	for _, z := range o.recreateOpen {
		slots[z]++
	}
	if len(slots) > 1 {
		t.Fatalf("%s: nodes being upgraded in %d zones at once %v, want one zone at a time (R-SURGE-2)", w.engine.Now().Format(time.TimeOnly), len(slots), slots)
	}
	for z, n := range o.size {
		if max := n + min(o.surge, upgrade.MaxUpgradeConcurrency); vms[z] > max {
			t.Fatalf("%s, zone %s of %d nodes: %d VMs in any state, want <= N + min(maxSurge=%d, 20) = %d (R-SURGE-2a, R-SURGE-5)",
				w.engine.Now().Format(time.TimeOnly), z, n, vms[z], o.surge, max)
		}
		if min := n - o.unavail; !o.spot && ready[z] < min {
			t.Fatalf("%s, zone %s of %d nodes: %d ready schedulable nodes, want >= N - maxUnavailable=%d = %d (R-SURGE-2a)",
				w.engine.Now().Format(time.TimeOnly), z, n, ready[z], o.unavail, min)
		}
		if max := min(o.slot, n); slots[z] > max {
			t.Fatalf("%s, zone %s of %d nodes: %d nodes being upgraded at once, want <= min(maxSurge+maxUnavailable=%d, 20, N) = %d (R-SURGE-2)",
				w.engine.Now().Format(time.TimeOnly), z, n, slots[z], o.surge+o.unavail, max)
		}
		o.peakSlots[z] = max(o.peakSlots[z], slots[z])
		o.peakVMs[z] = max(o.peakVMs[z], vms[z])
		o.minReady[z] = min(o.minReady[z], ready[z])
	}
}

// runSurgeShape upgrades a pool of the given shape one event at a time, checking the
// invariants after each event, and returns the observer.
func runSurgeShape(t *testing.T, sh surgeShape) *surgeObserver {
	t.Helper()
	w := newTestWorld(t)
	from, to := upgradeVersions(t, w)
	op, err := w.gke.CreateCluster("proj", sh.location, &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c1", InitialClusterVersion: to.String(), ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified},
		NodePools: []*api.NodePool{{Name: "pool-a", InitialNodeCount: sh.perZone, Version: from.String(),
			Config:          &api.NodeConfig{MachineType: "e2-standard-4", Spot: sh.spot},
			UpgradeSettings: &api.UpgradeSettings{MaxSurge: sh.surge, MaxUnavailable: sh.unavail}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", sh.location, "c1")
	if sh.replicas > 0 {
		mustCreateDeployment(t, w, c, deployment("web", sh.replicas, "500m"))
	}
	advance(w, 2*time.Minute)
	up, err := w.gke.UpdateNodePool("proj", sh.location, "c1", "pool-a", &api.UpdateNodePoolRequest{NodeVersion: to.String()})
	if err != nil {
		t.Fatal(err)
	}
	o := newSurgeObserver(w, c, "pool-a", int(sh.surge), int(sh.unavail), sh.spot)
	o.check(t, w)
	never := w.engine.Now().Add(30 * 24 * time.Hour)
	for up.Status != api.OpStatusDone {
		if !w.runNext(never) {
			t.Fatalf("no event left and the upgrade is %s: %s", up.Status, up.Detail)
		}
		o.check(t, w)
	}
	if up.ErrorCode != 0 {
		t.Fatalf("upgrade failed: %s", up.StatusMessage)
	}
	// R-SURGE-7: the operation does not wait for the last Spot surge nodes to be ready.
	advance(w, 5*time.Minute)
	for z, n := range o.size {
		on := 0
		for _, node := range c.Nodes {
			if node.Zone == z && node.Pool == "pool-a" && node.Spec.Version == to.String() && node.State == model.NodeReady {
				on++
			}
		}
		if on != n {
			t.Fatalf("zone %s after the upgrade: %d of %d nodes ready on %s", z, on, n, to)
		}
	}
	return o
}

// The shapes: pools of 1, 5, 30 and 1,000 nodes, zonal and regional, surge and
// maxUnavailable-only, on-demand and Spot, the profiles' extremes and R-SURGE-5's example.
func TestSurgeInvariantsAtEveryEvent(t *testing.T) {
	shapes := []surgeShape{
		{name: "1 node, surge 1", location: "us-central1-a", perZone: 1, surge: 1},
		{name: "1 node, maxUnavailable 1 only", location: "us-central1-a", perZone: 1, unavail: 1},
		{name: "1 node, surge 3 + unavailable 2", location: "us-central1-a", perZone: 1, surge: 3, unavail: 2},
		{name: "5 nodes, surge 2 + unavailable 1 (R-SURGE-5)", location: "us-central1-a", perZone: 5, surge: 2, unavail: 1, replicas: 10},
		{name: "5 nodes Spot, surge 2 + unavailable 1", location: "us-central1-a", perZone: 5, surge: 2, unavail: 1, spot: true, replicas: 10},
		{name: "30 nodes, surge 25", location: "us-central1-a", perZone: 30, surge: 25, replicas: 60},
		{name: "30 nodes, maxUnavailable 20 only (fast-no-surge)", location: "us-central1-a", perZone: 30, unavail: 20},
		{name: "30 nodes Spot, surge 3 + unavailable 2", location: "us-central1-a", perZone: 30, surge: 3, unavail: 2, spot: true, replicas: 30},
		{name: "30 nodes, surge 20 + unavailable 20", location: "us-central1-a", perZone: 30, surge: 20, unavail: 20},
		{name: "1000 nodes, surge 10 + unavailable 5", location: "us-central1-a", perZone: 1000, surge: 10, unavail: 5},
		{name: "3 zones x 4 nodes, surge 2 + unavailable 1", location: "us-central1", perZone: 4, surge: 2, unavail: 1, replicas: 12},
		{name: "3 zones x 5 nodes Spot, maxUnavailable 2 only", location: "us-central1", perZone: 5, unavail: 2, spot: true},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			if sh.perZone >= 1000 && testing.Short() {
				t.Skip("1,000-node pool skipped in -short mode")
			}
			o := runSurgeShape(t, sh)
			for z, n := range o.size {
				limit := min(o.slot, n)
				// The upgrade uses the concurrency it is allowed: the limits are reached, not
				// only respected.
				if o.peakSlots[z] != limit || o.peakVMs[z] != n+min(int(sh.surge), limit) {
					t.Errorf("zone %s of %d nodes: peak %d nodes upgraded at once and %d VMs, want %d and %d",
						z, n, o.peakSlots[z], o.peakVMs[z], limit, n+min(int(sh.surge), limit))
				}
			}
			t.Logf("%d events checked; per zone: size %v, peak VMs %v, peak upgrading %v, fewest ready schedulable %v",
				o.events, o.size, o.peakVMs, o.peakSlots, o.minReady)
		})
	}
}
