package compute

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// The Compute Engine resources of GKE's load balancers, read-only, as compute.googleapis.com v1
// shapes them: forwarding rules, backend services (GKE's beside those users created outside
// GKE, user_backend_services.go), target pools, GCE_VM_IP NEGs, health checks and
// firewall rules. Instance groups are in read_instance_groups.go.

// ---- forwarding rules ----

// ---- backend services ----

// ---- target pools ----

// ---- network endpoint groups ----

// ---- health checks and firewalls ----

func (w *Compute) computeID(parts ...string) string {
	return strconv.FormatUint(w.loadbalancers.HashOf(append([]string{"compute-id"}, parts...)...)>>1, 10)
}

func computeTime(t time.Time) string { return t.Format("2006-01-02T15:04:05.000-07:00") }

func lbDescription(r loadbalancers.LBRef) string {
	if loadbalancers.GKEL4Controller(r.Service.LB.Kind) {
		return fmt.Sprintf(`{"networking.gke.io/service-name":%q,"networking.gke.io/api-version":"ga"}`, r.Service.Key())
	}
	return fmt.Sprintf(`{"kubernetes.io/service-name":%q}`, r.Service.Key())
}

func sharedHCDescription(kind string) string {
	what := "L4 ILB"
	if kind == loadbalancers.LBExternalRBS {
		what = "L4 External LoadBalancer"
	}
	return `{"networking.gke.io/service-name":"","networking.gke.io/api-version":"ga","networking.gke.io/resource-description":"This resource is shared by all ` +
		what + ` Services using ExternalTrafficPolicy: Cluster."}`
}

func networkURL(l core.Links, c *model.Cluster) string {
	return l.Compute("projects/%s/global/networks/%s", c.Project, model.LastSegment(c.Network))
}

func subnetworkURL(l core.Links, c *model.Cluster) string {
	return l.Compute("projects/%s/regions/%s/subnetworks/%s", c.Project, loadbalancers.RegionOf(c), model.LastSegment(c.Subnetwork))
}

func (w *Compute) renderForwardingRules(r loadbalancers.LBRef, l core.Links) []*api.ForwardingRule {
	var out []*api.ForwardingRule
	region := loadbalancers.RegionOf(r.Cluster)
	for _, proto := range loadbalancers.LBProtocols(&r.Service.Spec) {
		name := r.Names.ForwardingRules[proto]
		fr := &api.ForwardingRule{Kind: "compute#forwardingRule", Id: w.computeID("fr", r.Cluster.Project, name), CreationTimestamp: computeTime(r.Service.LB.ReadyTime),
			Name: name, Description: lbDescription(r), Region: l.Compute("projects/%s/regions/%s", r.Cluster.Project, region),
			IPAddress: r.Service.LB.IP, IPProtocol: string(proto), LoadBalancingScheme: loadbalancers.Scheme(r.Service.LB), NetworkTier: "PREMIUM", IpVersion: "IPV4",
			SelfLink:    l.Compute("projects/%s/regions/%s/forwardingRules/%s", r.Cluster.Project, region, name),
			Fingerprint: loadbalancers.ContentHash(name+r.Service.LB.IP, 12)}
		var ports []int32
		for _, p := range r.Service.Spec.Ports {
			if p.Protocol == proto {
				ports = append(ports, p.Port)
			}
		}
		sort.Slice(ports, func(i, j int) bool { return ports[i] < ports[j] })
		if r.Service.LB.Internal {
			fr.Network, fr.Subnetwork = networkURL(l, r.Cluster), subnetworkURL(l, r.Cluster)
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
		if r.Names.TargetPool != "" {
			fr.Target = l.Compute("projects/%s/regions/%s/targetPools/%s", r.Cluster.Project, region, r.Names.TargetPool)
		} else {
			fr.BackendService = l.Compute("projects/%s/regions/%s/backendServices/%s", r.Cluster.Project, region, r.Names.BackendService)
		}
		out = append(out, fr)
	}
	return out
}

// ForwardingRules lists a region's forwarding rules.
func (w *Compute) ForwardingRules(project, region string, l core.Links) []*api.ForwardingRule {
	out := []*api.ForwardingRule{}
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		if loadbalancers.RegionOf(r.Cluster) == region {
			out = append(out, w.renderForwardingRules(r, l)...)
		}
	}
	return out
}

// ForwardingRule finds one forwarding rule.
func (w *Compute) ForwardingRule(project, region, name string, l core.Links) (*api.ForwardingRule, error) {
	for _, fr := range w.ForwardingRules(project, region, l) {
		if fr.Name == name {
			return fr, nil
		}
	}
	return nil, model.NotFound("The resource 'projects/%s/regions/%s/forwardingRules/%s' was not found", project, region, name)
}

func (w *Compute) renderBackendService(r loadbalancers.LBRef, l core.Links) *api.BackendService {
	region := loadbalancers.RegionOf(r.Cluster)
	bs := &api.BackendService{Kind: "compute#backendService", Id: w.computeID("bs", r.Cluster.Project, r.Names.BackendService),
		CreationTimestamp: computeTime(r.Service.LB.ReadyTime), Name: r.Names.BackendService, Description: lbDescription(r),
		Region: l.Compute("projects/%s/regions/%s", r.Cluster.Project, region), HealthChecks: []string{w.hcLink(r, l)},
		LoadBalancingScheme: loadbalancers.Scheme(r.Service.LB), SessionAffinity: "NONE", ConnectionDraining: &api.ConnectionDraining{}, TimeoutSec: 30,
		SelfLink:    l.Compute("projects/%s/regions/%s/backendServices/%s", r.Cluster.Project, region, r.Names.BackendService),
		Fingerprint: loadbalancers.ContentHash(r.Names.BackendService, 12)}
	if r.Service.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		bs.SessionAffinity = "CLIENT_IP"
	}
	if protos := loadbalancers.LBProtocols(&r.Service.Spec); len(protos) == 1 {
		bs.Protocol = string(protos[0])
	} else {
		bs.Protocol = "UNSPECIFIED"
	}
	if r.Service.LB.Internal {
		bs.Network = networkURL(l, r.Cluster)
	}
	for _, z := range r.Cluster.Locations {
		bs.Backends = append(bs.Backends, &api.Backend{Group: w.groupLink(r, z, l), BalancingMode: "CONNECTION"})
	}
	return bs
}

// groupLink is the backend group of a load balancer in a zone: its NEG or the shared
// unmanaged instance group.
func (w *Compute) groupLink(r loadbalancers.LBRef, zone string, l core.Links) string {
	if r.Names.NEG != "" {
		return l.Compute("projects/%s/zones/%s/networkEndpointGroups/%s", r.Cluster.Project, zone, r.Names.NEG)
	}
	return l.Compute("projects/%s/zones/%s/instanceGroups/%s", r.Cluster.Project, zone, r.Names.InstanceGroup)
}

func (w *Compute) hcLink(r loadbalancers.LBRef, l core.Links) string {
	if r.Names.HCRegional {
		return l.Compute("projects/%s/regions/%s/%s/%s", r.Cluster.Project, loadbalancers.RegionOf(r.Cluster), r.Names.HCCollection, r.Names.HealthCheck)
	}
	return l.Compute("projects/%s/global/%s/%s", r.Cluster.Project, r.Names.HCCollection, r.Names.HealthCheck)
}

// BackendServices lists a region's backend services, GKE's and those created outside GKE, by
// name.
func (w *Compute) BackendServices(project, region string, l core.Links) []*api.BackendService {
	out := []*api.BackendService{}
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		if loadbalancers.RegionOf(r.Cluster) == region && r.Names.BackendService != "" {
			out = append(out, w.renderBackendService(r, l))
		}
	}
	out = append(out, w.userBackendServices(project, region, l)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (w *Compute) backendService(project, region, name string) (loadbalancers.LBRef, error) {
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		if loadbalancers.RegionOf(r.Cluster) == region && r.Names.BackendService == name {
			return r, nil
		}
	}
	return loadbalancers.LBRef{}, model.NotFound("The resource 'projects/%s/regions/%s/backendServices/%s' was not found", project, region, name)
}

// BackendService finds one backend service.
func (w *Compute) BackendService(project, region, name string, l core.Links) (*api.BackendService, error) {
	if bs := w.userBackendService(project, region, name); bs != nil {
		return w.renderUserBackendService(loadbalancers.BackendServicePath(project, region, name), bs, l), nil
	}
	r, err := w.backendService(project, region, name)
	if err != nil {
		return nil, err
	}
	return w.renderBackendService(r, l), nil
}

// BackendServiceHealth is backendServices.getHealth: the health of each VM of one backend
// group as the load balancer's health check sees it (R-LB-6).
func (w *Compute) BackendServiceHealth(project, region, name, group string, l core.Links) (*api.BackendServiceGroupHealth, error) {
	if w.userBackendService(project, region, name) != nil {
		return nil, model.InvalidArgument("gkesim does not probe the backends of backend services created outside GKE (%s): getHealth answers for GKE's load balancers only.", loadbalancers.BackendServicePath(project, region, name))
	}
	r, err := w.backendService(project, region, name)
	if err != nil {
		return nil, err
	}
	for _, z := range r.Cluster.Locations {
		if link := w.groupLink(r, z, l); link == group || strings.HasSuffix(link, "/"+strings.TrimPrefix(group, "/")) {
			return &api.BackendServiceGroupHealth{Kind: "compute#backendServiceGroupHealth", HealthStatus: w.healthStatuses(r, z, l)}, nil
		}
	}
	return nil, model.InvalidArgument("Invalid value for field 'resource.group': '%s'. The group is not a backend of backend service %s.", group, name)
}

func (w *Compute) healthStatuses(r loadbalancers.LBRef, zone string, l core.Links) []*api.HealthStatus {
	out := []*api.HealthStatus{}
	fr := ""
	for _, p := range loadbalancers.LBProtocols(&r.Service.Spec) {
		fr = l.Compute("projects/%s/regions/%s/forwardingRules/%s", r.Cluster.Project, loadbalancers.RegionOf(r.Cluster), r.Names.ForwardingRules[p])
		break
	}
	for _, node := range model.SortedKeys(r.Service.LB.Members) {
		if zone != "" && r.Service.LB.Members[node] != zone {
			continue
		}
		n := r.Cluster.Nodes[node]
		h := r.Service.LB.Health[node]
		if n == nil || h == nil {
			continue
		}
		out = append(out, &api.HealthStatus{IpAddress: n.InternalIP, Port: w.loadbalancers.HCPort(r.Service), HealthState: h.State,
			Instance: l.Compute("projects/%s/zones/%s/instances/%s", r.Cluster.Project, n.Zone, node), ForwardingRule: fr, ForwardingRuleIp: r.Service.LB.IP})
	}
	return out
}

func (w *Compute) renderTargetPool(r loadbalancers.LBRef, l core.Links) *api.TargetPool {
	region := loadbalancers.RegionOf(r.Cluster)
	tp := &api.TargetPool{Kind: "compute#targetPool", Id: w.computeID("tp", r.Cluster.Project, r.Names.TargetPool), CreationTimestamp: computeTime(r.Service.LB.ReadyTime),
		Name: r.Names.TargetPool, Description: lbDescription(r), Region: l.Compute("projects/%s/regions/%s", r.Cluster.Project, region),
		HealthChecks: []string{w.hcLink(r, l)}, Instances: []string{}, SessionAffinity: "NONE",
		SelfLink: l.Compute("projects/%s/regions/%s/targetPools/%s", r.Cluster.Project, region, r.Names.TargetPool)}
	if r.Service.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		tp.SessionAffinity = "CLIENT_IP"
	}
	for _, node := range model.SortedKeys(r.Service.LB.Members) {
		tp.Instances = append(tp.Instances, l.Compute("projects/%s/zones/%s/instances/%s", r.Cluster.Project, r.Service.LB.Members[node], node))
	}
	return tp
}

// TargetPools lists a region's target pools.
func (w *Compute) TargetPools(project, region string, l core.Links) []*api.TargetPool {
	out := []*api.TargetPool{}
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		if loadbalancers.RegionOf(r.Cluster) == region && r.Names.TargetPool != "" {
			out = append(out, w.renderTargetPool(r, l))
		}
	}
	return out
}

func (w *Compute) targetPool(project, region, name string) (loadbalancers.LBRef, error) {
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		if loadbalancers.RegionOf(r.Cluster) == region && r.Names.TargetPool == name {
			return r, nil
		}
	}
	return loadbalancers.LBRef{}, model.NotFound("The resource 'projects/%s/regions/%s/targetPools/%s' was not found", project, region, name)
}

// TargetPool finds one target pool.
func (w *Compute) TargetPool(project, region, name string, l core.Links) (*api.TargetPool, error) {
	r, err := w.targetPool(project, region, name)
	if err != nil {
		return nil, err
	}
	return w.renderTargetPool(r, l), nil
}

// TargetPoolHealth is targetPools.getHealth for one instance.
func (w *Compute) TargetPoolHealth(project, region, name, instance string, l core.Links) (*api.TargetPoolInstanceHealth, error) {
	r, err := w.targetPool(project, region, name)
	if err != nil {
		return nil, err
	}
	node := model.LastSegment(instance)
	if _, ok := r.Service.LB.Members[node]; !ok {
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

func (w *Compute) renderNEG(r loadbalancers.LBRef, zone string, l core.Links) *api.NetworkEndpointGroup {
	size := 0
	for _, z := range r.Service.LB.Members {
		if z == zone {
			size++
		}
	}
	return &api.NetworkEndpointGroup{Kind: "compute#networkEndpointGroup", Id: w.computeID("neg", r.Cluster.Project, zone, r.Names.NEG),
		CreationTimestamp: computeTime(r.Service.LB.ReadyTime), Name: r.Names.NEG, Description: lbDescription(r), NetworkEndpointType: "GCE_VM_IP",
		Size: int32(size), Zone: l.Compute("projects/%s/zones/%s", r.Cluster.Project, zone), Network: networkURL(l, r.Cluster), Subnetwork: subnetworkURL(l, r.Cluster),
		SelfLink: l.Compute("projects/%s/zones/%s/networkEndpointGroups/%s", r.Cluster.Project, zone, r.Names.NEG)}
}

// NetworkEndpointGroups lists a zone's GCE_VM_IP NEGs: one per zone per internal Service of
// a cluster with GKE subsetting (R-LB-2).
func (w *Compute) NetworkEndpointGroups(project, zone string, l core.Links) []*api.NetworkEndpointGroup {
	out := []*api.NetworkEndpointGroup{}
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		if r.Names.NEG != "" && slices.Contains(r.Cluster.Locations, zone) {
			out = append(out, w.renderNEG(r, zone, l))
		}
	}
	return out
}

func (w *Compute) neg(project, zone, name string) (loadbalancers.LBRef, error) {
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		if r.Names.NEG == name && slices.Contains(r.Cluster.Locations, zone) {
			return r, nil
		}
	}
	return loadbalancers.LBRef{}, model.NotFound("The resource 'projects/%s/zones/%s/networkEndpointGroups/%s' was not found", project, zone, name)
}

// NetworkEndpointGroup finds one NEG.
func (w *Compute) NetworkEndpointGroup(project, zone, name string, l core.Links) (*api.NetworkEndpointGroup, error) {
	r, err := w.neg(project, zone, name)
	if err != nil {
		return nil, err
	}
	return w.renderNEG(r, zone, l), nil
}

// NetworkEndpoints is networkEndpointGroups.listNetworkEndpoints: the NEG's node endpoints
// (R-LB-3), with their health when asked (healthStatus SHOW).
func (w *Compute) NetworkEndpoints(project, zone, name string, withHealth bool, l core.Links) (*api.NetworkEndpointGroupsListNetworkEndpoints, error) {
	r, err := w.neg(project, zone, name)
	if err != nil {
		return nil, err
	}
	out := &api.NetworkEndpointGroupsListNetworkEndpoints{Kind: "compute#networkEndpointGroupsListNetworkEndpoints", Items: []*api.NetworkEndpointWithHealthStatus{}}
	for _, node := range model.SortedKeys(r.Service.LB.Members) {
		n := r.Cluster.Nodes[node]
		if r.Service.LB.Members[node] != zone || n == nil {
			continue
		}
		item := &api.NetworkEndpointWithHealthStatus{NetworkEndpoint: &api.NetworkEndpoint{IpAddress: n.InternalIP, Instance: node}}
		if h := r.Service.LB.Health[node]; withHealth && h != nil {
			item.Healths = []*api.HealthStatusForNetworkEndpoint{{HealthState: h.State,
				BackendService: &api.BackendServiceReference{BackendService: l.Compute("projects/%s/regions/%s/backendServices/%s", r.Cluster.Project, loadbalancers.RegionOf(r.Cluster), r.Names.BackendService)},
				HealthCheck:    &api.HealthCheckReference{HealthCheck: w.hcLink(r, l)}}}
		}
		out.Items = append(out.Items, item)
	}
	return out, nil
}

// HealthChecks lists the health checks of a collection: healthChecks (global: internal load
// balancers; regional: backend service-based NetLBs) or httpHealthChecks (target pools).
// region is "" for global ones.
func (w *Compute) HealthChecks(project, collection, region string, l core.Links) []any {
	seen := map[string]bool{}
	out := []any{}
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		if r.Names.HCCollection != collection || r.Names.HCRegional != (region != "") || (region != "" && loadbalancers.RegionOf(r.Cluster) != region) || seen[r.Names.HealthCheck] {
			continue
		}
		seen[r.Names.HealthCheck] = true
		interval, unhealthy := loadbalancers.HCParams(r.Service.LB, r.Service.Local())
		desc := lbDescription(r)
		if r.Names.HCShared {
			desc = sharedHCDescription(r.Service.LB.Kind)
			if !loadbalancers.GKEL4Controller(r.Service.LB.Kind) {
				desc = fmt.Sprintf(`{"kubernetes.io/service-name":%q}`, r.Names.HealthCheck)
			}
		}
		link := w.hcLink(r, l)
		if collection == "httpHealthChecks" {
			out = append(out, &api.HttpHealthCheck{Kind: "compute#httpHealthCheck", Id: w.computeID("hc", project, collection, r.Names.HealthCheck),
				CreationTimestamp: computeTime(r.Service.LB.ReadyTime), Name: r.Names.HealthCheck, Description: desc, Port: w.loadbalancers.HCPort(r.Service), RequestPath: "/healthz",
				CheckIntervalSec: int32(interval / time.Second), TimeoutSec: 1, HealthyThreshold: 1, UnhealthyThreshold: int32(unhealthy), SelfLink: link})
			continue
		}
		hc := &api.HealthCheck{Kind: "compute#healthCheck", Id: w.computeID("hc", project, collection, region, r.Names.HealthCheck),
			CreationTimestamp: computeTime(r.Service.LB.ReadyTime), Name: r.Names.HealthCheck, Description: desc,
			CheckIntervalSec: int32(interval / time.Second), TimeoutSec: 1, HealthyThreshold: 1, UnhealthyThreshold: int32(unhealthy), Type: "HTTP",
			HttpHealthCheck: &api.HTTPHealthCheckSpec{Port: w.loadbalancers.HCPort(r.Service), RequestPath: "/healthz", ProxyHeader: "NONE", PortSpecification: "USE_FIXED_PORT"},
			SelfLink:        link}
		if region != "" {
			hc.Region = l.Compute("projects/%s/regions/%s", project, region)
		}
		out = append(out, hc)
	}
	return out
}

// HealthCheck finds one health check of a collection.
func (w *Compute) HealthCheck(project, collection, region, name string, l core.Links) (any, error) {
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

func nodeTag(c *model.Cluster) string {
	return "gke-" + c.Name + "-" + loadbalancers.ContentHash(c.ID, 8) + "-node"
}

// Firewalls lists the firewall rules GKE creates for load balancers: one admitting the
// Service's traffic to the nodes, one admitting the health check probers.
func (w *Compute) Firewalls(project string, l core.Links) []*api.Firewall {
	seen := map[string]bool{}
	out := []*api.Firewall{}
	add := func(r loadbalancers.LBRef, name, desc string, src []string, allowed []*api.FirewallAllowed) {
		if seen[name] {
			return
		}
		seen[name] = true
		out = append(out, &api.Firewall{Kind: "compute#firewall", Id: w.computeID("fw", project, name), CreationTimestamp: computeTime(r.Service.LB.ReadyTime),
			Name: name, Description: desc, Network: networkURL(l, r.Cluster), Priority: 1000, Direction: "INGRESS", SourceRanges: src,
			TargetTags: []string{nodeTag(r.Cluster)}, Allowed: allowed, SelfLink: l.Compute("projects/%s/global/firewalls/%s", project, name)})
	}
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		src := r.Service.Spec.LoadBalancerSourceRanges
		if len(src) == 0 {
			src = []string{"0.0.0.0/0"}
		}
		var allowed []*api.FirewallAllowed
		for _, proto := range loadbalancers.LBProtocols(&r.Service.Spec) {
			a := &api.FirewallAllowed{IPProtocol: strings.ToLower(string(proto))}
			for _, p := range r.Service.Spec.Ports {
				if p.Protocol == proto {
					a.Ports = append(a.Ports, strconv.Itoa(int(p.Port)))
				}
			}
			allowed = append(allowed, a)
		}
		add(r, r.Names.Firewall, lbDescription(r), src, allowed)
		hcSrc := hcSourceRanges
		if r.Service.LB.Kind == loadbalancers.LBExternalTargetPool {
			hcSrc = netlbHCSourceRanges
		}
		add(r, r.Names.HCFirewall, lbDescription(r), hcSrc, []*api.FirewallAllowed{{IPProtocol: "tcp", Ports: []string{strconv.Itoa(int(w.loadbalancers.HCPort(r.Service)))}}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Firewall finds one firewall rule.
func (w *Compute) Firewall(project, name string, l core.Links) (*api.Firewall, error) {
	for _, f := range w.Firewalls(project, l) {
		if f.Name == name {
			return f, nil
		}
	}
	return nil, model.NotFound("The resource 'projects/%s/global/firewalls/%s' was not found", project, name)
}
