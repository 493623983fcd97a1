package loadbalancers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
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

// Kinds of load balancer a LoadBalancer Service becomes (R-LB-2).
const (
	LBInternalNEG        = "internal-neg"
	LBInternalIG         = "internal-instance-group"
	LBExternalRBS        = "external-backend-service"
	LBExternalTargetPool = "external-target-pool"
)

// Load balancer states.
const (
	LbProvisioning = "PROVISIONING"
	LbReady        = "READY"
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

	LbProvisionBase   = 45 * time.Second
	LbProvisionSpread = 30 * time.Second
	LbDeleteBase      = 20 * time.Second
	LbDeleteSpread    = 20 * time.Second
	// lbSyncDelay is how soon after a node or endpoint change GKE's syncers update backends.
	lbSyncDelay = 5 * time.Second

	// R-LB-3: NEG endpoints with externalTrafficPolicy Cluster (a subset of up to 25 nodes) and
	// Local (nodes with serving pods, up to 250).
	NegClusterLimit = 25
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

// LbKindFor is R-LB-2: the kind of load balancer a Service gets when it is created.
func LbKindFor(c *model.Cluster, s *model.Service) (kind, why string) {
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

// gkeL4Controller says whether ingress-gce's L4 controllers own the kind (NEG ILBs and RBS
// NetLBs); the others are the cloud provider's (legacy ILB, target pools).
func gkeL4Controller(kind string) bool { return kind == LBInternalNEG || kind == LBExternalRBS }

// hcParams are the health check's probe interval and unhealthy threshold (R-LB-6): GKE's L4
// controllers probe shared (Cluster) checks every 8 s with threshold 3 and Local ones every
// 3 s with threshold 2; the cloud provider's checks are 8 s x 3. The healthy threshold is 1.
func hcParams(lb *model.LoadBalancer, local bool) (interval time.Duration, unhealthy int) {
	if gkeL4Controller(lb.Kind) && local {
		return 3 * time.Second, 2
	}
	return 8 * time.Second, 3
}

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
	if !core.EqualJSON(before.spec, s.Spec) {
		w.engine.Record("UpdatedLoadBalancer", c, "", "", "", "service %s: load balancer %s updated (ports %s, externalTrafficPolicy %s)", s.Key(), lb.Kind,
			describePorts(&s.Spec), s.Spec.ExternalTrafficPolicy)
		if lb.State == LbReady {
			for _, node := range model.SortedKeys(lb.Health) {
				w.evalHealth(c, s, node, true)
			}
			w.queueLBSync(c, s, lbSyncDelay)
		}
	}
}

// ensureLB starts building a load balancer for s.
func (w *LoadBalancers) ensureLB(c *model.Cluster, s *model.Service) {
	kind, why := LbKindFor(c, s)
	lb := &model.LoadBalancer{Kind: kind, Internal: InternalRequested(s.Annotations), Gen: c.NextRV(), State: LbProvisioning, Start: w.st.Now,
		Members: map[string]string{}, Health: map[string]*model.BackendHealth{}}
	lb.IP = w.AllocateLBIP(c, s, lb.Internal)
	s.LB = lb
	w.core.TouchObject(c, s, false)
	w.ServiceIndex(c).Lbs[s.Key()] = s
	if msg := lbUnsupported(kind, &s.Spec); msg != "" {
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
	w.engine.Schedule(w.engine.Jitter(LbProvisionBase, LbProvisionSpread), model.Event{Kind: evLBProvisioned, Cluster: c.Key(), Service: s.Key(), Op: strconv.FormatInt(s.LB.Gen, 10)})
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
	if len(protos) > 1 && !gkeL4Controller(kind) {
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
	if s == nil || s.LB == nil || (ev.Op != "" && ev.Op != strconv.FormatInt(s.LB.Gen, 10)) {
		return nil, nil
	}
	return c, s
}

func (w *LoadBalancers) onLBProvisioned(ev model.Event) {
	c, s := w.lbEvent(ev)
	if s == nil || s.LB.State != LbProvisioning {
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
	lb.State, lb.ReadyTime = LbReady, w.st.Now
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
	w.engine.Schedule(w.engine.Jitter(LbDeleteBase, LbDeleteSpread), model.Event{Kind: evLBDeleted, Cluster: c.Key(), Service: s.Key(), Op: strconv.FormatInt(lb.Gen, 10)})
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
	h := uint32(w.hashOf(c.Key(), "lbIP", s.Key(), strconv.FormatBool(internal)) % uint64(span))
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

// ---- backends ----

// lbCandidate says whether a node can be a backend: registered and not going away. Nodes that
// GKE is draining are left out of NEGs (ingress-gce skips nodes labelled
// operation.gke.io/type=drain) but stay in instance groups and target pools until deleted.
func lbCandidate(n *model.Node, neg bool) bool {
	switch n.State {
	case model.NodeReady, model.NodeCordoned:
		return true
	case model.NodeDraining:
		return !neg
	}
	return false
}

func (w *LoadBalancers) queueLBSync(c *model.Cluster, s *model.Service, delay time.Duration) {
	ix := w.ServiceIndex(c)
	if ix.SyncQueued[s.Key()] {
		return
	}
	ix.SyncQueued[s.Key()] = true
	w.engine.Schedule(delay, model.Event{Kind: evLBSync, Cluster: c.Key(), Service: s.Key()})
}

func (w *LoadBalancers) onLBSync(ev model.Event) {
	c := w.st.Clusters[ev.Cluster]
	if c == nil {
		return
	}
	delete(w.ServiceIndex(c).SyncQueued, ev.Service)
	if s := c.Services[ev.Service]; s != nil && s.LB != nil && s.LB.State == LbReady {
		w.SyncLB(c, s)
	}
}

// SyncLB brings the load balancer's backends to what they should be now: for a NEG, GKE
// subsetting's choice (R-LB-3); for instance groups and target pools, every node (R-LB-2,
// R-LB-5). New backends start unhealthy until their first passing probe.
func (w *LoadBalancers) SyncLB(c *model.Cluster, s *model.Service) {
	lb := s.LB
	key := s.Key()
	neg := lb.Kind == LBInternalNEG
	perNode := w.ServiceIndex(c).PerNode[key]
	perZone := map[string][]*model.Node{}
	registered := 0
	for _, name := range core.SortedNodeNames(c) {
		n := c.Nodes[name]
		if n.State != model.NodeProvisioning {
			registered++
		}
		if !lbCandidate(n, neg) || (neg && s.Local() && perNode[name] == 0) {
			continue
		}
		perZone[n.Zone] = append(perZone[n.Zone], n)
	}
	var desired map[string]string
	if neg {
		limit := NegClusterLimit
		if s.Local() {
			limit = negLocalLimit
		}
		desired = w.negSubset(perZone, limit, c.Key()+"/"+key, lb.Members)
		if cand := countNodes(perZone); s.Local() && cand > negLocalLimit {
			w.warnOnce(c, s, "local-limit", "service %s: %d nodes run serving pods; an internal passthrough Network Load Balancer distributes to at most %d, so only %d are NEG endpoints",
				key, cand, negLocalLimit, len(desired))
		}
	} else {
		desired = map[string]string{}
		for z, nodes := range perZone {
			for _, n := range nodes {
				desired[n.Name] = z
			}
		}
	}
	if lb.Kind == LBInternalIG {
		if registered > ilbBackendLimit {
			w.warnOnce(c, s, "ilb-limit", "service %s: the cluster has %d nodes, more than the %d an internal passthrough Network Load Balancer without GKE subsetting distributes to: traffic may be uneven or lost. Enable GKE subsetting (networkConfig.enableL4ilbSubsetting) and recreate the Service to get GCE_VM_IP NEGs",
				key, registered, ilbBackendLimit)
		} else {
			delete(lb.Warned, "ilb-limit")
		}
	}
	var added, removed []string
	for node := range lb.Members {
		if _, ok := desired[node]; !ok {
			removed = append(removed, node)
		}
	}
	for node := range desired {
		if _, ok := lb.Members[node]; !ok {
			added = append(added, node)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	if usesInstanceGroups(lb.Kind) && (len(added) > 0 || lb.Blocked != nil) {
		added = w.addableToGKEGroups(c, s, added, desired)
	}
	if len(added) == 0 && len(removed) == 0 {
		return
	}
	for _, node := range removed {
		delete(lb.Members, node)
		delete(lb.Health, node)
	}
	for _, node := range added {
		lb.Members[node] = desired[node]
		lb.Health[node] = &model.BackendHealth{State: HealthUnhealthy, Since: w.st.Now}
		w.evalHealth(c, s, node, true)
	}
	w.core.TouchObject(c, s, false)
	w.engine.Record("LoadBalancerBackendsSynced", c, "", "", "", "service %s: %s now %s (+%d -%d)%s", key, backendNoun(lb.Kind), describeMembers(lb.Members),
		len(added), len(removed), describeChange(added, removed))
}

func countNodes(perZone map[string][]*model.Node) int {
	n := 0
	for _, nodes := range perZone {
		n += len(nodes)
	}
	return n
}

func backendNoun(kind string) string {
	switch kind {
	case LBInternalNEG:
		return "NEG endpoints"
	case LBExternalTargetPool:
		return "target pool instances"
	}
	return "instance group members"
}

// describeMembers counts members per zone: "25 (us-central1-a: 9, us-central1-b: 8, ...)".
func describeMembers(m map[string]string) string {
	per := map[string]int{}
	for _, z := range m {
		per[z]++
	}
	var parts []string
	for _, z := range model.SortedKeys(per) {
		parts = append(parts, fmt.Sprintf("%s: %d", z, per[z]))
	}
	return fmt.Sprintf("%d (%s)", len(m), strings.Join(parts, ", "))
}

func describeChange(added, removed []string) string {
	const show = 5
	list := func(sign string, names []string) string {
		if len(names) > show {
			return fmt.Sprintf(" %s%s and %d more", sign, strings.Join(names[:show], " "+sign), len(names)-show)
		}
		return " " + sign + strings.Join(names, " "+sign)
	}
	s := ""
	if len(added) > 0 {
		s += list("+", added)
	}
	if len(removed) > 0 {
		s += list("-", removed)
	}
	return ":" + s
}

func (w *LoadBalancers) warnOnce(c *model.Cluster, s *model.Service, what, format string, args ...any) {
	if s.LB.Warned[what] {
		return
	}
	if s.LB.Warned == nil {
		s.LB.Warned = map[string]bool{}
	}
	s.LB.Warned[what] = true
	w.engine.Record("LoadBalancerNodeLimitWarning", c, "", "", "", format, args...)
}

// negSubset is GKE subsetting's choice of NEG endpoints (R-LB-3): zones in increasing order of
// node count, each taking an equal share of what is left of the limit; within a zone, the
// current endpoints first, then nodes in the order of a hash of their name salted with the
// Service, so that the subset is random yet stable: unrelated node changes do not move it.
func (w *LoadBalancers) negSubset(perZone map[string][]*model.Node, limit int, salt string, current map[string]string) map[string]string {
	zones := make([]string, 0, len(perZone))
	for z := range perZone {
		zones = append(zones, z)
	}
	sort.Slice(zones, func(i, j int) bool {
		if a, b := len(perZone[zones[i]]), len(perZone[zones[j]]); a != b {
			return a < b
		}
		return zones[i] < zones[j]
	})
	out := map[string]string{}
	left := limit
	for i, z := range zones {
		size := left / (len(zones) - i)
		picked := w.pickSubset(perZone[z], size, salt, current)
		for _, n := range picked {
			out[n.Name] = z
		}
		left -= len(picked)
	}
	return out
}

func (w *LoadBalancers) pickSubset(nodes []*model.Node, count int, salt string, current map[string]string) []*model.Node {
	if len(nodes) <= count {
		return nodes
	}
	var kept, fresh []*model.Node
	for _, n := range nodes {
		if _, ok := current[n.Name]; ok {
			kept = append(kept, n)
		} else {
			fresh = append(fresh, n)
		}
	}
	byHash := func(list []*model.Node) {
		sort.Slice(list, func(i, j int) bool {
			return w.hashOf(salt, list[i].Name) < w.hashOf(salt, list[j].Name)
		})
	}
	byHash(kept)
	byHash(fresh)
	if len(kept) >= count {
		return kept[:count]
	}
	return append(kept, fresh[:count-len(kept)]...)
}

// ---- health (R-LB-6) ----

// probePasses is what the load balancer's probe of a node would answer now: kube-proxy's
// health check on 10256 passes on every running node (Cluster); the Service's
// healthCheckNodePort passes only where a ready, non-terminating serving pod runs (Local).
func (w *LoadBalancers) probePasses(c *model.Cluster, s *model.Service, node string) bool {
	n := c.Nodes[node]
	if n == nil || n.State == model.NodeProvisioning || n.State == model.NodeDeleting {
		return false
	}
	if !s.Local() {
		return true
	}
	return w.ServiceIndex(c).PerNode[s.Key()][node] > 0
}

// nextProbe is the first probe of node after now: every interval, at an offset per load
// balancer and node (the probers are not synchronised).
func (w *LoadBalancers) nextProbe(s *model.Service, node string, interval time.Duration) time.Time {
	phase := time.Duration(w.hashOf("probe", s.UID, node)%uint64(interval/time.Second)) * time.Second
	since := w.st.Now.Sub(time.Unix(0, 0)) - phase
	k := since/interval + 1
	return time.Unix(0, 0).Add(phase + k*interval).UTC()
}

// evalHealth looks at a backend's probe outcome; when it changed (or force), it schedules the
// state change at the probe that crosses the threshold: the first passing probe makes it
// healthy, the unhealthy-threshold-th consecutive failure makes it unhealthy. Until then it
// keeps its state: a node keeps passing during a transition (R-LB-6).
func (w *LoadBalancers) evalHealth(c *model.Cluster, s *model.Service, node string, force bool) {
	lb := s.LB
	h := lb.Health[node]
	if h == nil {
		return
	}
	pass := w.probePasses(c, s, node)
	if pass == h.Passing && !force {
		return
	}
	h.Passing = pass
	h.Due = time.Time{}
	interval, threshold := hcParams(lb, s.Local())
	switch {
	case pass && h.State == HealthUnhealthy:
		h.Due = w.nextProbe(s, node, interval)
	case !pass && h.State == HealthHealthy:
		h.Due = w.nextProbe(s, node, interval).Add(time.Duration(threshold-1) * interval)
	default:
		return
	}
	w.engine.Schedule(h.Due.Sub(w.st.Now), model.Event{Kind: evLBHealth, Cluster: c.Key(), Service: s.Key(), Node: node, Op: strconv.FormatInt(lb.Gen, 10)})
}

func (w *LoadBalancers) onLBHealth(ev model.Event) {
	c, s := w.lbEvent(ev)
	if s == nil || s.LB.State != LbReady {
		return
	}
	h := s.LB.Health[ev.Node]
	if h == nil || h.Due.IsZero() || !h.Due.Equal(w.st.Now) {
		return
	}
	h.Due = time.Time{}
	h.Since = w.st.Now
	interval, threshold := hcParams(s.LB, s.Local())
	port := w.hcPort(s)
	if h.Passing {
		h.State = HealthHealthy
		if h.WasHealthy {
			w.engine.Record("LoadBalancerBackendHealthy", c, "", ev.Node, "", "service %s: node %s passes its health check on port %d again: healthy", s.Key(), ev.Node, port)
		}
		h.WasHealthy = true
		return
	}
	h.State = HealthUnhealthy
	w.engine.Record("LoadBalancerBackendUnhealthy", c, "", ev.Node, "", "service %s: node %s failed %d consecutive health checks on port %d (every %s): unhealthy, the load balancer stops sending it new connections",
		s.Key(), ev.Node, threshold, port, interval)
}

// hcPort is the port the load balancer probes: kube-proxy's 10256 (Cluster) or the Service's
// healthCheckNodePort (Local: the Service's own health check port, allocated or set).
func (w *LoadBalancers) hcPort(s *model.Service) int32 {
	if s.Local() && s.Spec.HealthCheckNodePort != 0 {
		return s.Spec.HealthCheckNodePort
	}
	return KubeProxyHealthPort
}

// ---- hooks: what the rest of the simulation tells the load balancers ----

// LbNodeChanged is called when a node changes state or goes: its probes may answer otherwise,
// and the backends follow the nodes a few seconds later.
func (w *LoadBalancers) LbNodeChanged(c *model.Cluster, n *model.Node) {
	if len(c.Services) == 0 {
		return
	}
	for _, s := range w.ServiceIndex(c).SortedLBs() {
		if s.LB.State != LbReady {
			continue
		}
		if _, member := s.LB.Members[n.Name]; member {
			w.evalHealth(c, s, n.Name, false)
		}
		w.queueLBSync(c, s, lbSyncDelay)
	}
}

// lbServingChanged is called when node gains its first or loses its last serving pod of s.
func (w *LoadBalancers) lbServingChanged(c *model.Cluster, s *model.Service, node string) {
	if s.LB == nil || s.LB.State != LbReady || !s.Local() {
		return
	}
	w.evalHealth(c, s, node, false)
	if s.LB.Kind == LBInternalNEG {
		w.queueLBSync(c, s, lbSyncDelay)
	}
}

// LbSubsettingEnabled notes, when GKE subsetting is turned on, that existing internal load
// balancers keep their instance groups (R-LB-4).
func (w *LoadBalancers) LbSubsettingEnabled(c *model.Cluster) {
	for _, key := range model.SortedKeys(c.Services) {
		if s := c.Services[key]; s.LB != nil && s.LB.Kind == LBInternalIG {
			w.engine.Record("LoadBalancerKindKept", c, "", "", "", "service %s keeps its instance-group backends: only internal LoadBalancer Services created after GKE subsetting is enabled use GCE_VM_IP NEGs", key)
		}
	}
}

// SubsettingPrereqs checks what GKE subsetting requires (R-LB-4): version 1.18.19-gke.1400 or
// later and the HttpLoadBalancing add-on.
func SubsettingPrereqs(c *model.Cluster, field string) error {
	min, _ := catalog.ParseVersion("1.18.19-gke.1400")
	if v, ok := catalog.ParseVersion(c.MasterVersion); ok && v.Compare(min) < 0 {
		return model.InvalidField(field, true, "GKE subsetting requires control plane version 1.18.19-gke.1400 or later, the cluster runs %s (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-4)", c.MasterVersion)
	}
	var addons struct {
		HTTPLoadBalancing *struct {
			Disabled bool `json:"disabled"`
		} `json:"httpLoadBalancing"`
	}
	if raw, ok := c.Extra["addonsConfig"]; ok && json.Unmarshal(raw, &addons) == nil && addons.HTTPLoadBalancing != nil && addons.HTTPLoadBalancing.Disabled {
		return model.InvalidField(field, true, "GKE subsetting requires the HttpLoadBalancing add-on, which is disabled on cluster %s: enable addonsConfig.httpLoadBalancing first (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-4)", c.Name)
	}
	return nil
}

// ---- names ----

// lbNames are the Compute Engine resources of a load balancer, named as GKE names them:
// ingress-gce's k8s2-{cluster uid}-{namespace}-{name}-{hash} for NEG ILBs and RBS NetLBs, the
// cloud provider's a{service uid} and k8s-{cluster id}-... for the others.
type lbNames struct {
	forwardingRules map[corev1.Protocol]string
	BackendService  string
	targetPool      string
	neg             string
	InstanceGroup   string
	healthCheck     string
	hcCollection    string // healthChecks or httpHealthChecks
	hcRegional      bool
	hcShared        bool
	firewall        string
	hcFirewall      string
}

func contentHash(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}

// clusterUIDs are the short cluster ids in GKE's resource names: ingress-gce's 8-character
// hash and the cloud provider's 16-character cluster id, both of the kube-system namespace.
func clusterUIDs(c *model.Cluster) (v2, legacy string) {
	uid := model.UidOf(c.ID, "ns", "kube-system")
	return contentHash(uid, 8), contentHash("cluster-id/"+uid, 16)
}

// trimEvenly shortens namespace and name, the longer first, until together they fit max.
func trimEvenly(max int, ns, name string) (string, string) {
	for len(ns)+len(name) > max {
		if len(ns) >= len(name) {
			ns = ns[:len(ns)-1]
		} else {
			name = name[:len(name)-1]
		}
	}
	return ns, name
}

func (w *LoadBalancers) LbNamesOf(c *model.Cluster, s *model.Service) lbNames {
	lb := s.LB
	v2, legacy := clusterUIDs(c)
	out := lbNames{forwardingRules: map[corev1.Protocol]string{}, hcShared: !s.Local()}
	protos := lbProtocols(&s.Spec)
	if gkeL4Controller(lb.Kind) {
		suffix := contentHash(v2+";"+s.Namespace+";"+s.Name, 8)
		ns, name := trimEvenly(39, s.Namespace, s.Name)
		backend := strings.Join([]string{"k8s2", v2, ns, name, suffix}, "-")
		for _, p := range protos {
			pl := strings.ToLower(string(p))
			ns, name := trimEvenly(39-len(pl)-1, s.Namespace, s.Name)
			out.forwardingRules[p] = strings.Join([]string{"k8s2", pl, v2, ns, name, suffix}, "-")
		}
		out.BackendService, out.firewall = backend, backend
		out.hcCollection, out.hcRegional = "healthChecks", lb.Kind == LBExternalRBS
		if out.hcShared {
			out.healthCheck, out.hcFirewall = "k8s2-"+v2+"-l4-shared-hc", "k8s2-"+v2+"-l4-shared-hc-fw"
		} else {
			out.healthCheck, out.hcFirewall = backend, backend+"-fw"
		}
		if lb.Kind == LBInternalNEG {
			out.neg = backend
		} else {
			out.InstanceGroup = GkeInstanceGroupName(c)
		}
		return out
	}
	name := "a" + strings.ReplaceAll(s.UID, "-", "")
	if len(name) > 32 {
		name = name[:32]
	}
	for _, p := range protos {
		out.forwardingRules[p] = name
	}
	out.firewall = "k8s-fw-" + name
	if out.hcShared {
		out.healthCheck, out.hcFirewall = "k8s-"+legacy+"-node", "k8s-"+legacy+"-node-http-hc"
	} else {
		out.healthCheck, out.hcFirewall = name, "k8s-"+name+"-http-hc"
	}
	if lb.Kind == LBInternalIG {
		out.BackendService, out.InstanceGroup, out.hcCollection = name, GkeInstanceGroupName(c), "healthChecks"
	} else {
		out.targetPool, out.hcCollection = name, "httpHealthChecks"
	}
	return out
}

// lbProtocols lists a Service's protocols in order of first use.
func lbProtocols(sp *corev1.ServiceSpec) []corev1.Protocol {
	var out []corev1.Protocol
	for _, p := range sp.Ports {
		if !containsProto(out, p.Protocol) {
			out = append(out, p.Protocol)
		}
	}
	return out
}

func containsProto(list []corev1.Protocol, p corev1.Protocol) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

// serviceAnnotations are a Service's annotations as GKE leaves them: the user's, plus, once
// ingress-gce's L4 controllers have built the load balancer, those naming its resources.
func (w *LoadBalancers) serviceAnnotations(c *model.Cluster, s *model.Service) map[string]string {
	lb := s.LB
	if lb == nil || lb.State != LbReady || !gkeL4Controller(lb.Kind) {
		return maps.Clone(s.Annotations)
	}
	out := map[string]string{}
	for k, v := range s.Annotations {
		out[k] = v
	}
	n := w.LbNamesOf(c, s)
	out[AnnotationBackendService] = n.BackendService
	out[AnnotationFirewallRule] = n.firewall
	out[AnnotationFirewallRuleForHC] = n.hcFirewall
	out[AnnotationHealthcheck] = n.healthCheck
	if fr, ok := n.forwardingRules[corev1.ProtocolTCP]; ok {
		out[AnnotationTCPForwardingRule] = fr
	}
	if fr, ok := n.forwardingRules[corev1.ProtocolUDP]; ok {
		out[AnnotationUDPForwardingRule] = fr
	}
	if lb.Kind == LBInternalNEG {
		b, _ := json.Marshal(map[string]any{"network_endpoint_groups": map[string]string{"0": n.neg}, "zones": c.Locations})
		out[AnnotationNEGStatus] = string(b)
	}
	return out
}

// lbResourcePaths lists a load balancer's Compute Engine resources as paths under the project.
func (w *LoadBalancers) lbResourcePaths(c *model.Cluster, s *model.Service) []string {
	n := w.LbNamesOf(c, s)
	region := RegionOf(c)
	var out []string
	for _, p := range lbProtocols(&s.Spec) {
		out = append(out, "regions/"+region+"/forwardingRules/"+n.forwardingRules[p])
	}
	if n.BackendService != "" {
		out = append(out, "regions/"+region+"/backendServices/"+n.BackendService)
	}
	if n.targetPool != "" {
		out = append(out, "regions/"+region+"/targetPools/"+n.targetPool)
	}
	for _, z := range c.Locations {
		if n.neg != "" {
			out = append(out, "zones/"+z+"/networkEndpointGroups/"+n.neg)
		}
		if n.InstanceGroup != "" {
			out = append(out, "zones/"+z+"/instanceGroups/"+n.InstanceGroup)
		}
	}
	if n.hcRegional {
		out = append(out, "regions/"+region+"/"+n.hcCollection+"/"+n.healthCheck)
	} else {
		out = append(out, "global/"+n.hcCollection+"/"+n.healthCheck)
	}
	return append(out, "global/firewalls/"+n.firewall, "global/firewalls/"+n.hcFirewall)
}

func RegionOf(c *model.Cluster) string {
	if l, ok := catalog.ParseLocation(c.Location); ok {
		return l.Region
	}
	return c.Location
}
