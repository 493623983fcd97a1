package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// R-SURGE-11, R-UPG-2: a blue-green pool created through the API without surge settings
// (as `gcloud container node-pools create --enable-blue-green-upgrade` sends it) reads back
// GKE's surge defaults, maxSurge 1 and maxUnavailable 0, and a change of its node system
// configuration (kubeletConfig, as `--system-config-from-file` sends it) replaces its nodes
// through a surge upgrade with them: one node at a time, never more than size + 1 VMs at any
// event, done in bounded emulated time, the cluster free again afterwards.
func TestBlueGreenPoolWithoutSurgeSettingsSurgesWithGKEDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		// stale sets the stored settings to 0 and 0 before the change, as a state saved
		// before the defaults were applied holds them: the upgrade must still progress.
		stale bool
	}{{"created without surge fields", false}, {"stored 0 and 0 from an older state", true}} {
		t.Run(tc.name, func(t *testing.T) {
			w, c, _, _ := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 2, UpgradeSettings: &api.UpgradeSettings{
				Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{NodePoolSoakDuration: "600s"}}})
			p := c.Pool("pool-a")
			us := w.gke.RenderNodePool(c, p, testLinks).UpgradeSettings
			if us.MaxSurge != 1 || us.MaxUnavailable != 0 || us.Strategy != api.StrategyBlueGreen {
				t.Fatalf("upgradeSettings read back %s, want maxSurge 1, maxUnavailable 0 (omitted), BLUE_GREEN (R-SURGE-11)", mustJSON(us))
			}
			if tc.stale {
				p.UpgradeSettings.MaxSurge, p.UpgradeSettings.MaxUnavailable = 0, 0
			}
			before := map[string]bool{}
			for name, n := range c.Nodes {
				if n.Pool == "pool-a" {
					before[name] = true
				}
			}
			op, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{
				Extra: api.Extra{"kubeletConfig": []byte(`{"cpuManagerPolicy":"static","podPidsLimit":4096}`)}})
			if err != nil {
				t.Fatal(err)
			}
			o := newSurgeObserver(w, c, "pool-a", 1, 0, false)
			o.check(t, w)
			limit := w.engine.Now().Add(3 * time.Hour)
			for op.Status != api.OpStatusDone {
				if !w.runNext(limit) {
					t.Fatalf("after 3 emulated hours the kubelet change is %s (%q), %d of 2 nodes replaced", op.Status, op.Detail, 2-countIn(c, before))
				}
				o.check(t, w) // at most 2 + 1 VMs, 1 node upgraded at a time, 2 ready (R-SURGE-2, R-SURGE-2a)
			}
			if op.ErrorCode != 0 || op.Type != api.OpUpgradeNodes {
				t.Fatalf("%s: %q", op.Type, op.StatusMessage)
			}
			started := mustEvents(w, "UpgradeStarted")
			if len(started) != 1 || !strings.HasPrefix(started[0].Message, "surge upgrade") || !strings.Contains(started[0].Message, "maxSurge=1 maxUnavailable=0") {
				t.Fatalf("UpgradeStarted %v, want one surge upgrade with maxSurge=1 maxUnavailable=0 (R-UPG-2, R-SURGE-11)", started)
			}
			z := c.Locations[0]
			if o.peakVMs[z] != 3 || o.peakSlots[z] != 1 || o.minReady[z] != 2 {
				t.Fatalf("peak %d VMs, %d nodes upgraded at once, fewest %d ready; want 3 (size 2 + maxSurge 1), 1 and 2", o.peakVMs[z], o.peakSlots[z], o.minReady[z])
			}
			if left := countIn(c, before); left != 0 || len(c.Nodes) != 2 {
				t.Fatalf("%d old nodes left, %d nodes in all; want every node replaced and 2 nodes", left, len(c.Nodes))
			}
			if err := w.core.CheckClusterFree(c); err != nil {
				t.Fatalf("the cluster is still busy after the upgrade: %v", err)
			}
			if p.Upgrade != nil || p.Status != model.PoolRunning {
				t.Fatalf("pool %s, upgrade %+v; want RUNNING and no upgrade", p.Status, p.Upgrade)
			}
		})
	}
}

// countIn counts the cluster's nodes named in set.
func countIn(c *model.Cluster, set map[string]bool) int {
	n := 0
	for name := range c.Nodes {
		if set[name] {
			n++
		}
	}
	return n
}

// R-SURGE-1, R-SURGE-11: no surge upgrade can run with maxSurge 0 and maxUnavailable 0. A SURGE
// pool asked for 0 and 0 is refused with a 400 naming the field; a BLUE_GREEN pool sent 0 and 0
// (which the API cannot tell from unset) gets GKE's defaults.
func TestSurgeOfZeroAndZeroIsImpossible(t *testing.T) {
	w, c, _, _ := upgradeCluster(t, &api.NodePool{Name: "pool-a", InitialNodeCount: 1})
	for _, create := range []bool{true, false} {
		var err error
		zero := &api.UpgradeSettings{Strategy: api.StrategySurge, MaxSurge: 0, MaxUnavailable: 0}
		if create {
			_, err = w.gke.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{
				Name: "pool-b", InitialNodeCount: 1, UpgradeSettings: zero}})
		} else {
			_, err = w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{UpgradeSettings: zero})
		}
		if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, "upgradeSettings") || !strings.Contains(e.Message, "#r-surge-1") {
			t.Fatalf("create=%v, SURGE with 0 and 0: %v, want a 400 naming upgradeSettings and R-SURGE-1", create, err)
		}
	}
	op, err := w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{UpgradeSettings: &api.UpgradeSettings{
		Strategy: api.StrategyBlueGreen, MaxSurge: 0, MaxUnavailable: 0}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	if us := c.Pool("pool-a").UpgradeSettings; us.MaxSurge != 1 || us.MaxUnavailable != 0 {
		t.Fatalf("BLUE_GREEN sent 0 and 0 stored maxSurge %d maxUnavailable %d, want GKE's 1 and 0 (R-SURGE-11)", us.MaxSurge, us.MaxUnavailable)
	}
}
