package sim

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// Golden traces pin behaviour: each scenario's whole event log, for a fixed seed, is compared
// with testdata/<name>.golden. A change that alters what the simulation does shows up as a diff
// of that file; when the change is intended, regenerate the files and review the diff:
//
//	go test ./emulator/sim -run TestGoldenTraces -update

var update = flag.Bool("update", false, "rewrite the golden event-log traces in testdata/")

// goldenScenarios build a world, drive it, and return it; the event log is the trace.
var goldenScenarios = map[string]func(t *testing.T) *World{
	// A surge upgrade of a 3-zone pool (2 nodes per zone) running a Deployment with a
	// PodDisruptionBudget, maxSurge 1: zone by zone, new node ready before the old one is
	// cordoned, drained and deleted (R-SURGE-1..3).
	"surge-upgrade": func(t *testing.T) *World {
		w := newTestWorld(t)
		from, to := upgradeVersions(t, w)
		op, err := w.gke.CreateCluster("proj", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{
			Name: "c1", InitialClusterVersion: to.String(), ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified},
			NodePools: []*api.NodePool{{Name: "web", InitialNodeCount: 2, Version: from.String(),
				UpgradeSettings: &api.UpgradeSettings{MaxSurge: 1}}}}})
		if err != nil {
			t.Fatal(err)
		}
		runOp(t, w, op, time.Hour)
		c := w.core.Cluster("proj", "us-central1", "c1")
		mustCreateDeployment(t, w, c, deployment("shop", 6, "500m"))
		if _, err := w.kubeapi.CreatePDB(c, "default", pdbMin("shop", "5")); err != nil {
			t.Fatal(err)
		}
		advance(w, time.Minute)
		op, err = w.gke.UpdateNodePool("proj", "us-central1", "c1", "web", &api.UpdateNodePoolRequest{NodeVersion: to.String()})
		if err != nil {
			t.Fatal(err)
		}
		runOp(t, w, op, 6*time.Hour)
		return w
	},
	// A blue-green upgrade of a 4-node pool in batches of 50% with 10-minute batch soaks and a
	// 30-minute pool soak: phases in order, then blue deleted (R-BG-1..5).
	"blue-green-upgrade": func(t *testing.T) *World {
		pct := 0.5
		w, c, _, to := upgradeCluster(t, &api.NodePool{Name: "web", InitialNodeCount: 4,
			UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
				StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchPercentage: &pct, BatchSoakDuration: "600s"},
				NodePoolSoakDuration:  "1800s"}}})
		mustCreateDeployment(t, w, c, deployment("shop", 8, "250m"))
		advance(w, time.Minute)
		runOp(t, w, startUpgrade(t, w, "web", to.String()), 6*time.Hour)
		return w
	},
	// The cluster autoscaler grows a pool for pending pods, then shrinks it when they go
	// (R-CA-1, R-CA-2).
	"autoscaler": func(t *testing.T) *World {
		w, c := autoscaledCluster(t, "us-central1-a", []string{"us-central1-a"}, &api.NodePool{Name: "work", InitialNodeCount: 1,
			Config:      &api.NodeConfig{MachineType: "e2-standard-4"},
			Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 5}})
		mustCreateDeployment(t, w, c, deployment("batch", 10, "1500m", onPool("work")))
		advance(w, 10*time.Minute)
		if _, err := w.kubeapi.DeleteDeployment(c, "default", "batch"); err != nil {
			t.Fatal(err)
		}
		advance(w, 40*time.Minute)
		return w
	},
	// An internal load balancer with GKE subsetting (NEG backends) for a Local Service, kept in
	// sync while the pods behind it move (R-LB-2, R-LB-3, R-LB-6).
	"load-balancer": func(t *testing.T) *World {
		w := newTestWorld(t)
		c := lbTestCluster(t, w, "us-central1", true, &api.NodePool{Name: "web", InitialNodeCount: 2})
		mustCreateDeployment(t, w, c, deployment("web", 3, "250m"))
		advance(w, time.Minute)
		mustCreateService(t, w, c, lbService("web", internalLB, local, func(s *corev1.Service) {
			s.Spec.Ports[0].TargetPort = intstr.FromInt32(80)
		}))
		advance(w, 5*time.Minute)
		if _, err := w.kubeapi.SetScale(c, "default", "web", 6, ""); err != nil {
			t.Fatal(err)
		}
		advance(w, 5*time.Minute)
		return w
	},
}

func TestGoldenTraces(t *testing.T) {
	for name, scenario := range goldenScenarios {
		t.Run(name, func(t *testing.T) {
			got := renderTrace(scenario(t))
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("the event log of %s differs from %s (if the change is intended, rerun with -update and review the diff):\n%s",
					name, path, firstLineDiff(string(want), got))
			}
			// The same seed and the same calls give the same log, twice in a row.
			if again := renderTrace(scenario(t)); again != got {
				t.Fatalf("the scenario is not deterministic:\n%s", firstLineDiff(got, again))
			}
		})
	}
}

// A server's feed records only while someone follows the cluster; what the model does must not
// depend on it: the same event log and the same saved state (statuses, resourceVersions,
// everything) whether every change is recorded for watches or none is.
func TestTheModelDoesNotDependOnWhoFollowsTheFeeds(t *testing.T) {
	for name, scenario := range goldenScenarios {
		t.Run(name, func(t *testing.T) {
			followed := scenario(t)
			unfollowedFeeds = true
			defer func() { unfollowedFeeds = false }()
			unfollowed := scenario(t)
			if a, b := renderTrace(followed), renderTrace(unfollowed); a != b {
				t.Fatalf("the event log differs when nobody follows the feeds:\n%s", firstLineDiff(a, b))
			}
			a, err := json.MarshalIndent(followed.State(), "", " ")
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(unfollowed.State(), "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if string(a) != string(b) {
				t.Fatalf("the saved state differs when nobody follows the feeds:\n%s", firstLineDiff(string(a), string(b)))
			}
			recorded, none := 0, 0
			for _, c := range followed.st.Clusters {
				recorded += followed.core.Feeds[c].Len()
			}
			for _, c := range unfollowed.st.Clusters {
				none += unfollowed.core.Feeds[c].Len()
			}
			if recorded == 0 || none != 0 {
				t.Fatalf("feeds hold %d changes followed and %d unfollowed, want some and none: the comparison proves nothing", recorded, none)
			}
		})
	}
}

// renderTrace is the event log as golden files keep it: one line per entry.
func renderTrace(w *World) string {
	var b strings.Builder
	for i := range w.st.Log.Len() {
		e := w.st.Log.At(i)
		fmt.Fprintf(&b, "%s %s %s pool=%s node=%s op=%s | %s\n", e.Time.Format(time.RFC3339), e.Type,
			strings.TrimPrefix(e.Cluster, "projects/proj/locations/"), e.Pool, e.Node, e.Op, e.Message)
	}
	return b.String()
}

func firstLineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}
