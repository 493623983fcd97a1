package loadbalancers

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// The Compute Engine resources of GKE's load balancers, read-only, as compute.googleapis.com v1
// shapes them: forwarding rules, backend services (GKE's beside those users created outside
// GKE, compute_user_backend_services.go), target pools, GCE_VM_IP NEGs, health checks and
// firewall rules. Instance groups are in compute_read_instance_groups.go.

// lbRef is a ready load balancer with its names.
type lbRef struct {
	c *model.Cluster
	s *model.Service
	n lbNames
}

// projectLBs lists a project's ready load balancers, by cluster and Service.
func (w *LoadBalancers) projectLBs(project string) []lbRef {
	var out []lbRef
	for _, c := range w.core.ClustersIn(project, "-") {
		for _, key := range model.SortedKeys(c.Services) {
			s := c.Services[key]
			if s.LB != nil && (s.LB.State == LbReady || s.LB.State == lbDeleting) {
				out = append(out, lbRef{c, s, w.LbNamesOf(c, s)})
			}
		}
	}
	return out
}

func (w *LoadBalancers) computeID(parts ...string) string {
	return strconv.FormatUint(w.hashOf(append([]string{"compute-id"}, parts...)...)>>1, 10)
}

func computeTime(t time.Time) string { return t.Format("2006-01-02T15:04:05.000-07:00") }

func lbDescription(r lbRef) string {
	if gkeL4Controller(r.s.LB.Kind) {
		return fmt.Sprintf(`{"networking.gke.io/service-name":%q,"networking.gke.io/api-version":"ga"}`, r.s.Key())
	}
	return fmt.Sprintf(`{"kubernetes.io/service-name":%q}`, r.s.Key())
}

func sharedHCDescription(kind string) string {
	what := "L4 ILB"
	if kind == LBExternalRBS {
		what = "L4 External LoadBalancer"
	}
	return `{"networking.gke.io/service-name":"","networking.gke.io/api-version":"ga","networking.gke.io/resource-description":"This resource is shared by all ` +
		what + ` Services using ExternalTrafficPolicy: Cluster."}`
}

func networkURL(l core.Links, c *model.Cluster) string {
	return l.Compute("projects/%s/global/networks/%s", c.Project, model.LastSegment(c.Network))
}

func subnetworkURL(l core.Links, c *model.Cluster) string {
	return l.Compute("projects/%s/regions/%s/subnetworks/%s", c.Project, RegionOf(c), model.LastSegment(c.Subnetwork))
}

func scheme(lb *model.LoadBalancer) string {
	if lb.Internal {
		return "INTERNAL"
	}
	return "EXTERNAL"
}

// ---- forwarding rules ----

func (w *LoadBalancers) renderForwardingRules(r lbRef, l core.Links) []*api.ForwardingRule {
	var out []*api.ForwardingRule
	region := RegionOf(r.c)
	for _, proto := range lbProtocols(&r.s.Spec) {
		name := r.n.forwardingRules[proto]
		fr := &api.ForwardingRule{Kind: "compute#forwardingRule", Id: w.computeID("fr", r.c.Project, name), CreationTimestamp: computeTime(r.s.LB.ReadyTime),
			Name: name, Description: lbDescription(r), Region: l.Compute("projects/%s/regions/%s", r.c.Project, region),
			IPAddress: r.s.LB.IP, IPProtocol: string(proto), LoadBalancingScheme: scheme(r.s.LB), NetworkTier: "PREMIUM", IpVersion: "IPV4",
			SelfLink:    l.Compute("projects/%s/regions/%s/forwardingRules/%s", r.c.Project, region, name),
			Fingerprint: contentHash(name+r.s.LB.IP, 12)}
		var ports []int32
		for _, p := range r.s.Spec.Ports {
			if p.Protocol == proto {
				ports = append(ports, p.Port)
			}
		}
		sort.Slice(ports, func(i, j int) bool { return ports[i] < ports[j] })
		if r.s.LB.Internal {
			fr.Network, fr.Subnetwork = networkURL(l, r.c), subnetworkURL(l, r.c)
			if len(ports) > 5 {
				fr.AllPorts = true
			} else {
				for _, p := range ports {
					fr.Ports = append(fr.Ports, strconv.Itoa(int(p)))
				}
			}
		} else {
			fr.PortRange = fmt.Sprintf("%d-%d", ports[0], ports[len(ports)-1])
		}
		if r.n.targetPool != "" {
			fr.Target = l.Compute("projects/%s/regions/%s/targetPools/%s", r.c.Project, region, r.n.targetPool)
		} else {
			fr.BackendService = l.Compute("projects/%s/regions/%s/backendServices/%s", r.c.Project, region, r.n.BackendService)
		}
		out = append(out, fr)
	}
	return out
}

// ForwardingRules lists a region's forwarding rules.
func (w *LoadBalancers) ForwardingRules(project, region string, l core.Links) []*api.ForwardingRule {
	out := []*api.ForwardingRule{}
	for _, r := range w.projectLBs(project) {
		if RegionOf(r.c) == region {
			out = append(out, w.renderForwardingRules(r, l)...)
		}
	}
	return out
}

// ForwardingRule finds one forwarding rule.
func (w *LoadBalancers) ForwardingRule(project, region, name string, l core.Links) (*api.ForwardingRule, error) {
	for _, fr := range w.ForwardingRules(project, region, l) {
		if fr.Name == name {
			return fr, nil
		}
	}
	return nil, model.NotFound("The resource 'projects/%s/regions/%s/forwardingRules/%s' was not found", project, region, name)
}

// ---- backend services ----

func (w *LoadBalancers) renderBackendService(r lbRef, l core.Links) *api.BackendService {
	region := RegionOf(r.c)
	bs := &api.BackendService{Kind: "compute#backendService", Id: w.computeID("bs", r.c.Project, r.n.BackendService),
		CreationTimestamp: computeTime(r.s.LB.ReadyTime), Name: r.n.BackendService, Description: lbDescription(r),
		Region: l.Compute("projects/%s/regions/%s", r.c.Project, region), HealthChecks: []string{w.hcLink(r, l)},
		LoadBalancingScheme: scheme(r.s.LB), SessionAffinity: "NONE", ConnectionDraining: &api.ConnectionDraining{}, TimeoutSec: 30,
		SelfLink:    l.Compute("projects/%s/regions/%s/backendServices/%s", r.c.Project, region, r.n.BackendService),
		Fingerprint: contentHash(r.n.BackendService, 12)}
	if r.s.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		bs.SessionAffinity = "CLIENT_IP"
	}
	if protos := lbProtocols(&r.s.Spec); len(protos) == 1 {
		bs.Protocol = string(protos[0])
	} else {
		bs.Protocol = "UNSPECIFIED"
	}
	if r.s.LB.Internal {
		bs.Network = networkURL(l, r.c)
	}
	for _, z := range r.c.Locations {
		bs.Backends = append(bs.Backends, &api.Backend{Group: w.groupLink(r, z, l), BalancingMode: "CONNECTION"})
	}
	return bs
}

// groupLink is the backend group of a load balancer in a zone: its NEG or the shared
// unmanaged instance group.
func (w *LoadBalancers) groupLink(r lbRef, zone string, l core.Links) string {
	if r.n.neg != "" {
		return l.Compute("projects/%s/zones/%s/networkEndpointGroups/%s", r.c.Project, zone, r.n.neg)
	}
	return l.Compute("projects/%s/zones/%s/instanceGroups/%s", r.c.Project, zone, r.n.InstanceGroup)
}

func (w *LoadBalancers) hcLink(r lbRef, l core.Links) string {
	if r.n.hcRegional {
		return l.Compute("projects/%s/regions/%s/%s/%s", r.c.Project, RegionOf(r.c), r.n.hcCollection, r.n.healthCheck)
	}
	return l.Compute("projects/%s/global/%s/%s", r.c.Project, r.n.hcCollection, r.n.healthCheck)
}

// BackendServices lists a region's backend services, GKE's and those created outside GKE, by
// name.
func (w *LoadBalancers) BackendServices(project, region string, l core.Links) []*api.BackendService {
	out := []*api.BackendService{}
	for _, r := range w.projectLBs(project) {
		if RegionOf(r.c) == region && r.n.BackendService != "" {
			out = append(out, w.renderBackendService(r, l))
		}
	}
	out = append(out, w.userBackendServices(project, region, l)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (w *LoadBalancers) backendService(project, region, name string) (lbRef, error) {
	for _, r := range w.projectLBs(project) {
		if RegionOf(r.c) == region && r.n.BackendService == name {
			return r, nil
		}
	}
	return lbRef{}, model.NotFound("The resource 'projects/%s/regions/%s/backendServices/%s' was not found", project, region, name)
}

// BackendService finds one backend service.
func (w *LoadBalancers) BackendService(project, region, name string, l core.Links) (*api.BackendService, error) {
	if bs := w.userBackendService(project, region, name); bs != nil {
		return w.renderUserBackendService(backendServicePath(project, region, name), bs, l), nil
	}
	r, err := w.backendService(project, region, name)
	if err != nil {
		return nil, err
	}
	return w.renderBackendService(r, l), nil
}

// BackendServiceHealth is backendServices.getHealth: the health of each VM of one backend
// group as the load balancer's health check sees it (R-LB-6).
func (w *LoadBalancers) BackendServiceHealth(project, region, name, group string, l core.Links) (*api.BackendServiceGroupHealth, error) {
	if w.userBackendService(project, region, name) != nil {
		return nil, model.InvalidArgument("gkesim does not probe the backends of backend services created outside GKE (%s): getHealth answers for GKE's load balancers only.", backendServicePath(project, region, name))
	}
	r, err := w.backendService(project, region, name)
	if err != nil {
		return nil, err
	}
	for _, z := range r.c.Locations {
		if link := w.groupLink(r, z, l); link == group || strings.HasSuffix(link, "/"+strings.TrimPrefix(group, "/")) {
			return &api.BackendServiceGroupHealth{Kind: "compute#backendServiceGroupHealth", HealthStatus: w.healthStatuses(r, z, l)}, nil
		}
	}
	return nil, model.InvalidArgument("Invalid value for field 'resource.group': '%s'. The group is not a backend of backend service %s.", group, name)
}

func (w *LoadBalancers) healthStatuses(r lbRef, zone string, l core.Links) []*api.HealthStatus {
	out := []*api.HealthStatus{}
	fr := ""
	for _, p := range lbProtocols(&r.s.Spec) {
		fr = l.Compute("projects/%s/regions/%s/forwardingRules/%s", r.c.Project, RegionOf(r.c), r.n.forwardingRules[p])
		break
	}
	for _, node := range model.SortedKeys(r.s.LB.Members) {
		if zone != "" && r.s.LB.Members[node] != zone {
			continue
		}
		n := r.c.Nodes[node]
		h := r.s.LB.Health[node]
		if n == nil || h == nil {
			continue
		}
		out = append(out, &api.HealthStatus{IpAddress: n.InternalIP, Port: w.hcPort(r.s), HealthState: h.State,
			Instance: l.Compute("projects/%s/zones/%s/instances/%s", r.c.Project, n.Zone, node), ForwardingRule: fr, ForwardingRuleIp: r.s.LB.IP})
	}
	return out
}

// ---- target pools ----

func (w *LoadBalancers) renderTargetPool(r lbRef, l core.Links) *api.TargetPool {
	region := RegionOf(r.c)
	tp := &api.TargetPool{Kind: "compute#targetPool", Id: w.computeID("tp", r.c.Project, r.n.targetPool), CreationTimestamp: computeTime(r.s.LB.ReadyTime),
		Name: r.n.targetPool, Description: lbDescription(r), Region: l.Compute("projects/%s/regions/%s", r.c.Project, region),
		HealthChecks: []string{w.hcLink(r, l)}, Instances: []string{}, SessionAffinity: "NONE",
		SelfLink: l.Compute("projects/%s/regions/%s/targetPools/%s", r.c.Project, region, r.n.targetPool)}
	if r.s.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		tp.SessionAffinity = "CLIENT_IP"
	}
	for _, node := range model.SortedKeys(r.s.LB.Members) {
		tp.Instances = append(tp.Instances, l.Compute("projects/%s/zones/%s/instances/%s", r.c.Project, r.s.LB.Members[node], node))
	}
	return tp
}

// TargetPools lists a region's target pools.
func (w *LoadBalancers) TargetPools(project, region string, l core.Links) []*api.TargetPool {
	out := []*api.TargetPool{}
	for _, r := range w.projectLBs(project) {
		if RegionOf(r.c) == region && r.n.targetPool != "" {
			out = append(out, w.renderTargetPool(r, l))
		}
	}
	return out
}

func (w *LoadBalancers) targetPool(project, region, name string) (lbRef, error) {
	for _, r := range w.projectLBs(project) {
		if RegionOf(r.c) == region && r.n.targetPool == name {
			return r, nil
		}
	}
	return lbRef{}, model.NotFound("The resource 'projects/%s/regions/%s/targetPools/%s' was not found", project, region, name)
}

// TargetPool finds one target pool.
func (w *LoadBalancers) TargetPool(project, region, name string, l core.Links) (*api.TargetPool, error) {
	r, err := w.targetPool(project, region, name)
	if err != nil {
		return nil, err
	}
	return w.renderTargetPool(r, l), nil
}

// TargetPoolHealth is targetPools.getHealth for one instance.
func (w *LoadBalancers) TargetPoolHealth(project, region, name, instance string, l core.Links) (*api.TargetPoolInstanceHealth, error) {
	r, err := w.targetPool(project, region, name)
	if err != nil {
		return nil, err
	}
	node := model.LastSegment(instance)
	if _, ok := r.s.LB.Members[node]; !ok {
		return nil, model.InvalidArgument("Invalid value for field 'resource.instance': '%s'. The instance is not in target pool %s.", instance, name)
	}
	var out []*api.HealthStatus
	for _, hs := range w.healthStatuses(r, "", l) {
		if model.LastSegment(hs.Instance) == node {
			hs.ForwardingRule, hs.ForwardingRuleIp = "", ""
			out = append(out, hs)
		}
	}
	return &api.TargetPoolInstanceHealth{Kind: "compute#targetPoolInstanceHealth", HealthStatus: out}, nil
}

// ---- network endpoint groups ----

func (w *LoadBalancers) renderNEG(r lbRef, zone string, l core.Links) *api.NetworkEndpointGroup {
	size := 0
	for _, z := range r.s.LB.Members {
		if z == zone {
			size++
		}
	}
	return &api.NetworkEndpointGroup{Kind: "compute#networkEndpointGroup", Id: w.computeID("neg", r.c.Project, zone, r.n.neg),
		CreationTimestamp: computeTime(r.s.LB.ReadyTime), Name: r.n.neg, Description: lbDescription(r), NetworkEndpointType: "GCE_VM_IP",
		Size: int32(size), Zone: l.Compute("projects/%s/zones/%s", r.c.Project, zone), Network: networkURL(l, r.c), Subnetwork: subnetworkURL(l, r.c),
		SelfLink: l.Compute("projects/%s/zones/%s/networkEndpointGroups/%s", r.c.Project, zone, r.n.neg)}
}

// NetworkEndpointGroups lists a zone's GCE_VM_IP NEGs: one per zone per internal Service of
// a cluster with GKE subsetting (R-LB-2).
func (w *LoadBalancers) NetworkEndpointGroups(project, zone string, l core.Links) []*api.NetworkEndpointGroup {
	out := []*api.NetworkEndpointGroup{}
	for _, r := range w.projectLBs(project) {
		if r.n.neg != "" && model.Contains(r.c.Locations, zone) {
			out = append(out, w.renderNEG(r, zone, l))
		}
	}
	return out
}

func (w *LoadBalancers) neg(project, zone, name string) (lbRef, error) {
	for _, r := range w.projectLBs(project) {
		if r.n.neg == name && model.Contains(r.c.Locations, zone) {
			return r, nil
		}
	}
	return lbRef{}, model.NotFound("The resource 'projects/%s/zones/%s/networkEndpointGroups/%s' was not found", project, zone, name)
}

// NetworkEndpointGroup finds one NEG.
func (w *LoadBalancers) NetworkEndpointGroup(project, zone, name string, l core.Links) (*api.NetworkEndpointGroup, error) {
	r, err := w.neg(project, zone, name)
	if err != nil {
		return nil, err
	}
	return w.renderNEG(r, zone, l), nil
}

// NetworkEndpoints is networkEndpointGroups.listNetworkEndpoints: the NEG's node endpoints
// (R-LB-3), with their health when asked (healthStatus SHOW).
func (w *LoadBalancers) NetworkEndpoints(project, zone, name string, withHealth bool, l core.Links) (*api.NetworkEndpointGroupsListNetworkEndpoints, error) {
	r, err := w.neg(project, zone, name)
	if err != nil {
		return nil, err
	}
	out := &api.NetworkEndpointGroupsListNetworkEndpoints{Kind: "compute#networkEndpointGroupsListNetworkEndpoints", Items: []*api.NetworkEndpointWithHealthStatus{}}
	for _, node := range model.SortedKeys(r.s.LB.Members) {
		n := r.c.Nodes[node]
		if r.s.LB.Members[node] != zone || n == nil {
			continue
		}
		item := &api.NetworkEndpointWithHealthStatus{NetworkEndpoint: &api.NetworkEndpoint{IpAddress: n.InternalIP, Instance: node}}
		if h := r.s.LB.Health[node]; withHealth && h != nil {
			item.Healths = []*api.HealthStatusForNetworkEndpoint{{HealthState: h.State,
				BackendService: &api.BackendServiceReference{BackendService: l.Compute("projects/%s/regions/%s/backendServices/%s", r.c.Project, RegionOf(r.c), r.n.BackendService)},
				HealthCheck:    &api.HealthCheckReference{HealthCheck: w.hcLink(r, l)}}}
		}
		out.Items = append(out.Items, item)
	}
	return out, nil
}

// ---- health checks and firewalls ----

// HealthChecks lists the health checks of a collection: healthChecks (global: internal load
// balancers; regional: backend service-based NetLBs) or httpHealthChecks (target pools).
// region is "" for global ones.
func (w *LoadBalancers) HealthChecks(project, collection, region string, l core.Links) []any {
	seen := map[string]bool{}
	out := []any{}
	for _, r := range w.projectLBs(project) {
		if r.n.hcCollection != collection || r.n.hcRegional != (region != "") || (region != "" && RegionOf(r.c) != region) || seen[r.n.healthCheck] {
			continue
		}
		seen[r.n.healthCheck] = true
		interval, unhealthy := hcParams(r.s.LB, r.s.Local())
		desc := lbDescription(r)
		if r.n.hcShared {
			desc = sharedHCDescription(r.s.LB.Kind)
			if !gkeL4Controller(r.s.LB.Kind) {
				desc = fmt.Sprintf(`{"kubernetes.io/service-name":%q}`, r.n.healthCheck)
			}
		}
		link := w.hcLink(r, l)
		if collection == "httpHealthChecks" {
			out = append(out, &api.HttpHealthCheck{Kind: "compute#httpHealthCheck", Id: w.computeID("hc", project, collection, r.n.healthCheck),
				CreationTimestamp: computeTime(r.s.LB.ReadyTime), Name: r.n.healthCheck, Description: desc, Port: w.hcPort(r.s), RequestPath: "/healthz",
				CheckIntervalSec: int32(interval / time.Second), TimeoutSec: 1, HealthyThreshold: 1, UnhealthyThreshold: int32(unhealthy), SelfLink: link})
			continue
		}
		hc := &api.HealthCheck{Kind: "compute#healthCheck", Id: w.computeID("hc", project, collection, region, r.n.healthCheck),
			CreationTimestamp: computeTime(r.s.LB.ReadyTime), Name: r.n.healthCheck, Description: desc,
			CheckIntervalSec: int32(interval / time.Second), TimeoutSec: 1, HealthyThreshold: 1, UnhealthyThreshold: int32(unhealthy), Type: "HTTP",
			HttpHealthCheck: &api.HTTPHealthCheckSpec{Port: w.hcPort(r.s), RequestPath: "/healthz", ProxyHeader: "NONE", PortSpecification: "USE_FIXED_PORT"},
			SelfLink:        link}
		if region != "" {
			hc.Region = l.Compute("projects/%s/regions/%s", project, region)
		}
		out = append(out, hc)
	}
	return out
}

// HealthCheck finds one health check of a collection.
func (w *LoadBalancers) HealthCheck(project, collection, region, name string, l core.Links) (any, error) {
	for _, hc := range w.HealthChecks(project, collection, region, l) {
		switch h := hc.(type) {
		case *api.HealthCheck:
			if h.Name == name {
				return h, nil
			}
		case *api.HttpHealthCheck:
			if h.Name == name {
				return h, nil
			}
		}
	}
	where := "global"
	if region != "" {
		where = "regions/" + region
	}
	return nil, model.NotFound("The resource 'projects/%s/%s/%s/%s' was not found", project, where, collection, name)
}

// Source ranges of Google's load balancer health check probers.
var (
	hcSourceRanges      = []string{"130.211.0.0/22", "35.191.0.0/16"}
	netlbHCSourceRanges = []string{"35.191.0.0/16", "209.85.152.0/22", "209.85.204.0/22"}
)

func nodeTag(c *model.Cluster) string { return "gke-" + c.Name + "-" + contentHash(c.ID, 8) + "-node" }

// Firewalls lists the firewall rules GKE creates for load balancers: one admitting the
// Service's traffic to the nodes, one admitting the health check probers.
func (w *LoadBalancers) Firewalls(project string, l core.Links) []*api.Firewall {
	seen := map[string]bool{}
	out := []*api.Firewall{}
	add := func(r lbRef, name, desc string, src []string, allowed []*api.FirewallAllowed) {
		if seen[name] {
			return
		}
		seen[name] = true
		out = append(out, &api.Firewall{Kind: "compute#firewall", Id: w.computeID("fw", project, name), CreationTimestamp: computeTime(r.s.LB.ReadyTime),
			Name: name, Description: desc, Network: networkURL(l, r.c), Priority: 1000, Direction: "INGRESS", SourceRanges: src,
			TargetTags: []string{nodeTag(r.c)}, Allowed: allowed, SelfLink: l.Compute("projects/%s/global/firewalls/%s", project, name)})
	}
	for _, r := range w.projectLBs(project) {
		src := r.s.Spec.LoadBalancerSourceRanges
		if len(src) == 0 {
			src = []string{"0.0.0.0/0"}
		}
		var allowed []*api.FirewallAllowed
		for _, proto := range lbProtocols(&r.s.Spec) {
			a := &api.FirewallAllowed{IPProtocol: strings.ToLower(string(proto))}
			for _, p := range r.s.Spec.Ports {
				if p.Protocol == proto {
					a.Ports = append(a.Ports, strconv.Itoa(int(p.Port)))
				}
			}
			allowed = append(allowed, a)
		}
		add(r, r.n.firewall, lbDescription(r), src, allowed)
		hcSrc := hcSourceRanges
		if r.s.LB.Kind == LBExternalTargetPool {
			hcSrc = netlbHCSourceRanges
		}
		add(r, r.n.hcFirewall, lbDescription(r), hcSrc, []*api.FirewallAllowed{{IPProtocol: "tcp", Ports: []string{strconv.Itoa(int(w.hcPort(r.s)))}}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Firewall finds one firewall rule.
func (w *LoadBalancers) Firewall(project, name string, l core.Links) (*api.Firewall, error) {
	for _, f := range w.Firewalls(project, l) {
		if f.Name == name {
			return f, nil
		}
	}
	return nil, model.NotFound("The resource 'projects/%s/global/firewalls/%s' was not found", project, name)
}
