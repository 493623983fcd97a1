package sim

import (
	"encoding/json"
	"sort"
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
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/clusterimport"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// exportCluster prints a cluster as gcloud and kubectl print it: the cluster JSON and a List of
// its nodes, pods, deployments, replicasets, statefulsets, daemonsets, pdbs and services.
func exportCluster(t testing.TB, w *World, c *model.Cluster) *api.ImportClusterRequest {
	t.Helper()
	links := core.Links{ContainerBase: "https://container.googleapis.com/v1/", ComputeBase: "https://www.googleapis.com/compute/v1/"}
	cj, err := json.Marshal(w.gke.RenderCluster(c, links, "127.0.0.1/k8s/"+c.Key()))
	if err != nil {
		t.Fatal(err)
	}
	var items []any
	for _, n := range w.gke.K8sNodes(c) {
		items = append(items, n)
	}
	for _, p := range w.kubeapi.ListPods(c, model.ListOptions{}).Items {
		items = append(items, p)
	}
	for _, d := range w.kubeapi.ListDeployments(c, model.ListOptions{}).Items {
		items = append(items, d)
	}
	for _, rs := range w.workloads.ListReplicaSets(c, model.ListOptions{}).Items {
		items = append(items, rs)
	}
	for _, s := range w.workloads.ListStatefulSets(c, model.ListOptions{}).Items {
		items = append(items, s)
	}
	for _, ds := range w.workloads.ListDaemonSets(c, model.ListOptions{}).Items {
		items = append(items, ds)
	}
	for _, b := range w.kubeapi.ListPDBs(c, model.ListOptions{}).Items {
		items = append(items, b)
	}
	for _, s := range w.loadbalancers.ListServices(c, model.ListOptions{}).Items {
		items = append(items, s)
	}
	oj, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]string{"resourceVersion": ""}})
	if err != nil {
		t.Fatal(err)
	}
	return &api.ImportClusterRequest{Cluster: cj, Objects: oj}
}

func mustImport(t testing.TB, w *World, req *api.ImportClusterRequest) (*model.Cluster, *api.ImportSummary) {
	t.Helper()
	s, err := clusterimport.ReadSnapshot(req)
	if err != nil {
		t.Fatalf("ReadSnapshot: %v", err)
	}
	sum, err := w.clusterimport.ImportSnapshot("proj", "", s)
	if err != nil {
		t.Fatalf("ImportSnapshot: %v", err)
	}
	return w.core.Cluster("proj", s.Location(), s.Name()), sum
}

func quantity(s string) resource.Quantity { return resource.MustParse(s) }

// exportableCluster is a regional cluster with two pools, a Deployment under a PDB, a bare pod
// and a LoadBalancer Service.
func exportableCluster(t *testing.T) (*World, *model.Cluster) {
	t.Helper()
	w := newTestWorld(t)
	c := createTestCluster(t, w, "us-central1",
		&api.NodePool{Name: "default-pool", InitialNodeCount: 2, Config: &api.NodeConfig{MachineType: "e2-standard-4", Labels: map[string]string{"team": "web"}}},
		&api.NodePool{Name: "spot", InitialNodeCount: 1, Config: &api.NodeConfig{MachineType: "e2-standard-8", Spot: true,
			Taints: []*api.NodeTaint{{Key: "spot", Value: "true", Effect: api.EffectNoSchedule}}}})
	replicas := int32(6)
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "web", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: quantity("500m"), corev1.ResourceMemory: quantity("256Mi")}}}}}}
	if _, err := w.kubeapi.CreateDeployment(c, "default", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: tmpl}}); err != nil {
		t.Fatal(err)
	}
	one := intstr.FromInt32(1)
	if _, err := w.kubeapi.CreatePDB(c, "default", &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.kubeapi.CreatePod(c, "default", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "debug", Annotations: map[string]string{core.SafeToEvictAnnotation: "false"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "sh", Image: "busybox"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.loadbalancers.CreateService(c, "default", &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
		Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}); err != nil {
		t.Fatal(err)
	}
	advance(w, 5*time.Minute)
	return w, c
}

// normalizedObjects is what a cluster's objects say, without what differs between two
// emulators holding the same cluster (resource versions, heartbeat times).
func normalizedObjects(t *testing.T, w *World, c *model.Cluster) map[string]string {
	t.Helper()
	req := exportCluster(t, w, c)
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(req.Objects, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range list.Items {
		md := it["metadata"].(map[string]any)
		delete(md, "resourceVersion")
		if st, ok := it["status"].(map[string]any); ok {
			for _, k := range []string{"conditions"} {
				delete(st, k)
			}
		}
		ns, _ := md["namespace"].(string)
		key := it["kind"].(string) + " " + strings.TrimPrefix(ns+"/"+md["name"].(string), "/")
		b, _ := json.Marshal(it)
		out[key] = string(b)
	}
	return out
}

func TestImportRoundTripInProcess(t *testing.T) {
	w, c := exportableCluster(t)
	req := exportCluster(t, w, c)
	w2 := New(Options{Seed: 7, Start: w.engine.Now()})
	c2, sum := mustImport(t, w2, req)
	if c2 == nil {
		t.Fatal("no cluster after the import")
	}
	counts := map[string]int{}
	for _, ic := range sum.Imported {
		counts[ic.Kind] = ic.Count
	}
	if counts["Node"] != 9 || counts["NodePool"] != 2 || counts["Deployment"] != 7 || counts["PodDisruptionBudget"] != 1 || counts["LoadBalancer"] != 1 {
		t.Errorf("imported %v", counts)
	}
	if len(c2.Pods) != len(c.Pods) {
		t.Errorf("pods: %d imported, %d in the original", len(c2.Pods), len(c.Pods))
	}
	want, got := normalizedObjects(t, w, c), normalizedObjects(t, w2, c2)
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] == "" {
			t.Errorf("%s: missing after the import", k)
			continue
		}
		if got[k] != want[k] {
			t.Errorf("%s differs:\n%s", k, jsonDiff(want[k], got[k]))
		}
	}
	for k := range got {
		if want[k] == "" {
			t.Errorf("%s: appeared with the import", k)
		}
	}
}

// jsonDiff shows where two JSON documents part.
func jsonDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-80, 0)
	return "want ..." + a[from:min(len(a), i+120)] + "\ngot  ..." + b[from:min(len(b), i+120)]
}
