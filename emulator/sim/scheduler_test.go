package sim

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kubeapi"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// poolNodeNames are a pool's node names, sorted.
func poolNodeNames(c *model.Cluster, pool string) []string {
	var out []string
	for _, name := range model.SortedKeys(c.Nodes) {
		if c.Nodes[name].Pool == pool {
			out = append(out, name)
		}
	}
	return out
}

// nodesOf counts an owner's scheduled pods per node.
func nodesOf(c *model.Cluster, owner string) map[string]int {
	out := map[string]int{}
	for _, p := range c.Pods {
		if p.Owner == owner && p.Node != "" && !p.Terminating {
			out[p.Node]++
		}
	}
	return out
}

func requiredAffinity(key string, op corev1.NodeSelectorOperator, values ...string) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}}}}}
}

// R-SCHED-1: a pod pinned by kubernetes.io/hostname (node selector or required node affinity)
// runs on that node and no other; one pinned to a node that does not exist stays Pending with
// kube-scheduler's message; the labels the scheduler selects on are those the API renders.
func TestSchedulerHonoursHostnameLabel(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 3)
	names := poolNodeNames(c, "pool-a")
	if len(names) != 3 {
		t.Fatalf("nodes %v", names)
	}
	// The labels GKE nodes carry, as the API renders them.
	k := w.core.RenderK8sNode(c, c.Nodes[names[1]])
	for key, want := range map[string]string{
		"kubernetes.io/hostname": names[1], "topology.kubernetes.io/zone": "us-central1-a", "topology.kubernetes.io/region": "us-central1",
		"failure-domain.beta.kubernetes.io/zone": "us-central1-a", "failure-domain.beta.kubernetes.io/region": "us-central1",
		"node.kubernetes.io/instance-type": "e2-standard-4", "beta.kubernetes.io/instance-type": "e2-standard-4",
		"cloud.google.com/gke-nodepool": "pool-a", "cloud.google.com/machine-family": "e2", "cloud.google.com/gke-os-distribution": "cos",
		"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "cloud.google.com/gke-max-pods-per-node": "110",
		"cloud.google.com/gke-cpu-scaling-level": "4", "cloud.google.com/gke-provisioning": "standard",
	} {
		if got := k.Labels[key]; got != want {
			t.Errorf("label %s = %q, want %q", key, got, want)
		}
	}
	// Six replicas pinned by node selector to the second node: all six there (the least
	// allocated choice would have spread them over three).
	mustCreateDeployment(t, w, c, deployment("pinned", 6, "100m", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": names[1]}
	}))
	// Four pinned by required node affinity to the first or third node.
	mustCreateDeployment(t, w, c, deployment("affine", 4, "100m", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Affinity = requiredAffinity("kubernetes.io/hostname", corev1.NodeSelectorOpIn, names[0], names[2])
	}))
	// A bare pod pinned to a node by matchFields on its name.
	bare := deployment("bare", 1, "100m").Spec.Template.Spec
	bare.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{names[2]}}}}}}}}
	if _, err := w.kubeapi.CreatePod(c, "default", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bare"}, Spec: bare}); err != nil {
		t.Fatal(err)
	}
	// And one pinned to a node that does not exist.
	mustCreateDeployment(t, w, c, deployment("nowhere", 1, "100m", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "gke-c1-pool-a-gone"}
	}))
	advance(w, time.Minute)
	if got := nodesOf(c, "pinned"); len(got) != 1 || got[names[1]] != 6 {
		t.Fatalf("pinned pods per node %v, want 6 on %s", got, names[1])
	}
	if got := nodesOf(c, "affine"); got[names[1]] != 0 || got[names[0]]+got[names[2]] != 4 {
		t.Fatalf("affine pods per node %v, want 4 on %s and %s", got, names[0], names[2])
	}
	if p := c.Pods["default/bare"]; p.Node != names[2] {
		t.Fatalf("bare pod on %q, want %s", p.Node, names[2])
	}
	for _, p := range c.Pods {
		if p.Owner == "nowhere" && (p.Node != "" || p.Unschedulable() != "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.") {
			t.Fatalf("pod pinned to no node: node %q, message %q", p.Node, p.Unschedulable())
		}
	}
}

// R-SCHED-1, R-SCHED-2: required node affinity on the zone label keeps pods in that zone;
// preferred node affinity puts them in the preferred zone while it has room.
func TestSchedulerZoneAffinity(t *testing.T) {
	w := newTestWorld(t)
	c := createTestCluster(t, w, "us-central1", &api.NodePool{Name: "pool-a", InitialNodeCount: 1, Config: &api.NodeConfig{MachineType: "e2-standard-4"}})
	advance(w, time.Minute)
	zoneOf := func(owner string) map[string]int {
		out := map[string]int{}
		for node, n := range nodesOf(c, owner) {
			out[c.Nodes[node].Zone] += n
		}
		return out
	}
	zones := map[string]bool{}
	for _, n := range c.Nodes {
		zones[n.Zone] = true
	}
	if len(zones) != 3 {
		t.Fatalf("zones %v, want 3", zones)
	}
	mustCreateDeployment(t, w, c, deployment("zonal", 5, "100m", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Affinity = requiredAffinity("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, "us-central1-b")
	}))
	mustCreateDeployment(t, w, c, deployment("prefers", 4, "100m", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 50, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "failure-domain.beta.kubernetes.io/region", Operator: corev1.NodeSelectorOpIn, Values: []string{"us-central1"}},
				{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"us-central1-b", "us-central1-c"}}}}}}}}
	}))
	advance(w, time.Minute)
	if got := zoneOf("zonal"); got["us-central1-b"] != 5 || len(got) != 1 {
		t.Fatalf("zonal pods per zone %v, want 5 in us-central1-b", got)
	}
	if got := zoneOf("prefers"); len(got) != 1 || got["us-central1-b"]+got["us-central1-c"] != 0 {
		t.Fatalf("preferring pods per zone %v, want all 4 in the one zone preferred", got)
	}
}

// R-SCHED-3: PriorityClasses are served, the system ones included; a pod's priorityClassName
// becomes its spec.priority at admission, the scheduler and the autoscaler read it, and a
// class the cluster does not have is refused with the API server's message.
func TestPriorityClassesResolvedAtAdmission(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 1)
	k := kubeapi.StoredKindOf("priorityclasses")
	list := w.kubeapi.ListStored(c, k, "").(*schedulingv1.PriorityClassList)
	values := map[string]int32{}
	for _, pc := range list.Items {
		values[pc.Name] = pc.Value
		if pc.GlobalDefault {
			t.Errorf("%s is globalDefault", pc.Name)
		}
	}
	if values["system-cluster-critical"] != 2000000000 || values["system-node-critical"] != 2000001000 || len(values) != 2 {
		t.Fatalf("system classes %v", values)
	}
	if _, err := w.kubeapi.DeleteStored(c, k, "", "system-node-critical"); err == nil || !strings.Contains(err.Error(), "this is a system priority class and cannot be deleted") {
		t.Fatalf("deleting a system class: %v", err)
	}
	for _, bad := range []struct {
		pc   schedulingv1.PriorityClass
		want string
	}{
		{schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-mine"}, Value: 5},
			`PriorityClass.scheduling.k8s.io "system-mine" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class`},
		{schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "huge"}, Value: 1000000001},
			`PriorityClass.scheduling.k8s.io "huge" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000`},
	} {
		if _, err := w.kubeapi.CreateStored(c, k, "", &bad.pc); err == nil || err.Error() != bad.want {
			t.Errorf("create %s: %v, want %s", bad.pc.Name, err, bad.want)
		}
	}
	for _, pc := range []*schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000},
		{ObjectMeta: metav1.ObjectMeta{Name: "expendable"}, Value: -20},
	} {
		if _, err := w.kubeapi.CreateStored(c, k, "", pc); err != nil {
			t.Fatal(err)
		}
	}
	spec := deployment("x", 1, "100m").Spec.Template.Spec
	spec.PriorityClassName = "high"
	out, err := w.kubeapi.CreatePod(c, "default", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "important"}, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if out.Spec.Priority == nil || *out.Spec.Priority != 1000 || c.Pods["default/important"].Priority != 1000 {
		t.Fatalf("spec.priority %v, pod priority %d, want 1000", out.Spec.Priority, c.Pods["default/important"].Priority)
	}
	spec.PriorityClassName = "missing"
	if _, err := w.kubeapi.CreatePod(c, "default", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "lost"}, Spec: spec}); err == nil ||
		err.Error() != `pods "lost" is forbidden: no PriorityClass with name missing was found` {
		t.Fatalf("unknown class: %v", err)
	}
	// A Deployment's pods get their class's value: below -10 they never trigger a scale-up.
	mustCreateDeployment(t, w, c, deployment("batch", 2, "3", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.PriorityClassName = "expendable"
	}))
	advance(w, time.Minute)
	for _, p := range c.Pods {
		if p.Owner == "batch" && p.Priority != -20 {
			t.Fatalf("batch pod priority %d, want -20", p.Priority)
		}
	}
}

// R-SCHED-4: the API server validates every selector of a pod's affinity, preferred node
// affinity included, in Pods and in Deployments' templates.
func TestPreferredNodeAffinityValidated(t *testing.T) {
	w, c := workloadCluster(t, "e2-standard-4", 1)
	equal := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
		Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "topology.kubernetes.io/zone", Operator: "Equal", Values: []string{"us-central1-a"}}}}}}}}
	spec := deployment("x", 1, "100m").Spec.Template.Spec
	spec.Affinity = equal
	_, err := w.kubeapi.CreatePod(c, "default", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: spec})
	want := `Pod "p" is invalid: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator: Invalid value: "Equal": not a valid selector operator`
	if err == nil || err.Error() != want {
		t.Fatalf("pod: %v\nwant %s", err, want)
	}
	_, err = w.kubeapi.CreateDeployment(c, "default", deployment("d", 1, "100m", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Affinity = equal.DeepCopy()
		d.Spec.Template.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight = 101
		d.Spec.Template.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}}}}}
	}))
	want = `Deployment.apps "d" is invalid: [spec.template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100, ` +
		`spec.template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator: Invalid value: "Equal": not a valid selector operator, ` +
		`spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty]`
	if err == nil || err.Error() != want {
		t.Fatalf("deployment: %v\nwant %s", err, want)
	}
}
