package loadbalancers

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The Compute Engine view of instance groups, read-only, of every owner: the node pools' managed
// instance groups (one per pool per zone) and their managers, GKE's shared unmanaged groups of
// its instance-group load balancers, and the users' own (compute_user_instance_groups.go); and
// finding a group or a VM whoever owns it.

// ---- managed instance groups of the node pools ----

// instanceGroupRef is a managed instance group with the cluster and pool it belongs to.
type instanceGroupRef struct {
	c *model.Cluster
	p *model.NodePool
	g *model.InstanceGroup
}

// instanceGroups lists a project's managed instance groups in a zone, by name.
func (w *LoadBalancers) instanceGroups(project, zone string) []instanceGroupRef {
	var out []instanceGroupRef
	for _, c := range w.st.Clusters {
		if c.Project != project {
			continue
		}
		for _, p := range c.Pools {
			for _, g := range p.Groups {
				if g.Zone == zone {
					out = append(out, instanceGroupRef{c, p, g})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].g.Name < out[j].g.Name })
	return out
}

// InstanceGroupManagers renders a zone's managed instance groups.
func (w *LoadBalancers) InstanceGroupManagers(project, zone string, links core.Links) []*api.InstanceGroupManager {
	var out []*api.InstanceGroupManager
	for _, r := range w.instanceGroups(project, zone) {
		out = append(out, w.renderIGM(r, links))
	}
	return out
}

// InstanceGroupManager finds one managed instance group.
func (w *LoadBalancers) InstanceGroupManager(project, zone, name string, links core.Links) (*api.InstanceGroupManager, error) {
	for _, r := range w.instanceGroups(project, zone) {
		if r.g.Name == name {
			return w.renderIGM(r, links), nil
		}
	}
	return nil, model.NotFound("The resource 'projects/%s/zones/%s/instanceGroupManagers/%s' was not found", project, zone, name)
}

// ManagedInstances lists the VMs of a managed instance group with what the group is doing to each.
func (w *LoadBalancers) ManagedInstances(project, zone, name string, links core.Links) (*api.ManagedInstanceList, error) {
	for _, r := range w.instanceGroups(project, zone) {
		if r.g.Name != name {
			continue
		}
		out := &api.ManagedInstanceList{}
		for _, n := range r.g.Nodes {
			node := r.c.Nodes[n]
			mi := &api.ManagedInstance{Instance: links.Compute("projects/%s/zones/%s/instances/%s", project, zone, n), CurrentAction: "NONE", InstanceStatus: "RUNNING"}
			switch node.State {
			case model.NodeProvisioning:
				mi.CurrentAction, mi.InstanceStatus = "CREATING", "PROVISIONING"
			case model.NodeDeleting:
				mi.CurrentAction, mi.InstanceStatus = "DELETING", "STOPPING"
			}
			out.ManagedInstances = append(out.ManagedInstances, mi)
		}
		return out, nil
	}
	return nil, model.NotFound("The resource 'projects/%s/zones/%s/instanceGroupManagers/%s' was not found", project, zone, name)
}

func (w *LoadBalancers) renderIGM(r instanceGroupRef, links core.Links) *api.InstanceGroupManager {
	ix := w.core.Index(r.c, r.g)
	acts := &api.InstanceGroupManagerAction{
		Creating: int32(ix.ByState[model.NodeProvisioning]),
		Deleting: int32(ix.ByState[model.NodeDeleting]),
	}
	acts.None = int32(len(r.g.Nodes)) - acts.Creating - acts.Deleting
	zoneURL := links.Compute("projects/%s/zones/%s", r.c.Project, r.g.Zone)
	return &api.InstanceGroupManager{
		Kind: "compute#instanceGroupManager", Id: w.computeID("igm", r.c.Project, r.g.Zone, r.g.Name), Name: r.g.Name, Zone: zoneURL,
		SelfLink:          zoneURL + "/instanceGroupManagers/" + r.g.Name,
		BaseInstanceName:  model.NodeNameBase(r.c.Name, r.p.Name) + "-" + r.g.Hash,
		InstanceGroup:     zoneURL + "/instanceGroups/" + r.g.Name,
		InstanceTemplate:  links.Compute("projects/%s/global/instanceTemplates/%s", r.c.Project, model.NodeNameBase(r.c.Name, r.p.Name)+"-"+r.g.Hash),
		TargetSize:        int32(r.g.TargetSize),
		CurrentActions:    acts,
		Status:            &api.InstanceGroupManagerStatus{IsStable: acts.Creating == 0 && acts.Deleting == 0},
		CreationTimestamp: r.p.CreateTime.Format(time.RFC3339),
	}
}

// ---- GKE's shared unmanaged instance groups, and the instance groups of a zone ----

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

// ---- instance groups of every owner ----

// instanceGroupFound is an instance group of a zone: a user's, a node pool's managed one, or
// GKE's shared load-balancing one.
type instanceGroupFound struct {
	path    string
	user    *model.UserInstanceGroup
	managed *instanceGroupRef
	gke     *lbGroup
}

// members are the group's VMs (node names).
func (f instanceGroupFound) members() []string {
	switch {
	case f.user != nil:
		return f.user.Instances
	case f.managed != nil:
		return f.managed.g.Nodes
	}
	return f.gke.Nodes
}

// describe says whose group it is, for messages.
func (f instanceGroupFound) describe() string {
	switch {
	case f.user != nil:
		return "an unmanaged instance group created outside GKE"
	case f.managed != nil:
		return fmt.Sprintf("the managed instance group of node pool %s of cluster %s", f.managed.p.Name, f.managed.c.Name)
	}
	return fmt.Sprintf("GKE's shared instance group of cluster %s", f.gke.c.Name)
}

func (w *LoadBalancers) findInstanceGroup(project, zone, name string) (instanceGroupFound, bool) {
	path := instanceGroupPath(project, zone, name)
	if uc := w.st.Compute; uc != nil {
		if ig := uc.InstanceGroups[path]; ig != nil {
			return instanceGroupFound{path: path, user: ig}, true
		}
	}
	for _, r := range w.instanceGroups(project, zone) {
		if r.g.Name == name {
			return instanceGroupFound{path: path, managed: &r}, true
		}
	}
	for _, g := range w.LbGroups(project, zone) {
		if g.name == name {
			return instanceGroupFound{path: path, gke: &g}, true
		}
	}
	return instanceGroupFound{}, false
}

// findVM finds a VM (a node of one of the project's clusters) in a zone.
func (w *LoadBalancers) findVM(project, zone, name string) (*model.Cluster, *model.Node) {
	for _, c := range w.core.ClustersIn(project, "-") {
		if n := c.Nodes[name]; n != nil && n.Zone == zone {
			return c, n
		}
	}
	return nil, nil
}
