package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Scenario tests of R-MW-6: a zonal cluster's Kubernetes API is unavailable while its single
// control-plane replica is upgraded; a regional cluster's keeps serving. Pods run on throughout.

// apiDuringMasterUpgrade is what a control-plane upgrade looked like, event by event.
type apiDuringMasterUpgrade struct {
	w                *World
	c                *model.Cluster
	op               *model.Operation
	running          time.Time // when the operation began to run
	down, up         time.Time // first instant the API refused, first instant it served again
	events           int
	minPods, maxPods int
}

// upgradeMasterStepwise creates a cluster at location with one pool of nodes nodes per zone
// on the older of two patches, runs 6 pods, upgrades the control plane to the newer patch and
// runs the world one event at a time until the operation is done, noting at every event
// whether the Kubernetes API serves and how many pods run. During the upgrade it checks the
// GKE API: reads answer, mutations are refused.
func upgradeMasterStepwise(t *testing.T, location string, nodes int32) *apiDuringMasterUpgrade {
	t.Helper()
	w := newTestWorld(t)
	from, to := upgradeVersions(t, w)
	op, err := w.gke.CreateCluster("proj", location, &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c1", InitialClusterVersion: from.String(), ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified},
		NodePools: []*api.NodePool{{Name: "default-pool", InitialNodeCount: nodes, Config: &api.NodeConfig{MachineType: "e2-standard-4"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", location, "c1")
	mustCreateDeployment(t, w, c, deployment("web", 6, "500m"))
	advance(w, 10*time.Minute)
	if running, _ := podCounts(c, "web"); running != 6 {
		t.Fatalf("%d of 6 pods running before the upgrade", running)
	}
	if err := w.KubeAPIUnavailable(c); err != nil {
		t.Fatalf("before the upgrade the API is unavailable: %v", err)
	}
	op, err = w.gke.UpdateCluster("proj", location, "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{DesiredMasterVersion: to.String()}})
	if err != nil {
		t.Fatal(err)
	}
	r := &apiDuringMasterUpgrade{w: w, c: c, op: op, minPods: 6, maxPods: 6}
	checkedGKE := false
	deadline := w.engine.Now().Add(time.Hour)
	for op.Status != api.OpStatusDone && r.events < 100_000 && w.runNext(deadline) {
		r.events++
		now := w.engine.Now()
		if r.running.IsZero() && op.Status == api.OpStatusRunning {
			r.running = now
		}
		unavailable := w.KubeAPIUnavailable(c) != nil
		switch {
		case unavailable && r.down.IsZero():
			r.down = now
		case !unavailable && !r.down.IsZero() && r.up.IsZero():
			r.up = now
		case unavailable && !r.up.IsZero():
			t.Fatalf("%s: the API went down again after it came back at %s", now, r.up)
		}
		running, _ := podCounts(c, "web")
		r.minPods, r.maxPods = min(r.minPods, running), max(r.maxPods, running)
		if op.Status == api.OpStatusRunning && !checkedGKE {
			checkedGKE = true
			// The GKE API keeps answering: a read renders the cluster RECONCILING...
			if got := w.gke.RenderCluster(c, core.Links{}, "").Status; got != model.ClusterReconciling {
				t.Errorf("cluster status during the upgrade = %s, want RECONCILING", got)
			}
			// ...and refuses mutations while the upgrade holds the cluster.
			_, err := w.gke.SetNodePoolSize("proj", location, "c1", "default-pool", &api.SetNodePoolSizeRequest{NodeCount: nodes + 1})
			if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, "is currently upgrading cluster c1") {
				t.Errorf("setSize during the control-plane upgrade: %v, want 400 ... is currently upgrading cluster c1", err)
			}
		}
	}
	if op.Status != api.OpStatusDone || op.ErrorCode != 0 {
		t.Fatalf("control-plane upgrade not done after %d events: %s %s", r.events, op.Status, op.StatusMessage)
	}
	if !checkedGKE {
		t.Fatal("the upgrade never ran")
	}
	return r
}

// R-MW-6: a zonal cluster's Kubernetes API refuses every request from the moment its
// UPGRADE_MASTER operation runs until it is done (6-7 emulated minutes); the pods keep running
// at every event; the event log says when the API went down and came back.
func TestZonalKubeAPIUnavailableDuringControlPlaneUpgrade(t *testing.T) {
	r := upgradeMasterStepwise(t, "us-central1-a", 3)
	if r.down.IsZero() || r.up.IsZero() {
		t.Fatalf("down at %v, up at %v: the API of the zonal cluster never went down and came back", r.down, r.up)
	}
	if !r.down.Equal(r.running) || !r.down.Equal(r.op.StartTime.Add(core.OpStartDelay)) {
		t.Errorf("API down at %s, want when the operation began to run (%s)", r.down, r.running)
	}
	if !r.up.Equal(r.op.EndTime) {
		t.Errorf("API up at %s, want when the operation was done (%s)", r.up, r.op.EndTime)
	}
	t.Logf("API down from %s to %s (%s), %d events", r.down.Format(time.TimeOnly), r.up.Format(time.TimeOnly), r.up.Sub(r.down), r.events)
	if d := r.up.Sub(r.down); d < 6*time.Minute || d > 7*time.Minute {
		t.Errorf("API down for %s, want 6-7 minutes (a zonal control-plane upgrade)", d)
	}
	if r.minPods != 6 || r.maxPods != 6 {
		t.Errorf("running pods during the upgrade between %d and %d, want 6 at every one of %d events", r.minPods, r.maxPods, r.events)
	}

	for _, want := range []struct {
		typ  string
		at   time.Time
		text string
	}{
		{"KubernetesAPIUnavailable", r.down, "single control-plane replica is being upgraded"},
		{"KubernetesAPIAvailable", r.up, "available again"},
	} {
		evs, _ := r.w.engine.Events(engine.EventFilter{Type: want.typ})
		if len(evs) != 1 {
			t.Fatalf("%d %s entries, want 1", len(evs), want.typ)
		}
		e := evs[0]
		if e.Cluster != r.c.Key() || e.Operation != r.op.ID || e.Time != want.at.Format(time.RFC3339) || !strings.Contains(e.Message, want.text) {
			t.Errorf("%s entry = %+v, want cluster %s, operation %s, at %s, message with %q", want.typ, e, r.c.Key(), r.op.ID, want.at.Format(time.RFC3339), want.text)
		}
	}
}

// R-MW-6: while the API is down the error is the API server's 503, naming the cluster and the
// rule, and the console's cluster summary says so; afterwards both are clear.
func TestZonalKubeAPIUnavailableErrorAndSummary(t *testing.T) {
	w := newTestWorld(t)
	from, to := upgradeVersions(t, w)
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c1", InitialClusterVersion: from.String(), ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified},
		NodePools: []*api.NodePool{{Name: "default-pool", InitialNodeCount: 1}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", "us-central1-a", "c1")
	op, err = w.gke.UpdateCluster("proj", "us-central1-a", "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{DesiredMasterVersion: to.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if w.KubeAPIUnavailable(c) != nil {
		t.Fatal("the API is down while the operation is still PENDING")
	}
	advance(w, core.OpStartDelay)
	e, ok := model.AsError(w.KubeAPIUnavailable(c))
	if !ok || e.HTTPCode != 503 || e.KubeReason != "ServiceUnavailable" ||
		!strings.HasPrefix(e.Message, "the server is currently unable to handle the request") || !strings.Contains(e.Message, "zonal cluster c1") ||
		!strings.Contains(e.Message, "maintenance#r-mw-6") {
		t.Fatalf("error during the upgrade = %+v, want 503 ServiceUnavailable naming the cluster and R-MW-6", e)
	}
	if s := w.views.ClusterSummaries().Clusters[0]; s.KubeAPIUnavailable != e.Message {
		t.Errorf("summary during the upgrade: kubeApiUnavailable = %q, want the error's message", s.KubeAPIUnavailable)
	}
	runOp(t, w, op, time.Hour)
	if err := w.KubeAPIUnavailable(c); err != nil {
		t.Errorf("after the upgrade: %v", err)
	}
	if s := w.views.ClusterSummaries().Clusters[0]; s.KubeAPIUnavailable != "" {
		t.Errorf("summary after the upgrade: kubeApiUnavailable = %q", s.KubeAPIUnavailable)
	}
}

// R-MW-6: a regional cluster upgrades its three control-plane replicas one at a time, and its
// Kubernetes API serves at every event of the upgrade, pods running throughout.
func TestRegionalKubeAPIAvailableDuringControlPlaneUpgrade(t *testing.T) {
	r := upgradeMasterStepwise(t, "us-central1", 1)
	if !r.down.IsZero() {
		t.Errorf("the regional cluster's API went down at %s", r.down)
	}
	if d := r.op.EndTime.Sub(r.running); d < 12*time.Minute || d > 13*time.Minute {
		t.Errorf("regional control-plane upgrade took %s, want 12-13 minutes", d)
	}
	if r.minPods != 6 || r.maxPods != 6 {
		t.Errorf("running pods during the upgrade between %d and %d, want 6 at every one of %d events", r.minPods, r.maxPods, r.events)
	}
	for _, typ := range []string{"KubernetesAPIUnavailable", "KubernetesAPIAvailable"} {
		if evs, _ := r.w.engine.Events(engine.EventFilter{Type: typ}); len(evs) != 0 {
			t.Errorf("regional cluster logged %s: %+v", typ, evs[0])
		}
	}
}
