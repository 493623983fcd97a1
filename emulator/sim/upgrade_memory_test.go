package sim

import (
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
	"weak"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// An upgrade lets go of the nodes it replaced: once it is done, nothing in the simulation
// holds a deleted node (a surge zone's view and a blue-green upgrade's list of blue nodes once
// kept every one, so that a 15,000-node surge upgrade held 15,000 deleted nodes until the next
// upgrade of the pool). Weak pointers to the nodes as they were before say whether the
// collector could free them.
func TestUpgradeLetsGoOfReplacedNodes(t *testing.T) {
	for name, pool := range map[string]*api.NodePool{
		"surge":      {Name: "pool-a", InitialNodeCount: 6, UpgradeSettings: &api.UpgradeSettings{MaxSurge: 2}},
		"blue-green": bgPool("60s", "120s"),
	} {
		t.Run(name, func(t *testing.T) {
			w, c, _, to := upgradeCluster(t, pool)
			var before []weak.Pointer[model.Node]
			for _, n := range c.Nodes {
				before = append(before, weak.Make(n))
			}
			op := startUpgrade(t, w, "pool-a", to.String())
			runOp(t, w, op, 6*time.Hour)
			if got := nodesOn(c, "pool-a", to.String()); got != len(before) {
				t.Fatalf("%d nodes upgraded, want %d", got, len(before))
			}
			runtime.GC()
			if held := stillHeld(before); held > 0 {
				t.Errorf("%d of the %d replaced nodes are still held after the upgrade", held, len(before))
			}
			runtime.KeepAlive(w)
		})
	}
}

// stillHeld counts the weak pointers whose object the collector has not freed.
func stillHeld[T any](ps []weak.Pointer[T]) int {
	held := 0
	for _, p := range ps {
		if p.Value() != nil {
			held++
		}
	}
	return held
}

// A deleted cluster is let go of whole: its nodes, pods and indexes (the pod index, the
// scheduler's view, the load balancers' index, the change feed) go with it, and so does a
// pool deleted from a running cluster.
func TestDeletedClusterAndPoolAreLetGo(t *testing.T) {
	w := newTestWorld(t)
	w.core.SetFeedFollowed(func(string) bool { return true })
	c := createTestCluster(t, w, "us-central1-a", &api.NodePool{Name: "web", InitialNodeCount: 3}, &api.NodePool{Name: "batch", InitialNodeCount: 2})
	w.core.FollowFeed(c)
	if _, err := w.kubeapi.CreateDeployment(c, "default", deployment("app", 12, "100m")); err != nil {
		t.Fatal(err)
	}
	advance(w, 5*time.Minute)
	pool, batchNodes := weak.Make(c.Pool("batch")), []weak.Pointer[model.Node]{}
	for _, n := range c.Nodes {
		if n.Pool == "batch" {
			batchNodes = append(batchNodes, weak.Make(n))
		}
	}
	op, err := w.gke.DeleteNodePool("proj", "us-central1-a", "c1", "batch")
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	runtime.GC()
	if pool.Value() != nil {
		t.Error("the deleted pool is still held")
	}
	for _, n := range batchNodes {
		if n.Value() != nil {
			t.Errorf("node %s of the deleted pool is still held", n.Value().Name)
		}
	}
	cluster, pods := weak.Make(c), []weak.Pointer[model.Pod]{}
	for _, p := range c.Pods {
		pods = append(pods, weak.Make(p))
	}
	if op, err = w.gke.DeleteCluster("proj", "us-central1-a", "c1"); err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c = nil
	runtime.GC()
	if cluster.Value() != nil {
		t.Error("the deleted cluster is still held")
	}
	if held := stillHeld(pods); held > 0 {
		t.Errorf("%d of the deleted cluster's %d pods are still held", held, len(pods))
	}
	runtime.KeepAlive(w)
}

// A node's handle in the pod index (model.Node.IndexSlot) finds the entry its name finds, at
// every step of a surge upgrade and a resize (entries made, dropped and their slots reused).
func TestNodeHandleFindsWhatItsNameFinds(t *testing.T) {
	w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 6, UpgradeSettings: &api.UpgradeSettings{MaxSurge: 2}})
	if _, err := w.kubeapi.CreateDeployment(c, "default", deployment("app", 30, "100m")); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		ix := w.core.PodIndex(c)
		for _, n := range c.Nodes {
			byHandle, byName := ix.OnNode(n), ix.On(n.Name)
			if !slices.Equal(byHandle.Pods, byName.Pods) || byHandle.Requested != byName.Requested || byHandle.Load != byName.Load || byHandle.Flagged != byName.Flagged {
				t.Fatalf("%s: node %s's handle finds %d pods, its name %d", when, n.Name, len(byHandle.Pods), len(byName.Pods))
			}
			if len(byName.Pods) > 0 && n.IndexSlot == 0 {
				t.Fatalf("%s: node %s has pods and no handle", when, n.Name)
			}
		}
	}
	advance(w, time.Minute)
	check("before")
	op := startUpgrade(t, w, "pool-a", to.String())
	for i := 0; i < 400 && op.Status != api.OpStatusDone; i++ {
		advance(w, 15*time.Second)
		check("during the upgrade")
	}
	resize, err := w.gke.SetNodePoolSize("proj", "us-central1-a", "c1", "pool-a", &api.SetNodePoolSizeRequest{NodeCount: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 400 && resize.Status != api.OpStatusDone; i++ {
		advance(w, 15*time.Second)
		check("during the resize")
	}
	if op.Status != api.OpStatusDone || resize.Status != api.OpStatusDone {
		t.Fatalf("upgrade %s, resize %s", op.Status, resize.Status)
	}
}

// GKE's DaemonSets count their pods as the pods are, at every publish of a surge upgrade (its
// DaemonSet pods created, started, made ready, deleted with their nodes): the counts kept per
// pod as it changes (core.StatusMarks) against a count of the pods.
func TestDaemonSetCountsMatchThePods(t *testing.T) {
	w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 6, UpgradeSettings: &api.UpgradeSettings{MaxSurge: 2}})
	check := func(when string) {
		live, ready := map[string]int32{}, map[string]int32{}
		for _, p := range c.Pods {
			if p.OwnerKind != model.OwnerDaemonSet {
				continue
			}
			if !p.Terminating {
				live[p.Owner]++
			}
			if p.Ready {
				ready[p.Owner]++
			}
		}
		for name, st := range c.DaemonSetStates {
			if st.Status.CurrentNumberScheduled != live[name] || st.Status.NumberReady != ready[name] {
				t.Fatalf("%s: DaemonSet %s counts %d scheduled, %d ready; its pods are %d live, %d ready",
					when, name, st.Status.CurrentNumberScheduled, st.Status.NumberReady, live[name], ready[name])
			}
		}
	}
	check("before")
	if len(c.DaemonSetStates) == 0 {
		t.Fatal("no DaemonSet status")
	}
	op := startUpgrade(t, w, "pool-a", to.String())
	steps := 0
	for ; steps < 1000 && op.Status != api.OpStatusDone; steps++ {
		advance(w, 5*time.Second)
		check("during the upgrade")
	}
	if op.Status != api.OpStatusDone {
		t.Fatalf("the upgrade is %s after %d steps", op.Status, steps)
	}
}

// A cluster's map of pods is built anew once as many pods have left it as it holds (a Go map
// never shrinks, and one whose pods are replaced over and over grows its tables: compactPods),
// at a publish, with the same pods in it.
func TestPodsMapIsRebuiltAfterChurn(t *testing.T) {
	defer func(was int) { core.CompactPodsMin = was }(core.CompactPodsMin)
	core.CompactPodsMin = 1024 // as it is outside tests (TestMain lowers it)
	w := newTestWorld(t)
	c := createTestCluster(t, w, "us-central1-a", &api.NodePool{Name: "web", InitialNodeCount: 3})
	advance(w, 5*time.Minute)
	system := len(c.Pods)
	mapOf := func() uintptr { return reflect.ValueOf(c.Pods).Pointer() }
	was, rebuilt, removed := mapOf(), 0, 0
	for range 5 {
		if _, err := w.kubeapi.CreateDeployment(c, "default", deployment("churn", 300, "10m")); err != nil {
			t.Fatal(err)
		}
		advance(w, time.Minute)
		if _, err := w.kubeapi.DeleteDeployment(c, "default", "churn"); err != nil {
			t.Fatal(err)
		}
		advance(w, 2*time.Minute)
		removed += 300
		if now := mapOf(); now != was {
			rebuilt, was = rebuilt+1, now
		}
	}
	if rebuilt != 1 {
		t.Errorf("after %d pods left a map of about %d, it was built anew %d times, want once (at 1,024 removals)", removed, system+300, rebuilt)
	}
	if len(c.Pods) != system {
		t.Errorf("%d pods in the map, want the %d system pods", len(c.Pods), system)
	}
	for key, p := range c.Pods {
		if p.Key() != key || p.Namespace() != "kube-system" {
			t.Errorf("the map holds %s under %s, want only GKE's system pods under their keys", p.Key(), key)
		}
	}
	if got := len(w.kubeapi.ListPods(c, model.ListOptions{}).Items); got != system {
		t.Errorf("the API lists %d pods, want %d", got, system)
	}
}
