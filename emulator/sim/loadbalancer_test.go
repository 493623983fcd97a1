package sim

import (
	"encoding/json"
	"net"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

var testLinks = core.Links{ContainerBase: "http://gkesim/v1/", ComputeBase: "http://gkesim/compute/v1/"}

// lbTestCluster is a running cluster c1 with GKE subsetting on or off.
func lbTestCluster(t *testing.T, w *World, location string, subsetting bool, pools ...*api.NodePool) *model.Cluster {
	t.Helper()
	op, err := w.gke.CreateCluster("proj", location, &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1", NodePools: pools,
		NetworkConfig: &api.NetworkConfig{EnableL4IlbSubsetting: subsetting}}})
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	runOp(t, w, op, time.Hour)
	advance(w, time.Minute)
	return w.core.Cluster("proj", location, "c1")
}

func lbService(name string, mutate ...func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
		Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	for _, m := range mutate {
		m(s)
	}
	return s
}

func annotate(k, v string) func(*corev1.Service) {
	return func(s *corev1.Service) {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[k] = v
	}
}

var internalLB = annotate(loadbalancers.AnnotationLBType, "Internal")

func local(s *corev1.Service) {
	s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
}

func mustCreateService(t *testing.T, w *World, c *model.Cluster, s *corev1.Service) *model.Service {
	t.Helper()
	if _, err := w.loadbalancers.CreateService(c, "default", s); err != nil {
		t.Fatalf("CreateService %s: %v", s.Name, err)
	}
	return c.Services["default/"+s.Name]
}

func members(s *model.Service) []string {
	out := make([]string, 0, len(s.LB.Members))
	for n := range s.LB.Members {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// R-LB-2: the four rows of the table give the four kinds of backend; R-LB-4: an internal
// Service created before subsetting was enabled keeps its instance groups; R-LB-5: each VM is
// in exactly one load-balanced instance group.
func TestLoadBalancerKindsPerRLB2(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, "us-central1", false, &api.NodePool{Name: "pool-a", InitialNodeCount: 1}, &api.NodePool{Name: "pool-b", InitialNodeCount: 1})
	if len(c.Nodes) != 6 {
		t.Fatalf("%d nodes, want 6 (2 pools x 3 zones)", len(c.Nodes))
	}
	ilbIG := mustCreateService(t, w, c, lbService("ilb-ig", internalLB))
	op, err := w.gke.UpdateCluster("proj", "us-central1", "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{
		DesiredL4ilbSubsettingConfig: &api.ILBSubsettingConfig{Enabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	ilbNEG := mustCreateService(t, w, c, lbService("ilb-neg", internalLB))
	rbs := mustCreateService(t, w, c, lbService("netlb-rbs", annotate(loadbalancers.AnnotationL4RBS, "enabled")))
	tp := mustCreateService(t, w, c, lbService("netlb-tp"))
	if ilbNEG.LB.State != loadbalancers.LBProvisioning || len(w.loadbalancers.RenderService(c, ilbNEG).Status.LoadBalancer.Ingress) != 0 {
		t.Fatalf("a new load balancer is ready at once: %+v", ilbNEG.LB)
	}
	advance(w, 2*time.Minute)

	_, nodeNet, _ := net.ParseCIDR(loadbalancers.UintToIP(c.NodeIPBase) + "/16")
	_, public, _ := net.ParseCIDR("35.184.0.0/13")
	for _, tc := range []struct {
		s        *model.Service
		kind     string
		internal bool
		anns     bool
		final    string
	}{
		{ilbNEG, loadbalancers.LBInternalNEG, true, true, "gke.networking.io/l4-ilb-v2"},
		{ilbIG, loadbalancers.LBInternalIG, true, false, "gke.networking.io/l4-ilb-v1"},
		{rbs, loadbalancers.LBExternalRBS, false, true, "gke.networking.io/l4-netlb-v2"},
		{tp, loadbalancers.LBExternalTargetPool, false, false, "service.kubernetes.io/load-balancer-cleanup"},
	} {
		lb := tc.s.LB
		if lb.Kind != tc.kind || lb.State != loadbalancers.LBReady {
			t.Errorf("%s: kind %s state %s, want %s READY", tc.s.Name, lb.Kind, lb.State, tc.kind)
		}
		if took := lb.ReadyTime.Sub(lb.Start); took < loadbalancers.LBProvisionBase || took > loadbalancers.LBProvisionBase+loadbalancers.LBProvisionSpread {
			t.Errorf("%s: provisioned in %s, want %s..%s", tc.s.Name, took, loadbalancers.LBProvisionBase, loadbalancers.LBProvisionBase+loadbalancers.LBProvisionSpread)
		}
		ip := net.ParseIP(lb.IP)
		if tc.internal && !nodeNet.Contains(ip) || !tc.internal && !public.Contains(ip) {
			t.Errorf("%s: IP %s outside its range (internal %v)", tc.s.Name, lb.IP, tc.internal)
		}
		out := w.loadbalancers.RenderService(c, tc.s)
		if got := out.Status.LoadBalancer.Ingress; len(got) != 1 || got[0].IP != lb.IP {
			t.Errorf("%s: status.loadBalancer %+v", tc.s.Name, out.Status.LoadBalancer)
		}
		if _, has := out.Annotations[loadbalancers.AnnotationBackendService]; has != tc.anns {
			t.Errorf("%s: backend-service annotation present=%v, want %v: %v", tc.s.Name, has, tc.anns, out.Annotations)
		}
		if len(out.Finalizers) != 1 || out.Finalizers[0] != tc.final {
			t.Errorf("%s: finalizers %v, want %s", tc.s.Name, out.Finalizers, tc.final)
		}
		if len(lb.Members) != 6 {
			t.Errorf("%s: %d backends, want all 6 nodes (R-LB-3: 6 <= 25)", tc.s.Name, len(lb.Members))
		}
	}
	var negStatus struct {
		NEGs  map[string]string `json:"network_endpoint_groups"`
		Zones []string          `json:"zones"`
	}
	if err := json.Unmarshal([]byte(w.loadbalancers.RenderService(c, ilbNEG).Annotations[loadbalancers.AnnotationNEGStatus]), &negStatus); err != nil || len(negStatus.Zones) != 3 || negStatus.NEGs["0"] == "" {
		t.Errorf("neg-status annotation %q (%v)", w.loadbalancers.RenderService(c, ilbNEG).Annotations[loadbalancers.AnnotationNEGStatus], err)
	}

	// The Compute view: what each row created.
	frs := w.compute.ForwardingRules("proj", "us-central1", testLinks)
	bss := w.compute.BackendServices("proj", "us-central1", testLinks)
	tps := w.compute.TargetPools("proj", "us-central1", testLinks)
	if len(frs) != 4 || len(bss) != 3 || len(tps) != 1 {
		t.Fatalf("%d forwarding rules, %d backend services, %d target pools; want 4, 3, 1", len(frs), len(bss), len(tps))
	}
	for _, bs := range bss {
		for _, b := range bs.Backends {
			neg := strings.Contains(b.Group, "/networkEndpointGroups/")
			if want := bs.Name == w.loadbalancers.LBNamesOf(c, ilbNEG).BackendService; neg != want {
				t.Errorf("backend service %s has backend %s", bs.Name, b.Group)
			}
		}
		if len(bs.Backends) != 3 {
			t.Errorf("backend service %s: %d backends, want one group per zone", bs.Name, len(bs.Backends))
		}
	}
	if len(tps[0].Instances) != 6 {
		t.Errorf("target pool has %d instances, want every node (6)", len(tps[0].Instances))
	}
	ig := w.loadbalancers.LBNamesOf(c, ilbIG).InstanceGroup
	if ig != w.loadbalancers.LBNamesOf(c, rbs).InstanceGroup {
		t.Errorf("ILB and RBS NetLB use different instance groups: %s, %s (R-LB-2: one shared group per zone)", ig, w.loadbalancers.LBNamesOf(c, rbs).InstanceGroup)
	}
	inGroups := map[string]int{}
	for _, z := range c.Locations {
		negs := w.compute.NetworkEndpointGroups("proj", z, testLinks)
		if len(negs) != 1 || negs[0].Size != 2 || negs[0].NetworkEndpointType != "GCE_VM_IP" {
			t.Errorf("zone %s NEGs: %s", z, mustJSON(negs))
		}
		for _, g := range w.loadbalancers.LBGroups("proj", z) {
			for _, n := range g.Nodes {
				inGroups[n]++
			}
		}
		inst, err := w.compute.InstanceGroupInstances("proj", z, ig, testLinks)
		if err != nil || len(inst.Items) != 2 {
			t.Errorf("zone %s listInstances of %s: %v %v", z, ig, err, mustJSON(inst))
		}
	}
	for n := range c.Nodes {
		if inGroups[n] != 1 {
			t.Errorf("node %s is in %d load-balanced instance groups, want exactly 1 (R-LB-5)", n, inGroups[n])
		}
	}
	if hcs := w.compute.HealthChecks("proj", "httpHealthChecks", "", testLinks); len(hcs) != 1 || hcs[0].(*api.HttpHealthCheck).Port != loadbalancers.KubeProxyHealthPort {
		t.Errorf("target pool health checks: %s", mustJSON(hcs))
	}
	if hcs := w.compute.HealthChecks("proj", "healthChecks", "us-central1", testLinks); len(hcs) != 1 || !strings.HasSuffix(hcs[0].(*api.HealthCheck).Name, "-l4-shared-hc") {
		t.Errorf("regional health checks (RBS NetLB): %s", mustJSON(hcs))
	}

	// R-LB-2: cloud.google.com/l4-rbs only matters at creation.
	for _, ch := range []struct {
		s    *model.Service
		rbs  string
		kind string
	}{{tp, "enabled", loadbalancers.LBExternalTargetPool}, {rbs, "", loadbalancers.LBExternalRBS}} {
		in := w.loadbalancers.RenderService(c, ch.s)
		in.Annotations = map[string]string{loadbalancers.AnnotationL4RBS: ch.rbs}
		if _, err := w.loadbalancers.UpdateService(c, "default", ch.s.Name, in); err != nil {
			t.Fatal(err)
		}
		if ch.s.LB.Kind != ch.kind || ch.s.LB.State != loadbalancers.LBReady {
			t.Errorf("%s after changing l4-rbs: %s %s, want %s kept", ch.s.Name, ch.s.LB.Kind, ch.s.LB.State, ch.kind)
		}
	}
	if evs, _ := w.engine.Events(engine.EventFilter{Type: "LoadBalancerKindKept"}); len(evs) != 3 {
		t.Errorf("%d LoadBalancerKindKept events, want 3 (subsetting enabled over an ILB, two l4-rbs changes)", len(evs))
	}
}

// setSize resizes a pool (per zone) and runs the operation.
func setSize(t *testing.T, w *World, location, pool string, n int32) {
	t.Helper()
	op, err := w.gke.SetNodePoolSize("proj", location, "c1", pool, &api.SetNodePoolSizeRequest{NodeCount: n})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, 2*time.Hour)
	advance(w, time.Minute)
}

// R-LB-3: 30 nodes, GKE subsetting, externalTrafficPolicy Cluster: exactly 25 NEG endpoints,
// the same 25 for the same seed, spread 8/8/9 over three zones, and stable when unrelated
// nodes come and go.
func TestNEGSubsetClusterPolicy25Of30(t *testing.T) {
	subset := func(seed uint64) (*World, *model.Cluster, *model.Service) {
		w := New(Options{Seed: seed, Start: testStart})
		c := lbTestCluster(t, w, "us-central1", true, &api.NodePool{Name: "pool-a", InitialNodeCount: 10})
		s := mustCreateService(t, w, c, lbService("ilb", internalLB))
		advance(w, 2*time.Minute)
		return w, c, s
	}
	w, c, s := subset(42)
	got := members(s)
	if len(c.Nodes) != 30 || len(got) != loadbalancers.NEGClusterLimit {
		t.Fatalf("%d nodes, %d NEG endpoints; want 30 and exactly 25 (R-LB-3)", len(c.Nodes), len(got))
	}
	perZone := map[string]int{}
	for _, z := range s.LB.Members {
		perZone[z]++
	}
	counts := []int{perZone["us-central1-a"], perZone["us-central1-b"], perZone["us-central1-c"]}
	sort.Ints(counts)
	if counts[0] != 8 || counts[1] != 8 || counts[2] != 9 {
		t.Errorf("endpoints per zone %v, want 8, 8, 9 (the limit split over the zones)", perZone)
	}
	_, _, again := subset(42)
	if strings.Join(members(again), ",") != strings.Join(got, ",") {
		t.Errorf("seed 42 gave two different subsets")
	}
	_, _, other := subset(7)
	if len(members(other)) != 25 || strings.Join(members(other), ",") == strings.Join(got, ",") {
		t.Errorf("seed 7 gave %d endpoints, the same as seed 42's: the subset is not seeded", len(members(other)))
	}
	// A node that is not an endpoint is cordoned and uncordoned: nothing moves.
	for _, name := range core.SortedNodeNames(c) {
		if _, member := s.LB.Members[name]; !member {
			if _, err := w.kubeapi.SetNodeUnschedulable(c, name, true); err != nil {
				t.Fatal(err)
			}
			advance(w, time.Minute)
			if _, err := w.kubeapi.SetNodeUnschedulable(c, name, false); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	advance(w, time.Minute)
	if strings.Join(members(s), ",") != strings.Join(got, ",") {
		t.Errorf("cordoning a node that is not an endpoint moved the subset")
	}
	// Unrelated nodes come: a second pool of 3 per zone. While they boot the zones' node counts
	// differ, and subsetting orders zones by node count, so at most one endpoint per zone moves
	// (a zone's share of the 25 goes from 8 to 9 and back); the rest stay.
	op, err := w.gke.CreateNodePool("proj", "us-central1", "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{Name: "pool-b", InitialNodeCount: 3}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	advance(w, time.Minute)
	before := members(s)
	stayed := 0
	for _, n := range before {
		if slices.Contains(got, n) {
			stayed++
		}
	}
	if len(c.Nodes) != 39 || len(before) != 25 || stayed < 25-len(c.Locations) {
		t.Errorf("after adding 9 nodes: %d nodes, %d endpoints, %d of the 25 stayed; want 39, 25, at least %d", len(c.Nodes), len(before), stayed, 25-len(c.Locations))
	}
	// Endpoints go: shrink pool-a to 7 per zone. Only the departed endpoints are replaced.
	setSize(t, w, "us-central1", "pool-a", 7)
	after := members(s)
	kept, gone := 0, 0
	for _, n := range after {
		if slices.Contains(before, n) {
			kept++
		}
		if c.Nodes[n] == nil {
			t.Errorf("endpoint %s is not a node any more", n)
		}
	}
	for _, n := range before {
		if c.Nodes[n] == nil {
			gone++
		}
	}
	if len(after) != 25 || kept < 25-gone-len(c.Locations) {
		t.Errorf("after removing 9 nodes (%d of them endpoints): %d endpoints, %d kept; want 25 and at least %d", gone, len(after), kept, 25-gone-len(c.Locations))
	}
	t.Logf("25 of 30 endpoints, per zone %v; 9 nodes added: %d of 25 stayed; 9 removed (%d of them endpoints): %d of 25 kept", counts, stayed, gone, kept)
}

// servingNodes are the nodes running a ready, non-terminating pod of the Service.
func servingNodes(w *World, c *model.Cluster, s *model.Service) []string {
	var out []string
	for n, cnt := range w.loadbalancers.ServiceIndex(c).PerNode[s.Key()] {
		if cnt > 0 {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// R-LB-3 with a surge upgrade (a node pool version update through the GKE API): Cluster
// keeps exactly 25 endpoints, all of them nodes that exist; Local has exactly the nodes that
// run serving pods, before, during (once synced) and after the replacement of every node.
func TestNEGMembershipFollowsSurgeUpgrade(t *testing.T) {
	w := newTestWorld(t)
	vt := catalog.VersionsAt(w.engine.Now())
	reg := vt.Channels[api.ChannelRegular].Valid
	var from, to catalog.Version
	for _, v := range reg {
		if v.Minor == reg[0].Minor {
			if to == (catalog.Version{}) {
				to = v
			} else {
				from = v
			}
		}
	}
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1", InitialClusterVersion: to.String(),
		NetworkConfig: &api.NetworkConfig{EnableL4IlbSubsetting: true},
		NodePools: []*api.NodePool{{Name: "pool-a", InitialNodeCount: 30, Version: from.String(),
			Config: &api.NodeConfig{MachineType: "e2-standard-4"}, UpgradeSettings: &api.UpgradeSettings{MaxSurge: 5}}}}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	c := w.core.Cluster("proj", "us-central1-a", "c1")
	mustCreateDeployment(t, w, c, deployment("web", 8, "1"))
	cluster := mustCreateService(t, w, c, lbService("ilb-cluster", internalLB))
	localSvc := mustCreateService(t, w, c, lbService("ilb-local", internalLB, local))
	advance(w, 2*time.Minute)
	original := map[string]bool{}
	for n := range c.Nodes {
		original[n] = true
	}
	check := func(when string) {
		t.Helper()
		if got := len(cluster.LB.Members); got != loadbalancers.NEGClusterLimit {
			t.Errorf("%s: Cluster policy has %d endpoints, want 25", when, got)
		}
		if got, want := strings.Join(members(localSvc), ","), strings.Join(servingNodes(w, c, localSvc), ","); got != want {
			t.Errorf("%s: Local endpoints %s, want the nodes with serving pods %s", when, got, want)
		}
	}
	check("before the upgrade")
	if n := len(localSvc.LB.Members); n < 2 || n > 8 {
		t.Fatalf("8 pods of 1 CPU run on %d nodes", n)
	}
	op, err = w.gke.UpdateNodePool("proj", "us-central1-a", "c1", "pool-a", &api.UpdateNodePoolRequest{NodeVersion: to.String()})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	maxCluster, samples := 0, 0
	start := w.engine.Now()
	for op.Status != api.OpStatusDone && w.engine.Now().Sub(start) < 4*time.Hour {
		advance(w, 10*time.Second)
		samples++
		maxCluster = max(maxCluster, len(cluster.LB.Members))
		for n := range cluster.LB.Members {
			seen[n] = true
		}
	}
	if op.Status != api.OpStatusDone || op.ErrorCode != 0 {
		t.Fatalf("upgrade not done after %s: %s %s", w.engine.Now().Sub(start), op.Status, op.StatusMessage)
	}
	took := w.engine.Now().Sub(start)
	advance(w, time.Minute)
	check("after the upgrade")
	for _, s := range []*model.Service{cluster, localSvc} {
		for n := range s.LB.Members {
			if original[n] || c.Nodes[n] == nil || c.Nodes[n].Spec.Version != to.String() {
				t.Errorf("%s: endpoint %s is not an upgraded node", s.Name, n)
			}
		}
	}
	if maxCluster > loadbalancers.NEGClusterLimit {
		t.Errorf("Cluster policy reached %d endpoints during the upgrade", maxCluster)
	}
	t.Logf("surge upgrade of 30 nodes (maxSurge 5) took %s; %d distinct nodes were Cluster-policy endpoints over %d samples; Local endpoints after: %d",
		took.Round(time.Second), len(seen), samples, len(localSvc.LB.Members))
}

// R-LB-6 during a rolling replacement of the serving pods (a Deployment template change):
// with Local, a node that loses its last serving pod keeps passing until the unhealthy
// threshold of consecutive failed probes (target pool: 3 x 8 s; GKE's L4 controllers: 2 x 3 s)
// and a node that gains one passes at the next probe (healthy threshold 1); with Cluster every
// node passes throughout.
func TestHealthDuringRollingReplacement(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, "us-central1-a", true, &api.NodePool{Name: "pool-a", InitialNodeCount: 5, Config: &api.NodeConfig{MachineType: "e2-standard-4"}})
	mustCreateDeployment(t, w, c, deployment("web", 3, "1"))
	tpLocal := mustCreateService(t, w, c, lbService("tp-local", local))
	rbsLocal := mustCreateService(t, w, c, lbService("rbs-local", local, annotate(loadbalancers.AnnotationL4RBS, "enabled")))
	tpCluster := mustCreateService(t, w, c, lbService("tp-cluster"))
	advance(w, 2*time.Minute)
	type lbCase struct {
		s                   *model.Service
		interval            time.Duration
		threshold           int
		lostAt, unhealthyAt map[string]time.Time
		gainedAt            map[string]time.Time
		downs, ups          []time.Duration
	}
	cases := []*lbCase{{s: tpLocal, interval: 8 * time.Second, threshold: 3}, {s: rbsLocal, interval: 3 * time.Second, threshold: 2}}
	healthy := func(s *model.Service) map[string]bool {
		out := map[string]bool{}
		for n, h := range s.LB.Health {
			if h.State == loadbalancers.HealthHealthy {
				out[n] = true
			}
		}
		return out
	}
	for _, lc := range cases {
		if got, want := len(healthy(lc.s)), len(servingNodes(w, c, lc.s)); got != want || want == 0 {
			t.Fatalf("%s: %d healthy backends before the rollout, want the %d nodes with serving pods", lc.s.Name, got, want)
		}
		lc.lostAt, lc.unhealthyAt, lc.gainedAt = map[string]time.Time{}, map[string]time.Time{}, map[string]time.Time{}
	}
	d := c.Deployments["default/web"]
	in := kuberender.RenderDeployment(d)
	in.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	if _, err := w.kubeapi.UpdateDeployment(c, "default", "web", in); err != nil {
		t.Fatal(err)
	}
	prevServing := map[string]bool{}
	for _, n := range servingNodes(w, c, tpLocal) {
		prevServing[n] = true
	}
	prevHealthy := map[*model.Service]map[string]bool{tpLocal: healthy(tpLocal), rbsLocal: healthy(rbsLocal)}
	minClusterHealthy := len(c.Nodes)
	for i := 0; i < 300; i++ {
		advance(w, time.Second)
		now := w.engine.Now()
		serving := map[string]bool{}
		for _, n := range servingNodes(w, c, tpLocal) {
			serving[n] = true
		}
		for n := range c.Nodes {
			if prevServing[n] && !serving[n] {
				for _, lc := range cases {
					lc.lostAt[n] = now
				}
			}
			if !prevServing[n] && serving[n] {
				for _, lc := range cases {
					lc.gainedAt[n] = now
				}
			}
		}
		for _, lc := range cases {
			h := healthy(lc.s)
			for n := range c.Nodes {
				switch {
				case prevHealthy[lc.s][n] && !h[n]:
					lc.downs = append(lc.downs, now.Sub(lc.lostAt[n]))
				case !prevHealthy[lc.s][n] && h[n]:
					lc.ups = append(lc.ups, now.Sub(lc.gainedAt[n]))
				}
			}
			prevHealthy[lc.s] = h
		}
		prevServing = serving
		minClusterHealthy = min(minClusterHealthy, len(healthy(tpCluster)))
	}
	for _, lc := range cases {
		if len(lc.downs) == 0 || len(lc.ups) == 0 {
			t.Fatalf("%s: %d nodes became unhealthy and %d healthy during the rollout; the example needs pods to move between nodes", lc.s.Name, len(lc.downs), len(lc.ups))
		}
		lo, hi := time.Duration(lc.threshold-1)*lc.interval, time.Duration(lc.threshold)*lc.interval
		for _, dt := range lc.downs {
			if dt <= lo || dt > hi {
				t.Errorf("%s: a node became unhealthy %s after losing its last serving pod, want within (%s, %s] (R-LB-6: %d x %s)", lc.s.Name, dt, lo, hi, lc.threshold, lc.interval)
			}
		}
		for _, dt := range lc.ups {
			if dt <= 0 || dt > lc.interval {
				t.Errorf("%s: a node became healthy %s after gaining a serving pod, want within (0, %s]", lc.s.Name, dt, lc.interval)
			}
		}
		if got, want := strings.Join(model.SortedKeys(healthy(lc.s)), ","), strings.Join(servingNodes(w, c, lc.s), ","); got != want {
			t.Errorf("%s: healthy %s after the rollout, want the nodes with serving pods %s", lc.s.Name, got, want)
		}
		t.Logf("%s (%d x %s): unhealthy after %v, healthy after %v", lc.s.Name, lc.threshold, lc.interval, lc.downs, lc.ups)
	}
	if minClusterHealthy != len(c.Nodes) {
		t.Errorf("Cluster policy: %d of %d nodes healthy at the worst moment, want all (R-LB-6)", minClusterHealthy, len(c.Nodes))
	}
	if evs, _ := w.engine.Events(engine.EventFilter{Type: "LoadBalancerBackendUnhealthy"}); len(evs) == 0 {
		t.Error("no LoadBalancerBackendUnhealthy event in the log")
	}
}

// R-LB-7: the packet path. Cluster: SNAT to the receiving node's address, possibly to a pod on
// another node; Local: the client address is kept and a pod on the node serves; terminating
// pods are the last resort; a node without any serving pod drops (Local) or the connection is
// rejected when no pod serves at all (Cluster).
func TestPacketPath(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, "us-central1-a", true, &api.NodePool{Name: "pool-a", InitialNodeCount: 4, Config: &api.NodeConfig{MachineType: "e2-standard-4"}})
	mustCreateDeployment(t, w, c, deployment("web", 2, "1", func(d *appsv1.Deployment) {
		g := int64(60)
		d.Spec.Template.Spec.TerminationGracePeriodSeconds = &g
	}))
	clusterSvc := mustCreateService(t, w, c, lbService("web-cluster"))
	localSvc := mustCreateService(t, w, c, lbService("web-local", local))
	ilb := mustCreateService(t, w, c, lbService("web-ilb", internalLB))
	advance(w, 2*time.Minute)
	trace := func(ip string, port int32, client string) *api.PacketTrace {
		t.Helper()
		tr, err := w.loadbalancers.TracePacket(c, loadbalancers.TraceRequest{IP: ip, Port: port, Protocol: "TCP", Client: client, ClientPort: 40000})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	tr := trace(clusterSvc.LB.IP, 80, "198.51.100.7")
	if tr.Result != "DELIVERED" || !tr.SNAT || tr.SourceIPAtPod != tr.Node.IP || tr.Pod.Port != 8080 {
		t.Errorf("Cluster: %s", mustJSON(tr))
	}
	if again := trace(clusterSvc.LB.IP, 80, "198.51.100.7"); mustJSON(again) != mustJSON(tr) {
		t.Errorf("the same packet took two paths")
	}
	tr = trace(localSvc.LB.IP, 80, "198.51.100.7")
	if tr.Result != "DELIVERED" || tr.SNAT || tr.SourceIPAtPod != "198.51.100.7" || !tr.Pod.SameNode || tr.Node.Health != loadbalancers.HealthHealthy {
		t.Errorf("Local: %s", mustJSON(tr))
	}
	if tr := trace(ilb.LB.IP, 80, "198.51.100.7"); tr.Result != "DROPPED" || !strings.Contains(tr.Reason, "internal") {
		t.Errorf("internal LB from the internet: %s", mustJSON(tr))
	}
	if tr := trace(ilb.LB.IP, 80, "10.128.0.9"); tr.Result != "DELIVERED" {
		t.Errorf("internal LB from the VPC: %s", mustJSON(tr))
	}
	if tr := trace(localSvc.LB.IP, 81, ""); tr.Result != "NO_MATCH" {
		t.Errorf("wrong port: %s", mustJSON(tr))
	}
	// Through a node port, on a node with no pod of the Service and on one with a pod.
	np := localSvc.Spec.Ports[0].NodePort
	var empty, busy *model.Node
	for _, name := range core.SortedNodeNames(c) {
		if w.loadbalancers.ServiceIndex(c).PerNode[localSvc.Key()][name] == 0 {
			empty = c.Nodes[name]
		} else {
			busy = c.Nodes[name]
		}
	}
	if tr := trace(empty.InternalIP, np, "10.128.0.9"); tr.Result != "DROPPED" {
		t.Errorf("Local on a node without pods: %s", mustJSON(tr))
	}
	if tr := trace(empty.InternalIP, clusterSvc.Spec.Ports[0].NodePort, "10.128.0.9"); tr.Result != "DELIVERED" || tr.Pod.SameNode || !tr.SNAT {
		t.Errorf("Cluster on a node without pods: %s", mustJSON(tr))
	}
	// The pods terminate (60 s grace): terminating endpoints are the last resort, then nothing.
	if _, err := w.kubeapi.SetScale(c, "default", "web", 0, ""); err != nil {
		t.Fatal(err)
	}
	advance(w, 5*time.Second)
	if tr := trace(busy.InternalIP, np, "10.128.0.9"); tr.Result != "DELIVERED" || !tr.Pod.Terminating {
		t.Errorf("Local while the node's pod terminates: %s", mustJSON(tr))
	}
	advance(w, 2*time.Minute)
	if tr := trace(busy.InternalIP, clusterSvc.Spec.Ports[0].NodePort, "10.128.0.9"); tr.Result != "REJECTED" {
		t.Errorf("Cluster without any pod: %s", mustJSON(tr))
	}
}

// The Service API: defaults, allocation (cluster IP from the services range, node ports from
// 30000-32767, healthCheckNodePort for Local), the API server's errors, and deletion that
// releases everything once the load balancer is gone.
func TestServiceAPI(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, "us-central1-a", false, &api.NodePool{Name: "pool-a", InitialNodeCount: 2})
	for _, tc := range []struct {
		mutate func(*corev1.Service)
		want   string
	}{
		{func(s *corev1.Service) { s.Name = "1web" }, `metadata.name: Invalid value: "1web": a DNS-1035 label`},
		{func(s *corev1.Service) { s.Spec.Ports = nil }, "spec.ports: Required value"},
		{func(s *corev1.Service) { s.Spec.Ports[0].Port = 70000 }, "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive"},
		{func(s *corev1.Service) { s.Spec.Ports[0].NodePort = 40000 }, "spec.ports[0].nodePort: Invalid value: 40000: provided port is not in the valid range. The range of valid ports is 30000-32767"},
		{func(s *corev1.Service) { s.Spec.Ports[0].Protocol = "HTTP" }, `spec.ports[0].protocol: Unsupported value: "HTTP"`},
		{func(s *corev1.Service) { s.Spec.Type = "Balancer" }, `spec.type: Unsupported value: "Balancer"`},
		{func(s *corev1.Service) { s.Spec.HealthCheckNodePort = 31000 }, "spec.healthCheckNodePort: Invalid value: 31000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"},
		{func(s *corev1.Service) { s.Spec.Type = "ClusterIP"; local(s) }, `spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`},
		{func(s *corev1.Service) { s.Spec.ClusterIP = "10.0.0.1" }, "the provided IP (10.0.0.1) is not in the valid range. The range of valid IPs is 34.118.224.0/20"},
		{func(s *corev1.Service) {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: 443})
		}, "spec.ports[1].name: Required value"},
	} {
		_, err := w.loadbalancers.CreateService(c, "default", lbService("web", tc.mutate))
		if e, ok := model.AsError(err); !ok || e.HTTPCode != 422 || !strings.Contains(e.Message, tc.want) {
			t.Errorf("got %v, want 422 with %q", err, tc.want)
		}
	}
	s := mustCreateService(t, w, c, lbService("web", local, func(s *corev1.Service) {
		s.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 443, NodePort: 30443}}
	}))
	_, services, _ := net.ParseCIDR(c.ServicesIPv4CIDR)
	if ip := net.ParseIP(s.Spec.ClusterIP); !services.Contains(ip) || s.Spec.ClusterIP == "34.118.224.1" || s.Spec.ClusterIP == "34.118.224.10" {
		t.Errorf("cluster IP %s", s.Spec.ClusterIP)
	}
	p0 := s.Spec.Ports[0].NodePort
	if p0 < 30000 || p0 > 32767 || s.Spec.Ports[1].NodePort != 30443 || s.Spec.HealthCheckNodePort < 30000 || s.Spec.Ports[0].TargetPort.IntVal != 80 {
		t.Errorf("ports %+v, healthCheckNodePort %d", s.Spec.Ports, s.Spec.HealthCheckNodePort)
	}
	_, err := w.loadbalancers.CreateService(c, "default", lbService("other", func(o *corev1.Service) { o.Spec.Ports[0].NodePort = 30443 }))
	if e, ok := model.AsError(err); !ok || !strings.Contains(e.Message, "spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated") {
		t.Errorf("duplicate nodePort: %v", err)
	}
	// An update without node ports keeps them; switching to Cluster drops the health check port.
	in := w.loadbalancers.RenderService(c, s)
	for i := range in.Spec.Ports {
		in.Spec.Ports[i].NodePort = 0
	}
	in.Spec.HealthCheckNodePort = 0
	in.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	if _, err := w.loadbalancers.UpdateService(c, "default", "web", in); err != nil {
		t.Fatal(err)
	}
	if s.Spec.Ports[0].NodePort != p0 || s.Spec.Ports[1].NodePort != 30443 || s.Spec.HealthCheckNodePort != 0 {
		t.Errorf("after update: ports %+v, healthCheckNodePort %d", s.Spec.Ports, s.Spec.HealthCheckNodePort)
	}
	advance(w, 2*time.Minute)
	ip := s.LB.IP
	// To ClusterIP and back, as kubectl apply would send it (the old fields still set): the
	// node ports and the traffic policy go with the type, the load balancer is deleted; back
	// to LoadBalancer, a new one at the same address (stable per Service).
	in = w.loadbalancers.RenderService(c, s)
	in.Spec.Type = corev1.ServiceTypeClusterIP
	if _, err := w.loadbalancers.UpdateService(c, "default", "web", in); err != nil {
		t.Fatal(err)
	}
	if s.LB != nil || s.Spec.Ports[0].NodePort != 0 || s.Spec.ExternalTrafficPolicy != "" {
		t.Errorf("as ClusterIP: load balancer %v, ports %+v, policy %q", s.LB, s.Spec.Ports, s.Spec.ExternalTrafficPolicy)
	}
	in = w.loadbalancers.RenderService(c, s)
	in.Spec.Type = corev1.ServiceTypeLoadBalancer
	if _, err := w.loadbalancers.UpdateService(c, "default", "web", in); err != nil {
		t.Fatal(err)
	}
	advance(w, 2*time.Minute)
	if s.LB == nil || s.LB.IP != ip || s.LB.State != loadbalancers.LBReady {
		t.Fatalf("back to LoadBalancer: %+v (address was %s)", s.LB, ip)
	}
	// Deletion: the finalizer holds the Service until the load balancer is gone.
	out, err := w.loadbalancers.DeleteService(c, "default", "web")
	if err != nil || out.DeletionTimestamp == nil {
		t.Fatalf("delete: %v %+v", err, out)
	}
	if _, err := w.loadbalancers.GetService(c, "default", "web"); err != nil {
		t.Fatalf("service gone before its load balancer: %v", err)
	}
	// An update while it is held by the finalizer does not strand it.
	in = w.loadbalancers.RenderService(c, s)
	in.Spec.Type = corev1.ServiceTypeClusterIP
	if _, err := w.loadbalancers.UpdateService(c, "default", "web", in); err != nil {
		t.Fatal(err)
	}
	advance(w, loadbalancers.LBDeleteBase+loadbalancers.LBDeleteSpread+time.Second)
	if _, err := w.loadbalancers.GetService(c, "default", "web"); err == nil {
		t.Fatal("service still there after its load balancer was deleted")
	}
	// Everything is released: the node port and the address can be had again.
	again := mustCreateService(t, w, c, lbService("web2", func(o *corev1.Service) { o.Spec.Ports[0].NodePort = 30443 }))
	if again.Spec.Ports[0].NodePort != 30443 {
		t.Errorf("node port 30443 not released")
	}
	if w.loadbalancers.AllocateLBIP(c, again, false) == "" || ip == "" {
		t.Errorf("no address")
	}
	// Mixed protocols on a target pool: GKE cannot build it and says so; one protocol fixes it.
	mixed := mustCreateService(t, w, c, lbService("mixed", func(o *corev1.Service) {
		o.Spec.Ports = []corev1.ServicePort{{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}, {Name: "dns-tcp", Port: 53}}
	}))
	if evs, _ := w.engine.Events(engine.EventFilter{Type: "SyncLoadBalancerFailed"}); mixed.LB.Failed == "" || len(evs) != 1 {
		t.Errorf("mixed protocols on a target pool: %+v, events %s", mixed.LB, mustJSON(evs))
	}
	in = w.loadbalancers.RenderService(c, mixed)
	in.Spec.Ports = in.Spec.Ports[1:]
	if _, err := w.loadbalancers.UpdateService(c, "default", "mixed", in); err != nil {
		t.Fatal(err)
	}
	advance(w, 2*time.Minute)
	if mixed.LB.Failed != "" || mixed.LB.State != loadbalancers.LBReady {
		t.Errorf("after fixing the ports: %+v", mixed.LB)
	}
	if _, err := w.loadbalancers.DeleteService(c, "default", "mixed"); err != nil {
		t.Fatal(err)
	}
	advance(w, time.Minute)
	if list := w.loadbalancers.ListServices(c, model.ListOptions{}); len(list.Items) != 3 {
		t.Errorf("%d services, want kubernetes, kube-dns and web2", len(list.Items))
	}
	// The state survives a restore with its indexes rebuilt.
	w2 := restoredCopy(t, w)
	c2 := w2.core.Cluster("proj", "us-central1-a", "c1")
	if _, err := w2.loadbalancers.CreateService(c2, "default", lbService("web3", func(o *corev1.Service) { o.Spec.Ports[0].NodePort = 30443 })); err == nil {
		t.Error("node port 30443 free after a restore")
	}
}

// R-LB-4: more than 250 nodes without GKE subsetting: a warning on internal Services; GKE
// subsetting needs the HttpLoadBalancing add-on.
func TestInternalLBNodeLimitAndSubsettingPrereqs(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, "us-central1-a", false, &api.NodePool{Name: "pool-a", InitialNodeCount: 251})
	mustCreateService(t, w, c, lbService("ilb", internalLB))
	mustCreateService(t, w, c, lbService("netlb"))
	advance(w, 2*time.Minute)
	evs, _ := w.engine.Events(engine.EventFilter{Type: "LoadBalancerNodeLimitWarning"})
	if len(evs) != 1 || !strings.Contains(evs[0].Message, "service default/ilb: the cluster has 251 nodes") || !strings.Contains(evs[0].Message, "traffic may be uneven or lost") {
		t.Fatalf("warnings: %s", mustJSON(evs))
	}
	st, _ := w.loadbalancers.GetLoadBalancer(c, "default", "ilb")
	if len(st.Warnings) != 1 || st.BackendCount != 251 {
		t.Errorf("status: %d backends, warnings %v", st.BackendCount, st.Warnings)
	}
	c.Extra = api.Extra{"addonsConfig": json.RawMessage(`{"httpLoadBalancing":{"disabled":true}}`)}
	_, err := w.gke.UpdateCluster("proj", "us-central1-a", "c1", &api.UpdateClusterRequest{Update: &api.ClusterUpdate{
		DesiredL4ilbSubsettingConfig: &api.ILBSubsettingConfig{Enabled: true}}})
	if e, ok := model.AsError(err); !ok || !strings.Contains(e.Message, "HttpLoadBalancing") || !strings.Contains(e.Message, "#r-lb-4") {
		t.Errorf("enabling subsetting without HttpLoadBalancing: %v", err)
	}
}

// restoredCopy is w saved as a store saves it (JSON) and restored.
func restoredCopy(t *testing.T, w *World) *World {
	t.Helper()
	b, err := json.Marshal(w.State())
	if err != nil {
		t.Fatal(err)
	}
	var st model.State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	w2, err := Restore(&st)
	if err != nil {
		t.Fatal(err)
	}
	return w2
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// R-LB-1: either annotation set to "Internal" gives an internal load balancer (an address in
// the cluster's subnet, an INTERNAL forwarding rule); no annotation, or another value, gives an
// external one (a public address, an EXTERNAL forwarding rule). Changing the annotation
// replaces the load balancer with one of the other scheme and a new address.
func TestLoadBalancerTypeAnnotations(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, "us-central1-a", false, &api.NodePool{Name: "pool-a", InitialNodeCount: 2})
	_, nodeNet, _ := net.ParseCIDR(loadbalancers.UintToIP(c.NodeIPBase) + "/16")
	_, public, _ := net.ParseCIDR("35.184.0.0/13")
	cases := []struct {
		name     string
		anns     []func(*corev1.Service)
		internal bool
		kind     string
	}{
		{"none", nil, false, loadbalancers.LBExternalTargetPool},
		{"networking", []func(*corev1.Service){annotate(loadbalancers.AnnotationLBType, "Internal")}, true, loadbalancers.LBInternalIG},
		{"legacy", []func(*corev1.Service){annotate(loadbalancers.AnnotationLBTypeLegacy, "Internal")}, true, loadbalancers.LBInternalIG},
		{"external-value", []func(*corev1.Service){annotate(loadbalancers.AnnotationLBType, "External")}, false, loadbalancers.LBExternalTargetPool},
	}
	svcs := map[string]*model.Service{}
	for _, tc := range cases {
		svcs[tc.name] = mustCreateService(t, w, c, lbService(tc.name, tc.anns...))
	}
	advance(w, 2*time.Minute)
	check := func(name string, internal bool, kind string) {
		t.Helper()
		lb := svcs[name].LB
		if lb == nil || lb.State != loadbalancers.LBReady || lb.Internal != internal || lb.Kind != kind {
			t.Fatalf("%s: load balancer %+v, want a ready %s (internal %v)", name, lb, kind, internal)
		}
		ip, inRange, scheme := net.ParseIP(lb.IP), public, "EXTERNAL"
		if internal {
			inRange, scheme = nodeNet, "INTERNAL"
		}
		if !inRange.Contains(ip) {
			t.Fatalf("%s: address %s outside %s", name, lb.IP, inRange)
		}
		found := false
		for _, fr := range w.compute.ForwardingRules("proj", "us-central1", testLinks) {
			if fr.IPAddress == lb.IP {
				found = true
				if fr.LoadBalancingScheme != scheme {
					t.Fatalf("%s: forwarding rule %s has scheme %s, want %s", name, fr.Name, fr.LoadBalancingScheme, scheme)
				}
			}
		}
		if !found {
			t.Fatalf("%s: no forwarding rule for %s", name, lb.IP)
		}
	}
	for _, tc := range cases {
		check(tc.name, tc.internal, tc.kind)
	}

	for _, ch := range []struct {
		name     string
		anns     map[string]string
		internal bool
		kind     string
	}{
		{"networking", nil, false, loadbalancers.LBExternalTargetPool},
		{"none", map[string]string{loadbalancers.AnnotationLBTypeLegacy: "Internal"}, true, loadbalancers.LBInternalIG},
	} {
		before := svcs[ch.name].LB.IP
		in := w.loadbalancers.RenderService(c, svcs[ch.name])
		in.Annotations = ch.anns
		if _, err := w.loadbalancers.UpdateService(c, "default", ch.name, in); err != nil {
			t.Fatal(err)
		}
		advance(w, 2*time.Minute)
		check(ch.name, ch.internal, ch.kind)
		if svcs[ch.name].LB.IP == before {
			t.Fatalf("%s: kept address %s across a scheme change", ch.name, before)
		}
	}
	replaced := 0
	for _, e := range mustEvents(w, "DeletedLoadBalancer") {
		if strings.Contains(e.Message, "load-balancer-type annotation changed") {
			replaced++
		}
	}
	if replaced != 2 {
		t.Fatalf("%d load balancers replaced for an annotation change, want 2", replaced)
	}
}
