package loadbalancers

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// InstanceGroupRef is a managed instance group with the cluster and pool it belongs to.
type InstanceGroupRef struct {
	Cluster *model.Cluster
	Pool    *model.NodePool
	Group   *model.InstanceGroup
}

// InstanceGroups lists a project's managed instance groups in a zone, by name.
func (w *LoadBalancers) InstanceGroups(project, zone string) []InstanceGroupRef {
	var out []InstanceGroupRef
	for _, c := range w.st.Clusters {
		if c.Project != project {
			continue
		}
		for _, p := range c.Pools {
			for _, g := range p.Groups {
				if g.Zone == zone {
					out = append(out, InstanceGroupRef{c, p, g})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group.Name < out[j].Group.Name })
	return out
}

// LBGroup is a cluster's shared unmanaged instance group in a zone: every node of every pool
// there (R-LB-2), the one load-balanced group of each VM (R-LB-5).
type LBGroup struct {
	Cluster *model.Cluster
	Name    string
	Since   time.Time
	Nodes   []string
}

// LBGroups lists the unmanaged instance groups GKE keeps in a zone for the instance-group
// based load balancers of a project's clusters. Members are those of the load balancers using
// them (all the same once synced).
func (w *LoadBalancers) LBGroups(project, zone string) []LBGroup {
	var out []LBGroup
	byCluster := map[*model.Cluster]*LBGroup{}
	for _, r := range w.ProjectLBs(project) {
		if r.Names.InstanceGroup == "" || !slices.Contains(r.Cluster.Locations, zone) {
			continue
		}
		g := byCluster[r.Cluster]
		if g == nil {
			out = append(out, LBGroup{Cluster: r.Cluster, Name: r.Names.InstanceGroup, Since: r.Service.LB.ReadyTime})
			g = &out[len(out)-1]
			byCluster[r.Cluster] = g
		}
		if r.Service.LB.ReadyTime.Before(g.Since) {
			g.Since = r.Service.LB.ReadyTime
		}
		for node, z := range r.Service.LB.Members {
			if z == zone && !slices.Contains(g.Nodes, node) {
				g.Nodes = append(g.Nodes, node)
			}
		}
	}
	for i := range out {
		sort.Strings(out[i].Nodes)
	}
	return out
}

// InstanceGroupFound is an instance group of a zone: a user's, a node pool's managed one, or
// GKE's shared load-balancing one.
type InstanceGroupFound struct {
	Path    string
	User    *model.UserInstanceGroup
	Managed *InstanceGroupRef
	GKE     *LBGroup
}

// Members are the group's VMs (node names).
func (f InstanceGroupFound) Members() []string {
	switch {
	case f.User != nil:
		return f.User.Instances
	case f.Managed != nil:
		return f.Managed.Group.Nodes
	}
	return f.GKE.Nodes
}

// Describe says whose group it is, for messages.
func (f InstanceGroupFound) Describe() string {
	switch {
	case f.User != nil:
		return "an unmanaged instance group created outside GKE"
	case f.Managed != nil:
		return fmt.Sprintf("the managed instance group of node pool %s of cluster %s", f.Managed.Pool.Name, f.Managed.Cluster.Name)
	}
	return fmt.Sprintf("GKE's shared instance group of cluster %s", f.GKE.Cluster.Name)
}

func (w *LoadBalancers) FindInstanceGroup(project, zone, name string) (InstanceGroupFound, bool) {
	path := InstanceGroupPath(project, zone, name)
	if uc := w.st.Compute; uc != nil {
		if ig := uc.InstanceGroups[path]; ig != nil {
			return InstanceGroupFound{Path: path, User: ig}, true
		}
	}
	for _, r := range w.InstanceGroups(project, zone) {
		if r.Group.Name == name {
			return InstanceGroupFound{Path: path, Managed: &r}, true
		}
	}
	for _, g := range w.LBGroups(project, zone) {
		if g.Name == name {
			return InstanceGroupFound{Path: path, GKE: &g}, true
		}
	}
	return InstanceGroupFound{}, false
}

// FindVM finds a VM (a node of one of the project's clusters) in a zone.
func (w *LoadBalancers) FindVM(project, zone, name string) (*model.Cluster, *model.Node) {
	for _, c := range w.core.ClustersIn(project, "-") {
		if n := c.Nodes[name]; n != nil && n.Zone == zone {
			return c, n
		}
	}
	return nil, nil
}
