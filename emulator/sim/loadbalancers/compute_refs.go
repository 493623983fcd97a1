package loadbalancers

import (
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// How the load balancers name and find Compute resources: paths and references, and a
// project's ready load balancers (package compute renders them).

// LBRef is a ready load balancer with its names.
type LBRef struct {
	Cluster *model.Cluster
	Service *model.Service
	Names   LBNames
}

// ProjectLBs lists a project's ready load balancers, by cluster and Service.
func (w *LoadBalancers) ProjectLBs(project string) []LBRef {
	var out []LBRef
	for _, c := range w.core.ClustersIn(project, "-") {
		for _, key := range model.SortedKeys(c.Services) {
			s := c.Services[key]
			if s.LB != nil && (s.LB.State == LBReady || s.LB.State == lbDeleting) {
				out = append(out, LBRef{c, s, w.LBNamesOf(c, s)})
			}
		}
	}
	return out
}

// Scheme is the load-balancing scheme of a load balancer's forwarding rule and backend service.
func Scheme(lb *model.LoadBalancer) string {
	if lb.Internal {
		return "INTERNAL"
	}
	return "EXTERNAL"
}

// BackendServicePath is the Compute path of a regional backend service.
func BackendServicePath(project, region, name string) string {
	return "projects/" + project + "/regions/" + region + "/backendServices/" + name
}

// InstanceGroupPath is the Compute path of a zonal instance group.
func InstanceGroupPath(project, zone, name string) string {
	return "projects/" + project + "/zones/" + zone + "/instanceGroups/" + name
}

// InstancePath is the Compute path of a VM.
func InstancePath(project, zone, name string) string {
	return "projects/" + project + "/zones/" + zone + "/instances/" + name
}

// ComputePathOf reduces a Compute Engine URL, or a path relative to the project, to its path
// from "projects/" on.
func ComputePathOf(link, project string) string {
	if i := strings.Index(link, "projects/"); i >= 0 {
		return link[i:]
	}
	return "projects/" + project + "/" + strings.TrimPrefix(link, "/")
}

// ComputeRef is a zonal or regional resource named by a URL, a path (projects/P/zones/Z/...)
// or a path relative to the project (zones/Z/...).
type ComputeRef struct{ Project, ScopeKind, Scope, Collection, Name string }

// ParseComputeRef reads a Compute resource's link (a URL or a path) in project.
func ParseComputeRef(link, project string) (ComputeRef, bool) {
	parts := strings.Split(ComputePathOf(link, project), "/")
	if len(parts) != 6 || (parts[2] != "zones" && parts[2] != "regions") {
		return ComputeRef{}, false
	}
	for _, s := range parts {
		if s == "" {
			return ComputeRef{}, false
		}
	}
	return ComputeRef{parts[1], parts[2], parts[3], parts[4], parts[5]}, true
}

// Path is the resource's Compute path.
func (r ComputeRef) Path() string {
	return strings.Join([]string{"projects", r.Project, r.ScopeKind, r.Scope, r.Collection, r.Name}, "/")
}
