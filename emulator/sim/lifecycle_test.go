package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

var testStart = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

func newTestWorld(t *testing.T) *World {
	t.Helper()
	w := New(Options{Seed: 42, Start: testStart})
	if unfollowedFeeds {
		w.core.SetFeedFollowed(func(string) bool { return false })
	}
	return w
}

// unfollowedFeeds makes newTestWorld's worlds run as a server does when no client follows
// their clusters: the change feeds record nothing (core/changefeed.go). Only non-parallel tests set
// it, and put it back.
var unfollowedFeeds bool

// advance runs the world for d of emulated time.
func advance(w *World, d time.Duration) { w.RunUntil(w.engine.Now().Add(d)) }

// runOp advances in 10 s steps until op is DONE, failing after limit.
func runOp(t *testing.T, w *World, op *model.Operation, limit time.Duration) time.Duration {
	t.Helper()
	start := w.engine.Now()
	for w.engine.Now().Sub(start) < limit {
		if op.Status == api.OpStatusDone {
			return w.engine.Now().Sub(start)
		}
		advance(w, 10*time.Second)
	}
	t.Fatalf("operation %s (%s) not done after %s: status %s, detail %q", op.ID, op.Type, limit, op.Status, op.Detail)
	return 0
}

func createTestCluster(t *testing.T, w *World, location string, pools ...*api.NodePool) *model.Cluster {
	t.Helper()
	op, err := w.gke.CreateCluster("proj", location, &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1", NodePools: pools}})
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	runOp(t, w, op, time.Hour)
	if op.ErrorCode != 0 {
		t.Fatalf("create failed: %s", op.StatusMessage)
	}
	return w.core.Cluster("proj", location, "c1")
}

func TestCreateClusterOperationLifecycle(t *testing.T) {
	w := newTestWorld(t)
	op, err := w.gke.CreateCluster("proj", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c1", NodePools: []*api.NodePool{{Name: "pool-a", InitialNodeCount: 2}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if op.Status != api.OpStatusPending {
		t.Fatalf("new operation status = %s, want PENDING", op.Status)
	}
	c := w.core.Cluster("proj", "us-central1", "c1")
	if c.Status != model.ClusterProvisioning {
		t.Fatalf("cluster status = %s, want PROVISIONING", c.Status)
	}
	advance(w, 2*time.Second)
	if op.Status != api.OpStatusRunning {
		t.Fatalf("after 2s operation status = %s, want RUNNING", op.Status)
	}
	// A second mutation while the create holds the cluster gets GKE's "please wait".
	_, err = w.gke.CreateNodePool("proj", "us-central1", "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{Name: "pool-b", InitialNodeCount: 1}})
	e, ok := model.AsError(err)
	if !ok || e.Status != "FAILED_PRECONDITION" || e.HTTPCode != 400 {
		t.Fatalf("concurrent mutation: got %v, want 400 FAILED_PRECONDITION", err)
	}
	took := runOp(t, w, op, time.Hour)
	// Control plane (regional: 300-360 s) then nodes (60-90 s).
	if took < 360*time.Second || took > 460*time.Second {
		t.Errorf("regional cluster creation took %s emulated, want 6-8 minutes", took)
	}
	if c.Status != model.ClusterRunning || op.EndTime.IsZero() || op.ErrorCode != 0 {
		t.Fatalf("after create: cluster %s, op end %v error %d", c.Status, op.EndTime, op.ErrorCode)
	}
	if got := len(c.Nodes); got != 6 {
		t.Fatalf("nodes = %d, want 2 per zone x 3 zones = 6", got)
	}
	for _, n := range c.Nodes {
		if n.State != model.NodeReady || n.Spec.Version != c.MasterVersion || n.Spec.MachineType != "e2-medium" {
			t.Errorf("node %s: state %s version %s machine %s", n.Name, n.State, n.Spec.Version, n.Spec.MachineType)
		}
		if n.ReadyTime.Sub(n.CreateTime) < core.NodeBootBase {
			t.Errorf("node %s became ready after %s, want >= %s", n.Name, n.ReadyTime.Sub(n.CreateTime), core.NodeBootBase)
		}
	}
	p := c.Pool("pool-a")
	if p.Status != model.PoolRunning || len(p.Groups) != 3 {
		t.Fatalf("pool status %s groups %d", p.Status, len(p.Groups))
	}
}

// A node's lines are kept as parts (engine.RecordNodeLine) and read as the text they always
// had: the creation with the node's zone, machine type and version; the cordon and deletion
// with the reason the resize gave; the deletion done.
func TestNodeLinesReadAsTheirText(t *testing.T) {
	w := newTestWorld(t)
	c := createTestCluster(t, w, "us-central1-a", &api.NodePool{Name: "pool-a", InitialNodeCount: 2})
	op, err := w.gke.SetNodePoolSize("proj", "us-central1-a", "c1", "pool-a", &api.SetNodePoolSizeRequest{NodeCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	var spec model.NodeSpec
	for _, n := range c.Nodes {
		spec = n.Spec
	}
	want := map[string]string{
		"NodeCreating": "creating node %s in us-central1-a (" + spec.MachineType + ", " + spec.Version + ")",
		"NodeCordoned": "cordoned node %s: node pool resized",
		"NodeDeleting": "deleting node %s: drained",
		"NodeDeleted":  "node %s deleted",
	}
	seen := map[string]int{}
	for i := range w.st.Log.Len() {
		e := w.st.Log.At(i)
		format, ok := want[e.Type]
		if !ok {
			continue
		}
		seen[e.Type]++
		if e.Message != strings.ReplaceAll(format, "%s", e.Node) || w.st.Log.Text(i) != "" {
			t.Errorf("%s: %q (kept as text: %q), want %q of node %s kept as parts", e.Type, e.Message, w.st.Log.Text(i), format, e.Node)
		}
	}
	if seen["NodeCreating"] != 2 || seen["NodeCordoned"] != 1 || seen["NodeDeleting"] != 1 || seen["NodeDeleted"] != 1 {
		t.Errorf("node lines: %v, want 2 created, 1 cordoned, deleting and deleted", seen)
	}
}

func TestResizeAndDeleteNodePool(t *testing.T) {
	w := newTestWorld(t)
	c := createTestCluster(t, w, "us-central1-a", &api.NodePool{Name: "pool-a", InitialNodeCount: 3})
	op, err := w.gke.SetNodePoolSize("proj", "us-central1-a", "c1", "pool-a", &api.SetNodePoolSizeRequest{NodeCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	if len(c.Nodes) != 1 {
		t.Fatalf("after resize to 1: %d nodes", len(c.Nodes))
	}
	// Resize events: each removed node is cordoned, drained and deleted, in that order.
	evs, _ := w.engine.Events(engine.EventFilter{Op: "", Type: "NodeDeleted"})
	if len(evs) != 2 {
		t.Fatalf("NodeDeleted events = %d, want 2", len(evs))
	}
	op, err = w.gke.DeleteNodePool("proj", "us-central1-a", "c1", "pool-a")
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	if c.Pool("pool-a") != nil || len(c.Nodes) != 0 {
		t.Fatalf("pool still there or nodes left: %d", len(c.Nodes))
	}
	op, err = w.gke.DeleteCluster("proj", "us-central1-a", "c1")
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	if w.core.Cluster("proj", "us-central1-a", "c1") != nil {
		t.Fatal("cluster still exists after DELETE_CLUSTER is done")
	}
}

func TestSurgeUpgradeReplacesEveryNode(t *testing.T) {
	w := newTestWorld(t)
	vt := catalog.VersionsAt(w.engine.Now())
	reg := vt.Channels[api.ChannelRegular].Valid
	// Create on an older patch of the default minor so that there is something to upgrade to.
	var from, to catalog.Version
	for _, v := range reg {
		if v.Minor == reg[0].Minor {
			if to == (catalog.Version{}) {
				to = v
			} else {
				from = v
			}
		}
	}
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c1", InitialClusterVersion: to.String(),
		NodePools: []*api.NodePool{{Name: "pool-a", InitialNodeCount: 5, Version: from.String(),
			UpgradeSettings: &api.UpgradeSettings{MaxSurge: 2, MaxUnavailable: 1}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", "us-central1-a", "c1")
	op, err = w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{NodeVersion: to.String()})
	if err != nil {
		t.Fatal(err)
	}
	if op.Type != api.OpUpgradeNodes {
		t.Fatalf("op type %s", op.Type)
	}
	minSize, maxSize := 100, 0
	start := w.engine.Now()
	for op.Status != api.OpStatusDone && w.engine.Now().Sub(start) < 2*time.Hour {
		advance(w, 10*time.Second)
		live := 0
		for _, n := range c.Nodes {
			if n.State != model.NodeDeleting {
				live++
			}
		}
		minSize, maxSize = min(minSize, live), max(maxSize, live)
	}
	if op.Status != api.OpStatusDone || op.ErrorCode != 0 {
		t.Fatalf("upgrade not done: %s %s", op.Status, op.StatusMessage)
	}
	if len(c.Nodes) != 5 {
		t.Fatalf("after upgrade: %d nodes, want 5", len(c.Nodes))
	}
	for _, n := range c.Nodes {
		if n.Spec.Version != to.String() || n.State != model.NodeReady {
			t.Errorf("node %s on %s state %s", n.Name, n.Spec.Version, n.State)
		}
	}
	// R-SURGE-5: 5 nodes, maxSurge=2, maxUnavailable=1: never more than 7 VMs.
	if maxSize > 7 || minSize < 5 {
		t.Errorf("pool VMs ranged %d..%d during the upgrade, want within 5..7 VMs (R-SURGE-5)", minSize, maxSize)
	}
	if c.Pool("pool-a").Spec.Version != to.String() {
		t.Errorf("pool version %s", c.Pool("pool-a").Spec.Version)
	}
}

// R-SURGE-9: cancel lets nodes mid-upgrade finish, leaves nodes not started on the old
// version, and the pool may run two versions.
func TestCancelSurgeUpgradeLeavesTwoVersions(t *testing.T) {
	w := newTestWorld(t)
	reg := catalog.VersionsAt(w.engine.Now()).Channels[api.ChannelRegular].Valid
	from, to := reg[1], reg[0]
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c1", InitialClusterVersion: to.String(),
		NodePools: []*api.NodePool{{Name: "pool-a", InitialNodeCount: 6, Version: from.String()}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", "us-central1-a", "c1")
	up, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{NodeVersion: to.String()})
	if err != nil {
		t.Fatal(err)
	}
	// maxSurge 1: one node at a time, about 2 minutes each. Cancel after the second starts.
	advance(w, 4*time.Minute)
	if err := w.gke.CancelOperation("proj", "us-central1-a", up.ID); err != nil {
		t.Fatal(err)
	}
	runOp(t, w, up, time.Hour)
	if up.ErrorCode != core.CodeCancelled {
		t.Fatalf("cancelled upgrade ended with code %d %q, want CANCELLED", up.ErrorCode, up.StatusMessage)
	}
	counts := map[string]int{}
	for _, n := range c.Nodes {
		counts[n.Spec.Version]++
	}
	if len(c.Nodes) != 6 || counts[to.String()] < 1 || counts[from.String()] < 1 || counts[to.String()] > 3 {
		t.Fatalf("after cancel: %d nodes, versions %v; want 6 nodes on both versions, few upgraded", len(c.Nodes), counts)
	}
	if p := c.Pool("pool-a"); p.Spec.Version != from.String() || p.Status != model.PoolRunning {
		t.Fatalf("pool after cancel: version %s status %s", p.Spec.Version, p.Status)
	}
	// Only node-pool upgrades can be cancelled.
	del, _ := w.gke.DeleteNodePool("proj", "us-central1-a", "c1", "pool-a")
	if err := w.gke.CancelOperation("proj", "us-central1-a", del.ID); err == nil {
		t.Fatal("cancelling DELETE_NODE_POOL succeeded; GKE only cancels node-pool upgrades")
	}
}
