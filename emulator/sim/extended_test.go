package sim

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// extendedCluster creates a cluster (Autopilot or Standard) on the older of two patches, runs
// a safe-to-evict=false workload on it, then upgrades the control plane to the newer patch.
func extendedCluster(t *testing.T, autopilot bool) (*World, *Cluster, Version) {
	t.Helper()
	w := newTestWorld(t)
	from, to := upgradeVersions(t, w)
	cl := &api.Cluster{Name: "c1", InitialClusterVersion: from.String(), ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified}}
	if autopilot {
		cl.Autopilot = &api.Autopilot{Enabled: true}
	} else {
		cl.NodePools = []*api.NodePool{{Name: "default-pool", InitialNodeCount: 2, Config: &api.NodeConfig{MachineType: "e2-standard-4"}}}
	}
	op, err := w.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.Cluster("proj", "us-central1-a", "c1")
	mustCreateDeployment(t, w, c, deployment("batch", 2, "500m", func(d *appsv1.Deployment) {
		d.Spec.Template.Annotations = map[string]string{SafeToEvictAnnotation: "false"}
	}))
	advance(w, 10*time.Minute)
	if running, _ := podCounts(c, "batch"); running != 2 {
		t.Fatalf("batch: %d running before the upgrade", running)
	}
	op, err = w.UpdateCluster("proj", "us-central1-a", "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{DesiredMasterVersion: to.String()}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	return w, c, to
}

func autoUpgradePool(t *testing.T, w *World, c *Cluster, to Version) *Operation {
	t.Helper()
	p := c.Pool("default-pool")
	target := p.Spec
	target.Version = to.String()
	return w.planAutoUpgrade(c, p, target)
}

// R-EXT-1: on Autopilot, a node auto-upgrade leaves safe-to-evict=false pods running for 7 days
// after they started; then they are evicted and the upgrade ends.
func TestExtendedDurationPodSurvivesAutoUpgradeOnAutopilot(t *testing.T) {
	w, c, to := extendedCluster(t, true)
	created := map[string]time.Time{}
	for _, p := range c.Pods {
		if p.Owner == "batch" {
			created[p.Name] = p.CreateTime
		}
	}
	op := autoUpgradePool(t, w, c, to)
	advance(w, 6*24*time.Hour)
	for name := range created {
		if p := c.Pods["default/"+name]; p == nil || p.Terminating || c.Nodes[p.Node].Spec.Version == to.String() {
			t.Fatalf("after 6 days the extended-duration pod %s was disturbed (R-EXT-1)", name)
		}
	}
	if op.Status == api.OpStatusDone {
		t.Fatal("the auto-upgrade finished without waiting for the extended-duration pods")
	}
	if ev := mustEvents(w, "EvictionDeferred"); len(ev) == 0 || !strings.Contains(ev[0].Message, "R-EXT-1") {
		t.Fatalf("no EvictionDeferred event citing R-EXT-1: %v", ev)
	}
	runOp(t, w, op, 3*24*time.Hour)
	for name, at := range created {
		evicted := eventTimes(w, "PodEvicted", "default/"+name)
		if len(evicted) != 1 || evicted[0].Before(at.Add(7*24*time.Hour)) {
			t.Fatalf("pod %s created %s evicted at %v: want once, no sooner than 7 days later", name, at, evicted)
		}
	}
	if op.ErrorCode != 0 {
		t.Fatal(op.StatusMessage)
	}
}

// R-EXT-2: on Standard the annotation does not hold back a node auto-upgrade.
func TestExtendedDurationPodEvictedByAutoUpgradeOnStandard(t *testing.T) {
	w, c, to := extendedCluster(t, false)
	op := autoUpgradePool(t, w, c, to)
	runOp(t, w, op, 2*time.Hour)
	if op.ErrorCode != 0 || len(mustEvents(w, "EvictionDeferred")) != 0 {
		t.Fatalf("Standard auto-upgrade: %q, deferred evictions %d; want done within hours, none deferred", op.StatusMessage, len(mustEvents(w, "EvictionDeferred")))
	}
	if running, _ := podCounts(c, "batch"); running != 2 || nodesOn(c, "default-pool", to.String()) != 2 {
		t.Fatalf("after the upgrade: %d batch pods running, %d nodes upgraded", running, nodesOn(c, "default-pool", to.String()))
	}
}

// R-EXT-1: Autopilot admits extended-duration pods only without Spot, and manages the pools.
func TestExtendedDurationRulesOnAutopilot(t *testing.T) {
	w, c, _ := extendedCluster(t, true)
	_, err := w.CreateDeployment(c, "default", deployment("spotty", 1, "250m", func(d *appsv1.Deployment) {
		d.Spec.Template.Annotations = map[string]string{SafeToEvictAnnotation: "false"}
		d.Spec.Template.Spec.NodeSelector = map[string]string{"cloud.google.com/gke-spot": "true"}
	}))
	if err == nil || !strings.Contains(err.Error(), "Spot Pods cannot use extended run duration") {
		t.Fatalf("Spot extended-duration pod: %v", err)
	}
	if _, err := w.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{Name: "mine", InitialNodeCount: 1}}); err == nil {
		t.Fatal("an Autopilot cluster accepted a user node pool")
	}
	if s := c.Pool("default-pool").UpgradeSettings.Strategy; s != api.StrategySurge {
		t.Fatalf("Autopilot pool strategy %s, want SURGE (R-UPG-3)", s)
	}
}
