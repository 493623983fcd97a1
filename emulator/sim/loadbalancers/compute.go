package loadbalancers

import (
	"sort"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The Compute Engine view of node pools: one managed instance group per pool per zone.

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
