package sim

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/autoscaler"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kubeapi"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Scenario tests of the cluster autoscaler, with node counts over emulated time.

// systemPool hosts GKE's kube-system pods so that the autoscaled pool under test holds only
// the test's workloads (kube-system pods without a PDB keep their node, as on GKE).
var systemPool = &api.NodePool{Name: "system", InitialNodeCount: 1, Config: &api.NodeConfig{MachineType: "e2-standard-8"}}

// autoscaledCluster creates a cluster in location with the system pool, then adds pool.
func autoscaledCluster(t *testing.T, location string, zones []string, pool *api.NodePool) (*World, *model.Cluster) {
	t.Helper()
	w := newTestWorld(t)
	op, err := w.gke.CreateCluster("proj", location, &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1", Locations: zones,
		NodePools: []*api.NodePool{{Name: systemPool.Name, InitialNodeCount: 1, Config: systemPool.Config, Locations: zones[:1]}}}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	advance(w, time.Minute)
	op, err = w.gke.CreateNodePool("proj", location, "c1", &api.CreateNodePoolRequest{NodePool: pool})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	return w, w.core.Cluster("proj", location, "c1")
}

// onPool pins a Deployment's pods to a node pool.
func onPool(pool string) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.NodeSelector = map[string]string{"cloud.google.com/gke-nodepool": pool}
	}
}

// poolZoneSizes counts a pool's live nodes per zone.
func poolZoneSizes(c *model.Cluster, pool string) map[string]int {
	out := map[string]int{}
	for _, n := range c.Nodes {
		if n.Pool == pool && n.State != model.NodeDeleting && n.State != model.NodeDraining {
			out[n.Zone]++
		}
	}
	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

var threeZones = []string{"us-central1-a", "us-central1-b", "us-central1-f"}

// R-CA-3: 3 zones with min 1 / max 4 per zone bound the pool to 3..12 nodes: it grows to 12 for
// pods that need more, and shrinks to 3 when they go.
func TestAutoscalerPerZoneLimits(t *testing.T) {
	w, c := autoscaledCluster(t, "us-central1", threeZones, &api.NodePool{Name: "auto", InitialNodeCount: 2,
		Config:      &api.NodeConfig{MachineType: "e2-standard-2"},
		Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 4}})
	if got := sum(poolZoneSizes(c, "auto")); got != 6 {
		t.Fatalf("start: %d nodes, want 2 x 3 zones", got)
	}
	mustCreateDeployment(t, w, c, deployment("web", 30, "1", onPool("auto")))
	advance(w, 10*time.Minute)
	sizes := poolZoneSizes(c, "auto")
	if sum(sizes) != 12 {
		t.Fatalf("after scale-up: %v, want 4 in each of 3 zones = 12 (max 4 per zone, R-CA-3)", sizes)
	}
	running, pending := podCounts(c, "web")
	if running != 12 || pending != 18 {
		t.Fatalf("web: %d running, %d pending; one 1-CPU pod per e2-standard-2 node: want 12 and 18", running, pending)
	}
	if notes, _ := w.engine.Events(engine.EventFilter{Type: "NotTriggerScaleUp"}); len(notes) == 0 || !strings.Contains(notes[0].Message, "max size reached") {
		t.Fatalf("no NotTriggerScaleUp event saying the max is reached: %v", notes)
	}
	if _, err := w.kubeapi.SetScale(c, "default", "web", 0, ""); err != nil {
		t.Fatal(err)
	}
	advance(w, 40*time.Minute)
	if sizes := poolZoneSizes(c, "auto"); sum(sizes) != 3 || sizes["us-central1-a"] != 1 || sizes["us-central1-b"] != 1 || sizes["us-central1-f"] != 1 {
		t.Fatalf("after the pods went: %v, want 1 per zone (min 1 per zone, R-CA-3)", sizes)
	}
}

// R-CA-3: total limits 3..12 hold for the pool whatever the spread across zones.
func TestAutoscalerTotalLimits(t *testing.T) {
	w, c := autoscaledCluster(t, "us-central1", threeZones, &api.NodePool{Name: "auto", InitialNodeCount: 2,
		Config:      &api.NodeConfig{MachineType: "e2-standard-2"},
		Autoscaling: &api.NodePoolAutoscaling{Enabled: true, TotalMinNodeCount: 3, TotalMaxNodeCount: 12, LocationPolicy: api.LocationPolicyAny}})
	mustCreateDeployment(t, w, c, deployment("web", 30, "1", onPool("auto")))
	advance(w, 10*time.Minute)
	if got := sum(poolZoneSizes(c, "auto")); got != 12 {
		t.Fatalf("after scale-up: %d nodes, want the total max 12", got)
	}
	w.kubeapi.SetScale(c, "default", "web", 0, "")
	advance(w, 40*time.Minute)
	if got := sum(poolZoneSizes(c, "auto")); got != 3 {
		t.Fatalf("after the pods went: %d nodes, want the total min 3", got)
	}
}

// R-CA-6: BALANCED keeps the zones within one node of each other on scale-up; ANY fills the
// zone that has capacity first.
func TestAutoscalerLocationPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy string
		check  func(map[string]int) bool
	}{
		{api.LocationPolicyBalanced, func(s map[string]int) bool {
			lo, hi := 100, 0
			for _, z := range threeZones {
				lo, hi = min(lo, s[z]), max(hi, s[z])
			}
			return hi-lo <= 1
		}},
		{api.LocationPolicyAny, func(s map[string]int) bool { return s["us-central1-a"] == 8 && s["us-central1-b"] == 1 }},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			w, c := autoscaledCluster(t, "us-central1", threeZones, &api.NodePool{Name: "auto", InitialNodeCount: 1,
				Config:      &api.NodeConfig{MachineType: "e2-standard-2"},
				Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 10, LocationPolicy: tc.policy}})
			mustCreateDeployment(t, w, c, deployment("web", 10, "1", onPool("auto")))
			advance(w, 10*time.Minute)
			sizes := poolZoneSizes(c, "auto")
			if sum(sizes) != 10 || !tc.check(sizes) {
				t.Fatalf("%s: zone sizes %v after adding 7 nodes to 1+1+1", tc.policy, sizes)
			}
		})
	}
}

// R-CA-7: the cheapest pool that fits is grown first; Spot is cheaper.
func TestAutoscalerPrefersSpot(t *testing.T) {
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, &api.NodePool{Name: "ondemand", InitialNodeCount: 0,
		Config: &api.NodeConfig{MachineType: "e2-standard-4"}, Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 10}})
	op, err := w.gke.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{Name: "spot", InitialNodeCount: 0,
		Config: &api.NodeConfig{MachineType: "e2-standard-4", Spot: true}, Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	if lp := c.Pool("spot").Autoscaling.LocationPolicy; lp != api.LocationPolicyAny {
		t.Fatalf("Spot pool location policy %s, want ANY by default (R-CA-6)", lp)
	}
	mustCreateDeployment(t, w, c, deployment("web", 10, "1", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.NodeSelector = map[string]string{"node.kubernetes.io/instance-type": "e2-standard-4"}
	}))
	advance(w, 10*time.Minute)
	if od, sp := sum(poolZoneSizes(c, "ondemand")), sum(poolZoneSizes(c, "spot")); od != 0 || sp == 0 {
		t.Fatalf("ondemand %d nodes, spot %d: want the cheaper Spot pool grown", od, sp)
	}
	if running, pending := podCounts(c, "web"); running != 10 || pending != 0 {
		t.Fatalf("web: %d running, %d pending", running, pending)
	}
}

// R-CA-2: each blocker keeps its node, and the reason is in the event log.
func TestAutoscalerScaleDownBlockers(t *testing.T) {
	auto := func() *api.NodePool {
		return &api.NodePool{Name: "auto", InitialNodeCount: 3, Config: &api.NodeConfig{MachineType: "e2-standard-4"},
			Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 0, MaxNodeCount: 5}}
	}
	for _, tc := range []struct {
		name   string
		setup  func(*testing.T, *World, *model.Cluster)
		reason string
	}{
		{"safe-to-evict", func(t *testing.T, w *World, c *model.Cluster) {
			mustCreateDeployment(t, w, c, deployment("batch", 1, "100m", onPool("auto"), func(d *appsv1.Deployment) {
				d.Spec.Template.Annotations = map[string]string{core.SafeToEvictAnnotation: "false"}
			}))
		}, `safe-to-evict: "false"`},
		{"pdb", func(t *testing.T, w *World, c *model.Cluster) {
			mustCreateDeployment(t, w, c, deployment("db", 1, "100m", onPool("auto")))
			if _, err := w.kubeapi.CreatePDB(c, "default", pdbMin("db", "1")); err != nil {
				t.Fatal(err)
			}
		}, "would violate PodDisruptionBudget default/db"},
		{"no-controller", func(t *testing.T, w *World, c *model.Cluster) {
			d := deployment("bare", 1, "100m", onPool("auto"))
			pod := &corev1.Pod{Spec: d.Spec.Template.Spec}
			pod.Name = "bare"
			if _, err := w.kubeapi.CreatePod(c, "default", pod); err != nil {
				t.Fatal(err)
			}
		}, "is not managed by a controller"},
		{"fits-nowhere", func(t *testing.T, w *World, c *model.Cluster) {
			mustCreateDeployment(t, w, c, deployment("big", 1, "1900m", onPool("auto")))
		}, "fits on no other node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, auto())
			tc.setup(t, w, c)
			advance(w, 45*time.Minute)
			if got := sum(poolZoneSizes(c, "auto")); got != 1 {
				t.Fatalf("%s: %d nodes left, want the 1 node the blocker holds (min is 0)", tc.name, got)
			}
			blocked, _ := w.engine.Events(engine.EventFilter{Type: "ScaleDownBlocked"})
			found := false
			for _, e := range blocked {
				found = found || strings.Contains(e.Message, tc.reason)
			}
			if !found {
				t.Fatalf("%s: no ScaleDownBlocked event containing %q in %v", tc.name, tc.reason, blocked)
			}
		})
	}
	// Without a blocker the pool goes to its minimum of 0: the cluster keeps its system node.
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, auto())
	advance(w, 45*time.Minute)
	if got := sum(poolZoneSizes(c, "auto")); got != 0 {
		t.Fatalf("no blocker: %d nodes left, want 0", got)
	}
	downs, _ := w.engine.Events(engine.EventFilter{Type: "ScaleDown"})
	if len(downs) != 3 {
		t.Fatalf("%d ScaleDown events, want 3", len(downs))
	}
	first, _ := time.Parse(time.RFC3339, downs[0].Time)
	if created := c.Pool("auto").CreateTime; first.Sub(created) < autoscaler.UnneededBalanced {
		t.Fatalf("first node removed %s after the pool came up, want >= 10 minutes unneeded", first.Sub(created))
	}
}

// R-CA-2: the scale-down drain gets 10 minutes, then the node is terminated anyway.
func TestAutoscalerForcedDrainAfterTenMinutes(t *testing.T) {
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, &api.NodePool{Name: "auto", InitialNodeCount: 2,
		Config: &api.NodeConfig{MachineType: "e2-standard-4"}, Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 5}})
	mustCreateDeployment(t, w, c, deployment("slow", 1, "100m", onPool("auto"), func(d *appsv1.Deployment) {
		g := int64(3600)
		d.Spec.Template.Spec.TerminationGracePeriodSeconds = &g
	}))
	advance(w, 40*time.Minute)
	var removed string
	for _, e := range mustEvents(w, "ScaleDown") {
		if strings.Contains(e.Message, "its 1 pods") {
			removed = e.Node
		}
	}
	if removed == "" {
		t.Fatal("the node running the slow pod was never removed")
	}
	down := eventTimes(w, "ScaleDown", removed)
	drained := eventTimes(w, "NodeDrained", removed)
	if len(down) != 1 || len(drained) != 1 || drained[0].Sub(down[0]) != 10*time.Minute+core.DrainFinish {
		t.Fatalf("scale-down at %v, drained at %v: want the 3600 s grace cut to 10 minutes (R-CA-2)", down, drained)
	}
}

func mustEvents(w *World, typ string) []*api.Event {
	evs, _ := w.engine.Events(engine.EventFilter{Type: typ})
	return evs
}

// R-CA-4: below min, only scale-up; within, both ways; above max, only removal of nodes that
// can go.
func TestAutoscalerSizeVersusLimits(t *testing.T) {
	limits := &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 2, MaxNodeCount: 4}
	newPool := func() *api.NodePool {
		return &api.NodePool{Name: "auto", InitialNodeCount: 3, Config: &api.NodeConfig{MachineType: "e2-standard-2"}, Autoscaling: limits}
	}
	resize := func(t *testing.T, w *World, n int32) {
		op, err := w.gke.SetNodePoolSize("proj", "us-central1-a", "c1", "auto", &api.SetNodePoolSizeRequest{NodeCount: n})
		if err != nil {
			t.Fatal(err)
		}
		runOp(t, w, op, time.Hour)
	}
	t.Run("below min", func(t *testing.T) {
		w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, newPool())
		resize(t, w, 1)
		advance(w, 30*time.Minute)
		if got := sum(poolZoneSizes(c, "auto")); got != 1 {
			t.Fatalf("below min, idle: %d nodes, want 1 (no scale-down below min, no scale-up without pending pods)", got)
		}
		mustCreateDeployment(t, w, c, deployment("web", 3, "1", onPool("auto")))
		advance(w, 10*time.Minute)
		if got := sum(poolZoneSizes(c, "auto")); got != 3 {
			t.Fatalf("below min with 3 pending pods: %d nodes, want 3", got)
		}
	})
	t.Run("within", func(t *testing.T) {
		w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, newPool())
		mustCreateDeployment(t, w, c, deployment("web", 4, "1", onPool("auto")))
		advance(w, 10*time.Minute)
		if got := sum(poolZoneSizes(c, "auto")); got != 4 {
			t.Fatalf("within, 4 pods: %d nodes, want 4", got)
		}
		w.kubeapi.SetScale(c, "default", "web", 0, "")
		advance(w, 40*time.Minute)
		if got := sum(poolZoneSizes(c, "auto")); got != 2 {
			t.Fatalf("within, idle: %d nodes, want min 2", got)
		}
	})
	t.Run("above max", func(t *testing.T) {
		w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, newPool())
		resize(t, w, 6)
		mustCreateDeployment(t, w, c, deployment("web", 8, "1", onPool("auto")))
		advance(w, 10*time.Minute)
		if got := sum(poolZoneSizes(c, "auto")); got != 6 {
			t.Fatalf("above max with pending pods: %d nodes, want 6 (never up above max)", got)
		}
		w.kubeapi.SetScale(c, "default", "web", 0, "")
		advance(w, 40*time.Minute)
		if got := sum(poolZoneSizes(c, "auto")); got != 2 {
			t.Fatalf("above max, idle: %d nodes, want the removable ones gone down to min 2", got)
		}
	})
}

// R-CA-5: a Standard cluster never scales to zero nodes.
func TestAutoscalerNeverEmptiesTheCluster(t *testing.T) {
	w := newTestWorld(t)
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1",
		NodePools: []*api.NodePool{{Name: "auto", InitialNodeCount: 2, Config: &api.NodeConfig{MachineType: "e2-standard-4"},
			Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 0, MaxNodeCount: 3}}}}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", "us-central1-a", "c1")
	// Let GKE's system pods move: give each system Deployment a PDB allowing it.
	for _, sd := range catalog.SystemDeployments {
		b := pdbMin(sd.Name, "0")
		b.Spec.Selector.MatchLabels = map[string]string{"k8s-app": sd.Name}
		if _, err := w.kubeapi.CreatePDB(c, "kube-system", b); err != nil {
			t.Fatal(err)
		}
	}
	advance(w, time.Hour)
	if got := sum(poolZoneSizes(c, "auto")); got != 1 {
		t.Fatalf("%d nodes left, want 1: the cluster never scales to zero (R-CA-5)", got)
	}
	found := false
	for _, e := range mustEvents(w, "ScaleDownBlocked") {
		found = found || strings.Contains(e.Message, "a Standard cluster never scales to zero")
	}
	if !found {
		t.Fatal("no ScaleDownBlocked event saying the cluster never scales to zero (R-CA-5)")
	}
}

// R-SURGE-10: the autoscaler makes no changes to a pool a surge upgrade is replacing.
func TestAutoscalerLeavesSurgeUpgradesAlone(t *testing.T) {
	reg := catalog.VersionsAt(testStart).Channels[api.ChannelRegular].Valid
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, &api.NodePool{Name: "auto", InitialNodeCount: 4,
		Version: reg[1].String(), Config: &api.NodeConfig{MachineType: "e2-standard-4"},
		Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 5}})
	op := startUpgrade(t, w, "auto", reg[0].String())
	runOp(t, w, op, 3*time.Hour)
	if nodesOn(c, "auto", reg[0].String()) != 4 {
		t.Fatalf("%d of 4 nodes upgraded", nodesOn(c, "auto", reg[0].String()))
	}
	for _, e := range append(mustEvents(w, "ScaleDown"), mustEvents(w, "ScaleUp")...) {
		at, _ := time.Parse(time.RFC3339, e.Time)
		if !at.Before(op.StartTime) && !at.After(op.EndTime) {
			t.Fatalf("autoscaler changed the pool during its surge upgrade: %s", e.Message)
		}
	}
}

// R-ABG-2/3/4: autoscaled blue-green. Green starts empty and grows for the evicted pods; during
// the wait the autoscaler removes underutilised blue nodes, except the one running a
// safe-to-evict=false pod, which keeps its node until the wait ends.
func TestAutoscaledBlueGreen(t *testing.T) {
	reg := catalog.VersionsAt(testStart).Channels[api.ChannelRegular].Valid
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, &api.NodePool{Name: "auto", InitialNodeCount: 3,
		Version: reg[1].String(), Config: &api.NodeConfig{MachineType: "e2-standard-4"},
		Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 2, MaxNodeCount: 6},
		UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
			AutoscaledRolloutPolicy: &api.AutoscaledRolloutPolicy{WaitForDrainDuration: "172800s"}}}})
	mustCreateDeployment(t, w, c, deployment("batch", 1, "100m", onPool("auto"), func(d *appsv1.Deployment) {
		d.Spec.Template.Annotations = map[string]string{core.SafeToEvictAnnotation: "false"}
	}))
	mustCreateDeployment(t, w, c, deployment("web", 2, "100m", onPool("auto")))
	advance(w, time.Minute)
	var batchNode string
	for _, p := range c.Pods {
		if p.Owner == "batch" {
			batchNode = p.Node
		}
	}
	op := startUpgrade(t, w, "auto", reg[0].String())
	advance(w, 24*time.Hour)
	u := c.Pool("auto").Upgrade
	if u == nil || u.BG.Phase != model.PhaseWaitingToDrain {
		t.Fatalf("after 1 day: upgrade %+v, want WAITING_TO_DRAIN_BLUE_POOL", u)
	}
	created := mustEvents(w, "BlueGreenPhase")
	if !strings.Contains(created[0].Message, "created green instance groups") {
		t.Fatalf("first phase event %q", created[0].Message)
	}
	if n := c.Nodes[batchNode]; n == nil || n.State == model.NodeDeleting {
		t.Fatal("the blue node running the safe-to-evict=false pod was removed during the wait (R-ABG-2)")
	}
	blue := w.upgrade.BlueNodes(c, c.Pool("auto"))
	if len(blue) != 1 || blue[0].Name != batchNode {
		t.Fatalf("blue nodes during the wait: %d, want only the one running the batch pod (min ignored, R-ABG-2)", len(blue))
	}
	if running, _ := podCounts(c, "web"); running != 2 {
		t.Fatalf("web: %d running: the green pool should have grown for them (R-ABG-4)", running)
	}
	runOp(t, w, op, 2*24*time.Hour)
	if op.ErrorCode != 0 || c.Nodes[batchNode] != nil {
		t.Fatalf("after the wait: op %q, batch node still there: %v", op.StatusMessage, c.Nodes[batchNode] != nil)
	}
	if _, err := w.upgrade.RollbackNodePool("proj", "us-central1-a", "c1", "auto", nil); err == nil {
		t.Fatal("rollback accepted after an autoscaled blue-green upgrade")
	}
}

// R-CA-9: pods with a priority below -10 do not trigger scale-up, and the event says why; a
// pod at -10 does. Init containers count: pods whose init container asks for 2 CPUs (their
// containers for 500m) get one e2-standard-4 node each, and a pod whose init container
// asks for more than any node offers triggers nothing.
func TestAutoscalerPriorityAndInitContainers(t *testing.T) {
	priority := func(v int32) func(*appsv1.Deployment) {
		return func(d *appsv1.Deployment) { d.Spec.Template.Spec.Priority = &v }
	}
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, &api.NodePool{Name: "auto", InitialNodeCount: 0,
		Config: &api.NodeConfig{MachineType: "e2-standard-2"}, Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 10}})
	mustCreateDeployment(t, w, c, deployment("low", 3, "1", onPool("auto"), priority(-11)))
	advance(w, 10*time.Minute)
	if got := sum(poolZoneSizes(c, "auto")); got != 0 || len(mustEvents(w, "ScaleUp")) != 0 {
		t.Fatalf("3 pending pods of priority -11: %d nodes, %d scale-ups; want none", got, len(mustEvents(w, "ScaleUp")))
	}
	notes := mustEvents(w, "NotTriggerScaleUp")
	if len(notes) != 3 || !strings.Contains(notes[0].Message, "its priority -11 is below -10: pods below it never trigger scale-up") {
		t.Fatalf("NotTriggerScaleUp events %v, want 3 saying priority -11 is below -10", notes)
	}
	mustCreateDeployment(t, w, c, deployment("edge", 2, "1", onPool("auto"), priority(-10)))
	advance(w, 10*time.Minute)
	if got := sum(poolZoneSizes(c, "auto")); got != 2 {
		t.Fatalf("2 pending pods of priority -10: %d nodes, want 2 (one 1-CPU pod per e2-standard-2)", got)
	}
	if running, _ := podCounts(c, "edge"); running != 2 {
		t.Fatalf("edge: %d running, want 2", running)
	}
	if running, pending := podCounts(c, "low"); running != 0 || pending != 3 {
		t.Fatalf("low: %d running, %d pending; want 0 and 3 (no room was added for them)", running, pending)
	}

	w, c = autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, &api.NodePool{Name: "auto", InitialNodeCount: 0,
		Config: &api.NodeConfig{MachineType: "e2-standard-4"}, Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 10}})
	withInit := func(cpu string) func(*appsv1.Deployment) {
		return func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}
		}
	}
	mustCreateDeployment(t, w, c, deployment("setup", 4, "500m", onPool("auto"), withInit("2")))
	advance(w, 10*time.Minute)
	if got := sum(poolZoneSizes(c, "auto")); got != 4 {
		t.Fatalf("4 pods of 500m with a 2-CPU init container: %d nodes, want 4 (2 CPUs each; by containers alone 1 node would do)", got)
	}
	if running, _ := podCounts(c, "setup"); running != 4 {
		t.Fatalf("setup: %d running, want 4", running)
	}
	mustCreateDeployment(t, w, c, deployment("huge-init", 1, "500m", onPool("auto"), withInit("5")))
	advance(w, 10*time.Minute)
	if got := sum(poolZoneSizes(c, "auto")); got != 4 {
		t.Fatalf("a pod whose init container needs 5 CPUs: %d nodes, want still 4", got)
	}
	found := false
	for _, e := range mustEvents(w, "NotTriggerScaleUp") {
		found = found || strings.Contains(e.Message, "default/huge-init-") && strings.Contains(e.Message, "needs 5000m CPU")
	}
	if !found {
		t.Fatalf("no NotTriggerScaleUp event saying huge-init needs 5000m CPU: %v", mustEvents(w, "NotTriggerScaleUp"))
	}
}

// bgAutoscaledPool is an autoscaled pool of 3 e2-standard-2 nodes (1..6) on the older patch,
// upgraded blue-green one node per batch with a 600 s batch soak and a 2 h pool soak.
func bgAutoscaledPool(from catalog.Version) *api.NodePool {
	one := int32(1)
	return &api.NodePool{Name: "pool-a", InitialNodeCount: 3, Version: from.String(), Config: &api.NodeConfig{MachineType: "e2-standard-2"},
		Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 6},
		UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
			StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchNodeCount: &one, BatchSoakDuration: "600s"}, NodePoolSoakDuration: "7200s"}}}
}

// groupSizes counts the live nodes of a blue-green upgrade's blue and green groups.
func groupSizes(c *model.Cluster, bg *model.BlueGreen) (blue, green int) {
	for _, n := range c.Nodes {
		if n.State == model.NodeDeleting {
			continue
		}
		if bg.IsBlue(n.Group) {
			blue++
		} else if bg.IsGreen(n.Group) {
			green++
		}
	}
	return blue, green
}

// R-BG-6: during a blue-green upgrade the blue pool neither grows nor shrinks (its drained,
// empty nodes stay until the delete phase); the green pool grows for pending pods but keeps
// its idle nodes until the soak, where it shrinks. On rollback the blue pool grows.
func TestAutoscalerDuringBlueGreen(t *testing.T) {
	reg := catalog.VersionsAt(testStart).Channels[api.ChannelRegular].Valid
	start := func(t *testing.T) (*World, *model.Cluster, *model.Operation) {
		w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, bgAutoscaledPool(reg[1]))
		// One 1100m pod per node: above half of the node, so nothing is underutilised.
		mustCreateDeployment(t, w, c, deployment("web", 3, "1100m", onPool("pool-a")))
		advance(w, time.Minute)
		op := startUpgrade(t, w, "pool-a", reg[0].String())
		advanceToPhase(t, w, c, model.PhaseDrainingBlue)
		// The first batch moved one web pod to green; of 4 more pods, 2 fit the idle green
		// nodes and 2 need new ones.
		mustCreateDeployment(t, w, c, deployment("burst", 4, "1100m", onPool("pool-a")))
		advance(w, 5*time.Minute)
		return w, c, op
	}

	w, c, op := start(t)
	bg := c.Pool("pool-a").Upgrade.BG
	if blue, green := groupSizes(c, bg); blue != 3 || green != 5 {
		t.Fatalf("draining with 2 pending pods: %d blue, %d green nodes; want 3 and 5 (only green grows)", blue, green)
	}
	if ups := mustEvents(w, "ScaleUp"); len(ups) != 1 || !strings.Contains(ups[0].Message, "+2") {
		t.Fatalf("scale-ups %v, want one adding 2 green nodes", ups)
	}
	if _, err := w.kubeapi.SetScale(c, "default", "burst", 0, ""); err != nil {
		t.Fatal(err)
	}
	var soakStart time.Time
	var greenNodes []string
	minBlue, maxBlue, greenAtSoak := 100, 0, 0
	for i := 0; i < 5000 && op.Status != api.OpStatusDone; i++ {
		advance(w, 10*time.Second)
		u := c.Pool("pool-a").Upgrade
		if u == nil || u.BG.Phase == model.PhaseDeletingBlue {
			continue
		}
		blue, green := groupSizes(c, bg)
		minBlue, maxBlue = min(minBlue, blue), max(maxBlue, blue)
		if u.BG.Phase == model.PhaseSoaking && soakStart.IsZero() {
			soakStart, greenAtSoak = w.engine.Now(), green
			for _, n := range c.Nodes {
				if bg.IsGreen(n.Group) {
					greenNodes = append(greenNodes, n.Name)
				}
			}
		}
	}
	if op.ErrorCode != 0 || nodesOn(c, "pool-a", reg[0].String()) != 3 {
		t.Fatalf("upgrade: %q, %d nodes on %s; want done with the 3 busy green nodes", op.StatusMessage, nodesOn(c, "pool-a", reg[0].String()), reg[0])
	}
	if minBlue != 3 || maxBlue != 3 {
		t.Fatalf("the blue pool held %d..%d nodes before its deletion, want 3 throughout", minBlue, maxBlue)
	}
	if greenAtSoak != 5 {
		t.Fatalf("green had %d nodes when the soak began, want 5: its 2 idle nodes (idle for 25+ minutes) kept until the soak", greenAtSoak)
	}
	downs := mustEvents(w, "ScaleDown")
	if len(downs) != 2 {
		t.Fatalf("%d scale-downs, want the 2 idle green nodes", len(downs))
	}
	for _, e := range downs {
		at, _ := time.Parse(time.RFC3339, e.Time)
		if at.Before(soakStart) || at.Sub(soakStart) > 15*time.Minute || !slices.Contains(greenNodes, e.Node) {
			t.Fatalf("scale-down of %s at %s, soak from %s: want green nodes removed in the soak, once 10 minutes unneeded", e.Node, at, soakStart)
		}
	}

	// Rollback from the drain phase: blue is uncordoned and grows for the pods green held (one
	// web and two burst pods; blue has one empty node).
	w, c, _ = start(t)
	if _, err := w.kubeapi.SetScale(c, "default", "burst", 2, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.gke.CancelOperation("proj", "us-central1-a", c.Pool("pool-a").Upgrade.Op); err != nil {
		t.Fatal(err)
	}
	bg = c.Pool("pool-a").Upgrade.BG
	rb, err := w.upgrade.RollbackNodePool("proj", "us-central1-a", "c1", "pool-a", &api.RollbackNodePoolUpgradeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, rb, time.Hour)
	advance(w, 5*time.Minute)
	if blue, green := groupSizes(c, bg); blue != 5 || green != 0 {
		t.Fatalf("after the rollback: %d blue, %d green nodes; want blue grown to 5 for web and burst", blue, green)
	}
	webRunning, _ := podCounts(c, "web")
	burstRunning, _ := podCounts(c, "burst")
	if webRunning != 3 || burstRunning != 2 {
		t.Fatalf("after the rollback: web %d, burst %d running; want 3 and 2", webRunning, burstRunning)
	}
}

// abgPool is an autoscaled blue-green pool of n e2-standard-2 nodes (1..30) on version from,
// waiting wait before it drains the blue nodes.
func abgPool(from catalog.Version, n int32, wait string) *api.NodePool {
	return &api.NodePool{Name: "auto", InitialNodeCount: n, Version: from.String(), Config: &api.NodeConfig{MachineType: "e2-standard-2"},
		Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 30},
		UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
			AutoscaledRolloutPolicy: &api.AutoscaledRolloutPolicy{WaitForDrainDuration: wait}}}}
}

// R-ABG-3: after the 1 h wait, the 25 blue nodes drain at most 20 at a time: 20 at once, the
// other 5 as the first ones finish. Pods get their full 2 h of grace (up to 24 h is honoured),
// a pod whose PodDisruptionBudget never allows an eviction is deleted 1 h into its node's
// drain, and the blue pool is deleted without a node-pool soak.
func TestAutoscaledBlueGreenDrainAfterTheWait(t *testing.T) {
	reg := catalog.VersionsAt(testStart).Channels[api.ChannelRegular].Valid
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, abgPool(reg[1], 25, "3600s"))
	// One 1100m pod per node keeps every blue node busy (over half used) through the wait.
	mustCreateDeployment(t, w, c, deployment("batch", 25, "1100m", onPool("auto"), func(d *appsv1.Deployment) {
		g := int64(7200)
		d.Spec.Template.Spec.TerminationGracePeriodSeconds = &g
	}))
	mustCreateDeployment(t, w, c, deployment("db", 1, "100m", onPool("auto")))
	advance(w, time.Minute)
	if _, err := w.kubeapi.CreatePDB(c, "default", pdbMin("db", "100%")); err != nil {
		t.Fatal(err)
	}
	op := startUpgrade(t, w, "auto", reg[0].String())
	bg := c.Pool("auto").Upgrade.BG
	peak := 0
	for i := 0; i < 5000 && op.Status != api.OpStatusDone; i++ {
		advance(w, 10*time.Second)
		draining := 0
		for _, n := range c.Nodes {
			if bg.IsBlue(n.Group) && n.State == model.NodeDraining {
				draining++
			}
		}
		peak = max(peak, draining)
	}
	if op.ErrorCode != 0 || nodesOn(c, "auto", reg[0].String()) != 25 {
		t.Fatalf("upgrade: %q, %d nodes on %s; want done with 25 green nodes for the 25 batch pods", op.StatusMessage, nodesOn(c, "auto", reg[0].String()), reg[0])
	}
	if peak != 20 {
		t.Fatalf("at most %d blue nodes drained at once, want 20", peak)
	}
	waitStart, waitEnd := eventTimes(w, "BlueGreenPhase", model.PhaseWaitingToDrain), eventTimes(w, "BlueGreenPhase", model.PhaseDrainingBlue)
	if len(waitStart) != 1 || len(waitEnd) != 1 || waitEnd[0].Sub(waitStart[0]) != time.Hour {
		t.Fatalf("wait from %v, drain phase from %v: want the drain 1 h after the wait began", waitStart, waitEnd)
	}
	var starts []time.Duration
	for _, e := range mustEvents(w, "NodeDraining") {
		if strings.Contains(e.Message, "autoscaled blue-green drain") {
			at, _ := time.Parse(time.RFC3339, e.Time)
			starts = append(starts, at.Sub(waitEnd[0]))
		}
	}
	if len(starts) != 25 || starts[0] != 0 || starts[19] != 0 || starts[20] < 2*time.Hour {
		t.Fatalf("blue drains started %v after the wait, want 20 at once and 5 more once the first finished (2 h of grace)", starts)
	}
	graced := 0
	for _, e := range mustEvents(w, "PodEvicted") {
		if !strings.Contains(e.Message, "default/batch-") {
			continue
		}
		if !strings.Contains(e.Message, "(grace 2h0m0s)") {
			t.Fatalf("eviction %q, want the pod's full 2 h grace (R-ABG-3 honours up to 24 h)", e.Message)
		}
		evicted, _ := time.Parse(time.RFC3339, e.Time)
		if drained := eventTimes(w, "NodeDrained", e.Node); len(drained) == 1 && drained[0].Sub(evicted) >= 2*time.Hour {
			graced++
		}
	}
	if graced != 25 {
		t.Fatalf("%d of 25 blue nodes drained 2 h or more after their batch pod's eviction, want all", graced)
	}
	deleted := mustEvents(w, "PodDeleted")
	if len(deleted) != 1 || !strings.Contains(deleted[0].Message, "default/db-") || !strings.Contains(deleted[0].Message, "timeout of 1h0m0s") {
		t.Fatalf("PodDeleted %v, want db deleted at the 1 h PodDisruptionBudget timeout", deleted)
	}
	at, _ := time.Parse(time.RFC3339, deleted[0].Time)
	if drainStart := eventTimes(w, "NodeDraining", deleted[0].Node); len(drainStart) != 1 || at.Sub(drainStart[0]) != time.Hour {
		t.Fatalf("db deleted at %s, its node's drain started %v: want 1 h later", at, drainStart)
	}
	for _, e := range mustEvents(w, "BlueGreenPhase") {
		if strings.HasPrefix(e.Message, model.PhaseSoaking) {
			t.Fatalf("phase %q: autoscaled blue-green has no node-pool soak", e.Message)
		}
	}
	if soaks := mustEvents(w, "BlueGreenSoak"); len(soaks) != 0 {
		t.Fatalf("soak events %v, want none", soaks)
	}
	lastDrained := eventTimes(w, "NodeDrained", "")
	if done := op.EndTime.Sub(lastDrained[len(lastDrained)-1]); done > 5*time.Minute {
		t.Fatalf("the upgrade ended %s after the last blue node was drained, want minutes (no soak)", done)
	}
}

// R-ABG-5: an autoscaled blue-green upgrade can be cancelled (it pauses in its phase, even past
// the end of the wait) and resumed (an update to the same version), but never rolled back.
// When the green pool cannot grow (a stockout), the blue pool still goes and the evicted pods
// wait unscheduled; once capacity returns, green grows and they run.
func TestAutoscaledBlueGreenCancelResumeNoRollback(t *testing.T) {
	reg := catalog.VersionsAt(testStart).Channels[api.ChannelRegular].Valid
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, abgPool(reg[1], 3, "3600s"))
	mustCreateDeployment(t, w, c, deployment("web", 3, "1100m", onPool("auto")))
	advance(w, time.Minute)
	op := startUpgrade(t, w, "auto", reg[0].String())
	advance(w, 10*time.Minute)
	if err := w.gke.CancelOperation("proj", "us-central1-a", op.ID); err != nil {
		t.Fatal(err)
	}
	u := c.Pool("auto").Upgrade
	if op.ErrorCode != core.CodeCancelled || !u.Paused || u.BG.Phase != model.PhaseWaitingToDrain {
		t.Fatalf("after cancel: op code %d, upgrade %+v; want CANCELLED and paused while waiting", op.ErrorCode, u)
	}
	_, err := w.upgrade.RollbackNodePool("proj", "us-central1-a", "c1", "auto", nil)
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || e.Status != "FAILED_PRECONDITION" || !strings.Contains(e.Message, "resume") || !strings.Contains(e.Message, "#r-abg-5") {
		t.Fatalf("rollback of the paused upgrade: %v, want a 400 FAILED_PRECONDITION saying to resume instead (R-ABG-5)", err)
	}
	advance(w, 2*time.Hour) // well past the end of the 1 h wait
	if u.BG.Phase != model.PhaseWaitingToDrain || len(w.upgrade.BlueNodes(c, c.Pool("auto"))) != 3 {
		t.Fatalf("paused upgrade: phase %s, %d blue nodes; want still waiting with all 3", u.BG.Phase, len(w.upgrade.BlueNodes(c, c.Pool("auto"))))
	}
	stockout, err := w.core.AddFault(model.Fault{Kind: core.FaultStockout, Zone: "us-central1-a"})
	if err != nil {
		t.Fatal(err)
	}
	resumedAt := w.engine.Now()
	resumed := startUpgrade(t, w, "auto", reg[0].String())
	advance(w, 30*time.Minute)
	if ev := mustEvents(w, "UpgradeResumed"); len(ev) != 1 || !strings.Contains(ev[0].Message, model.PhaseWaitingToDrain) {
		t.Fatalf("UpgradeResumed %v, want one in %s", ev, model.PhaseWaitingToDrain)
	}
	if drain := eventTimes(w, "BlueGreenPhase", model.PhaseDrainingBlue); len(drain) != 1 || drain[0].Sub(resumedAt) > 5*time.Second {
		t.Fatalf("resumed at %s, drain phase entered %v: want at once (the wait is over)", resumedAt, drain)
	}
	if running, pending := podCounts(c, "web"); resumed.Status != api.OpStatusDone || running != 0 || pending != 3 {
		t.Fatalf("during the stockout: upgrade %s, web %d running, %d pending; want blue gone and all 3 pods waiting for green", resumed.Status, running, pending)
	}
	if waits := mustEvents(w, "WaitingForCapacity"); len(waits) == 0 || !strings.Contains(waits[0].Message, "GCE_STOCKOUT") {
		t.Fatalf("WaitingForCapacity %v, want green waiting on GCE_STOCKOUT", waits)
	}
	// A scale-up that cannot start a node is a wait, logged as such, not a scale-up every pass.
	if ups := eventTimes(w, "ScaleUp", "auto"); len(ups) > 1 {
		t.Fatalf("%d ScaleUp events during the stockout (at %v); want at most one", len(ups), ups)
	}
	if err := w.core.DeleteFault(stockout.ID); err != nil {
		t.Fatal(err)
	}
	advance(w, 10*time.Minute)
	if running, _ := podCounts(c, "web"); resumed.ErrorCode != 0 || running != 3 || nodesOn(c, "auto", reg[0].String()) != 3 {
		t.Fatalf("after the stockout: %q, web %d running, %d green nodes; want 3 and 3", resumed.StatusMessage, running, nodesOn(c, "auto", reg[0].String()))
	}
}

// computeClassCluster has, beside the system pool, two autoscaled pools of compute class
// class: on-demand n2-standard-4 and Spot e2-standard-4 (the Spot one is the cheaper), and the
// ComputeClass object given.
func computeClassCluster(t *testing.T, class, computeClass string) (*World, *model.Cluster) {
	t.Helper()
	pool := func(name, machine string, spot bool) *api.NodePool {
		return &api.NodePool{Name: name, InitialNodeCount: 0, Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 10},
			Config: &api.NodeConfig{MachineType: machine, Spot: spot, Labels: map[string]string{core.ComputeClassLabel: class},
				Taints: []*api.NodeTaint{{Key: core.ComputeClassLabel, Value: class, Effect: "NO_SCHEDULE"}}}}
	}
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, pool("ondemand-n2", "n2-standard-4", false))
	op, err := w.gke.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: pool("spot-e2", "e2-standard-4", true)})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	k := kubeapi.StoredKindOf(model.ResourceComputeClasses)
	obj := k.New()
	if err := json.Unmarshal([]byte(computeClass), obj); err != nil {
		t.Fatal(err)
	}
	if _, err := w.kubeapi.CreateStored(c, k, "", obj); err != nil {
		t.Fatalf("create ComputeClass: %v", err)
	}
	mustCreateDeployment(t, w, c, deployment("web", 10, "1", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.NodeSelector = map[string]string{core.ComputeClassLabel: class}
	}))
	advance(w, 10*time.Minute)
	return w, c
}

// R-CA-11: pods that select a compute class get nodes from the class's pools in the order of its
// priority rules, before cost (R-CA-7): on-demand n2 first although Spot e2 is cheaper; a class
// whose rules no pool matches grows nothing with whenUnsatisfiable DoNotScaleUp, and says why.
func TestComputeClassPrioritiesBeforeCost(t *testing.T) {
	t.Run("priorities", func(t *testing.T) {
		_, c := computeClassCluster(t, "prefer-n2", `{"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass",
			"metadata": {"name": "prefer-n2"}, "spec": {"priorities": [{"machineFamily": "n2"}, {"machineFamily": "e2", "spot": true}]}}`)
		if n2, e2 := sum(poolZoneSizes(c, "ondemand-n2")), sum(poolZoneSizes(c, "spot-e2")); n2 == 0 || e2 != 0 {
			t.Fatalf("ondemand-n2 %d nodes, spot-e2 %d: want the class's first choice grown, not the cheaper pool", n2, e2)
		}
		if running, pending := podCounts(c, "web"); running != 10 || pending != 0 {
			t.Fatalf("web: %d running, %d pending", running, pending)
		}
	})
	t.Run("unsatisfiable", func(t *testing.T) {
		w, c := computeClassCluster(t, "only-c3", `{"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass",
			"metadata": {"name": "only-c3"}, "spec": {"priorities": [{"machineFamily": "c3"}], "whenUnsatisfiable": "DoNotScaleUp"}}`)
		if n2, e2 := sum(poolZoneSizes(c, "ondemand-n2")), sum(poolZoneSizes(c, "spot-e2")); n2+e2 != 0 {
			t.Fatalf("ondemand-n2 %d nodes, spot-e2 %d: want none, no pool matches the class", n2, e2)
		}
		if running, pending := podCounts(c, "web"); running != 0 || pending != 10 {
			t.Fatalf("web: %d running, %d pending, want all pending", running, pending)
		}
		found := false
		for _, e := range mustEvents(w, "NotTriggerScaleUp") {
			found = found || strings.Contains(e.Message, "no priority rule of ComputeClass only-c3")
		}
		if !found {
			t.Fatalf("no NotTriggerScaleUp names the class: %v", mustEvents(w, "NotTriggerScaleUp"))
		}
	})
}

// R-CA-2, R-EXT-2: a pod annotated safe-to-evict "false" after it started (kubectl annotate, a
// PUT of the pod) holds its node from then on: the scale-down evaluation's per-node summary
// (autoscaler/scaledown_summary.go) counts the pod again when its annotations change.
func TestScaleDownSeesAnnotationsChangedLater(t *testing.T) {
	w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, &api.NodePool{Name: "auto", InitialNodeCount: 3,
		Config: &api.NodeConfig{MachineType: "e2-standard-4"}, Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 0, MaxNodeCount: 5}})
	// No node selector: nothing but the annotation makes the evaluation look at the pod.
	mustCreateDeployment(t, w, c, deployment("web", 1, "100m"))
	advance(w, time.Minute)
	var pod *model.Pod
	for _, p := range c.Pods {
		if p.Owner == "web" {
			pod = p
		}
	}
	if pod == nil || pod.Node == "" || c.Nodes[pod.Node].Pool != "auto" {
		t.Fatal("the web pod is not running on the autoscaled pool")
	}
	in := w.kubeapi.RenderPod(c, pod)
	in.Annotations = map[string]string{core.SafeToEvictAnnotation: "false"}
	if _, err := w.kubeapi.UpdatePod(c, "default", pod.Name(), in); err != nil {
		t.Fatal(err)
	}
	advance(w, 45*time.Minute)
	if got := sum(poolZoneSizes(c, "auto")); got != 1 || c.Nodes[pod.Node] == nil {
		t.Fatalf("%d nodes left (the pod's node %s there: %v); want only the node the annotated pod holds", got, pod.Node, c.Nodes[pod.Node] != nil)
	}
	blocked, _ := w.engine.Events(engine.EventFilter{Type: "ScaleDownBlocked"})
	if !strings.Contains(messages(blocked), pod.Key()+` has cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`) {
		t.Fatalf("ScaleDownBlocked events %s: want the annotated pod named", messages(blocked))
	}
}
