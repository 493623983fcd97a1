package compute

import (
	"sort"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The Compute Engine view of instance groups, read-only, of every owner: the node pools' managed
// instance groups (one per pool per zone) and their managers, GKE's shared unmanaged groups of
// its instance-group load balancers, and the users' own (user_instance_groups.go); and
// finding a group or a VM whoever owns it.

// ---- managed instance groups of the node pools ----

// ---- GKE's shared unmanaged instance groups, and the instance groups of a zone ----

// ---- instance groups of every owner ----

// InstanceGroupManagers renders a zone's managed instance groups.
func (w *Compute) InstanceGroupManagers(project, zone string, links core.Links) []*api.InstanceGroupManager {
	var out []*api.InstanceGroupManager
	for _, r := range w.loadbalancers.InstanceGroups(project, zone) {
		out = append(out, w.renderIGM(r, links))
	}
	return out
}

// InstanceGroupManager finds one managed instance group.
func (w *Compute) InstanceGroupManager(project, zone, name string, links core.Links) (*api.InstanceGroupManager, error) {
	for _, r := range w.loadbalancers.InstanceGroups(project, zone) {
		if r.Group.Name == name {
			return w.renderIGM(r, links), nil
		}
	}
	return nil, model.NotFound("The resource 'projects/%s/zones/%s/instanceGroupManagers/%s' was not found", project, zone, name)
}

// ManagedInstances lists the VMs of a managed instance group with what the group is doing to each.
func (w *Compute) ManagedInstances(project, zone, name string, links core.Links) (*api.ManagedInstanceList, error) {
	for _, r := range w.loadbalancers.InstanceGroups(project, zone) {
		if r.Group.Name != name {
			continue
		}
		out := &api.ManagedInstanceList{}
		for _, n := range r.Group.Nodes {
			node := r.Cluster.Nodes[n]
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

func (w *Compute) renderIGM(r loadbalancers.InstanceGroupRef, links core.Links) *api.InstanceGroupManager {
	ix := w.core.GroupIndex(r.Cluster, r.Group)
	acts := &api.InstanceGroupManagerAction{
		Creating: int32(ix.ByState[model.NodeProvisioning]),
		Deleting: int32(ix.ByState[model.NodeDeleting]),
	}
	acts.None = int32(len(r.Group.Nodes)) - acts.Creating - acts.Deleting
	zoneURL := links.Compute("projects/%s/zones/%s", r.Cluster.Project, r.Group.Zone)
	return &api.InstanceGroupManager{
		Kind: "compute#instanceGroupManager", Id: w.computeID("igm", r.Cluster.Project, r.Group.Zone, r.Group.Name), Name: r.Group.Name, Zone: zoneURL,
		SelfLink:          zoneURL + "/instanceGroupManagers/" + r.Group.Name,
		BaseInstanceName:  model.NodeNameBase(r.Cluster.Name, r.Pool.Name) + "-" + r.Group.Hash,
		InstanceGroup:     zoneURL + "/instanceGroups/" + r.Group.Name,
		InstanceTemplate:  links.Compute("projects/%s/global/instanceTemplates/%s", r.Cluster.Project, model.NodeNameBase(r.Cluster.Name, r.Pool.Name)+"-"+r.Group.Hash),
		TargetSize:        int32(r.Group.TargetSize),
		CurrentActions:    acts,
		Status:            &api.InstanceGroupManagerStatus{IsStable: acts.Creating == 0 && acts.Deleting == 0},
		CreationTimestamp: r.Pool.CreateTime.Format(time.RFC3339),
	}
}

// InstanceGroups lists a zone's instance groups: the node pools' managed ones and GKE's
// unmanaged load-balancing ones.
func (w *Compute) InstanceGroups(project, zone string, l core.Links) []*api.InstanceGroup {
	out := []*api.InstanceGroup{}
	zoneURL := l.Compute("projects/%s/zones/%s", project, zone)
	for _, r := range w.loadbalancers.InstanceGroups(project, zone) {
		out = append(out, &api.InstanceGroup{Kind: "compute#instanceGroup", Id: w.computeID("ig", project, zone, r.Group.Name),
			CreationTimestamp: computeTime(r.Pool.CreateTime), Name: r.Group.Name, Description: "This instance group is controlled by Instance Group Manager '" + r.Group.Name + "'. To modify instances in this group, use the Instance Group Manager API: https://cloud.google.com/compute/docs/reference/latest/instanceGroupManagers",
			Network: networkURL(l, r.Cluster), Subnetwork: subnetworkURL(l, r.Cluster), Fingerprint: loadbalancers.ContentHash(r.Group.Name, 12), Zone: zoneURL,
			Size: int32(len(r.Group.Nodes)), SelfLink: zoneURL + "/instanceGroups/" + r.Group.Name})
	}
	for _, g := range w.loadbalancers.LBGroups(project, zone) {
		out = append(out, &api.InstanceGroup{Kind: "compute#instanceGroup", Id: w.computeID("ig", project, zone, g.Name),
			CreationTimestamp: computeTime(g.Since), Name: g.Name, Description: `{"kubernetes.io/cluster-name":"` + g.Cluster.Name + `"}`,
			NamedPorts: nil, Network: networkURL(l, g.Cluster), Subnetwork: subnetworkURL(l, g.Cluster), Fingerprint: loadbalancers.ContentHash(strings.Join(g.Nodes, ","), 12),
			Zone: zoneURL, Size: int32(len(g.Nodes)), SelfLink: zoneURL + "/instanceGroups/" + g.Name})
	}
	for _, key := range w.userInstanceGroups(project, zone) {
		out = append(out, w.renderUserInstanceGroup(key, w.st.Compute.InstanceGroups[key], l))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// InstanceGroup finds one instance group.
func (w *Compute) InstanceGroup(project, zone, name string, l core.Links) (*api.InstanceGroup, error) {
	for _, g := range w.InstanceGroups(project, zone, l) {
		if g.Name == name {
			return g, nil
		}
	}
	return nil, model.NotFound("The resource 'projects/%s/zones/%s/instanceGroups/%s' was not found", project, zone, name)
}

// InstanceGroupInstances is instanceGroups.listInstances.
func (w *Compute) InstanceGroupInstances(project, zone, name string, l core.Links) (*api.InstanceGroupsListInstances, error) {
	out := &api.InstanceGroupsListInstances{Kind: "compute#instanceGroupsListInstances", Items: []*api.InstanceWithNamedPorts{}}
	inst := func(node string) string { return l.Compute("projects/%s/zones/%s/instances/%s", project, zone, node) }
	for _, r := range w.loadbalancers.InstanceGroups(project, zone) {
		if r.Group.Name != name {
			continue
		}
		for _, node := range r.Group.Nodes {
			out.Items = append(out.Items, &api.InstanceWithNamedPorts{Instance: inst(node), Status: instanceStatus(r.Cluster.Nodes[node])})
		}
		return out, nil
	}
	if uc := w.st.Compute; uc != nil {
		if ig := uc.InstanceGroups[loadbalancers.InstanceGroupPath(project, zone, name)]; ig != nil {
			for _, node := range ig.Instances {
				_, n := w.loadbalancers.FindVM(project, zone, node)
				out.Items = append(out.Items, &api.InstanceWithNamedPorts{Instance: inst(node), Status: instanceStatus(n)})
			}
			return out, nil
		}
	}
	for _, g := range w.loadbalancers.LBGroups(project, zone) {
		if g.Name != name {
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
