package sim

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// workloadCluster is a running zonal cluster with one pool of n nodes of a machine type.
func workloadCluster(t *testing.T, machine string, n int32, extra ...*api.NodePool) (*World, *model.Cluster) {
	t.Helper()
	w := newTestWorld(t)
	pools := append([]*api.NodePool{{Name: "pool-a", InitialNodeCount: n, Config: &api.NodeConfig{MachineType: machine}}}, extra...)
	c := createTestCluster(t, w, "us-central1-a", pools...)
	advance(w, time.Minute) // system pods scheduled and started
	return w, c
}

// deployment builds a Deployment of replicas pods requesting cpu (millicores) each.
func deployment(name string, replicas int32, cpu string, mutate ...func(*appsv1.Deployment)) *appsv1.Deployment {
	lbls := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: lbls},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: lbls},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
			},
		},
	}
	for _, m := range mutate {
		m(d)
	}
	return d
}

func mustCreateDeployment(t *testing.T, w *World, c *model.Cluster, d *appsv1.Deployment) {
	t.Helper()
	if _, err := w.kubeapi.CreateDeployment(c, "default", d); err != nil {
		t.Fatalf("CreateDeployment %s: %v", d.Name, err)
	}
}

// podCounts counts a deployment's running and pending pods (terminating ones excluded).
func podCounts(c *model.Cluster, owner string) (running, pending int) {
	for _, p := range c.Pods {
		if p.Owner != owner || p.Terminating {
			continue
		}
		if p.Node == "" {
			pending++
		} else if p.Phase == model.PodRunning {
			running++
		}
	}
	return running, pending
}

// The example: 40 pods x 500m on a 3-node e2-standard-4 pool. Each node has 3920m
// allocatable; GKE's DaemonSet pods take 218m of it and the kube-system Deployments some more,
// so each node fits floor(free / 500m) of them and the rest stay Pending with kube-scheduler's
// "Insufficient cpu".
func TestSchedulerFitsByRequests(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 3)
	ix := w.core.PodIndex(c)
	want := 0
	for _, n := range c.Nodes {
		mt, _ := catalog.LookupMachineType(n.Spec.MachineType)
		free := mt.AllocatableMilliCPU() - ix.On(n.Name).Requested.MilliCPU
		if mt.AllocatableMilliCPU() != 3920 {
			t.Fatalf("e2-standard-4 allocatable CPU %dm, want 3920m", mt.AllocatableMilliCPU())
		}
		want += int(free / 500)
	}
	mustCreateDeployment(t, w, c, deployment("web", 40, "500m"))
	advance(w, time.Minute)
	running, pending := podCounts(c, "web")
	if running != want || pending != 40-want {
		t.Fatalf("40 x 500m on 3 x e2-standard-4: %d running, %d pending; want %d running, %d pending", running, pending, want, 40-want)
	}
	if want < 18 || want > 21 {
		t.Fatalf("%d pods fit; 3 nodes x 7 minus system pods should fit 18..21", want)
	}
	for _, p := range c.Pods {
		if p.Owner == "web" && p.Node == "" {
			if !strings.HasPrefix(p.Unschedulable(), "0/3 nodes are available: 3 Insufficient cpu") {
				t.Fatalf("pending pod message %q", p.Unschedulable())
			}
			break
		}
	}
	for _, n := range c.Nodes {
		mt, _ := catalog.LookupMachineType(n.Spec.MachineType)
		if r := ix.On(n.Name).Requested; r.MilliCPU > mt.AllocatableMilliCPU() {
			t.Fatalf("node %s over-committed: %dm requested of %dm", n.Name, r.MilliCPU, mt.AllocatableMilliCPU())
		}
	}
	// Scaling down frees room: every remaining pod runs.
	if _, err := w.kubeapi.SetScale(c, "default", "web", int32(want-2), ""); err != nil {
		t.Fatal(err)
	}
	advance(w, time.Minute)
	if running, pending = podCounts(c, "web"); running != want-2 || pending != 0 {
		t.Fatalf("after scaling to %d: %d running, %d pending", want-2, running, pending)
	}
}

func TestSchedulerSelectorsTaintsCordons(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 2,
		&api.NodePool{Name: "gpu-ish", InitialNodeCount: 1, Config: &api.NodeConfig{MachineType: "n2-standard-8",
			Taints: []*api.NodeTaint{{Key: "dedicated", Value: "batch", Effect: api.EffectNoSchedule}}}})
	onPool := func(owner, pool string) (n int) {
		for _, p := range c.Pods {
			if p.Owner == owner && p.Node != "" && c.Nodes[p.Node].Pool == pool {
				n++
			}
		}
		return n
	}
	// nodeSelector on the pool label, without the toleration: nothing fits.
	mustCreateDeployment(t, w, c, deployment("batch", 2, "1", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.NodeSelector = map[string]string{"cloud.google.com/gke-nodepool": "gpu-ish"}
	}))
	advance(w, 30*time.Second)
	if _, pending := podCounts(c, "batch"); pending != 2 {
		t.Fatalf("untolerated taint: %d pending, want 2", pending)
	}
	for _, p := range c.Pods {
		if p.Owner == "batch" && !strings.Contains(p.Unschedulable(), "1 node(s) had untolerated taint {dedicated: batch}") ||
			p.Owner == "batch" && !strings.Contains(p.Unschedulable(), "2 node(s) didn't match Pod's node affinity/selector") {
			t.Fatalf("message %q", p.Unschedulable())
		}
	}
	// With the toleration both land on the tainted pool, and only there.
	d, _ := w.kubeapi.GetDeployment(c, "default", "batch")
	d.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
	if _, err := w.kubeapi.UpdateDeployment(c, "default", "batch", d); err != nil {
		t.Fatal(err)
	}
	advance(w, 2*time.Minute)
	if got := onPool("batch", "gpu-ish"); got != 2 {
		t.Fatalf("tolerating pods on gpu-ish: %d, want 2", got)
	}
	// A cordoned node takes nothing new.
	var cordoned string
	for _, n := range c.Nodes {
		if n.Pool == "pool-a" {
			cordoned = n.Name
			break
		}
	}
	if _, err := w.kubeapi.SetNodeUnschedulable(c, cordoned, true); err != nil {
		t.Fatal(err)
	}
	mustCreateDeployment(t, w, c, deployment("web", 6, "100m"))
	advance(w, time.Minute)
	for _, p := range c.Pods {
		if p.Owner == "web" && p.Node == cordoned {
			t.Fatalf("pod %s scheduled to cordoned node %s", p.Name(), cordoned)
		}
	}
	if got := onPool("web", "pool-a"); got != 6 {
		t.Fatalf("web pods on pool-a: %d, want 6 (all on the uncordoned node)", got)
	}
}

// R-CA-8: the optimize-utilization profile packs pods onto the most allocated node; the
// default spreads them onto the least allocated.
func TestSchedulerProfiles(t *testing.T) {
	for _, tc := range []struct {
		profile  string
		maxNodes int // nodes the 4 pods may occupy
		minNodes int
	}{
		{api.ProfileBalanced, 4, 3},
		{api.ProfileOptimizeUtilization, 1, 1},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			w, c := workloadCluster(t, "e2-standard-8", 4)
			c.AutoscalingProfile = tc.profile
			mustCreateDeployment(t, w, c, deployment("web", 4, "250m"))
			advance(w, time.Minute)
			nodes := map[string]bool{}
			for _, p := range c.Pods {
				if p.Owner == "web" {
					nodes[p.Node] = true
				}
			}
			if len(nodes) < tc.minNodes || len(nodes) > tc.maxNodes {
				t.Fatalf("%s: 4 pods on %d nodes, want %d..%d", tc.profile, len(nodes), tc.minNodes, tc.maxNodes)
			}
			// Under optimize-utilization GKE gives pods that name no scheduler its own.
			want := corev1.DefaultSchedulerName
			if tc.profile == api.ProfileOptimizeUtilization {
				want = model.OptimizeUtilizationScheduler
			}
			for _, p := range c.Pods {
				if p.Owner == "web" {
					if got := w.kubeapi.RenderPod(c, p).Spec.SchedulerName; got != want {
						t.Fatalf("%s: pod %s has scheduler %q, want %q", tc.profile, p.Name(), got, want)
					}
				}
			}
		})
	}
}

// R-CA-8: the scheduler name is GKE's at a pod's creation: pods created before the profile
// became optimize-utilization keep the default scheduler (and are spread), and a pod naming its
// own scheduler keeps it.
func TestOptimizeUtilizationSchedulerAtCreation(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-8", 4)
	mustCreateDeployment(t, w, c, deployment("before", 4, "250m"))
	advance(w, time.Minute)
	c.AutoscalingProfile = api.ProfileOptimizeUtilization
	mustCreateDeployment(t, w, c, deployment("custom", 1, "250m", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.SchedulerName = "my-scheduler"
	}))
	mustCreateDeployment(t, w, c, deployment("after", 4, "250m"))
	advance(w, time.Minute)
	spread := map[string]map[string]bool{}
	for _, p := range c.Pods {
		if spread[p.Owner] == nil {
			spread[p.Owner] = map[string]bool{}
		}
		spread[p.Owner][p.Node] = true
		want := map[string]string{"before": corev1.DefaultSchedulerName, "custom": "my-scheduler", "after": model.OptimizeUtilizationScheduler}[p.Owner]
		if got := w.kubeapi.RenderPod(c, p).Spec.SchedulerName; want != "" && got != want {
			t.Fatalf("pod %s: scheduler %q, want %q", p.Name(), got, want)
		}
	}
	if len(spread["before"]) < 3 || len(spread["after"]) != 1 {
		t.Fatalf("nodes used: before %d (spread), after %d (packed onto one)", len(spread["before"]), len(spread["after"]))
	}
}

// A rolling update replaces every pod with the new template, never dropping below
// replicas - maxUnavailable ready pods.
func TestDeploymentRollingUpdate(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-8", 3)
	mustCreateDeployment(t, w, c, deployment("web", 8, "100m"))
	advance(w, time.Minute)
	d, _ := w.kubeapi.GetDeployment(c, "default", "web")
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	if _, err := w.kubeapi.UpdateDeployment(c, "default", "web", d); err != nil {
		t.Fatal(err)
	}
	dep := c.Deployments["default/web"]
	minReady := 8
	for i := 0; i < 120; i++ {
		advance(w, time.Second)
		checkTemplateCounts(t, w, c)
		st := dep.Status
		minReady = min(minReady, int(st.ReadyReplicas))
		if st.UpdatedReplicas == 8 && st.ReadyReplicas == 8 && st.Replicas == 8 {
			break
		}
	}
	advance(w, time.Minute) // the last old pods finish terminating
	st := dep.Status
	if st.UpdatedReplicas != 8 || st.ReadyReplicas != 8 {
		t.Fatalf("after the rollout: %+v", st)
	}
	if minReady < 6 { // 25% of 8 may be unavailable
		t.Fatalf("ready pods fell to %d during the rollout, want >= 6", minReady)
	}
	if len(dep.Templates) != 1 {
		t.Fatalf("old template kept: %d templates", len(dep.Templates))
	}
}

// startNodeDrain drains the node that runs the most pods of owner, with a policy.
func startNodeDrain(t *testing.T, w *World, c *model.Cluster, owner string, policy model.DrainPolicy) *model.Node {
	t.Helper()
	count := map[string]int{}
	for _, p := range c.Pods {
		if p.Owner == owner && p.Node != "" {
			count[p.Node]++
		}
	}
	var node *model.Node
	for name, n := range count {
		if node == nil || n > count[node.Name] || (n == count[node.Name] && name < node.Name) {
			node = c.Nodes[name]
		}
	}
	w.core.RetireNode(c, node, policy, "test drain")
	return node
}

// Drain with a PodDisruptionBudget of maxUnavailable=1: one pod leaves at a time; the next
// eviction waits until the replacement is ready elsewhere (retried every 5 s).
func TestDrainRespectsPDBOnePodAtATime(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 2)
	mustCreateDeployment(t, w, c, deployment("web", 3, "100m"))
	advance(w, time.Minute)
	one := intstr.FromInt32(1)
	if _, err := w.kubeapi.CreatePDB(c, "default", &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}); err != nil {
		t.Fatal(err)
	}
	start := w.engine.Now()
	node := startNodeDrain(t, w, c, "web", core.SurgeDrain)
	advance(w, 5*time.Minute)
	evs, _ := w.engine.Events(engine.EventFilter{Node: node.Name, Type: "PodEvicted"})
	onNode := 0
	for _, e := range evs {
		if strings.Contains(e.Message, "default/web-") {
			onNode++
		}
	}
	if onNode == 0 {
		t.Fatalf("no web pod evicted from %s", node.Name)
	}
	// No two evictions of web pods closer than a replacement's start (>= 2 s) apart.
	var last time.Time
	for _, e := range evs {
		if !strings.Contains(e.Message, "default/web-") {
			continue
		}
		at, _ := time.Parse(time.RFC3339, e.Time)
		if !last.IsZero() && at.Sub(last) < 2*time.Second {
			t.Fatalf("two web evictions %s apart; maxUnavailable=1 lets one go at a time", at.Sub(last))
		}
		last = at
	}
	if c.Nodes[node.Name] != nil {
		t.Fatalf("node %s still there %s after the drain started", node.Name, w.engine.Now().Sub(start))
	}
	if running, _ := podCounts(c, "web"); running != 3 {
		t.Fatalf("web has %d running pods after the drain, want 3", running)
	}
}

// A PodDisruptionBudget that never allows an eviction holds the drain until the caller's
// deadline (1 hour for surge upgrades, R-SURGE-3); then the pod is deleted anyway.
func TestDrainBlockedUntilDeadlineThenForced(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 1)
	mustCreateDeployment(t, w, c, deployment("db", 1, "100m"))
	advance(w, time.Minute)
	all := intstr.FromString("100%")
	if _, err := w.kubeapi.CreatePDB(c, "default", &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &all, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}); err != nil {
		t.Fatal(err)
	}
	start := w.engine.Now()
	node := startNodeDrain(t, w, c, "db", core.SurgeDrain)
	advance(w, 59*time.Minute)
	if blocked, _ := w.engine.Events(engine.EventFilter{Node: node.Name, Type: "EvictionBlocked"}); len(blocked) != 1 {
		t.Fatalf("EvictionBlocked logged %d times, want once", len(blocked))
	}
	for _, p := range c.Pods {
		if p.Owner == "db" && p.Node == node.Name && p.Terminating {
			t.Fatalf("db pod terminating before the 1 h deadline")
		}
	}
	advance(w, 2*time.Minute)
	forced, _ := w.engine.Events(engine.EventFilter{Node: node.Name, Type: "PodDeleted"})
	if len(forced) != 1 {
		t.Fatalf("PodDeleted events %d, want 1", len(forced))
	}
	at, _ := time.Parse(time.RFC3339, forced[0].Time)
	if d := at.Sub(start); d != time.Hour {
		t.Fatalf("forced deletion %s after the drain started, want exactly 1h", d)
	}
}

// terminationGracePeriodSeconds elapses in emulated time: a pod evicted with 120 s of grace
// holds its node that long.
func TestDrainHonoursGracePeriod(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 2)
	mustCreateDeployment(t, w, c, deployment("slow", 1, "100m", func(d *appsv1.Deployment) {
		g := int64(120)
		d.Spec.Template.Spec.TerminationGracePeriodSeconds = &g
	}))
	advance(w, time.Minute)
	node := startNodeDrain(t, w, c, "slow", core.SurgeDrain)
	start := w.engine.Now()
	advance(w, 119*time.Second)
	if n := c.Nodes[node.Name]; n == nil || n.State != model.NodeDraining {
		t.Fatalf("node left draining before the 120 s grace: %+v", n)
	}
	advance(w, 10*time.Second)
	drained, _ := w.engine.Events(engine.EventFilter{Node: node.Name, Type: "NodeDrained"})
	if len(drained) != 1 {
		t.Fatalf("NodeDrained %d times", len(drained))
	}
	at, _ := time.Parse(time.RFC3339, drained[0].Time)
	if d := at.Sub(start); d != 120*time.Second+core.DrainFinish {
		t.Fatalf("drained %s after the eviction, want the 120s grace + %s", d, core.DrainFinish)
	}
}

// GKE's system pods: a DaemonSet pod set on every node, kube-system Deployments somewhere.
func TestSystemPods(t *testing.T) {
	w, c := workloadCluster(t, "e2-medium", 2)
	perNode := map[string]int{}
	system := 0
	for _, p := range c.Pods {
		if p.OwnerKind == model.OwnerDaemonSet {
			perNode[p.Node]++
		} else if p.Namespace() == "kube-system" && p.Phase == model.PodRunning {
			system++
		}
	}
	for name := range c.Nodes {
		if perNode[name] != len(catalog.SystemDaemonSets) {
			t.Fatalf("node %s has %d DaemonSet pods, want %d", name, perNode[name], len(catalog.SystemDaemonSets))
		}
	}
	want := 0
	for _, sd := range catalog.SystemDeployments {
		want += int(sd.Replicas)
	}
	if system != want {
		t.Fatalf("%d kube-system Deployment pods running, want %d", system, want)
	}
	if ns, err := w.kubeapi.GetNamespace(c, "kube-system"); err != nil || ns.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("kube-system namespace: %v %v", ns, err)
	}
}

// pdbMin is a PodDisruptionBudget with minAvailable over the pods labelled app=name.
func pdbMin(name, minAvailable string) *policyv1.PodDisruptionBudget {
	v := intstr.Parse(minAvailable)
	return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &v, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}}
}

// checkTemplateCounts compares the index's pod counts per deployment template (all, live, ready)
// with a count over every pod.
func checkTemplateCounts(t *testing.T, w *World, c *model.Cluster) {
	t.Helper()
	want := map[string]map[string]*model.TemplateCount{}
	for _, p := range c.Pods {
		if p.OwnerKind != model.OwnerDeployment {
			continue
		}
		key := p.Namespace() + "/" + p.Owner
		if want[key] == nil {
			want[key] = map[string]*model.TemplateCount{}
		}
		if want[key][p.Template] == nil {
			want[key][p.Template] = &model.TemplateCount{}
		}
		n := want[key][p.Template]
		n.All++
		if !p.Terminating {
			n.Live++
			if p.Ready {
				n.Ready++
			}
		}
	}
	got := w.core.PodIndex(c).TmplCounts
	for key := range union(want, got) {
		if x, y := templateCounts(got[key]), templateCounts(want[key]); x != y {
			t.Fatalf("template counts of %s: index %s, pods %s", key, x, y)
		}
	}
}
