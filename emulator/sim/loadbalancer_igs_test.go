package sim

import (
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// R-LB-5's second half: load-balanced instance groups created outside GKE block GKE's
// instance-group load balancers.

const igZone = "us-central1-a"

// poolMIG is the managed instance group of a pool in igZone.
func poolMIG(c *model.Cluster, pool string) string { return c.Pool(pool).Group(igZone).Name }

// insertUserBS creates a backend service outside GKE with instance groups of igZone as backends.
func insertUserBS(w *World, name, scheme string, groups ...string) (*api.ComputeOperation, error) {
	bs := &api.BackendService{Name: name, LoadBalancingScheme: scheme, Protocol: "TCP", HealthChecks: []string{"projects/proj/regions/us-central1/healthChecks/" + name + "-hc"}}
	for _, g := range groups {
		bs.Backends = append(bs.Backends, &api.Backend{Group: "projects/proj/zones/" + igZone + "/instanceGroups/" + g})
	}
	return w.compute.InsertBackendService("proj", "us-central1", bs, testLinks)
}

func mustInsertUserBS(t *testing.T, w *World, name, scheme string, groups ...string) {
	t.Helper()
	op, err := insertUserBS(w, name, scheme, groups...)
	if err != nil {
		t.Fatalf("insert backend service %s: %v", name, err)
	}
	if op.Status != "DONE" || op.OperationType != "insert" || !strings.HasSuffix(op.TargetLink, "/projects/proj/regions/us-central1/backendServices/"+name) ||
		!strings.HasSuffix(op.SelfLink, "/projects/proj/regions/us-central1/operations/"+op.Name) {
		t.Fatalf("insert operation: %s", mustJSON(op))
	}
}

// mustCustomGroup creates an unmanaged instance group outside GKE holding nodes.
func mustCustomGroup(t *testing.T, w *World, name string, nodes ...string) {
	t.Helper()
	if _, err := w.compute.InsertInstanceGroup("proj", igZone, &api.InstanceGroup{Name: name}, testLinks); err != nil {
		t.Fatalf("insert instance group %s: %v", name, err)
	}
	if len(nodes) == 0 {
		return
	}
	if _, err := w.compute.AddInstances("proj", igZone, name, instanceRefs(nodes...), testLinks); err != nil {
		t.Fatalf("addInstances %s: %v", name, err)
	}
}

func instanceRefs(nodes ...string) []*api.InstanceReference {
	var out []*api.InstanceReference
	for _, n := range nodes {
		out = append(out, &api.InstanceReference{Instance: "https://compute.googleapis.com/compute/v1/projects/proj/zones/" + igZone + "/instances/" + n})
	}
	return out
}

func syncFailures(w *World) []*api.Event {
	evs, _ := w.engine.Events(engine.EventFilter{Type: "SyncLoadBalancerFailed"})
	return evs
}

func ingressIP(w *World, c *model.Cluster, s *model.Service) string {
	if in := w.loadbalancers.RenderService(c, s).Status.LoadBalancer.Ingress; len(in) == 1 {
		return in[0].IP
	}
	return ""
}

func wantComputeError(t *testing.T, err error, code int, reason string, fragments ...string) {
	t.Helper()
	e, ok := model.AsError(err)
	if !ok || e.HTTPCode != code || e.Reason != reason {
		t.Fatalf("error %v, want HTTP %d %s", err, code, reason)
	}
	for _, f := range fragments {
		if !strings.Contains(e.Message, f) {
			t.Errorf("message %q does not contain %q", e.Message, f)
		}
	}
}

// R-LB-5: with a backend service created outside GKE on a node pool's managed instance group,
// the kinds of load balancer GKE builds on its own instance groups fail (internal without GKE
// subsetting, backend service-based external); NEG-based internal and target pool-based
// external ones are built as usual.
func TestUserBackendServiceOnPoolMIGBlocksIGKindsPerRLB5(t *testing.T) {
	for _, tc := range []struct {
		name       string
		subsetting bool
		mutate     []func(*corev1.Service)
		kind       string
		blocked    bool
	}{
		{"internal, GKE subsetting off", false, []func(*corev1.Service){internalLB}, loadbalancers.LBInternalIG, true},
		{"external, l4-rbs", false, []func(*corev1.Service){annotate(loadbalancers.AnnotationL4RBS, "enabled")}, loadbalancers.LBExternalRBS, true},
		{"internal, GKE subsetting on", true, []func(*corev1.Service){internalLB}, loadbalancers.LBInternalNEG, false},
		{"external, target pool", false, nil, loadbalancers.LBExternalTargetPool, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newTestWorld(t)
			c := lbTestCluster(t, w, igZone, tc.subsetting, &api.NodePool{Name: "pool-a", InitialNodeCount: 3})
			mustInsertUserBS(t, w, "user-bs", "EXTERNAL", poolMIG(c, "pool-a"))
			s := mustCreateService(t, w, c, lbService("web", tc.mutate...))
			advance(w, 2*time.Minute)
			if s.LB.Kind != tc.kind {
				t.Fatalf("kind %s, want %s", s.LB.Kind, tc.kind)
			}
			evs := syncFailures(w)
			if !tc.blocked {
				if len(evs) != 0 || ingressIP(w, c, s) == "" || len(s.LB.Members) != 3 || s.LB.Blocked != nil {
					t.Fatalf("not built: IP %q, %d backends, events %s", ingressIP(w, c, s), len(s.LB.Members), mustJSON(evs))
				}
				return
			}
			// Attempts at 0, 5, 15, 35 and 75 s in two minutes; the next at 155 s.
			if len(evs) != 5 || ingressIP(w, c, s) != "" || s.LB.State != loadbalancers.LBProvisioning || s.LB.Blocked.Attempts != 5 {
				t.Fatalf("after 2 min: IP %q, state %s, %d failure events, block %+v", ingressIP(w, c, s), s.LB.State, len(evs), s.LB.Blocked)
			}
			st, _ := w.loadbalancers.GetLoadBalancer(c, "default", "web")
			if st.State != "FAILED" || st.Blocked == nil || st.Blocked.BackendService != "projects/proj/regions/us-central1/backendServices/user-bs" ||
				st.Blocked.InstanceGroup != "projects/proj/zones/"+igZone+"/instanceGroups/"+poolMIG(c, "pool-a") || st.IP != "" {
				t.Errorf("status: %s", mustJSON(st))
			}
		})
	}
}

// R-LB-5, the documentation's first case: a backend service created outside GKE on a node
// pool's managed instance group keeps a new internal Service (GKE subsetting off) without an
// address, with a Warning each time GKE tries (5 s doubling to 5 min: 7 tries in 10 minutes);
// once the backend service is deleted, GKE's next try (615 s after the Service) builds it.
func TestUserBackendServiceBlocksInternalLBUntilDeleted(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, igZone, false, &api.NodePool{Name: "pool-a", InitialNodeCount: 3})
	mig := poolMIG(c, "pool-a")
	mustInsertUserBS(t, w, "user-bs", "INTERNAL", mig)
	if bs, err := w.compute.BackendService("proj", "us-central1", "user-bs", testLinks); err != nil || len(bs.Backends) != 1 ||
		bs.Backends[0].Group != "http://gkesim/compute/v1/projects/proj/zones/"+igZone+"/instanceGroups/"+mig || bs.Backends[0].BalancingMode != "CONNECTION" {
		t.Fatalf("backend service: %v %s", err, mustJSON(bs))
	}

	created := w.engine.Now()
	ilb := mustCreateService(t, w, c, lbService("ilb", internalLB))
	if ilb.LB.Failed == "" || ilb.LB.Blocked == nil || len(syncFailures(w)) != 1 {
		t.Fatalf("GKE's first attempt did not fail at once: %+v", ilb.LB)
	}
	advance(w, 10*time.Minute)
	evs := syncFailures(w)
	if len(evs) != 7 {
		t.Fatalf("%d SyncLoadBalancerFailed events in 10 minutes, want 7 (at 0, 5, 15, 35, 75, 155, 315 s): %s", len(evs), mustJSON(evs))
	}
	for i, want := range []time.Duration{0, 5, 15, 35, 75, 155, 315} {
		if at, _ := time.Parse(time.RFC3339, evs[i].Time); at.Sub(created) != want*time.Second {
			t.Errorf("attempt %d at %s, want %s after the Service", i+1, at.Sub(created), want*time.Second)
		}
	}
	for _, f := range []string{"service default/ilb: ", "instanceInMultipleLoadBalancedIgs", "backend service projects/proj/regions/us-central1/backendServices/user-bs",
		"instanceGroups/" + mig, "node pool pool-a", "#r-lb-5", "Delete backend service user-bs", "enableL4ilbSubsetting", "GCE_VM_IP NEGs", "tries again in 5m0s (attempt 7)"} {
		if !strings.Contains(evs[6].Message, f) {
			t.Errorf("event %q does not say %q", evs[6].Message, f)
		}
	}
	if ip := ingressIP(w, c, ilb); ip != "" || ilb.LB.State != loadbalancers.LBProvisioning || len(ilb.LB.Members) != 0 {
		t.Fatalf("after 10 min: IP %q, state %s, %d backends", ip, ilb.LB.State, len(ilb.LB.Members))
	}
	st, _ := w.loadbalancers.GetLoadBalancer(c, "default", "ilb")
	if st.State != "FAILED" || st.Blocked.Attempts != 7 || st.Blocked.NextRetry != created.Add(615*time.Second).Format(time.RFC3339) ||
		len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "user-bs") || !strings.HasPrefix(st.Blocked.Instance, "projects/proj/zones/"+igZone+"/instances/gke-c1-pool-a-") {
		t.Errorf("status: %s", mustJSON(st))
	}
	tr, err := w.loadbalancers.TracePacket(c, loadbalancers.TraceRequest{IP: ilb.LB.IP, Port: 80})
	if err != nil || tr.Result != "DROPPED" || !strings.Contains(tr.Reason, "GKE could not build") || !strings.Contains(tr.Reason, "user-bs") {
		t.Errorf("trace: %v %s", err, mustJSON(tr))
	}
	if len(w.compute.ForwardingRules("proj", "us-central1", testLinks)) != 0 {
		t.Errorf("a forwarding rule for a load balancer GKE could not build")
	}

	// The user deletes the backend service at 600 s; GKE does not watch Compute Engine: its
	// next try, at 615 s, builds the load balancer.
	if op, err := w.compute.DeleteBackendService("proj", "us-central1", "user-bs", testLinks); err != nil || op.OperationType != "delete" || op.Status != "DONE" {
		t.Fatalf("delete: %v %s", err, mustJSON(op))
	}
	deleted := w.engine.Now()
	advance(w, 14*time.Second)
	if ev, _ := w.engine.Events(engine.EventFilter{Type: "EnsuringLoadBalancer", Since: deleted}); len(ev) != 0 {
		t.Fatalf("GKE retried before its backoff: %s", mustJSON(ev))
	}
	advance(w, loadbalancers.LBRetryMax+loadbalancers.LBProvisionBase+loadbalancers.LBProvisionSpread)
	ens, _ := w.engine.Events(engine.EventFilter{Type: "EnsuringLoadBalancer", Since: deleted})
	if at, _ := time.Parse(time.RFC3339, ens[0].Time); len(ens) != 1 || at.Sub(created) != 615*time.Second || !strings.Contains(ens[0].Message, "attempt 8") {
		t.Errorf("retry: %s", mustJSON(ens))
	}
	if ip := ingressIP(w, c, ilb); ip == "" || ip != ilb.LB.IP || ilb.LB.Blocked != nil || ilb.LB.Failed != "" || len(ilb.LB.Members) != 3 {
		t.Fatalf("after the delete: IP %q, %+v", ip, ilb.LB)
	}
	if took := ilb.LB.ReadyTime.Sub(deleted); took > 15*time.Second+loadbalancers.LBProvisionBase+loadbalancers.LBProvisionSpread {
		t.Errorf("ready %s after the delete, want at most %s", took, 15*time.Second+loadbalancers.LBProvisionBase+loadbalancers.LBProvisionSpread)
	}
	if len(syncFailures(w)) != 7 {
		t.Errorf("%d failures, want no more than the 7", len(syncFailures(w)))
	}
	// GKE's group now holds every node (R-LB-5: one load-balanced group per VM).
	inst, err := w.compute.InstanceGroupInstances("proj", igZone, loadbalancers.GKEInstanceGroupName(c), testLinks)
	if err != nil || len(inst.Items) != 3 {
		t.Errorf("GKE's group: %v %s", err, mustJSON(inst))
	}
}

// R-LB-5, the documentation's second case: a custom unmanaged instance group holding 2 of the
// cluster's nodes, behind a backend service created outside GKE, blocks a backend
// service-based external Service (l4-rbs); a target pool-based one is built. Once the nodes
// leave the group, GKE's next try (at 155 s) builds it.
func TestCustomUnmanagedGroupBlocksRBSNetLB(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, igZone, false, &api.NodePool{Name: "pool-a", InitialNodeCount: 3})
	nodes := core.SortedNodeNames(c)
	mustCustomGroup(t, w, "custom", nodes[0], nodes[1])
	mustInsertUserBS(t, w, "user-netlb", "EXTERNAL", "custom")
	created := w.engine.Now()
	rbs := mustCreateService(t, w, c, lbService("rbs", annotate(loadbalancers.AnnotationL4RBS, "enabled")))
	tp := mustCreateService(t, w, c, lbService("tp"))
	advance(w, 2*time.Minute)

	if ingressIP(w, c, tp) == "" || len(tp.LB.Members) != 3 {
		t.Errorf("target pool: IP %q, %d instances", ingressIP(w, c, tp), len(tp.LB.Members))
	}
	evs := syncFailures(w)
	if len(evs) != 5 || ingressIP(w, c, rbs) != "" {
		t.Fatalf("rbs after 2 min: IP %q, events %s", ingressIP(w, c, rbs), mustJSON(evs))
	}
	for _, f := range []string{"service default/rbs: ", "instances/" + nodes[0], "instance group projects/proj/zones/" + igZone + "/instanceGroups/custom (an unmanaged instance group created outside GKE)",
		"backendServices/user-netlb", "remove instance group custom from its backends", "without cloud.google.com/l4-rbs"} {
		if !strings.Contains(evs[4].Message, f) {
			t.Errorf("event %q does not say %q", evs[4].Message, f)
		}
	}
	if inst, err := w.compute.InstanceGroupInstances("proj", igZone, "custom", testLinks); err != nil || len(inst.Items) != 2 || inst.Items[0].Status != "RUNNING" {
		t.Errorf("custom group: %v %s", err, mustJSON(inst))
	}

	// Taking the nodes out of the group (still a backend, now empty) is enough.
	op, err := w.compute.RemoveInstances("proj", igZone, "custom", instanceRefs(nodes[0], nodes[1]), testLinks)
	if err != nil || op.OperationType != "compute.instanceGroups.removeInstances" || !strings.HasSuffix(op.Zone, "/zones/"+igZone) {
		t.Fatalf("removeInstances: %v %s", err, mustJSON(op))
	}
	removed := w.engine.Now()
	advance(w, loadbalancers.LBRetryMax+loadbalancers.LBProvisionBase+loadbalancers.LBProvisionSpread)
	ens, _ := w.engine.Events(engine.EventFilter{Type: "EnsuringLoadBalancer", Since: removed})
	if at, _ := time.Parse(time.RFC3339, ens[0].Time); len(ens) != 1 || at.Sub(created) != 155*time.Second {
		t.Errorf("retry: %s", mustJSON(ens))
	}
	if ingressIP(w, c, rbs) == "" || len(rbs.LB.Members) != 3 || len(syncFailures(w)) != 5 {
		t.Errorf("rbs after the removal: IP %q, %d members, %d failures", ingressIP(w, c, rbs), len(rbs.LB.Members), len(syncFailures(w)))
	}
}

// R-LB-5 as Compute enforces it on users: once GKE's instance groups are load-balanced (an
// internal Service without GKE subsetting), a backend service on a node pool's managed group,
// or on a custom group holding cluster nodes, is refused with a 400 naming the VM and both
// groups; so is adding a node to a custom group already behind a backend service.
func TestAttachingNodesInGKEGroupsIsRefused(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, igZone, false, &api.NodePool{Name: "pool-a", InitialNodeCount: 3})
	ilb := mustCreateService(t, w, c, lbService("ilb", internalLB))
	advance(w, 2*time.Minute)
	if ingressIP(w, c, ilb) == "" {
		t.Fatal("the internal load balancer was not built")
	}
	nodes := core.SortedNodeNames(c)
	mig := poolMIG(c, "pool-a")
	gkeGroup := "projects/proj/zones/" + igZone + "/instanceGroups/" + loadbalancers.GKEInstanceGroupName(c)
	gkeBS := "projects/proj/regions/us-central1/backendServices/" + w.loadbalancers.LBNamesOf(c, ilb).BackendService

	_, err := insertUserBS(w, "on-mig", "INTERNAL", mig)
	wantComputeError(t, err, http.StatusBadRequest, "instanceInMultipleLoadBalancedIgs",
		"Validation failed for instance 'projects/proj/zones/"+igZone+"/instances/"+nodes[0]+"': instance may belong to at most one load-balanced instance group.",
		"'"+gkeGroup+"' (GKE's shared instance group of cluster c1)", "'"+gkeBS+"'", "instance group 'projects/proj/zones/"+igZone+"/instanceGroups/"+mig+"'", "#r-lb-5")

	mustCustomGroup(t, w, "custom", nodes[1], nodes[2]) // not load-balanced yet: allowed
	_, err = insertUserBS(w, "on-custom", "EXTERNAL", "custom")
	wantComputeError(t, err, http.StatusBadRequest, "instanceInMultipleLoadBalancedIgs", "instances/"+nodes[1]+"'", gkeGroup, "instanceGroups/custom'")

	mustCustomGroup(t, w, "empty")
	mustInsertUserBS(t, w, "on-empty", "EXTERNAL", "empty") // nothing in it: allowed
	_, err = w.compute.AddInstances("proj", igZone, "empty", instanceRefs(nodes[0]), testLinks)
	wantComputeError(t, err, http.StatusBadRequest, "instanceInMultipleLoadBalancedIgs", "instances/"+nodes[0]+"'", gkeGroup, "instanceGroups/empty'")

	bss := w.compute.BackendServices("proj", "us-central1", testLinks)
	if len(bss) != 2 || bss[1].Name != "on-empty" {
		t.Errorf("backend services: %s", mustJSON(bss))
	}
	if len(syncFailures(w)) != 0 || len(ilb.LB.Members) != 3 {
		t.Errorf("GKE's load balancer was disturbed: %d members, events %s", len(ilb.LB.Members), mustJSON(syncFailures(w)))
	}
}

// R-LB-5 on a load balancer GKE has built: nodes of a new node pool whose managed group a user
// put behind a backend service (while it was empty) cannot join GKE's instance group. GKE keeps
// the load balancer, its address and its backends, warns, and retries; once the backend
// service is deleted the new nodes join.
func TestBuiltLBKeepsBackendsWhenNewNodesAreHeld(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, igZone, false, &api.NodePool{Name: "pool-a", InitialNodeCount: 3})
	ilb := mustCreateService(t, w, c, lbService("ilb", internalLB))
	advance(w, 2*time.Minute)
	ip := ingressIP(w, c, ilb)
	op, err := w.gke.CreateNodePool("proj", igZone, "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{Name: "pool-b", InitialNodeCount: 2}})
	if err != nil {
		t.Fatal(err)
	}
	mustInsertUserBS(t, w, "user-bs", "INTERNAL", poolMIG(c, "pool-b"))
	runOp(t, w, op, time.Hour)
	advance(w, time.Minute)

	if ingressIP(w, c, ilb) != ip || ilb.LB.State != loadbalancers.LBReady || len(ilb.LB.Members) != 3 || ilb.LB.Blocked == nil {
		t.Fatalf("while held: IP %q (was %s), state %s, %d members, block %+v", ingressIP(w, c, ilb), ip, ilb.LB.State, len(ilb.LB.Members), ilb.LB.Blocked)
	}
	for node := range ilb.LB.Members {
		if c.Nodes[node].Pool != "pool-a" {
			t.Errorf("member %s of %s", node, c.Nodes[node].Pool)
		}
	}
	evs := syncFailures(w)
	if len(evs) == 0 || !strings.Contains(evs[0].Message, "node pool pool-b") {
		t.Fatalf("events: %s", mustJSON(evs))
	}
	st, _ := w.loadbalancers.GetLoadBalancer(c, "default", "ilb")
	if st.State != "READY" || st.IP != ip || st.BackendCount != 3 || st.Blocked == nil || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "keeps its backends") {
		t.Errorf("status: %s", mustJSON(st))
	}
	tr, _ := w.loadbalancers.TracePacket(c, loadbalancers.TraceRequest{IP: ip, Port: 80, Client: "10.128.0.9"})
	if !strings.Contains(strings.Join(tr.Hops, "\n"), "a VM may be in one load-balanced instance group only") {
		t.Errorf("trace hops: %s", mustJSON(tr.Hops))
	}

	if _, err := w.compute.DeleteBackendService("proj", "us-central1", "user-bs", testLinks); err != nil {
		t.Fatal(err)
	}
	advance(w, loadbalancers.LBRetryMax+time.Minute)
	if len(ilb.LB.Members) != 5 || ilb.LB.Blocked != nil || ingressIP(w, c, ilb) != ip {
		t.Errorf("after the delete: %d members, block %+v", len(ilb.LB.Members), ilb.LB.Blocked)
	}
	if ok, _ := w.engine.Events(engine.EventFilter{Type: "EnsuredLoadBalancer", Since: w.engine.Now().Add(-loadbalancers.LBRetryMax - time.Minute)}); len(ok) != 1 || !strings.Contains(ok[0].Message, "no node is in a load-balanced instance group created outside GKE any more") {
		t.Errorf("recovery events: %s", mustJSON(ok))
	}
}

// The Compute API's checks on writes, as Compute Engine words them.
func TestComputeUserWritesValidation(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, igZone, false, &api.NodePool{Name: "pool-a", InitialNodeCount: 2})
	ilb := mustCreateService(t, w, c, lbService("ilb", internalLB))
	advance(w, 2*time.Minute)
	gkeBS := w.loadbalancers.LBNamesOf(c, ilb).BackendService
	node := core.SortedNodeNames(c)[0]
	mig := poolMIG(c, "pool-a")
	mustCustomGroup(t, w, "custom")
	mustInsertUserBS(t, w, "taken", "EXTERNAL", "custom")
	bs := func(mut func(*api.BackendService)) func() error {
		return func() error {
			in := &api.BackendService{Name: "bs", LoadBalancingScheme: "INTERNAL"}
			mut(in)
			_, err := w.compute.InsertBackendService("proj", "us-central1", in, testLinks)
			return err
		}
	}
	for _, tc := range []struct {
		name   string
		call   func() error
		code   int
		reason string
		msg    string
	}{
		{"name missing", bs(func(b *api.BackendService) { b.Name = "" }), 400, "required", "Required field 'resource.name' not specified"},
		{"name too long", bs(func(b *api.BackendService) { b.Name = strings.Repeat("a", 64) }), 400, "invalid", "Must be a match of regex"},
		{"name with capitals", bs(func(b *api.BackendService) { b.Name = "My-BS" }), 400, "invalid", "'My-BS'"},
		{"user's name taken", bs(func(b *api.BackendService) { b.Name = "taken" }), 409, "alreadyExists", "The resource 'projects/proj/regions/us-central1/backendServices/taken' already exists"},
		{"GKE's name taken", bs(func(b *api.BackendService) { b.Name = gkeBS }), 409, "alreadyExists", "backendServices/" + gkeBS + "' already exists"},
		{"unknown region", func() error {
			_, err := w.compute.InsertBackendService("proj", "mars-north1", &api.BackendService{Name: "bs"}, testLinks)
			return err
		}, 400, "invalid", "Unknown region"},
		{"unknown scheme", bs(func(b *api.BackendService) { b.LoadBalancingScheme = "GLOBAL" }), 400, "invalid", "'resource.loadBalancingScheme': 'GLOBAL'"},
		{"HTTP on a passthrough scheme", bs(func(b *api.BackendService) { b.Protocol = "HTTP" }), 400, "invalid", "takes protocol TCP, UDP, UNSPECIFIED"},
		{"missing group", bs(func(b *api.BackendService) {
			b.Backends = []*api.Backend{{Group: "zones/" + igZone + "/instanceGroups/nope"}}
		}), 404, "notFound", "The resource 'projects/proj/zones/" + igZone + "/instanceGroups/nope' was not found"},
		{"group of another region", bs(func(b *api.BackendService) {
			b.Backends = []*api.Backend{{Group: "zones/europe-west1-b/instanceGroups/x"}}
		}), 400, "invalid", "instance groups of its own region (us-central1)"},
		{"malformed group", bs(func(b *api.BackendService) { b.Backends = []*api.Backend{{Group: "instanceGroups/x"}} }), 400, "invalid", "The URL is malformed"},
		{"balancing mode", bs(func(b *api.BackendService) {
			b.Backends = []*api.Backend{{Group: "zones/" + igZone + "/instanceGroups/custom", BalancingMode: "UTILIZATION"}}
		}), 400, "invalid", "Balancing mode must be CONNECTION"},
		{"same group twice", bs(func(b *api.BackendService) {
			b.Backends = []*api.Backend{{Group: "zones/" + igZone + "/instanceGroups/custom"}, {Group: "projects/proj/zones/" + igZone + "/instanceGroups/custom"}}
		}), 400, "invalid", "already a backend of this backend service"},
		{"delete GKE's backend service", func() error {
			_, err := w.compute.DeleteBackendService("proj", "us-central1", gkeBS, testLinks)
			return err
		}, 400, "resourceInUseByAnotherResource", "is already being used by 'projects/proj/regions/us-central1/forwardingRules/"},
		{"delete a missing backend service", func() error {
			_, err := w.compute.DeleteBackendService("proj", "us-central1", "nope", testLinks)
			return err
		}, 404, "notFound", "backendServices/nope' was not found"},
		{"group name taken by a node pool", func() error {
			_, err := w.compute.InsertInstanceGroup("proj", igZone, &api.InstanceGroup{Name: mig}, testLinks)
			return err
		}, 409, "alreadyExists", mig + "' already exists"},
		{"delete a group in use", func() error {
			_, err := w.compute.DeleteInstanceGroup("proj", igZone, "custom", testLinks)
			return err
		}, 400, "resourceInUseByAnotherResource", "The instance_group resource 'projects/proj/zones/" + igZone + "/instanceGroups/custom' is already being used by 'projects/proj/regions/us-central1/backendServices/taken'"},
		{"delete a node pool's group", func() error {
			_, err := w.compute.DeleteInstanceGroup("proj", igZone, mig, testLinks)
			return err
		}, 400, "resourceInUseByAnotherResource", "instanceGroupManagers/" + mig},
		{"delete GKE's group", func() error {
			_, err := w.compute.DeleteInstanceGroup("proj", igZone, loadbalancers.GKEInstanceGroupName(c), testLinks)
			return err
		}, 400, "resourceInUseByAnotherResource", "backendServices/" + gkeBS},
		{"add to a node pool's group", func() error {
			_, err := w.compute.AddInstances("proj", igZone, mig, instanceRefs(node), testLinks)
			return err
		}, 400, "invalid", "is managed by instance group manager"},
		{"add a missing VM", func() error {
			_, err := w.compute.AddInstances("proj", igZone, "custom", instanceRefs("nope"), testLinks)
			return err
		}, 404, "notFound", "instances/nope' was not found"},
		{"add a VM of another zone", func() error {
			_, err := w.compute.AddInstances("proj", igZone, "custom", []*api.InstanceReference{{Instance: "zones/us-central1-b/instances/" + node}}, testLinks)
			return err
		}, 400, "invalid", "the instance group's project and zone"},
		{"add nothing", func() error {
			_, err := w.compute.AddInstances("proj", igZone, "custom", nil, testLinks)
			return err
		}, 400, "required", "'resource.instances'"},
		{"add a VM twice", func() error {
			_, err := w.compute.AddInstances("proj", igZone, "custom", instanceRefs(node, node), testLinks)
			return err
		}, 400, "memberAlreadyExists", "Resource 'projects/proj/zones/" + igZone + "/instances/" + node + "' is already a member of 'projects/proj/zones/" + igZone + "/instanceGroups/custom'."},
		{"remove a non-member", func() error {
			_, err := w.compute.RemoveInstances("proj", igZone, "custom", instanceRefs(node), testLinks)
			return err
		}, 400, "invalid", "is not a member of"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantComputeError(t, tc.call(), tc.code, tc.reason, tc.msg) })
	}
}

// What users create in Compute Engine is theirs: it is in the State (restored as it was, with
// the same ids), it outlives the cluster, and a deleted VM leaves every unmanaged group.
func TestUserComputeObjectsPersistAndOutliveTheCluster(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, igZone, false, &api.NodePool{Name: "pool-a", InitialNodeCount: 3})
	nodes := core.SortedNodeNames(c)
	mustCustomGroup(t, w, "custom", nodes[0], nodes[2])
	mustInsertUserBS(t, w, "user-bs", "EXTERNAL", "custom")
	before := mustJSON(w.compute.BackendServices("proj", "us-central1", testLinks)) + mustJSON(w.compute.InstanceGroups("proj", igZone, testLinks))

	w2 := restoredCopy(t, w)
	if after := mustJSON(w2.compute.BackendServices("proj", "us-central1", testLinks)) + mustJSON(w2.compute.InstanceGroups("proj", igZone, testLinks)); after != before {
		t.Fatalf("restored:\n%s\nwant:\n%s", after, before)
	}
	// Deterministic: the same calls on the same seed give the same ids and operation names.
	w3 := newTestWorld(t)
	c3 := lbTestCluster(t, w3, igZone, false, &api.NodePool{Name: "pool-a", InitialNodeCount: 3})
	n3 := core.SortedNodeNames(c3)
	mustCustomGroup(t, w3, "custom", n3[0], n3[2])
	mustInsertUserBS(t, w3, "user-bs", "EXTERNAL", "custom")
	if again := mustJSON(w3.compute.BackendServices("proj", "us-central1", testLinks)) + mustJSON(w3.compute.InstanceGroups("proj", igZone, testLinks)); again != before {
		t.Errorf("another run:\n%s\nwant:\n%s", again, before)
	}

	op, err := w2.gke.DeleteCluster("proj", igZone, "c1")
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w2, op, time.Hour)
	if w2.core.Cluster("proj", igZone, "c1") != nil {
		t.Fatal("cluster not deleted")
	}
	igs := w2.compute.InstanceGroups("proj", igZone, testLinks)
	if len(igs) != 1 || igs[0].Name != "custom" || igs[0].Size != 0 {
		t.Errorf("instance groups after the cluster: %s", mustJSON(igs))
	}
	if bs, err := w2.compute.BackendService("proj", "us-central1", "user-bs", testLinks); err != nil || len(bs.Backends) != 1 {
		t.Errorf("backend service after the cluster: %v %s", err, mustJSON(bs))
	}
	if evs, _ := w2.engine.Events(engine.EventFilter{Type: "ComputeInstanceGroupInstancesRemoved"}); len(evs) != 2 || !strings.Contains(evs[0].Message, "the VM was deleted") {
		t.Errorf("events: %s", mustJSON(evs))
	}
	// An empty group behind a backend service blocks nothing: a new cluster's ILB is built.
	c4 := lbTestCluster(t, w2, igZone, false, &api.NodePool{Name: "pool-a", InitialNodeCount: 1})
	ilb := mustCreateService(t, w2, c4, lbService("ilb", internalLB))
	advance(w2, 2*time.Minute)
	if ingressIP(w2, c4, ilb) == "" {
		t.Errorf("ILB on a new cluster: %+v", ilb.LB)
	}
}

// regionBackendServices.update (what gcloud's add-backend and remove-backend send) and patch:
// R-LB-5 holds as on insert, the backend service's own current groups do not count against
// it, and GKE's backend services are left to GKE.
func TestBackendServiceUpdateAndPatch(t *testing.T) {
	w := newTestWorld(t)
	c := lbTestCluster(t, w, igZone, false, &api.NodePool{Name: "pool-a", InitialNodeCount: 3})
	nodes := core.SortedNodeNames(c)
	mustCustomGroup(t, w, "one", nodes[0])
	mustCustomGroup(t, w, "two", nodes[0])
	mustInsertUserBS(t, w, "user-bs", "EXTERNAL", "one")
	group := func(name string) []*api.Backend {
		return []*api.Backend{{Group: "zones/" + igZone + "/instanceGroups/" + name}}
	}

	// From group one to group two, both holding nodes[0]: one stops being load-balanced.
	op, err := w.compute.UpdateBackendService("proj", "us-central1", "user-bs", &api.BackendService{Name: "user-bs", LoadBalancingScheme: "EXTERNAL", Backends: group("two"),
		HealthChecks: []string{"regions/us-central1/healthChecks/hc"}}, false, testLinks)
	if err != nil || op.OperationType != "update" {
		t.Fatalf("update: %v %s", err, mustJSON(op))
	}
	_, err = insertUserBS(w, "other", "EXTERNAL", "one")
	wantComputeError(t, err, http.StatusBadRequest, "instanceInMultipleLoadBalancedIgs", "instanceGroups/two'", "instanceGroups/one'")

	op, err = w.compute.UpdateBackendService("proj", "us-central1", "user-bs", &api.BackendService{Description: "mine"}, true, testLinks)
	bs, _ := w.compute.BackendService("proj", "us-central1", "user-bs", testLinks)
	if err != nil || op.OperationType != "patch" || bs.Description != "mine" || bs.LoadBalancingScheme != "EXTERNAL" || len(bs.Backends) != 1 ||
		!strings.HasSuffix(bs.Backends[0].Group, "/instanceGroups/two") || len(bs.HealthChecks) != 1 || bs.HealthChecks[0] != "http://gkesim/compute/v1/projects/proj/regions/us-central1/healthChecks/hc" {
		t.Fatalf("patch: %v %s", err, mustJSON(bs))
	}

	ilb := mustCreateService(t, w, c, lbService("ilb", internalLB))
	advance(w, 2*time.Minute)
	if ingressIP(w, c, ilb) != "" {
		t.Fatalf("built while nodes[0] is behind user-bs: %+v", ilb.LB)
	}
	// Emptying the backends lets GKE build it; then the pool's group cannot go behind user-bs.
	if _, err := w.compute.UpdateBackendService("proj", "us-central1", "user-bs", &api.BackendService{Backends: []*api.Backend{}}, true, testLinks); err != nil {
		t.Fatal(err)
	}
	advance(w, loadbalancers.LBRetryMax+loadbalancers.LBProvisionBase+loadbalancers.LBProvisionSpread)
	if ingressIP(w, c, ilb) == "" {
		t.Fatalf("not built after the backends were emptied: %+v", ilb.LB)
	}
	_, err = w.compute.UpdateBackendService("proj", "us-central1", "user-bs", &api.BackendService{Backends: group(poolMIG(c, "pool-a"))}, true, testLinks)
	wantComputeError(t, err, http.StatusBadRequest, "instanceInMultipleLoadBalancedIgs", loadbalancers.GKEInstanceGroupName(c))
	_, err = w.compute.UpdateBackendService("proj", "us-central1", w.loadbalancers.LBNamesOf(c, ilb).BackendService, &api.BackendService{Description: "x"}, true, testLinks)
	wantComputeError(t, err, http.StatusBadRequest, "invalid", "is GKE's")
	_, err = w.compute.UpdateBackendService("proj", "us-central1", "user-bs", &api.BackendService{Name: "renamed"}, false, testLinks)
	wantComputeError(t, err, http.StatusBadRequest, "invalid", "cannot change")
}
