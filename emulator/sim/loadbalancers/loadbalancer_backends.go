package loadbalancers

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The backends of GKE's load balancers (loadbalancer.go): kept in sync with the nodes and the
// serving pods a few seconds after a change (R-LB-2, R-LB-3, R-LB-5), GKE subsetting's choice
// of NEG endpoints and its prerequisites (R-LB-3, R-LB-4), each backend's health as the probes
// see it (R-LB-6), and the hooks through which the rest of the simulation reports node and pod
// changes.

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
	if s := c.Services[ev.Service]; s != nil && s.LB != nil && s.LB.State == LBReady {
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
		limit := NEGClusterLimit
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
			return w.HashOf(salt, list[i].Name) < w.HashOf(salt, list[j].Name)
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

// HCParams are the health check's probe interval and unhealthy threshold (R-LB-6): GKE's L4
// controllers probe shared (Cluster) checks every 8 s with threshold 3 and Local ones every
// 3 s with threshold 2; the cloud provider's checks are 8 s x 3. The healthy threshold is 1.
func HCParams(lb *model.LoadBalancer, local bool) (interval time.Duration, unhealthy int) {
	if GKEL4Controller(lb.Kind) && local {
		return 3 * time.Second, 2
	}
	return 8 * time.Second, 3
}

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
	phase := time.Duration(w.HashOf("probe", s.UID, node)%uint64(interval/time.Second)) * time.Second
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
	interval, threshold := HCParams(lb, s.Local())
	switch {
	case pass && h.State == HealthUnhealthy:
		h.Due = w.nextProbe(s, node, interval)
	case !pass && h.State == HealthHealthy:
		h.Due = w.nextProbe(s, node, interval).Add(time.Duration(threshold-1) * interval)
	default:
		return
	}
	w.engine.Schedule(h.Due.Sub(w.st.Now), model.LBEvent(evLBHealth, c.Key(), s.Key(), node, lb.Gen))
}

func (w *LoadBalancers) onLBHealth(ev model.Event) {
	c, s := w.lbEvent(ev)
	if s == nil || s.LB.State != LBReady {
		return
	}
	h := s.LB.Health[ev.Node]
	if h == nil || h.Due.IsZero() || !h.Due.Equal(w.st.Now) {
		return
	}
	h.Due = time.Time{}
	h.Since = w.st.Now
	interval, threshold := HCParams(s.LB, s.Local())
	port := w.HCPort(s)
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

// HCPort is the port the load balancer probes: kube-proxy's 10256 (Cluster) or the Service's
// healthCheckNodePort (Local: the Service's own health check port, allocated or set).
func (w *LoadBalancers) HCPort(s *model.Service) int32 {
	if s.Local() && s.Spec.HealthCheckNodePort != 0 {
		return s.Spec.HealthCheckNodePort
	}
	return KubeProxyHealthPort
}

// ---- hooks: what the rest of the simulation tells the load balancers ----

// LBNodeChanged is called when a node changes state or goes: its probes may answer otherwise,
// and the backends follow the nodes a few seconds later.
func (w *LoadBalancers) LBNodeChanged(c *model.Cluster, n *model.Node) {
	if len(c.Services) == 0 {
		return
	}
	for _, s := range w.ServiceIndex(c).SortedLBs() {
		if s.LB.State != LBReady {
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
	if s.LB == nil || s.LB.State != LBReady || !s.Local() {
		return
	}
	w.evalHealth(c, s, node, false)
	if s.LB.Kind == LBInternalNEG {
		w.queueLBSync(c, s, lbSyncDelay)
	}
}

// LBSubsettingEnabled notes, when GKE subsetting is turned on, that existing internal load
// balancers keep their instance groups (R-LB-4).
func (w *LoadBalancers) LBSubsettingEnabled(c *model.Cluster) {
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
	if httpLBDisabled(c) {
		return model.InvalidField(field, true, "GKE subsetting requires the HttpLoadBalancing add-on, which is disabled on cluster %s: enable addonsConfig.httpLoadBalancing first (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-4)", c.Name)
	}
	return nil
}
