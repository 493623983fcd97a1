package compute

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Unmanaged instance groups users create outside GKE (instanceGroups.insert, delete,
// addInstances and removeInstances; user_objects.go), and what a deleted VM does to them.

// InsertInstanceGroup is instanceGroups.insert: an empty unmanaged instance group.
func (w *Compute) InsertInstanceGroup(project, zone string, in *api.InstanceGroup, l core.Links) (*api.ComputeOperation, error) {
	if err := validateZone(zone); err != nil {
		return nil, err
	}
	if err := validateComputeName(in.Name); err != nil {
		return nil, err
	}
	if err := validateComputeDescription(in.Description); err != nil {
		return nil, err
	}
	if err := validateNamedPorts(in.NamedPorts); err != nil {
		return nil, err
	}
	path := loadbalancers.InstanceGroupPath(project, zone, in.Name)
	if _, found := w.loadbalancers.FindInstanceGroup(project, zone, in.Name); found {
		return nil, model.ComputeError(http.StatusConflict, "alreadyExists", "The resource '%s' already exists", path)
	}
	ig := &model.UserInstanceGroup{Project: project, Zone: zone, Name: in.Name, Description: in.Description, CreateTime: w.st.Now}
	if in.Network != "" {
		ig.Network = "projects/" + project + "/global/networks/" + model.LastSegment(in.Network)
	}
	for _, np := range in.NamedPorts {
		if np != nil {
			ig.NamedPorts = append(ig.NamedPorts, *np)
		}
	}
	uc := w.userCompute()
	uc.Seq++
	ig.ID = w.computeID("user-ig", path, strconv.FormatInt(uc.Seq, 10))
	uc.InstanceGroups[path] = ig
	w.engine.Record("ComputeInstanceGroupInserted", nil, "", "", "", "instance group %s created outside GKE (unmanaged, empty)", path)
	return w.computeOp(project, "zones/"+zone, "insert", path, ig.ID, l), nil
}

// DeleteInstanceGroup is instanceGroups.delete: a user's group that no backend service uses.
// A node pool's group belongs to its instance group manager; GKE's shared group is in use by
// GKE's backend services.
func (w *Compute) DeleteInstanceGroup(project, zone, name string, l core.Links) (*api.ComputeOperation, error) {
	g, found := w.loadbalancers.FindInstanceGroup(project, zone, name)
	switch {
	case !found:
		return nil, computeNotFound(loadbalancers.InstanceGroupPath(project, zone, name))
	case g.Managed != nil:
		return nil, resourceInUse("instance_group", g.Path, "projects/"+project+"/zones/"+zone+"/instanceGroupManagers/"+name)
	case g.GKE != nil:
		return nil, resourceInUse("instance_group", g.Path, w.gkeBackendServiceOf(project, g.Path))
	}
	if bs := w.userBackendServiceOf(g.Path); bs != "" {
		return nil, resourceInUse("instance_group", g.Path, bs)
	}
	delete(w.st.Compute.InstanceGroups, g.Path)
	w.engine.Record("ComputeInstanceGroupDeleted", nil, "", "", "", "instance group %s deleted", g.Path)
	return w.computeOp(project, "zones/"+zone, "delete", g.Path, g.User.ID, l), nil
}

// gkeBackendServiceOf names the first of GKE's backend services that has GKE's shared group as
// a backend.
func (w *Compute) gkeBackendServiceOf(project, group string) string {
	for _, r := range w.loadbalancers.ProjectLBs(project) {
		if r.Names.InstanceGroup == model.LastSegment(group) {
			return loadbalancers.BackendServicePath(project, loadbalancers.RegionOf(r.Cluster), r.Names.BackendService)
		}
	}
	return ""
}

// userGroupFor finds a group users may change the members of.
func (w *Compute) userGroupFor(project, zone, name string) (loadbalancers.InstanceGroupFound, error) {
	g, found := w.loadbalancers.FindInstanceGroup(project, zone, name)
	switch {
	case !found:
		return g, computeNotFound(loadbalancers.InstanceGroupPath(project, zone, name))
	case g.Managed != nil:
		return g, model.ComputeError(http.StatusBadRequest, "invalid", "Instance group '%s' is managed by instance group manager 'projects/%s/zones/%s/instanceGroupManagers/%s': change its instances through the instance group manager (for a GKE node pool, resize the node pool).",
			g.Path, project, zone, name)
	case g.GKE != nil:
		return g, model.ComputeError(http.StatusBadRequest, "invalid", "Instance group '%s' is %s: GKE keeps every node in it and would undo the change. Use an unmanaged instance group of your own.", g.Path, g.Describe())
	}
	return g, nil
}

// membershipRequest resolves an addInstances or removeInstances request: the user's group and
// the VM names (in the group's zone) it names.
func (w *Compute) membershipRequest(project, zone, name string, refs []*api.InstanceReference) (*model.UserInstanceGroup, string, []string, error) {
	g, err := w.userGroupFor(project, zone, name)
	if err != nil {
		return nil, "", nil, err
	}
	if len(refs) == 0 {
		return nil, "", nil, model.ComputeError(http.StatusBadRequest, "required", "Required field 'resource.instances' not specified")
	}
	var out []string
	for i, r := range refs {
		field := fmt.Sprintf("resource.instances[%d].instance", i)
		link := ""
		if r != nil {
			link = r.Instance
		}
		ref, ok := loadbalancers.ParseComputeRef(link, project)
		switch {
		case !ok || ref.ScopeKind != "zones" || ref.Collection != "instances":
			return nil, "", nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. The URL is malformed: give projects/{project}/zones/{zone}/instances/{name}.", field, link)
		case ref.Project != project || ref.Scope != zone:
			return nil, "", nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. The instance must be in the instance group's project and zone (projects/%s/zones/%s).", field, link, project, zone)
		}
		out = append(out, ref.Name)
	}
	return g.User, g.Path, out, nil
}

// AddInstances is instanceGroups.addInstances. When the group is load-balanced (a backend of
// some backend service), Compute refuses a VM that is already in another load-balanced
// instance group (R-LB-5).
func (w *Compute) AddInstances(project, zone, name string, refs []*api.InstanceReference, l core.Links) (*api.ComputeOperation, error) {
	ig, path, names, err := w.membershipRequest(project, zone, name, refs)
	if err != nil {
		return nil, err
	}
	var added []string
	for _, n := range names {
		if _, node := w.loadbalancers.FindVM(project, zone, n); node == nil {
			return nil, computeNotFound(loadbalancers.InstancePath(project, zone, n))
		}
		if slices.Contains(ig.Instances, n) || slices.Contains(added, n) {
			return nil, model.ComputeError(http.StatusBadRequest, "memberAlreadyExists", "Resource '%s' is already a member of '%s'.", loadbalancers.InstancePath(project, zone, n), path)
		}
		added = append(added, n)
	}
	if bs := w.userBackendServiceOf(path); bs != "" {
		if cf := w.loadbalancers.AttachConflict(project, bs, []loadbalancers.IGAttach{{Group: path, Zone: zone, Nodes: added}}, false); cf != nil {
			return nil, cf.ComputeError()
		}
	}
	if ig.Network == "" {
		c, _ := w.loadbalancers.FindVM(project, zone, added[0])
		ig.Network = "projects/" + project + "/global/networks/" + model.LastSegment(c.Network)
	}
	ig.Instances = append(ig.Instances, added...)
	sort.Strings(ig.Instances)
	w.engine.Record("ComputeInstanceGroupInstancesAdded", nil, "", "", "", "instance group %s: added %s (%d instances)", path, strings.Join(added, " "), len(ig.Instances))
	return w.computeOp(project, "zones/"+zone, "compute.instanceGroups.addInstances", path, ig.ID, l), nil
}

// RemoveInstances is instanceGroups.removeInstances.
func (w *Compute) RemoveInstances(project, zone, name string, refs []*api.InstanceReference, l core.Links) (*api.ComputeOperation, error) {
	ig, path, names, err := w.membershipRequest(project, zone, name, refs)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if !slices.Contains(ig.Instances, n) {
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Resource '%s' is not a member of '%s'.", loadbalancers.InstancePath(project, zone, n), path)
		}
	}
	ig.Remove(names...)
	w.engine.Record("ComputeInstanceGroupInstancesRemoved", nil, "", "", "", "instance group %s: removed %s (%d instances)", path, strings.Join(names, " "), len(ig.Instances))
	return w.computeOp(project, "zones/"+zone, "compute.instanceGroups.removeInstances", path, ig.ID, l), nil
}

// UserGroupsNodeGone drops a deleted VM from the users' unmanaged instance groups, as Compute
// Engine does.
func (w *Compute) UserGroupsNodeGone(c *model.Cluster, n *model.Node) {
	uc := w.st.Compute
	if uc == nil || len(uc.InstanceGroups) == 0 {
		return
	}
	for _, key := range model.SortedKeys(uc.InstanceGroups) {
		ig := uc.InstanceGroups[key]
		if ig.Project != c.Project || ig.Zone != n.Zone || !slices.Contains(ig.Instances, n.Name) {
			continue
		}
		ig.Remove(n.Name)
		w.engine.Record("ComputeInstanceGroupInstancesRemoved", c, "", "", "", "instance group %s: %s left it: the VM was deleted (%d instances)", key, n.Name, len(ig.Instances))
	}
}

func (w *Compute) renderUserInstanceGroup(path string, ig *model.UserInstanceGroup, l core.Links) *api.InstanceGroup {
	zoneURL := l.Compute("projects/%s/zones/%s", ig.Project, ig.Zone)
	out := &api.InstanceGroup{Kind: "compute#instanceGroup", Id: ig.ID, CreationTimestamp: computeTime(ig.CreateTime), Name: ig.Name, Description: ig.Description,
		Fingerprint: loadbalancers.ContentHash(path+"/"+strings.Join(ig.Instances, ","), 12), Zone: zoneURL, Size: int32(len(ig.Instances)), SelfLink: l.Compute("%s", path)}
	if ig.Network != "" {
		out.Network = l.Compute("%s", ig.Network)
	}
	for _, np := range ig.NamedPorts {
		out.NamedPorts = append(out.NamedPorts, &api.NamedPort{Name: np.Name, Port: np.Port})
	}
	return out
}

// userInstanceGroups lists a zone's instance groups created outside GKE.
func (w *Compute) userInstanceGroups(project, zone string) []string {
	var out []string
	if uc := w.st.Compute; uc != nil {
		for _, key := range model.SortedKeys(uc.InstanceGroups) {
			if ig := uc.InstanceGroups[key]; ig.Project == project && ig.Zone == zone {
				out = append(out, key)
			}
		}
	}
	return out
}
