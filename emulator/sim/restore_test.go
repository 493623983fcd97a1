package sim

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/internal/aliascheck"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The derived indexes (scheduler view, pod and deployment counts, endpoints, "already queued"
// marks) must always equal what a rebuild from the state gives: a restored world rebuilds them,
// and a restart replays the journal on top of it, so any drift would make the restarted
// emulator act differently from the one that acknowledged the requests.

// indexDrift describes how w's derived indexes differ from a rebuild, or "".
func (w *World) indexDrift() string {
	// Fresh parts on the same engine (its queue rebuilds the "already queued" marks), with no
	// handlers registered again.
	fresh := &World{st: w.st}
	fresh.makeControllers(w.engine, 0)
	fresh.core.FeedRender, fresh.core.OpWork, fresh.core.Workloads, fresh.core.FlagPod = w.core.FeedRender, w.core.OpWork, w.core.Workloads, w.core.FlagPod
	for _, key := range model.SortedKeys(w.st.Clusters) {
		c := w.st.Clusters[key]
		if _, built := w.core.PodIndexes[c]; built {
			if d := diffPodIndex(w.core.PodIndex(c), fresh.core.PodIndex(c)); d != "" {
				return key + ": " + d
			}
		}
		if _, built := w.loadbalancers.Svcs[c]; built {
			if d := diffSvcIndex(w.loadbalancers.ServiceIndex(c), fresh.loadbalancers.ServiceIndex(c)); d != "" {
				return key + ": services: " + d
			}
		}
		for _, p := range c.Pools {
			for _, g := range p.Groups {
				if ix, built := w.core.Groups[g]; built {
					f := fresh.core.GroupIndex(c, g)
					if got, want := ix.ByState, f.ByState; !sameCounts(got, want) {
						return fmt.Sprintf("%s: group %s by state %v, rebuilt %v", key, g.Name, got, want)
					}
					if got, want := nodeNames(ix.Nodes), nodeNames(f.Nodes); got != want {
						return fmt.Sprintf("%s: group %s nodes %s, rebuilt %s", key, g.Name, got, want)
					}
				}
			}
		}
		for _, b := range c.PDBs {
			if cnt, built := w.core.PDBCount[b]; built {
				if f := fresh.core.PDBCounts(c, b); cnt.Healthy != f.Healthy || cnt.Bare != f.Bare || !sameCounts(cnt.Owners, f.Owners) {
					return fmt.Sprintf("%s: PDB %s counts %+v, rebuilt %+v", key, b.Key(), *cnt, *f)
				}
			}
		}
	}
	return ""
}

func nodeNames(ns []*model.Node) string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return strings.Join(out, ",")
}

// templateCounts renders a deployment's template counts in template order.
func templateCounts(m map[string]*model.TemplateCount) string {
	var b strings.Builder
	for _, tmpl := range model.SortedKeys(m) {
		fmt.Fprintf(&b, "%s:%+v ", tmpl, *m[tmpl])
	}
	return b.String()
}

func sameCounts[K comparable](a, b map[K]int) bool {
	for k, v := range a {
		if v != 0 && b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if v != 0 && a[k] != v {
			return false
		}
	}
	return true
}

func podKeys(m map[*model.Pod]struct{}) string {
	var out []string
	for p := range m {
		out = append(out, p.Key())
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// podListKeys lists the keys of a podList in its own order (which must be sorted).
func podListKeys(l core.PodList) string {
	var out []string
	for _, p := range l {
		out = append(out, p.Key())
	}
	return strings.Join(out, ",")
}

func diffPodIndex(a, b *core.PodIndex) string {
	if x, y := podKeys(a.Pending.M), podKeys(b.Pending.M); x != y {
		return fmt.Sprintf("pending %s, rebuilt %s", x, y)
	}
	for n := range union(maps.Collect(a.Bound()), maps.Collect(b.Bound())) {
		x, y := a.On(n), b.On(n)
		if xp, yp := podListKeys(x.Pods), podListKeys(y.Pods); xp != yp {
			return fmt.Sprintf("pods on %s: %s, rebuilt %s", n, xp, yp)
		}
		if x.Load != y.Load || x.Requested != y.Requested || x.Flagged != y.Flagged {
			return fmt.Sprintf("on %s: %+v, rebuilt %+v", n, x, y)
		}
	}
	for k := range union(a.PodsOf, b.PodsOf) {
		if x, y := podKeys(a.PodsOf[k]), podKeys(b.PodsOf[k]); x != y {
			return fmt.Sprintf("pods of %s: %s, rebuilt %s", k, x, y)
		}
	}
	for k := range union(a.TmplCounts, b.TmplCounts) {
		if x, y := templateCounts(a.TmplCounts[k]), templateCounts(b.TmplCounts[k]); x != y {
			return fmt.Sprintf("template counts of %s: %s, rebuilt %s", k, x, y)
		}
	}
	if a.ScheduleQueued != b.ScheduleQueued || !sameBools(a.SyncQueued, b.SyncQueued) {
		return fmt.Sprintf("queued marks %v %v, rebuilt %v %v", a.ScheduleQueued, a.SyncQueued, b.ScheduleQueued, b.SyncQueued)
	}
	if a.Sched == nil || b.Sched == nil {
		return ""
	}
	for n := range union(a.Sched.Nodes, b.Sched.Nodes) {
		x, y := a.Sched.Nodes[n], b.Sched.Nodes[n]
		if (x == nil) != (y == nil) {
			return fmt.Sprintf("scheduler node %s: %v, rebuilt %v", n, x, y)
		}
		if x.Free != y.Free || x.Pods != y.Pods || x.Schedulable != y.Schedulable || x.Registered != y.Registered ||
			(x.Idx >= 0) != (y.Idx >= 0) || x.Group.Key != y.Group.Key {
			return fmt.Sprintf("scheduler node %s: free %+v pods %d schedulable %v registered %v in heap %v, rebuilt free %+v pods %d schedulable %v registered %v in heap %v",
				n, x.Free, x.Pods, x.Schedulable, x.Registered, x.Idx >= 0, y.Free, y.Pods, y.Schedulable, y.Registered, y.Idx >= 0)
		}
	}
	// A group's members are the scheduler's nodes filed in it.
	am, bm := map[string]int{}, map[string]int{}
	for _, sn := range a.Sched.Nodes {
		am[sn.Group.Key]++
	}
	for _, sn := range b.Sched.Nodes {
		bm[sn.Group.Key]++
	}
	for k := range union(a.Sched.Groups, b.Sched.Groups) {
		x, y := a.Sched.Groups[k], b.Sched.Groups[k]
		if x == nil || y == nil {
			if am[k] == 0 && bm[k] == 0 {
				continue
			}
			return fmt.Sprintf("scheduler group %s missing on one side", k)
		}
		if x.Registered != y.Registered || am[k] != bm[k] || len(x.Heap) != len(y.Heap) {
			return fmt.Sprintf("scheduler group %s: registered %d members %d heap %d, rebuilt %d %d %d", k,
				x.Registered, am[k], len(x.Heap), y.Registered, bm[k], len(y.Heap))
		}
	}
	for k := range union(a.Sched.OwnerZone, b.Sched.OwnerZone) {
		if !sameCounts(a.Sched.OwnerZone[k], b.Sched.OwnerZone[k]) {
			return fmt.Sprintf("owner zones of %s: %v, rebuilt %v", k, a.Sched.OwnerZone[k], b.Sched.OwnerZone[k])
		}
	}
	return ""
}

func diffSvcIndex(a, b *loadbalancers.ServiceIndex) string {
	if !reflect.DeepEqual(a.NodePorts, b.NodePorts) || !reflect.DeepEqual(a.ClusterIPs, b.ClusterIPs) {
		return "node ports or cluster IPs differ"
	}
	for k := range union(a.PerNode, b.PerNode) {
		if !sameCounts(a.PerNode[k], b.PerNode[k]) {
			return fmt.Sprintf("serving pods per node of %s: %v, rebuilt %v", k, a.PerNode[k], b.PerNode[k])
		}
	}
	if !sameBools(a.SyncQueued, b.SyncQueued) || len(a.Lbs) != len(b.Lbs) {
		return fmt.Sprintf("LB sync marks %v, rebuilt %v", a.SyncQueued, b.SyncQueued)
	}
	return ""
}

func sameBools(a, b map[string]bool) bool {
	for k, v := range a {
		if v != b[k] {
			return false
		}
	}
	for k, v := range b {
		if v != a[k] {
			return false
		}
	}
	return true
}

func union[V any](a, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// churn is a random mix of what users do to a world: clusters come and go, Deployments are
// created and scaled, pools are upgraded and resized, faults come and go.
type churn struct {
	t   *testing.T
	w   *World
	rng *rand.Rand
	n   int
}

func (ch *churn) step() {
	w, rng := ch.w, ch.rng
	ch.n++
	base := w.core.Cluster("proj", "us-central1-a", "base")
	switch rng.IntN(11) {
	case 0:
		w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: fmt.Sprintf("c%d", ch.n), InitialNodeCount: 1}})
	case 1:
		for _, c := range w.core.ClustersIn("proj", "-") {
			if c.Name != "base" {
				w.gke.DeleteCluster("proj", c.Location, c.Name)
				break
			}
		}
	case 2, 3:
		if base != nil {
			replicas := int32(1 + rng.IntN(6))
			w.kubeapi.CreateDeployment(base, "default", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("d%d", ch.n)},
				Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "nginx", Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(fmt.Sprintf("%dm", 100+rng.IntN(900)))}}}}}}}})
		}
	case 4:
		mt := []string{"e2-standard-2", "e2-standard-4"}[rng.IntN(2)]
		w.gke.UpdateNodePool("proj", "us-central1-a", "base", "web", &api.UpdateNodePoolRequest{MachineType: mt})
	case 5:
		w.gke.SetNodePoolSize("proj", "us-central1-a", "base", "web", &api.SetNodePoolSizeRequest{NodeCount: int32(2 + rng.IntN(3))})
	case 6:
		w.core.AddFault(model.Fault{Kind: core.FaultStockout, Zone: "us-central1-a", MachineFamily: "e2"})
	case 7:
		if fs := w.core.Faults(); len(fs) > 0 {
			w.core.DeleteFault(fs[0].ID)
		}
	case 8:
		if base != nil {
			mu := intstr.FromInt32(1)
			w.kubeapi.CreatePDB(base, "default", &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("b%d", ch.n)},
				Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &mu, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}})
		}
	case 9:
		if base != nil {
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s%d", ch.n)},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "x"},
					Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}}}
			if rng.IntN(2) == 0 {
				svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			}
			w.loadbalancers.CreateService(base, "default", svc)
		}
	case 10:
		w.gke.SetNodePoolAutoscaling("proj", "us-central1-a", "base", "web", &api.SetNodePoolAutoscalingRequest{
			Autoscaling: &api.NodePoolAutoscaling{Enabled: rng.IntN(2) == 0, MinNodeCount: 1, MaxNodeCount: 6}})
	}
}

// Through a random churn, checked after every event: the derived indexes never drift from a
// rebuild, and a world restored from a snapshot taken at any of those moments goes on exactly
// as the original does.
func TestRestoredWorldContinuesIdentically(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			w := New(Options{Seed: seed, Start: testStart})
			if _, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "base",
				NodePools: []*api.NodePool{{Name: "web", InitialNodeCount: 3}}}}); err != nil {
				t.Fatal(err)
			}
			ch := &churn{t: t, w: w, rng: rand.New(rand.NewPCG(seed, 1))}
			events := 0
			for round := range 100 {
				ch.step()
				end := w.engine.Now().Add(time.Duration(ch.rng.IntN(120)) * time.Second)
				for {
					next, ok := w.engine.NextEventAt()
					if !ok || next.After(end) {
						break
					}
					w.RunUntil(next)
					events++
					if d := w.indexDrift(); d != "" {
						t.Fatalf("round %d, after event %d at %s: %s", round, events, next, d)
					}
				}
				w.RunUntil(end)
				if round%5 == 4 {
					compareWithRestored(t, w, time.Hour)
				}
			}
			t.Logf("%d events checked", events)
		})
	}
}

// compareWithRestored restores w's saved state (encoded and decoded, as from the disk) and
// forks w (World.Fork: a forecast's copy, its pods copied as structs), then runs all three for
// d, comparing them at every event. The fork shares no memory with w.
func compareWithRestored(t *testing.T, w *World, d time.Duration) {
	t.Helper()
	r := restoredCopy(t, w)
	f, err := w.Fork()
	if err != nil {
		t.Fatal(err)
	}
	if shared := aliascheck.Index(w.st).Shared(f.st); len(shared) > 0 {
		t.Fatalf("a fork shares memory with the original: %s", strings.Join(shared, "; "))
	}
	end := w.engine.Now().Add(d)
	for {
		next, ok := w.engine.NextEventAt()
		if !ok || next.After(end) {
			break
		}
		for _, x := range []*World{w, r, f} {
			x.RunUntil(next)
		}
		if a, b, c := lastEntry(w), lastEntry(r), lastEntry(f); a != b || a != c {
			t.Fatalf("a restored world or a fork diverged at %s:\noriginal %+v\nrestored %+v\nfork     %+v", next, a, b, c)
		}
	}
	for _, x := range []*World{w, r, f} {
		x.RunUntil(end)
	}
	x, _ := json.Marshal(w.State())
	y, _ := json.Marshal(r.State())
	z, _ := json.Marshal(f.State())
	if string(x) != string(y) || string(x) != string(z) {
		t.Fatalf("after running the same hour, the restored world's state is the same as the original's: %t; the fork's: %t", string(x) == string(y), string(x) == string(z))
	}
}

func lastEntry(w *World) model.LogEntry {
	if n := w.st.Log.Len(); n > 0 {
		return w.st.Log.At(n - 1)
	}
	return model.LogEntry{}
}
