package sim

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/clusterimport"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/workloads"
)

// The fixtures are a GKE cluster as `gcloud container clusters describe --format json` prints it
// and its objects as `kubectl get nodes,pods,deployments,replicasets,statefulsets,daemonsets,pdb,
// services -A -o json` prints them (emulator/testdata/snapshot; testdata/snapshot/gen/main.go describes them).

func shopRequest(t testing.TB) *api.ImportClusterRequest {
	t.Helper()
	cj, err := os.ReadFile("../testdata/snapshot/shop-cluster.json")
	if err != nil {
		t.Fatal(err)
	}
	oj, err := os.ReadFile("../testdata/snapshot/shop-objects.json")
	if err != nil {
		t.Fatal(err)
	}
	return &api.ImportClusterRequest{Cluster: cj, Objects: oj}
}

// importShop imports the fixture into a fresh world at the snapshot's time.
func importShop(t testing.TB) (*World, *model.Cluster, *api.ImportSummary) {
	t.Helper()
	w, sum := importWith(t, shopRequest(t), clusterimport.ReadSnapshot)
	return w, w.core.Cluster("shop-prod", "europe-west1", "shop"), sum
}

// importWith imports the snapshot read reads from req into a fresh world at its time.
func importWith(t testing.TB, req *api.ImportClusterRequest, read func(*api.ImportClusterRequest) (*Snapshot, error)) (*World, *api.ImportSummary) {
	t.Helper()
	s, err := read(req)
	if err != nil {
		t.Fatal(err)
	}
	w := New(Options{Seed: 1, Start: s.Time()})
	sum, err := w.clusterimport.ImportSnapshot("", "", s)
	if err != nil {
		t.Fatal(err)
	}
	return w, sum
}

func TestImportFixture(t *testing.T) {
	w, c, sum := importShop(t)
	if c == nil {
		t.Fatal("no cluster shop-prod/europe-west1/shop after the import")
	}
	if want := time.Date(2026, 3, 10, 2, 39, 30, 0, time.UTC); !c.Imported.SnapshotTime.Equal(want) || !w.engine.Now().Equal(want) {
		t.Errorf("snapshot time %s, clock %s; want both %s (the newest node heartbeat)", c.Imported.SnapshotTime, w.engine.Now(), want)
	}
	counts := map[string]int{}
	for _, ic := range sum.Imported {
		counts[ic.Kind] = ic.Count
	}
	for kind, want := range map[string]int{"NodePool": 3, "Node": 11, "Pod": 78, "Deployment": 6, "StatefulSet": 1, "DaemonSet": 4,
		"Job": 1, "Rollout": 1, "PodDisruptionBudget": 3, "Service": 4, "LoadBalancer": 1} {
		if counts[kind] != want {
			t.Errorf("imported %d %s, want %d (all: %v)", counts[kind], kind, want, counts)
		}
	}
	// Node pools: upgrade settings, autoscaling, management, versions, taints.
	dp, spot, db := c.Pool("default-pool"), c.Pool("spot-pool"), c.Pool("db-pool")
	if dp == nil || spot == nil || db == nil {
		t.Fatalf("pools %v", c.Pools)
	}
	if us := dp.UpgradeSettings; us.Strategy != api.StrategySurge || us.MaxSurge != 1 || us.MaxUnavailable != 0 {
		t.Errorf("default-pool upgrade settings %+v", us)
	}
	if as := dp.Autoscaling; !as.Enabled || as.MinNodeCount != 1 || as.MaxNodeCount != 3 || as.LocationPolicy != api.LocationPolicyBalanced {
		t.Errorf("default-pool autoscaling %+v", as)
	}
	if !dp.AutoUpgrade || !dp.AutoRepair || dp.Spec.Version != "1.33.5-gke.1308000" || c.MasterVersion != "1.34.1-gke.1829001" {
		t.Errorf("default-pool management %v/%v version %s, control plane %s", dp.AutoUpgrade, dp.AutoRepair, dp.Spec.Version, c.MasterVersion)
	}
	if bg := db.UpgradeSettings.BlueGreenSettings; db.UpgradeSettings.Strategy != api.StrategyBlueGreen || bg == nil ||
		bg.NodePoolSoakDuration != "1800s" || *bg.StandardRolloutPolicy.BatchNodeCount != 1 || bg.StandardRolloutPolicy.BatchSoakDuration != "300s" {
		t.Errorf("db-pool upgrade settings %+v", db.UpgradeSettings)
	}
	if !spot.Spec.Spot || len(spot.Taints) != 1 || spot.Taints[0].Key != "cloud.google.com/gke-spot" {
		t.Errorf("spot-pool spot %v taints %+v", spot.Spec.Spot, spot.Taints)
	}
	if p := c.MaintenancePolicy; p == nil || p.Daily == nil || p.Daily.StartTime != "03:00" {
		t.Errorf("maintenance policy %+v", c.MaintenancePolicy)
	}
	// Instance groups as the cluster JSON names them, one per zone, with their nodes.
	if g := dp.Group("europe-west1-c"); g == nil || g.Name != "gke-shop-default-pool-7b21d0a4-grp" || g.TargetSize != 2 || len(g.Nodes) != 2 {
		t.Errorf("default-pool group in europe-west1-c: %+v", g)
	}
	// Nodes render as they were: GKE's labels (the pool's and the zone's among them), the
	// label put on one by hand, the pools' taints, the allocatable they reported.
	k, err := w.kubeapi.GetK8sNode(c, "gke-shop-default-pool-3f9a6c2e-7k2p")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"disktype": "ssd", "team": "shop", "topology.gke.io/zone": "europe-west1-b",
		"cloud.google.com/gke-logging-variant": "DEFAULT", "node.kubernetes.io/instance-type": "e2-standard-4"} {
		if got := k.Labels[key]; got != want {
			t.Errorf("node label %s = %q, want %q", key, got, want)
		}
	}
	if got := k.Status.Allocatable.Cpu().MilliValue(); got != 3920 {
		t.Errorf("allocatable CPU %dm, want 3920m as the node reported", got)
	}
	if got := k.Status.Allocatable.Memory().Value(); got != 13255684*1024 {
		t.Errorf("allocatable memory %d, want 13255684Ki as the node reported", got)
	}
	sk, _ := w.kubeapi.GetK8sNode(c, "gke-shop-spot-pool-5d0e8a71-b6jq")
	if sk == nil || len(sk.Spec.Taints) != 1 || sk.Spec.Taints[0].Key != "cloud.google.com/gke-spot" || sk.Labels["cloud.google.com/gke-spot"] != "true" {
		t.Errorf("spot node %+v", sk)
	}
	// Only the node with a label of its own stands apart from its pool.
	for name, n := range c.Nodes {
		if (n.Own != nil) != (name == "gke-shop-default-pool-3f9a6c2e-7k2p") {
			t.Errorf("node %s own %+v", name, n.Own)
		}
	}
	// Pods: on their nodes, with their owners, priorities, annotations and requests.
	p, err := w.kubeapi.GetPod(c, "default", "report-29051040-d4nwr")
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "gke-shop-default-pool-7b21d0a4-w3xr" || p.Annotations[core.SafeToEvictAnnotation] != "false" ||
		p.OwnerReferences[0].Kind != "Job" || p.Status.Phase != corev1.PodRunning {
		t.Errorf("report pod: node %s annotations %v owner %+v phase %s", p.Spec.NodeName, p.Annotations, p.OwnerReferences, p.Status.Phase)
	}
	proxy := c.Pods["kube-system/kube-proxy-gke-shop-db-pool-90fa27c5-5rwe"]
	if proxy == nil || proxy.Priority != 2000001000 || proxy.OwnerKind != model.OwnerDaemonSet || proxy.Spec != nil {
		t.Errorf("kube-proxy static pod %+v", proxy)
	}
	web := c.Pods["default/web-6b9d8c7f5a-k2mcw"]
	if web == nil || web.Req.MilliCPU != 500 || web.Req.MemoryBytes != 512<<20 || web.OwnerKind != model.OwnerDeployment || web.Owner != "web" || web.Template != "6b9d8c7f5a" {
		t.Errorf("web pod %+v", web)
	}
	if d := c.Deployments["default/web"]; d == nil || d.Current != "6b9d8c7f5a" || len(d.Templates) != 1 {
		t.Errorf("web deployment %+v", d)
	}
	if d := c.Deployments["default/"+workloads.StandInName(workloads.KindStatefulSet, "db")]; d == nil || !d.Controller.Ordinals || d.DesiredReplicas() != 3 {
		t.Errorf("db stand-in %+v", d)
	}
	// PDBs count the pods they protect.
	if st := w.core.PDBStatus(c, c.PDBs["default/payments"]); st.ExpectedPods != 2 || st.CurrentHealthy != 2 || st.DisruptionsAllowed != 0 {
		t.Errorf("payments PDB %+v", st)
	}
	// The LoadBalancer Service keeps its address and gets its backends.
	s := c.Services["default/web"]
	if s.LB == nil || s.LB.IP != "34.140.77.12" || s.LB.State != loadbalancers.LBReady || s.LB.Kind != loadbalancers.LBExternalTargetPool {
		t.Fatalf("web load balancer %+v", s.LB)
	}
	advance(w, time.Minute)
	if len(s.LB.Members) != 11 {
		t.Errorf("target pool members %d, want every node (11)", len(s.LB.Members))
	}
	// Nothing is left out silently.
	var notes []string
	for _, n := range sum.Approximations {
		notes = append(notes, n.Note+" "+strings.Join(n.Objects, ","))
	}
	for _, want := range []string{"StatefulSet default/db", "Job default/report-29051040", "Rollout default/checkout", "static pods kube-system/kube-proxy-NODE",
		"Node gke-shop-default-pool-3f9a6c2e-7k2p (disktype)", "Service default/web (external-target-pool)"} {
		if !strings.Contains(strings.Join(notes, "\n"), want) {
			t.Errorf("no approximation names %s:\n%s", want, strings.Join(notes, "\n"))
		}
	}
	// After a minute of running, nothing moved: every pod still on its node.
	for _, p := range c.Pods {
		if p.Node == "" && p.Name()[:9] != "ssd-cache" {
			t.Errorf("pod %s lost its node", p.Key())
		}
	}
	if d := w.indexDrift(); d != "" {
		t.Error(d)
	}
}

// objectsWith adds items to the fixture's objects.
func objectsWith(t *testing.T, req *api.ImportClusterRequest, extra ...string) {
	t.Helper()
	var list struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(req.Objects, &list); err != nil {
		t.Fatal(err)
	}
	for _, e := range extra {
		list.Items = append(list.Items, json.RawMessage(e))
	}
	req.Objects, _ = json.Marshal(list)
}

// Objects gkesim does not simulate are listed by kind and name; a Secret's data is never read
// (here it is not even valid Secret data, and the import does not mind).
func TestImportListsWhatItDoesNotSimulate(t *testing.T) {
	req := shopRequest(t)
	objectsWith(t, req,
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db-password","namespace":"default"},"type":"Opaque","data":{"password":12345}}`,
		`{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"default"},"spec":{"maxReplicas":"many"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"migrate-x1","namespace":"default"},"spec":{"nodeName":"gke-shop-default-pool-3f9a6c2e-7k2p","containers":[{"name":"m","image":"m"}]},"status":{"phase":"Succeeded"}}`)
	s, err := clusterimport.ReadSnapshot(req)
	if err != nil {
		t.Fatal(err)
	}
	w := New(Options{Seed: 1, Start: s.Time()})
	sum, err := w.clusterimport.ImportSnapshot("", "", s)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(sum.NotSimulated)
	for _, want := range []string{"Secrets are not simulated: their data is neither needed nor read", "Secret default/db-password",
		"HorizontalPodAutoscalers are not simulated", "HorizontalPodAutoscaler default/web", "pods that had finished"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("not-simulated notes lack %q: %s", want, b)
		}
	}
	raw, _ := json.Marshal(w.State())
	if strings.Contains(string(raw), "12345") || strings.Contains(string(raw), "migrate-x1") {
		t.Error("the state holds the Secret's data or the finished pod")
	}
}

// Bad or partial input is refused with every problem named, and nothing is imported.
func TestImportRefusesBadInput(t *testing.T) {
	shop := shopRequest(t)
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(shop.Objects, &list); err != nil {
		t.Fatal(err)
	}
	only := func(keep func(kind, name string) bool) json.RawMessage {
		var items []map[string]any
		for _, it := range list.Items {
			md := it["metadata"].(map[string]any)
			if keep(it["kind"].(string), md["name"].(string)) {
				items = append(items, it)
			}
		}
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
		return b
	}
	for _, tc := range []struct {
		name             string
		cluster, objects string
		want             []string
	}{
		{"nodes without pods", "", string(only(func(k, _ string) bool { return k == "Node" })),
			[]string{"the objects hold 11 nodes and no Pod", "kubectl get nodes,pods,deployments"}},
		{"pods without nodes", "", string(only(func(k, _ string) bool { return k != "Node" })),
			[]string{"the objects hold no Node, but cluster shop has nodes"}},
		{"a pod on a node not in the list", "", string(only(func(k, n string) bool { return n != "gke-shop-db-pool-90fa27c5-5rwe" })),
			[]string{"6 pods are on nodes that are not among the objects' 10 nodes", "pod default/db-1 is on node gke-shop-db-pool-90fa27c5-5rwe"}},
		{"an EKS cluster", `{"cluster":{"name":"shop","arn":"arn:aws:eks:eu-west-1:1:cluster/shop"}}`, "",
			[]string{"looks like `aws eks describe-cluster` output (an EKS cluster)"}},
		{"an AKS cluster", `{"name":"shop","type":"Microsoft.ContainerService/ManagedClusters","agentPoolProfiles":[]}`, "",
			[]string{"looks like an AKS cluster"}},
		{"objects given as the cluster", string(shop.Objects), "", []string{"The cluster JSON is a Kubernetes object"}},
		{"not JSON", "{\n  \"name\": \"shop\",\n  oops\n}", "", []string{"The cluster JSON is not valid JSON at line 3, column 3"}},
		{"EKS nodes", "", strings.ReplaceAll(string(shop.Objects), `"gce://shop-prod/europe-west1-b/gke-shop-db-pool-e61b9d03-mq2s"`, `"aws:///eu-west-1a/i-0abc"`),
			[]string{"node gke-shop-db-pool-e61b9d03-mq2s is an EKS (AWS) node"}},
		{"nodes of another cluster", "", strings.ReplaceAll(string(shop.Objects), `"cloud.google.com/gke-nodepool": "spot-pool"`, `"cloud.google.com/gke-nodepool": "gpu-pool"`),
			[]string{`node gke-shop-spot-pool-5d0e8a71-b6jq is in node pool "gpu-pool", which cluster shop does not have`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &api.ImportClusterRequest{Cluster: shop.Cluster, Objects: shop.Objects}
			if tc.cluster != "" {
				req.Cluster = json.RawMessage(tc.cluster)
			}
			if tc.objects != "" {
				req.Objects = json.RawMessage(tc.objects)
			}
			w := New(Options{Seed: 1, Start: testStart})
			s, err := clusterimport.ReadSnapshot(req)
			if err == nil {
				_, err = w.clusterimport.ImportSnapshot("", "", s)
			}
			if err == nil {
				t.Fatal("imported")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\ndoes not say %q", err, want)
				}
			}
			if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 {
				t.Errorf("error %v is not a 400", err)
			}
			if len(w.st.Clusters) != 0 || w.st.Log.Len() != 0 {
				t.Errorf("something was imported: %d clusters, %d events", len(w.st.Clusters), w.st.Log.Len())
			}
		})
	}
	// An import of a cluster that exists is refused, and the one there is untouched.
	w, c, _ := importShop(t)
	pods := len(c.Pods)
	s, _ := clusterimport.ReadSnapshot(shopRequest(t))
	if _, err := w.clusterimport.ImportSnapshot("", "", s); err == nil || !strings.Contains(err.Error(), "delete it first") {
		t.Errorf("a second import: %v", err)
	}
	if len(c.Pods) != pods || len(w.st.Clusters) != 1 {
		t.Error("the second import changed the cluster")
	}
}

// An imported cluster is a cluster like any other: saved and restored whole, it goes on exactly
// as the original through an upgrade, and its derived indexes never drift from a rebuild.
func TestImportedClusterRestoresAndUpgrades(t *testing.T) {
	w, c, _ := importShop(t)
	compareWithRestored(t, w, 2*time.Minute)
	op, err := w.gke.UpdateNodePool(c.Project, c.Location, c.Name, "default-pool", &api.UpdateNodePoolRequest{NodeVersion: "-",
		UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategySurge, MaxSurge: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for range 30 {
		advance(w, 5*time.Minute)
		if d := w.indexDrift(); d != "" {
			t.Fatal(d)
		}
	}
	compareWithRestored(t, w, 4*time.Hour)
	if op.Status != api.OpStatusDone || op.ErrorCode != 0 {
		t.Fatalf("upgrade %s %s", op.Status, op.Detail)
	}
	// Every node of the pool was replaced; new nodes got the pool's labels and the cluster's
	// DaemonSets (kube-proxy named after its node), not the hand-put label.
	for _, n := range c.Nodes {
		if n.Pool != "default-pool" {
			continue
		}
		if n.Spec.Version != c.MasterVersion || n.Own != nil {
			t.Errorf("node %s: version %s own %+v", n.Name, n.Spec.Version, n.Own)
		}
		k, _ := w.kubeapi.GetK8sNode(c, n.Name)
		if k.Labels["team"] != "shop" || k.Labels["topology.gke.io/zone"] != n.Zone || k.Labels["disktype"] != "" {
			t.Errorf("node %s labels %v", n.Name, k.Labels)
		}
		var ds []string
		for _, p := range w.kubeapi.ListPods(c, model.ListOptions{NodeName: n.Name}).Items {
			if ref := p.OwnerReferences; len(ref) > 0 && (ref[0].Kind == "DaemonSet" || ref[0].Kind == "Node") {
				ds = append(ds, p.Name)
			}
		}
		if len(ds) != 5 || !slices.Contains(ds, "kube-proxy-"+n.Name) {
			t.Errorf("node %s DaemonSet pods %v, want 5 with kube-proxy-%s", n.Name, ds, n.Name)
		}
	}
	// The StatefulSet's pods kept their names; the Rollout and the Job kept their counts; the
	// pod that selects the hand-put label has nowhere to go.
	for _, name := range []string{"db-0", "db-1", "db-2"} {
		if p := c.Pods["default/"+name]; p == nil || !p.Ready {
			t.Errorf("pod %s: %+v", name, p)
		}
	}
	counts := map[string]int{}
	for _, p := range c.Pods {
		if !p.Terminating {
			counts[p.Owner]++
		}
	}
	if counts[workloads.StandInName("Rollout", "checkout")] != 2 || counts[workloads.StandInName(workloads.KindJob, "report-29051040")] != 1 || counts["web"] != 6 {
		t.Errorf("pods per owner %v", counts)
	}
	for _, p := range c.Pods {
		if p.Owner == "ssd-cache" && (p.Node != "" || !strings.Contains(p.Unschedulable(), "didn't match Pod's node affinity/selector")) {
			t.Errorf("ssd-cache pod on %q: %s", p.Node, p.Unschedulable())
		}
	}
}

// A StatefulSet's pod goes before its replacement comes, under the same name (OrderedReady).
func TestImportedStatefulSetRecreatesUnderItsName(t *testing.T) {
	w, c, _ := importShop(t)
	if _, err := w.kubeapi.DeletePod(c, "default", "db-1", nil); err != nil {
		t.Fatal(err)
	}
	advance(w, 30*time.Second)
	if p := c.Pods["default/db-1"]; p == nil || !p.Terminating {
		t.Fatalf("db-1 after 30 s of its 120 s grace: %+v", p)
	}
	advance(w, 100*time.Second)
	p := c.Pods["default/db-1"]
	if p == nil || p.Terminating || p.CreateTime.Time().Before(w.engine.Now().Add(-15*time.Second)) {
		t.Fatalf("db-1 was not recreated once the old one was gone: %+v", p)
	}
	if p.Labels["statefulset.kubernetes.io/pod-name"] != "db-1" || p.Labels["apps.kubernetes.io/pod-index"] != "1" {
		t.Errorf("labels %v", p.Labels)
	}
}

// An imported pod keeps the address its snapshot gives, an IPv6 one included, in the model and
// as the API shows it.
func TestImportKeepsAPodsIPv6Address(t *testing.T) {
	req := shopRequest(t)
	req.Objects = json.RawMessage(strings.Replace(string(req.Objects), `"podIP": "10.132.0.11"`, `"podIP": "fd20::11"`, 1))
	w, sum := importWith(t, req, clusterimport.ReadSnapshot)
	if sum == nil {
		t.Fatal("no import summary")
	}
	c := w.core.Cluster("shop-prod", "europe-west1", "shop")
	var found *model.Pod
	for _, p := range c.Pods {
		if p.IP.String() == "fd20::11" {
			found = p
		}
	}
	if found == nil {
		t.Fatal("no pod kept the address fd20::11")
	}
	if got := w.core.PodSnapshot(c, found).RenderPod().Status.PodIP; got != "fd20::11" {
		t.Errorf("pod %s shows status.podIP %q, want fd20::11", found.Key(), got)
	}
}
