package loadbalancers

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// GKE's L4 load balancer controllers: what a LoadBalancer Service becomes in Compute Engine
// (R-LB-2), how its backends follow the nodes and the pods (R-LB-3, R-LB-5), how its health
// checks see each node over emulated time (R-LB-6), and the rules around them (R-LB-4).
//
// A load balancer is provisioned over emulated time; once ready its IP is in the Service's
// status. Its backends (NEG endpoints, instance group or target pool members) are kept in sync
// with the nodes a few seconds after a change, as GKE's syncers do. Every backend VM has a
// health state that follows what the probes would see: a change of outcome becomes a change
// of state only at the probe that crosses the threshold (healthy threshold 1, unhealthy
// threshold 3 x 8 s, or 2 x 3 s for GKE's Local health checks), so a node keeps passing during
// a transition (R-LB-6). All of it is driven by changes, never by a periodic scan.
//
// This file holds the kinds of load balancer, their lifecycle (built, rebuilt, deleted; their
// address) and the emulator's status view of each. Their backends and health are in
// loadbalancer_backends.go, their names in loadbalancer_names.go, R-LB-5's instance-group
// conflicts in loadbalancer_igs.go, the packet path in loadbalancer_trace.go, the add-on
// GKE's own kinds need (R-LB-8) in addon.go.

// Kinds of load balancer a LoadBalancer Service becomes (R-LB-2).
const (
	LBInternalNEG        = "internal-neg"
	LBInternalIG         = "internal-instance-group"
	LBExternalRBS        = "external-backend-service"
	LBExternalTargetPool = "external-target-pool"
)

// Load balancer states.
const (
	LBProvisioning = "PROVISIONING"
	LBReady        = "READY"
	lbDeleting     = "DELETING"
)

// Backend health states, as getHealth reports them.
const (
	HealthHealthy   = "HEALTHY"
	HealthUnhealthy = "UNHEALTHY"
)

const (
	evLBProvisioned = "lb.provisioned"
	evLBDeleted     = "lb.deleted"
	evLBSync        = "lb.sync"
	evLBHealth      = "lb.health"

	LBProvisionBase   = 45 * time.Second
	LBProvisionSpread = 30 * time.Second
	LBDeleteBase      = 20 * time.Second
	LBDeleteSpread    = 20 * time.Second
	// lbSyncDelay is how soon after a node or endpoint change GKE's syncers update backends.
	lbSyncDelay = 5 * time.Second

	// R-LB-3: NEG endpoints with externalTrafficPolicy Cluster (a subset of up to 25 nodes) and
	// Local (nodes with serving pods, up to 250).
	NEGClusterLimit = 25
	negLocalLimit   = 250
	// R-LB-4: without subsetting an internal load balancer distributes to at most 250 VMs.
	ilbBackendLimit = 250

	// kubeProxyHealthPort is the port of kube-proxy's node health check (R-LB-6).
	KubeProxyHealthPort = 10256
)

func (w *LoadBalancers) RegisterLBHandlers() {
	w.engine.On(evLBProvisioned, w.onLBProvisioned)
	w.engine.On(evLBDeleted, w.onLBDeleted)
	w.engine.On(evLBSync, w.onLBSync)
	w.engine.On(evLBHealth, w.onLBHealth)
	w.engine.On(evLBRetry, w.onLBRetry)
}

// InternalRequested says whether the annotations ask for an internal load balancer (R-LB-1).
func InternalRequested(a map[string]string) bool {
	return a[AnnotationLBType] == "Internal" || a[AnnotationLBTypeLegacy] == "Internal"
}

// LBKindFor is R-LB-2: the kind of load balancer a Service gets when it is created.
func LBKindFor(c *model.Cluster, s *model.Service) (kind, why string) {
	if InternalRequested(s.Annotations) {
		if c.L4ILBSubsetting {
			return LBInternalNEG, "internal, GKE subsetting enabled: internal passthrough Network Load Balancer, backend service with one GCE_VM_IP NEG per zone"
		}
		return LBInternalIG, "internal, GKE subsetting disabled: internal passthrough Network Load Balancer, backend service with the cluster's zonal unmanaged instance groups"
	}
	if s.Annotations[AnnotationL4RBS] == "enabled" {
		return LBExternalRBS, "external with cloud.google.com/l4-rbs: \"enabled\" at creation: backend service-based external passthrough Network Load Balancer on the zonal unmanaged instance groups"
	}
	return LBExternalTargetPool, "external without cloud.google.com/l4-rbs: target pool-based external passthrough Network Load Balancer, every node a member"
}

// GKEL4Controller says whether ingress-gce's L4 controllers own the kind (NEG ILBs and RBS
// NetLBs); the others are the cloud provider's (legacy ILB, target pools).
func GKEL4Controller(kind string) bool { return kind == LBInternalNEG || kind == LBExternalRBS }

// ReconcileLB brings a Service's load balancer in line with its spec after a create (before
// nil) or an update.
func (w *LoadBalancers) ReconcileLB(c *model.Cluster, s *model.Service, before *serviceBefore) {
	if s.Deleting {
		return // the load balancer is being deleted; the Service goes with it
	}
	want := s.Spec.Type == corev1.ServiceTypeLoadBalancer
	lb := s.LB
	switch {
	case !want && lb == nil:
		return
	case !want:
		w.releaseLB(c, s, fmt.Sprintf("the Service is now of type %s", s.Spec.Type))
		return
	case lb == nil:
		w.ensureLB(c, s)
		return
	}
	if lb.Failed != "" {
		// GKE retries a load balancer it could not build when the Service changes.
		w.releaseLB(c, s, "the Service changed; building it again")
		w.ensureLB(c, s)
		return
	}
	if InternalRequested(s.Annotations) != lb.Internal {
		// GKE replaces the load balancer: a new one of the other scheme, with a new address.
		w.releaseLB(c, s, "the load-balancer-type annotation changed")
		w.ensureLB(c, s)
		return
	}
	if before == nil {
		return
	}
	if (before.annotations[AnnotationL4RBS] == "enabled") != (s.Annotations[AnnotationL4RBS] == "enabled") {
		w.engine.Record("LoadBalancerKindKept", c, "", "", "", "service %s: cloud.google.com/l4-rbs changed after creation; GKE keeps its %s load balancer: the annotation only matters at creation, and existing Services are not migrated",
			s.Key(), lb.Kind)
	}
	if !model.EqualJSON(before.spec, s.Spec) {
		w.engine.Record("UpdatedLoadBalancer", c, "", "", "", "service %s: load balancer %s updated (ports %s, externalTrafficPolicy %s)", s.Key(), lb.Kind,
			describePorts(&s.Spec), s.Spec.ExternalTrafficPolicy)
		if lb.State == LBReady {
			for _, node := range model.SortedKeys(lb.Health) {
				w.evalHealth(c, s, node, true)
			}
			w.queueLBSync(c, s, lbSyncDelay)
		}
	}
}

// ensureLB starts building a load balancer for s.
func (w *LoadBalancers) ensureLB(c *model.Cluster, s *model.Service) {
	kind, why := LBKindFor(c, s)
	lb := &model.LoadBalancer{Kind: kind, Internal: InternalRequested(s.Annotations), Gen: c.NextRV(), State: LBProvisioning, Start: w.st.Now,
		Members: map[string]string{}, Health: map[string]*model.BackendHealth{}}
	lb.IP = w.AllocateLBIP(c, s, lb.Internal)
	s.LB = lb
	w.core.TouchObject(c, s, false)
	w.ServiceIndex(c).Lbs[s.Key()] = s
	msg := lbUnsupported(kind, &s.Spec)
	if msg == "" {
		msg = addonMissing(c, kind) // R-LB-8
	}
	if msg != "" {
		lb.Failed = msg
		w.engine.Record("SyncLoadBalancerFailed", c, "", "", "", "service %s: %s", s.Key(), msg)
		return
	}
	if usesInstanceGroups(kind) {
		if cfs := w.gkeBuildConflicts(c); len(cfs) > 0 {
			w.blockLB(c, s, cfs[0]) // R-LB-5
			return
		}
	}
	w.startProvisioning(c, s, why)
}

// startProvisioning has GKE create the load balancer's resources; it is ready after a while.
func (w *LoadBalancers) startProvisioning(c *model.Cluster, s *model.Service, why string) {
	w.engine.Record("EnsuringLoadBalancer", c, "", "", "", "service %s: ensuring load balancer (%s)", s.Key(), why)
	w.engine.Schedule(w.engine.Jitter(LBProvisionBase, LBProvisionSpread), model.LBEvent(evLBProvisioned, c.Key(), s.Key(), "", s.LB.Gen))
}

// lbUnsupported says why GKE cannot build a kind of load balancer for these ports.
func lbUnsupported(kind string, sp *corev1.ServiceSpec) string {
	protos := map[corev1.Protocol]bool{}
	for _, p := range sp.Ports {
		protos[p.Protocol] = true
	}
	if protos[corev1.ProtocolSCTP] {
		return "protocol SCTP is not supported by Google Cloud passthrough load balancers; use TCP or UDP"
	}
	if len(protos) > 1 && !GKEL4Controller(kind) {
		return fmt.Sprintf("mixed protocols (TCP and UDP) are not supported by the %s load balancer; use one protocol, or GKE subsetting (internal) or cloud.google.com/l4-rbs (external)", kind)
	}
	return ""
}

// lbEvent resolves the Service of a load balancer event and checks that the event is its.
func (w *LoadBalancers) lbEvent(ev model.Event) (*model.Cluster, *model.Service) {
	c := w.st.Clusters[ev.Cluster]
	if c == nil {
		return nil, nil
	}
	s := c.Services[ev.Service]
	if s == nil || s.LB == nil || (ev.LBGeneration() != "" && ev.LBGeneration() != strconv.FormatInt(s.LB.Gen, 10)) {
		return nil, nil
	}
	return c, s
}

func (w *LoadBalancers) onLBProvisioned(ev model.Event) {
	c, s := w.lbEvent(ev)
	if s == nil || s.LB.State != LBProvisioning {
		return
	}
	lb := s.LB
	if usesInstanceGroups(lb.Kind) {
		// A group created outside GKE may have taken nodes while GKE was building (R-LB-5).
		if cfs := w.gkeBuildConflicts(c); len(cfs) > 0 {
			w.blockLB(c, s, cfs[0])
			return
		}
	}
	lb.State, lb.ReadyTime = LBReady, w.st.Now
	w.core.TouchObject(c, s, false)
	w.engine.Record("EnsuredLoadBalancer", c, "", "", "", "service %s: ensured load balancer %s at %s after %s (%s)", s.Key(), lb.Kind, lb.IP,
		w.st.Now.Sub(lb.Start).Round(time.Second), strings.Join(w.lbResourcePaths(c, s), ", "))
	w.SyncLB(c, s)
}

// deleteLB deletes a deleted Service's load balancer; the Service goes when it is gone.
func (w *LoadBalancers) deleteLB(c *model.Cluster, s *model.Service) {
	lb := s.LB
	lb.State = lbDeleting
	w.engine.Record("DeletingLoadBalancer", c, "", "", "", "service %s: deleting load balancer %s", s.Key(), lb.Kind)
	w.engine.Schedule(w.engine.Jitter(LBDeleteBase, LBDeleteSpread), model.LBEvent(evLBDeleted, c.Key(), s.Key(), "", lb.Gen))
}

func (w *LoadBalancers) onLBDeleted(ev model.Event) {
	c, s := w.lbEvent(ev)
	if s == nil || s.LB.State != lbDeleting {
		return
	}
	w.engine.Record("DeletedLoadBalancer", c, "", "", "", "service %s: deleted load balancer %s (released %s, cluster IP %s, node ports %s)", s.Key(), s.LB.Kind,
		s.LB.IP, s.Spec.ClusterIP, describePorts(&s.Spec))
	w.removeService(c, s)
}

// releaseLB deletes a load balancer the Service no longer wants (type or scheme changed).
func (w *LoadBalancers) releaseLB(c *model.Cluster, s *model.Service, why string) {
	w.engine.Record("DeletedLoadBalancer", c, "", "", "", "service %s: deleted load balancer %s at %s: %s", s.Key(), s.LB.Kind, s.LB.IP, why)
	s.LB = nil
	w.core.TouchObject(c, s, false)
	delete(w.ServiceIndex(c).Lbs, s.Key())
}

// AllocateLBIP gives a load balancer its address, stable per Service for a seed: the one asked
// for (spec.loadBalancerIP) when free; internal ones from the cluster's subnet (the upper half
// of its node range, nodes take the lower), external ones from a public range.
func (w *LoadBalancers) AllocateLBIP(c *model.Cluster, s *model.Service, internal bool) string {
	taken := map[string]bool{}
	for _, cl := range w.st.Clusters {
		for _, o := range cl.Services {
			if o.LB != nil && o != s {
				taken[o.LB.IP] = true
			}
		}
	}
	if want := s.Spec.LoadBalancerIP; want != "" && !taken[want] {
		return want
	}
	base, span := c.NodeIPBase+1<<15, uint32(1<<15-2)
	if !internal {
		base, span = ipToUint(net.IPv4(35, 184, 0, 0)), 1<<19
	}
	h := uint32(w.HashOf(c.Key(), "lbIP", s.Key(), strconv.FormatBool(internal)) % uint64(span))
	for i := uint32(0); i < span; i++ {
		v := base + (h+i)%span
		if b := v & 0xff; b == 0 || b == 255 {
			continue
		}
		if ip := UintToIP(v); !taken[ip] {
			return ip
		}
	}
	return ""
}

// ---- the emulator's status view ----

// LoadBalancers lists the load balancers of a cluster's Services.
func (w *LoadBalancers) LoadBalancers(c *model.Cluster) []*api.LoadBalancerStatus {
	out := []*api.LoadBalancerStatus{}
	for _, s := range w.ServiceIndex(c).SortedLBs() {
		out = append(out, w.loadBalancerStatus(c, s))
	}
	return out
}

// GetLoadBalancer is the status view of one Service's load balancer.
func (w *LoadBalancers) GetLoadBalancer(c *model.Cluster, ns, name string) (*api.LoadBalancerStatus, error) {
	s, err := w.service(c, ns, name)
	if err != nil {
		return nil, err
	}
	if s.LB == nil {
		return nil, model.KubeError(404, "NotFound", "service %s/%s has no load balancer (type %s)", ns, name, s.Spec.Type)
	}
	return w.loadBalancerStatus(c, s), nil
}

func (w *LoadBalancers) loadBalancerStatus(c *model.Cluster, s *model.Service) *api.LoadBalancerStatus {
	lb := s.LB
	kind, why := LBKindFor(c, s)
	if kind != lb.Kind {
		why = "the kind was fixed when the load balancer was created and is kept (" + lb.Kind + ")"
	}
	n := w.LBNamesOf(c, s)
	out := &api.LoadBalancerStatus{Service: s.Key(), Kind: lb.Kind, Scheme: Scheme(lb), State: lb.State, ExternalTrafficPolicy: string(s.Spec.ExternalTrafficPolicy),
		Why: why, BackendService: n.BackendService, TargetPool: n.TargetPool, Backends: []*api.LoadBalancerNode{}}
	if lb.State != LBProvisioning {
		out.IP = lb.IP
		out.ProvisionedTime = lb.ReadyTime.Format(time.RFC3339)
		out.Resources = w.lbResourcePaths(c, s)
	}
	if lb.Failed != "" {
		out.State = "FAILED"
		out.Warnings = append(out.Warnings, lb.Failed)
	}
	if b := lb.Blocked; b != nil {
		out.Blocked = blockedStatus(b)
		if lb.Failed == "" {
			out.Warnings = append(out.Warnings, "GKE cannot add new nodes to its instance groups; the load balancer keeps its backends: "+b.Message)
		}
	}
	for _, p := range LBProtocols(&s.Spec) {
		out.ForwardingRules = append(out.ForwardingRules, n.ForwardingRules[p])
	}
	for _, z := range c.Locations {
		if n.NEG != "" {
			out.NetworkEndpointGroups = append(out.NetworkEndpointGroups, "zones/"+z+"/networkEndpointGroups/"+n.NEG)
		}
		if n.InstanceGroup != "" {
			out.InstanceGroups = append(out.InstanceGroups, "zones/"+z+"/instanceGroups/"+n.InstanceGroup)
		}
	}
	interval, unhealthy := HCParams(lb, s.Local())
	out.HealthCheck = &api.LoadBalancerHC{Name: n.HealthCheck, Collection: n.HCCollection, Port: w.HCPort(s), RequestPath: "/healthz",
		CheckIntervalSec: int32(interval / time.Second), HealthyThreshold: 1, UnhealthyThreshold: int32(unhealthy), Shared: n.HCShared}
	out.FirewallRules = []string{n.Firewall, n.HCFirewall}
	perNode := w.ServiceIndex(c).PerNode[s.Key()]
	for _, node := range model.SortedKeys(lb.Members) {
		h := lb.Health[node]
		b := &api.LoadBalancerNode{Node: node, Zone: lb.Members[node], ServingPods: perNode[node]}
		if nd := c.Nodes[node]; nd != nil {
			b.IP = nd.InternalIP
		}
		if h != nil {
			b.Health, b.Passing, b.Since = h.State, h.Passing, h.Since.Format(time.RFC3339)
			if !h.Due.IsZero() {
				b.TransitAt = h.Due.Format(time.RFC3339)
			}
			if h.State == HealthHealthy {
				out.HealthyBackends++
			}
		}
		out.Backends = append(out.Backends, b)
	}
	out.BackendCount = len(out.Backends)
	if lb.Kind == LBInternalNEG {
		sub := &api.LoadBalancerSubsets{Limit: NEGClusterLimit, PerZone: map[string]int{}}
		if s.Local() {
			sub.Limit = negLocalLimit
		}
		for _, name := range core.SortedNodeNames(c) {
			if nd := c.Nodes[name]; lbCandidate(nd, true) && (!s.Local() || perNode[name] > 0) {
				sub.Candidates++
			}
		}
		for _, z := range lb.Members {
			sub.PerZone[z]++
		}
		out.Subsetting = sub
	}
	if lb.Warned["ilb-limit"] {
		out.Warnings = append(out.Warnings, fmt.Sprintf("more than %d nodes without GKE subsetting: traffic may be uneven or lost", ilbBackendLimit))
	}
	if lb.Warned["local-limit"] {
		out.Warnings = append(out.Warnings, fmt.Sprintf("more than %d nodes run serving pods: only %d are NEG endpoints", negLocalLimit, negLocalLimit))
	}
	return out
}
