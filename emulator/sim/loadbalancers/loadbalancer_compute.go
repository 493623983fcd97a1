package loadbalancers

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The Compute Engine resources of the load balancers (as compute.googleapis.com v1 shapes them;
// GKE's beside those users created outside GKE, compute_user.go), the emulator's status view of
// each load balancer, and the path of a packet through one (R-LB-7).

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

// ---- instance groups ----

// lbGroup is a cluster's shared unmanaged instance group in a zone: every node of every pool
// there (R-LB-2), the one load-balanced group of each VM (R-LB-5).
type lbGroup struct {
	c     *model.Cluster
	name  string
	since time.Time
	Nodes []string
}

// LbGroups lists the unmanaged instance groups GKE keeps in a zone for the instance-group
// based load balancers of a project's clusters. Members are those of the load balancers using
// them (all the same once synced).
func (w *LoadBalancers) LbGroups(project, zone string) []lbGroup {
	var out []lbGroup
	byCluster := map[*model.Cluster]*lbGroup{}
	for _, r := range w.projectLBs(project) {
		if r.n.InstanceGroup == "" || !model.Contains(r.c.Locations, zone) {
			continue
		}
		g := byCluster[r.c]
		if g == nil {
			out = append(out, lbGroup{c: r.c, name: r.n.InstanceGroup, since: r.s.LB.ReadyTime})
			g = &out[len(out)-1]
			byCluster[r.c] = g
		}
		if r.s.LB.ReadyTime.Before(g.since) {
			g.since = r.s.LB.ReadyTime
		}
		for node, z := range r.s.LB.Members {
			if z == zone && !model.Contains(g.Nodes, node) {
				g.Nodes = append(g.Nodes, node)
			}
		}
	}
	for i := range out {
		sort.Strings(out[i].Nodes)
	}
	return out
}

// InstanceGroups lists a zone's instance groups: the node pools' managed ones and GKE's
// unmanaged load-balancing ones.
func (w *LoadBalancers) InstanceGroups(project, zone string, l core.Links) []*api.InstanceGroup {
	out := []*api.InstanceGroup{}
	zoneURL := l.Compute("projects/%s/zones/%s", project, zone)
	for _, r := range w.instanceGroups(project, zone) {
		out = append(out, &api.InstanceGroup{Kind: "compute#instanceGroup", Id: w.computeID("ig", project, zone, r.g.Name),
			CreationTimestamp: computeTime(r.p.CreateTime), Name: r.g.Name, Description: "This instance group is controlled by Instance Group Manager '" + r.g.Name + "'. To modify instances in this group, use the Instance Group Manager API: https://cloud.google.com/compute/docs/reference/latest/instanceGroupManagers",
			Network: networkURL(l, r.c), Subnetwork: subnetworkURL(l, r.c), Fingerprint: contentHash(r.g.Name, 12), Zone: zoneURL,
			Size: int32(len(r.g.Nodes)), SelfLink: zoneURL + "/instanceGroups/" + r.g.Name})
	}
	for _, g := range w.LbGroups(project, zone) {
		out = append(out, &api.InstanceGroup{Kind: "compute#instanceGroup", Id: w.computeID("ig", project, zone, g.name),
			CreationTimestamp: computeTime(g.since), Name: g.name, Description: `{"kubernetes.io/cluster-name":"` + g.c.Name + `"}`,
			NamedPorts: nil, Network: networkURL(l, g.c), Subnetwork: subnetworkURL(l, g.c), Fingerprint: contentHash(strings.Join(g.Nodes, ","), 12),
			Zone: zoneURL, Size: int32(len(g.Nodes)), SelfLink: zoneURL + "/instanceGroups/" + g.name})
	}
	for _, key := range w.userInstanceGroups(project, zone) {
		out = append(out, w.renderUserInstanceGroup(key, w.st.Compute.InstanceGroups[key], l))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// InstanceGroup finds one instance group.
func (w *LoadBalancers) InstanceGroup(project, zone, name string, l core.Links) (*api.InstanceGroup, error) {
	for _, g := range w.InstanceGroups(project, zone, l) {
		if g.Name == name {
			return g, nil
		}
	}
	return nil, model.NotFound("The resource 'projects/%s/zones/%s/instanceGroups/%s' was not found", project, zone, name)
}

// InstanceGroupInstances is instanceGroups.listInstances.
func (w *LoadBalancers) InstanceGroupInstances(project, zone, name string, l core.Links) (*api.InstanceGroupsListInstances, error) {
	out := &api.InstanceGroupsListInstances{Kind: "compute#instanceGroupsListInstances", Items: []*api.InstanceWithNamedPorts{}}
	inst := func(node string) string { return l.Compute("projects/%s/zones/%s/instances/%s", project, zone, node) }
	for _, r := range w.instanceGroups(project, zone) {
		if r.g.Name != name {
			continue
		}
		for _, node := range r.g.Nodes {
			out.Items = append(out.Items, &api.InstanceWithNamedPorts{Instance: inst(node), Status: instanceStatus(r.c.Nodes[node])})
		}
		return out, nil
	}
	if uc := w.st.Compute; uc != nil {
		if ig := uc.InstanceGroups[instanceGroupPath(project, zone, name)]; ig != nil {
			for _, node := range ig.Instances {
				_, n := w.findVM(project, zone, node)
				out.Items = append(out.Items, &api.InstanceWithNamedPorts{Instance: inst(node), Status: instanceStatus(n)})
			}
			return out, nil
		}
	}
	for _, g := range w.LbGroups(project, zone) {
		if g.name != name {
			continue
		}
		for _, node := range g.Nodes {
			out.Items = append(out.Items, &api.InstanceWithNamedPorts{Instance: inst(node), Status: "RUNNING"})
		}
		return out, nil
	}
	return nil, model.NotFound("The resource 'projects/%s/zones/%s/instanceGroups/%s' was not found", project, zone, name)
}

// instanceStatus is a VM's status as Compute Engine lists it.
func instanceStatus(n *model.Node) string {
	switch {
	case n == nil:
		return "TERMINATED"
	case n.State == model.NodeProvisioning:
		return "PROVISIONING"
	case n.State == model.NodeDeleting:
		return "STOPPING"
	}
	return "RUNNING"
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
	kind, why := LbKindFor(c, s)
	if kind != lb.Kind {
		why = "the kind was fixed when the load balancer was created and is kept (" + lb.Kind + ")"
	}
	n := w.LbNamesOf(c, s)
	out := &api.LoadBalancerStatus{Service: s.Key(), Kind: lb.Kind, Scheme: scheme(lb), State: lb.State, ExternalTrafficPolicy: string(s.Spec.ExternalTrafficPolicy),
		Why: why, BackendService: n.BackendService, TargetPool: n.targetPool, Backends: []*api.LoadBalancerNode{}}
	if lb.State != LbProvisioning {
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
	for _, p := range lbProtocols(&s.Spec) {
		out.ForwardingRules = append(out.ForwardingRules, n.forwardingRules[p])
	}
	for _, z := range c.Locations {
		if n.neg != "" {
			out.NetworkEndpointGroups = append(out.NetworkEndpointGroups, "zones/"+z+"/networkEndpointGroups/"+n.neg)
		}
		if n.InstanceGroup != "" {
			out.InstanceGroups = append(out.InstanceGroups, "zones/"+z+"/instanceGroups/"+n.InstanceGroup)
		}
	}
	interval, unhealthy := hcParams(lb, s.Local())
	out.HealthCheck = &api.LoadBalancerHC{Name: n.healthCheck, Collection: n.hcCollection, Port: w.hcPort(s), RequestPath: "/healthz",
		CheckIntervalSec: int32(interval / time.Second), HealthyThreshold: 1, UnhealthyThreshold: int32(unhealthy), Shared: n.hcShared}
	out.FirewallRules = []string{n.firewall, n.hcFirewall}
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
		sub := &api.LoadBalancerSubsets{Limit: NegClusterLimit, PerZone: map[string]int{}}
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

// ---- the packet path (R-LB-7) ----

// TraceRequest is a packet to trace.
type TraceRequest struct {
	IP         string
	Port       int32
	Protocol   string
	Client     string
	ClientPort int32
}

// isPrivate says whether ip is an RFC 1918 address (inside a VPC).
func isPrivate(ip net.IP) bool {
	ip4 := ip.To4()
	return ip4 != nil && (ip4[0] == 10 || (ip4[0] == 172 && ip4[1]&0xf0 == 16) || (ip4[0] == 192 && ip4[1] == 168))
}

// TracePacket says where a packet to ip:port would land: which Service answers there, which
// node the load balancer (or node port) hands it to, which pod the node's kube-proxy sends it
// to, and with which source address (R-LB-7). Choices that are random in GKE (the load
// balancer's 5-tuple hash, kube-proxy's pick) are a hash of the packet and the seed.
func (w *LoadBalancers) TracePacket(c *model.Cluster, req TraceRequest) (*api.PacketTrace, error) {
	if req.Protocol == "" {
		req.Protocol = "TCP"
	}
	req.Protocol = strings.ToUpper(req.Protocol)
	dst := net.ParseIP(req.IP)
	if dst == nil || dst.To4() == nil {
		return nil, model.InvalidArgument("Invalid value for parameter \"ip\": %q. Give the IPv4 address the packet is sent to (a load balancer IP, a cluster IP or a node IP).", req.IP)
	}
	if req.Port < 1 || req.Port > 65535 {
		return nil, model.InvalidArgument("Invalid value for parameter \"port\": %d. Give the destination port, 1-65535.", req.Port)
	}
	out := &api.PacketTrace{Destination: fmt.Sprintf("%s:%d", req.IP, req.Port), Protocol: req.Protocol, Hops: []string{}}
	hop := func(format string, args ...any) { out.Hops = append(out.Hops, fmt.Sprintf(format, args...)) }
	pick := func(n int, what string) int {
		return int(w.hashOf("trace", what, req.Client, strconv.Itoa(int(req.ClientPort)), req.IP, strconv.Itoa(int(req.Port)), req.Protocol) % uint64(n))
	}

	s, sp, via, node := w.traceTarget(c, req)
	if s == nil {
		out.Result, out.Reason = "NO_MATCH", fmt.Sprintf("no Service of cluster %s answers on %s:%d/%s", c.Name, req.IP, req.Port, req.Protocol)
		return out, nil
	}
	out.Service, out.Via, out.Policy = s.Key(), via, string(s.Spec.ExternalTrafficPolicy)
	if req.Client == "" {
		req.Client = "203.0.113.10"
		if s.LB != nil && s.LB.Internal || via == "clusterIP" {
			req.Client = "10.128.0.100"
		}
	}
	out.Client = fmt.Sprintf("%s:%d", req.Client, req.ClientPort)
	client := net.ParseIP(req.Client)
	if client == nil || client.To4() == nil {
		return nil, model.InvalidArgument("Invalid value for parameter \"clientIp\": %q. Give the IPv4 address the packet comes from.", req.Client)
	}

	switch via {
	case "loadBalancer":
		lb := s.LB
		out.Kind = lb.Kind
		switch {
		case lb.Failed != "":
			out.Result, out.Reason = "DROPPED", fmt.Sprintf("GKE could not build the load balancer of service %s: %s", s.Key(), lb.Failed)
			return out, nil
		case lb.State != LbReady:
			out.Result, out.Reason = "DROPPED", fmt.Sprintf("the load balancer of service %s is %s", s.Key(), strings.ToLower(lb.State))
			return out, nil
		}
		if lb.Internal && !isPrivate(client) {
			out.Result, out.Reason = "DROPPED", fmt.Sprintf("%s is an internal passthrough Network Load Balancer address: only clients in the VPC network (or connected networks) reach it, not %s", lb.IP, req.Client)
			return out, nil
		}
		n := w.LbNamesOf(c, s)
		hop("forwarding rule %s (%s %s %s:%d) -> %s", n.forwardingRules[sp.Protocol], scheme(lb), req.Protocol, lb.IP, req.Port, describeBackend(lb.Kind, n))
		if b := lb.Blocked; b != nil {
			hop("GKE's last %d syncs of its instance groups failed (%s is in %s, a backend of %s, and a VM may be in one load-balanced instance group only); the backends are those from before", b.Attempts, model.LastSegment(b.Instance), b.Group, b.BackendService)
		}
		var healthy, all []string
		for _, m := range model.SortedKeys(lb.Members) {
			all = append(all, m)
			if h := lb.Health[m]; h != nil && h.State == HealthHealthy {
				healthy = append(healthy, m)
			}
		}
		cands := healthy
		switch {
		case len(all) == 0:
			out.Result, out.Reason = "DROPPED", "the load balancer has no backends"
			return out, nil
		case len(healthy) == 0:
			cands = all
			hop("no backend is healthy: the load balancer spreads new connections over all %d backends (failover to all when every backend is unhealthy)", len(all))
		default:
			hop("%d of %d backends healthy (health check %s on port %d)", len(healthy), len(all), n.healthCheck, w.hcPort(s))
		}
		node = c.Nodes[cands[pick(len(cands), "node")]]
		out.Node = &api.TraceNode{Name: node.Name, Zone: node.Zone, IP: node.InternalIP, Health: lb.Health[node.Name].State, Candidates: len(cands)}
		hop("delivered to node %s (%s, %s) on nic0, destination still %s:%d (passthrough)", node.Name, node.InternalIP, node.Zone, lb.IP, req.Port)
	case "nodePort":
		out.Node = &api.TraceNode{Name: node.Name, Zone: node.Zone, IP: node.InternalIP, Candidates: 1}
		hop("node port %d on node %s", req.Port, node.Name)
	case "clusterIP":
		hop("cluster IP %s:%d of service %s (kube-proxy on the client's node)", s.Spec.ClusterIP, req.Port, s.Key())
	}

	// kube-proxy on the node: DNAT to an endpoint, SNAT unless the policy preserves the client.
	local := via != "clusterIP" && s.Local()
	ix := w.ServiceIndex(c)
	var eps []*model.Pod
	if local {
		for p, n := range ix.serving[s.Key()] {
			if n == node.Name {
				eps = append(eps, p)
			}
		}
	} else {
		for p := range ix.serving[s.Key()] {
			eps = append(eps, p)
		}
	}
	terminating := false
	if len(eps) == 0 {
		mv, _ := catalog.ParseVersion(c.MasterVersion)
		if mv.Minor >= 26 {
			eps = w.terminatingEndpoints(c, s, node, local)
			terminating = len(eps) > 0
		}
	}
	if len(eps) == 0 {
		if local {
			out.Result = "DROPPED"
			out.Reason = fmt.Sprintf("externalTrafficPolicy Local: node %s has no serving pod of %s; kube-proxy drops the packet (the node still passes the health check until the unhealthy threshold)", node.Name, s.Key())
		} else {
			out.Result = "REJECTED"
			out.Reason = fmt.Sprintf("service %s has no serving pod: kube-proxy rejects the connection (ICMP port unreachable / TCP reset)", s.Key())
		}
		return out, nil
	}
	sortPods(eps)
	pod := eps[pick(len(eps), "pod")]
	target, err := targetPortOf(w.core.PodSpec(c, pod), sp)
	if err != "" {
		out.Result, out.Reason = "REJECTED", err
		return out, nil
	}
	out.Pod = &api.TracePod{Namespace: pod.Namespace, Name: pod.Name, IP: pod.IP, Port: target, Node: pod.Node, Ready: pod.Ready,
		Terminating: pod.Terminating, SameNode: node == nil || pod.Node == node.Name}
	if terminating {
		hop("no ready endpoint%s: using a terminating pod as a last resort (proxy terminating endpoints, GKE 1.26 and later)", map[bool]string{true: " on this node", false: ""}[local])
	}
	switch {
	case via == "clusterIP":
		out.SourceIPAtPod, out.SNAT = req.Client, false
		hop("DNAT to pod %s (%s:%d) on node %s", pod.Key(), pod.IP, target, pod.Node)
	case local:
		out.SourceIPAtPod, out.SNAT = req.Client, false
		hop("externalTrafficPolicy Local: DNAT to local pod %s (%s:%d); no SNAT, the pod sees the client address %s", pod.Key(), pod.IP, target, req.Client)
	default:
		out.SourceIPAtPod, out.SNAT = node.InternalIP, true
		if pod.Node == node.Name {
			hop("externalTrafficPolicy Cluster: DNAT to pod %s (%s:%d) on this node; SNAT to the node address %s", pod.Key(), pod.IP, target, node.InternalIP)
		} else {
			hop("externalTrafficPolicy Cluster: DNAT to pod %s (%s:%d) on node %s; SNAT to %s, so replies come back through %s, which answers the client directly (direct server return)",
				pod.Key(), pod.IP, target, pod.Node, node.InternalIP, node.Name)
		}
	}
	out.Result = "DELIVERED"
	return out, nil
}

// traceTarget finds the Service, port and path that answer a packet, and the node for a node
// port.
func (w *LoadBalancers) traceTarget(c *model.Cluster, req TraceRequest) (*model.Service, corev1.ServicePort, string, *model.Node) {
	var nodeByIP *model.Node
	for _, name := range core.SortedNodeNames(c) {
		if n := c.Nodes[name]; n.InternalIP == req.IP && n.State != model.NodeProvisioning {
			nodeByIP = n
		}
	}
	for _, key := range model.SortedKeys(c.Services) {
		s := c.Services[key]
		for _, p := range s.Spec.Ports {
			if string(p.Protocol) != req.Protocol {
				continue
			}
			switch {
			case s.LB != nil && s.LB.IP == req.IP && p.Port == req.Port:
				return s, p, "loadBalancer", nil
			case s.Spec.ClusterIP == req.IP && p.Port == req.Port:
				return s, p, "clusterIP", nil
			case nodeByIP != nil && p.NodePort == req.Port && p.NodePort != 0:
				return s, p, "nodePort", nodeByIP
			}
		}
	}
	return nil, corev1.ServicePort{}, "", nil
}

// terminatingEndpoints are the Service's pods that are terminating but still running: kube-proxy
// uses them when no ready endpoint is left (on the node, for Local).
func (w *LoadBalancers) terminatingEndpoints(c *model.Cluster, s *model.Service, node *model.Node, local bool) []*model.Pod {
	sel := w.ServiceIndex(c).selectors[s.Key()]
	if sel == nil {
		return nil
	}
	var out []*model.Pod
	consider := func(p *model.Pod) {
		if p.Namespace == s.Namespace && p.Terminating && p.Node != "" && p.Phase == model.PodRunning && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	if local {
		for _, p := range w.core.PodIndex(c).PodsOnNode[node.Name] {
			consider(p)
		}
		return out
	}
	for _, p := range c.Pods {
		consider(p)
	}
	return out
}

func sortPods(ps []*model.Pod) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].Key() < ps[j].Key() })
}

// targetPortOf resolves a Service port's targetPort on a pod (a number, or a container port's name).
func targetPortOf(spec *corev1.PodSpec, sp corev1.ServicePort) (int32, string) {
	if sp.TargetPort.Type == intstr.Int {
		return sp.TargetPort.IntVal, ""
	}
	for _, ct := range spec.Containers {
		for _, p := range ct.Ports {
			if p.Name == sp.TargetPort.StrVal {
				return p.ContainerPort, ""
			}
		}
	}
	return 0, fmt.Sprintf("the pod has no container port named %q (targetPort of port %d): the connection is refused", sp.TargetPort.StrVal, sp.Port)
}

func describeBackend(kind string, n lbNames) string {
	switch kind {
	case LBInternalNEG:
		return "backend service " + n.BackendService + " (GCE_VM_IP NEGs " + n.neg + ")"
	case LBExternalTargetPool:
		return "target pool " + n.targetPool
	}
	return "backend service " + n.BackendService + " (instance groups " + n.InstanceGroup + ")"
}
