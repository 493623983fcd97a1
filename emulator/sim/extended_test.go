package sim

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// extendedCluster creates a cluster (Autopilot or Standard) on the older of two patches, runs
// a safe-to-evict=false workload on it, then upgrades the control plane to the newer patch.
func extendedCluster(t *testing.T, autopilot bool) (*World, *model.Cluster, catalog.Version) {
	t.Helper()
	w := newTestWorld(t)
	from, to := upgradeVersions(t, w)
	cl := &api.Cluster{Name: "c1", InitialClusterVersion: from.String(), ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified}}
	if autopilot {
		cl.Autopilot = &api.Autopilot{Enabled: true}
	} else {
		cl.NodePools = []*api.NodePool{{Name: "default-pool", InitialNodeCount: 2, Config: &api.NodeConfig{MachineType: "e2-standard-4"}}}
	}
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", "us-central1-a", "c1")
	mustCreateDeployment(t, w, c, deployment("batch", 2, "500m", func(d *appsv1.Deployment) {
		d.Spec.Template.Annotations = map[string]string{core.SafeToEvictAnnotation: "false"}
	}))
	advance(w, 10*time.Minute)
	if running, _ := podCounts(c, "batch"); running != 2 {
		t.Fatalf("batch: %d running before the upgrade", running)
	}
	op, err = w.gke.UpdateCluster("proj", "us-central1-a", "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{DesiredMasterVersion: to.String()}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	return w, c, to
}

func autoUpgradePool(t *testing.T, w *World, c *model.Cluster, to catalog.Version) *model.Operation {
	t.Helper()
	p := c.Pool("default-pool")
	target := p.Spec
	target.Version = to.String()
	return w.upgrade.PlanAutoUpgrade(c, p, target)
}

// R-EXT-1: on Autopilot, a node auto-upgrade leaves safe-to-evict=false pods running for 7 days
// after they started; then they are evicted and the upgrade ends.
func TestExtendedDurationPodSurvivesAutoUpgradeOnAutopilot(t *testing.T) {
	w, c, to := extendedCluster(t, true)
	created := map[string]time.Time{}
	for _, p := range c.Pods {
		if p.Owner == "batch" {
			created[p.Name()] = p.CreateTime.Time()
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
	if ev := mustEvents(w, "EvictionDeferred"); len(ev) == 0 || !strings.Contains(ev[0].Message, "7 days after it started") {
		t.Fatalf("no EvictionDeferred event saying the pod waits its 7 days (R-EXT-1): %v", ev)
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
	_, err := w.kubeapi.CreateDeployment(c, "default", deployment("spotty", 1, "250m", func(d *appsv1.Deployment) {
		d.Spec.Template.Annotations = map[string]string{core.SafeToEvictAnnotation: "false"}
		d.Spec.Template.Spec.NodeSelector = map[string]string{"cloud.google.com/gke-spot": "true"}
	}))
	if err == nil || !strings.Contains(err.Error(), "Spot Pods cannot use extended run duration") {
		t.Fatalf("Spot extended-duration pod: %v", err)
	}
	if _, err := w.gke.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{Name: "mine", InitialNodeCount: 1}}); err == nil {
		t.Fatal("an Autopilot cluster accepted a user node pool")
	}
	if s := c.Pool("default-pool").UpgradeSettings.Strategy; s != api.StrategySurge {
		t.Fatalf("Autopilot pool strategy %s, want SURGE (R-UPG-3)", s)
	}
}

// R-EXT-3: a pod asking for 2 hours of terminationGracePeriodSeconds gets at most 1 hour when
// a node auto-upgrade evicts it and at most 10 minutes when the autoscaler removes its node:
// it is gone that long after its eviction, and its node is drained right after.
func TestDefaultGraceCapsOfGKEEvictions(t *testing.T) {
	slow := func(pool string) *appsv1.Deployment {
		return deployment("slow", 1, "100m", onPool(pool), func(d *appsv1.Deployment) {
			g := int64(7200)
			d.Spec.Template.Spec.TerminationGracePeriodSeconds = &g
		})
	}
	for _, tc := range []struct {
		name  string
		evict func(t *testing.T) (*World, *model.Cluster)
		cap   time.Duration
	}{
		{"node auto-upgrade", func(t *testing.T) (*World, *model.Cluster) {
			w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 2, Config: &api.NodeConfig{MachineType: "e2-standard-4"}})
			mustCreateDeployment(t, w, c, slow("pool-a"))
			advance(w, time.Minute)
			p := c.Pool("pool-a")
			target := p.Spec
			target.Version = to.String()
			runOp(t, w, w.upgrade.PlanAutoUpgrade(c, p, target), 3*time.Hour)
			return w, c
		}, time.Hour},
		{"scale-down", func(t *testing.T) (*World, *model.Cluster) {
			w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, &api.NodePool{Name: "auto", InitialNodeCount: 2,
				Config: &api.NodeConfig{MachineType: "e2-standard-4"}, Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 5}})
			mustCreateDeployment(t, w, c, slow("auto"))
			advance(w, 2*time.Hour)
			if len(mustEvents(w, "ScaleDown")) == 0 {
				t.Fatal("the autoscaler removed no node")
			}
			return w, c
		}, 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, c := tc.evict(t)
			evictions := mustEvents(w, "PodEvicted")
			var first *api.Event
			for _, e := range evictions {
				if strings.Contains(e.Message, "default/slow-") {
					first = e
					break
				}
			}
			if first == nil {
				t.Fatal("the slow pod was never evicted")
			}
			if want := fmt.Sprintf("(grace %s)", tc.cap); !strings.Contains(first.Message, want) {
				t.Fatalf("eviction %q, want %s", first.Message, want)
			}
			evicted, _ := time.Parse(time.RFC3339, first.Time)
			key := strings.Fields(first.Message[strings.Index(first.Message, "default/slow-"):])[0]
			if c.Pods[key] != nil {
				t.Fatalf("pod %s still there at %s, %s after its eviction", key, w.engine.Now().Format(time.RFC3339), w.engine.Now().Sub(evicted))
			}
			drained := eventTimes(w, "NodeDrained", first.Node)
			if len(drained) != 1 || drained[0].Sub(evicted) != tc.cap+core.DrainFinish {
				t.Fatalf("evicted at %s, node %s drained at %v: want the pod gone %s later (then %s to finish the drain)",
					evicted.Format(time.TimeOnly), first.Node, drained, tc.cap, core.DrainFinish)
			}
		})
	}
}

// `gcloud container clusters create-auto` sends a default-pool (one node, OAuth scopes) beside
// autopilot.enabled. GKE accepts what its CLI sends: Autopilot's own auto-provisioned
// default-pool takes its place, and the event log says so. More than one pool is refused.
func TestAutopilotAcceptsTheDefaultPoolGcloudSends(t *testing.T) {
	w := newTestWorld(t)
	var req api.CreateClusterRequest
	gcloudBody := `{"cluster": {"autopilot": {"enabled": true}, "ipAllocationPolicy": {"createSubnetwork": false, "useIpAliases": true},
		"name": "ap1", "nodePools": [{"config": {"oauthScopes": ["https://www.googleapis.com/auth/devstorage.read_only"]},
		"initialNodeCount": 1, "name": "default-pool"}]}, "parent": "projects/proj/locations/us-central1"}`
	if err := json.Unmarshal([]byte(gcloudBody), &req); err != nil {
		t.Fatal(err)
	}
	op, err := w.gke.CreateCluster("proj", "us-central1", &req)
	if err != nil {
		t.Fatalf("create-auto's request refused: %v", err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", "us-central1", "ap1")
	if op.ErrorCode != 0 || !c.Autopilot || len(c.Pools) != 1 || c.Pools[0].Name != "default-pool" || !c.Pools[0].Autoscaling.Autoprovisioned || len(c.Nodes) != 0 {
		t.Fatalf("Autopilot cluster from create-auto's request: %d pools (%+v), %d nodes; want Autopilot's own default-pool, autoscaled from zero",
			len(c.Pools), c.Pools[0].Autoscaling, len(c.Nodes))
	}
	if ev := mustEvents(w, "ClusterCreating"); len(ev) != 2 || !strings.Contains(ev[1].Message, "managed by Autopilot") {
		t.Fatalf("ClusterCreating events %v: want one saying Autopilot replaces the requested default-pool", ev)
	}
	_, err = w.gke.CreateCluster("proj", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "ap2", Autopilot: &api.Autopilot{Enabled: true},
		NodePools: []*api.NodePool{{Name: "a", InitialNodeCount: 1}, {Name: "b", InitialNodeCount: 1}}}})
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, "cluster.nodePools") || !strings.Contains(e.Message, "Autopilot") {
		t.Fatalf("Autopilot with two node pools: %v, want a 400 naming cluster.nodePools", err)
	}
}
