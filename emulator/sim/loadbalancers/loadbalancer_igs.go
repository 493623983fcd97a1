package loadbalancers

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// R-LB-5: a VM may be in only one load-balanced instance group (a group that is a backend of
// some backend service). Compute Engine enforces it on every attach: a backend service whose
// groups hold a VM that another load-balanced group holds, or an addInstances that would put
// one in a second load-balanced group, is refused (400 instanceInMultipleLoadBalancedIgs; at
// once here, where Compute Engine may also report it in the Operation's error).
//
// GKE keeps every node in its shared zonal unmanaged instance groups (k8s-ig--{cluster id}) for
// internal load balancers without GKE subsetting and for backend service-based external ones
// (l4-rbs). So when, outside GKE, a user has put nodes behind a load balancer through a node
// pool's managed instance group or an unmanaged group of their own, GKE's calls fail the same
// way and GKE cannot build or sync those load balancers:
//
//   - a new load balancer is not built: the Service gets a SyncLoadBalancerFailed Warning event
//     and no address; GKE tries again with the service controller's backoff (5 s doubling to
//     5 min) and builds it at the first try after the conflicting group is gone (GKE does not
//     watch Compute Engine; a change to the Service makes it try again at once);
//   - an existing load balancer keeps its address and its backends: the zones whose new nodes
//     cannot join GKE's group keep their old members (each zone is one addInstances call, all or
//     nothing), removals still happen, and GKE retries the same way.
//
// NEG-based internal load balancers and target pools use no instance groups and are unaffected.

const (
	evLBRetry = "lb.retry"

	// lbRetryMin and lbRetryMax are the service controller's backoff after a failed sync.
	lbRetryMin = 5 * time.Second
	LBRetryMax = 5 * time.Minute
)

// usesInstanceGroups says whether GKE backs a kind of load balancer with its shared instance
// groups (R-LB-2, R-LB-5).
func usesInstanceGroups(kind string) bool { return kind == LBInternalIG || kind == LBExternalRBS }

// GKEInstanceGroupName is the name of GKE's shared unmanaged instance group in each zone.
func GKEInstanceGroupName(c *model.Cluster) string {
	_, legacy := clusterUIDs(c)
	return "k8s-ig--" + legacy
}

// lbRetryDelay is the wait after the n-th failed attempt in a row.
func lbRetryDelay(n int) time.Duration {
	d := lbRetryMin
	for i := 1; i < n && d < LBRetryMax; i++ {
		d *= 2
	}
	return min(d, LBRetryMax)
}

// lbMembership is a load-balanced instance group a VM is in, and a backend service that has the
// group as a backend.
type lbMembership struct {
	group, backendService string
	// what says whose group it is.
	what string
}

// loadBalancedIGs maps the VMs of a project (by instance path) to the load-balanced instance
// groups they are in: those behind backend services created outside GKE (but except, the one
// being rewritten) and, with gke, GKE's shared groups behind its own.
func (w *LoadBalancers) loadBalancedIGs(project string, gke bool, except string) map[string][]lbMembership {
	out := map[string][]lbMembership{}
	add := func(vm string, m lbMembership) {
		for _, x := range out[vm] {
			if x.group == m.group {
				return
			}
		}
		out[vm] = append(out[vm], m)
	}
	if gke {
		for _, r := range w.ProjectLBs(project) {
			if r.Names.InstanceGroup == "" {
				continue
			}
			bs := BackendServicePath(project, RegionOf(r.Cluster), r.Names.BackendService)
			what := fmt.Sprintf("GKE's shared instance group of cluster %s", r.Cluster.Name)
			for _, node := range model.SortedKeys(r.Service.LB.Members) {
				z := r.Service.LB.Members[node]
				add(InstancePath(project, z, node), lbMembership{group: InstanceGroupPath(project, z, r.Names.InstanceGroup), backendService: bs, what: what})
			}
		}
	}
	uc := w.st.Compute
	if uc == nil {
		return out
	}
	for _, key := range model.SortedKeys(uc.BackendServices) {
		bs := uc.BackendServices[key]
		if bs.Project != project || key == except {
			continue
		}
		for _, b := range bs.Backends {
			ref, _ := ParseComputeRef(b.Group, project)
			g, ok := w.FindInstanceGroup(project, ref.Scope, ref.Name)
			if !ok {
				continue // a node pool deleted since
			}
			for _, node := range g.Members() {
				add(InstancePath(project, ref.Scope, node), lbMembership{group: g.Path, backendService: key, what: g.Describe()})
			}
		}
	}
	return out
}

// igConflict is a VM that would be in two load-balanced instance groups (R-LB-5): group would
// take it, other already has it.
type igConflict struct {
	instance, node, group string
	other                 lbMembership
}

// ComputeError is Compute Engine's refusal.
func (cf *igConflict) ComputeError() *model.Error {
	return model.ComputeError(http.StatusBadRequest, "instanceInMultipleLoadBalancedIgs",
		"Validation failed for instance '%s': instance may belong to at most one load-balanced instance group. It is in instance group '%s' (%s), a backend of backend service '%s', so instance group '%s' cannot be load-balanced with it too (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-5).",
		cf.instance, cf.other.group, cf.other.what, cf.other.backendService, cf.group)
}

// IGAttach is an instance group about to become load-balanced, or to take new VMs while it is.
type IGAttach struct {
	Group, Zone string
	Nodes       []string
}

// AttachConflict is Compute's check of R-LB-5 before backend service bs takes the groups (or
// an attached group takes new VMs): no VM may already be in another load-balanced group,
// GKE's or a user's, nor in two of the groups at once. With rewrite, bs's current backends do
// not count: they are being replaced.
func (w *LoadBalancers) AttachConflict(project, bs string, attach []IGAttach, rewrite bool) *igConflict {
	except := ""
	if rewrite {
		except = bs
	}
	idx := w.loadBalancedIGs(project, true, except)
	taking := map[string]string{}
	for _, a := range attach {
		for _, node := range a.Nodes {
			vm := InstancePath(project, a.Zone, node)
			for _, m := range idx[vm] {
				if m.group != a.Group {
					return &igConflict{instance: vm, node: node, group: a.Group, other: m}
				}
			}
			if g, ok := taking[vm]; ok && g != a.Group {
				return &igConflict{instance: vm, node: node, group: a.Group, other: lbMembership{group: g, backendService: bs, what: "another backend of the same backend service"}}
			}
			taking[vm] = a.Group
		}
	}
	return nil
}

// gkeIGConflicts is R-LB-5 as GKE's sync meets it: the nodes (names, in the order given) that
// GKE cannot put in its shared groups because a load-balanced group created outside GKE holds
// them. Cheap when users have no backend services.
func (w *LoadBalancers) gkeIGConflicts(c *model.Cluster, nodes []string) []*igConflict {
	if !w.hasUserBackendServices() || len(nodes) == 0 {
		return nil
	}
	idx := w.loadBalancedIGs(c.Project, false, "")
	if len(idx) == 0 {
		return nil
	}
	own := GKEInstanceGroupName(c)
	var out []*igConflict
	for _, name := range nodes {
		n := c.Nodes[name]
		if n == nil {
			continue
		}
		vm := InstancePath(c.Project, n.Zone, name)
		group := InstanceGroupPath(c.Project, n.Zone, own)
		for _, m := range idx[vm] {
			if m.group != group { // a user may put GKE's own group behind a backend service
				out = append(out, &igConflict{instance: vm, node: name, group: group, other: m})
				break
			}
		}
	}
	return out
}

// addableToGKEGroups applies R-LB-5 to the nodes (sorted) a sync of a built load balancer
// would add to GKE's groups (desired maps them to their zones): a zone where one of them is held
// by a load-balanced group created outside GKE adds none, as its addInstances call fails; the
// failure is recorded and retried. A sync that goes through ends a block.
func (w *LoadBalancers) addableToGKEGroups(c *model.Cluster, s *model.Service, added []string, desired map[string]string) []string {
	cfs := w.gkeIGConflicts(c, added)
	if len(cfs) == 0 {
		w.unblockLB(c, s)
		return added
	}
	failed := map[string]bool{}
	for _, cf := range cfs {
		failed[desired[cf.node]] = true
	}
	var out []string
	for _, node := range added {
		if !failed[desired[node]] {
			out = append(out, node)
		}
	}
	w.blockLB(c, s, cfs[0])
	return out
}

// gkeBuildConflicts is gkeIGConflicts over every node GKE puts in its groups when it builds an
// instance-group load balancer.
func (w *LoadBalancers) gkeBuildConflicts(c *model.Cluster) []*igConflict {
	if !w.hasUserBackendServices() {
		return nil
	}
	var nodes []string
	for _, name := range core.SortedNodeNames(c) {
		if lbCandidate(c.Nodes[name], false) {
			nodes = append(nodes, name)
		}
	}
	return w.gkeIGConflicts(c, nodes)
}

func (w *LoadBalancers) hasUserBackendServices() bool {
	return w.st.Compute != nil && len(w.st.Compute.BackendServices) > 0
}

// blockLB records a failed attempt: a Warning event on the Service saying what holds the node
// and what to do, and a retry after the backoff. A load balancer not yet built stays without
// an address (Failed); a built one keeps its address and backends.
func (w *LoadBalancers) blockLB(c *model.Cluster, s *model.Service, cf *igConflict) {
	lb := s.LB
	b := lb.Blocked
	if b == nil {
		b = &model.LBBlock{Since: w.st.Now}
		lb.Blocked = b
	}
	b.Attempts++
	b.Instance, b.Group, b.BackendService = cf.instance, cf.other.group, cf.other.backendService
	delay := lbRetryDelay(b.Attempts)
	b.RetryAt = w.st.Now.Add(delay)
	b.Message = gkeConflictMessage(c, s, cf)
	if lb.State == LBProvisioning {
		lb.Failed = b.Message
	}
	w.engine.Record("SyncLoadBalancerFailed", c, "", "", "", "service %s: %s GKE tries again in %s (attempt %d).", s.Key(), b.Message, delay, b.Attempts)
	w.engine.Schedule(delay, model.LBEvent(evLBRetry, c.Key(), s.Key(), "", lb.Gen))
}

// gkeConflictMessage is GKE's error as the Service's event shows it: Compute's refusal, which
// group of whose holds the node, and the ways out.
func gkeConflictMessage(c *model.Cluster, s *model.Service, cf *igConflict) string {
	way := "or enable GKE subsetting (networkConfig.enableL4ilbSubsetting) and recreate the Service, so that it uses GCE_VM_IP NEGs instead of instance groups"
	if s.LB.Kind == LBExternalRBS {
		way = "or recreate the Service without cloud.google.com/l4-rbs: a target pool-based load balancer uses no instance groups"
	}
	return fmt.Sprintf("Error syncing load balancer: failed to ensure load balancer: googleapi: Error 400: Validation failed for instance '%s': instance may belong to at most one load-balanced instance group., instanceInMultipleLoadBalancedIgs. "+
		"Node %s is in instance group %s (%s), a backend of backend service %s created outside GKE, so GKE cannot put it in its instance group %s (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-5). "+
		"Delete backend service %s, or remove instance group %s from its backends; %s.",
		cf.instance, cf.node, cf.other.group, cf.other.what, cf.other.backendService, model.LastSegment(cf.group),
		model.LastSegment(cf.other.backendService), model.LastSegment(cf.other.group), way)
}

// unblockLB notes that an attempt went through after failed ones.
func (w *LoadBalancers) unblockLB(c *model.Cluster, s *model.Service) {
	lb := s.LB
	if lb.Blocked == nil {
		return
	}
	w.engine.Record("EnsuredLoadBalancer", c, "", "", "", "service %s: GKE's instance groups take every node again after %d failed attempts since %s: no node is in a load-balanced instance group created outside GKE any more",
		s.Key(), lb.Blocked.Attempts, lb.Blocked.Since.Format(time.RFC3339))
	lb.Blocked, lb.Failed = nil, ""
}

// onLBRetry is GKE's next attempt after a failed one: build the load balancer, or sync the
// instance groups of a built one.
func (w *LoadBalancers) onLBRetry(ev model.Event) {
	c, s := w.lbEvent(ev)
	if s == nil || s.LB.Blocked == nil || !s.LB.Blocked.RetryAt.Equal(w.st.Now) {
		return
	}
	switch s.LB.State {
	case LBProvisioning:
		if cfs := w.gkeBuildConflicts(c); len(cfs) > 0 {
			w.blockLB(c, s, cfs[0])
			return
		}
		attempts := s.LB.Blocked.Attempts
		w.unblockLB(c, s)
		w.startProvisioning(c, s, fmt.Sprintf("attempt %d: no node is in a load-balanced instance group created outside GKE any more", attempts+1))
	case LBReady:
		w.SyncLB(c, s)
	}
}

// blockedStatus is the status view of a block.
func blockedStatus(b *model.LBBlock) *api.LoadBalancerBlock {
	return &api.LoadBalancerBlock{Reason: b.Message, Instance: b.Instance, InstanceGroup: b.Group, BackendService: b.BackendService,
		Attempts: b.Attempts, Since: b.Since.Format(time.RFC3339), NextRetry: b.RetryAt.Format(time.RFC3339)}
}
