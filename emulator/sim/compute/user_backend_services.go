package compute

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Backend services users create outside GKE (regionBackendServices.insert, update, patch and
// delete; user_objects.go), refused as Compute Engine refuses them when they would put a VM in
// two load-balanced instance groups (R-LB-5).

// InsertBackendService is regionBackendServices.insert: a backend service created outside GKE,
// with instance groups as backends. Compute refuses a group with a VM that is already in
// another load-balanced instance group (R-LB-5).
func (w *Compute) InsertBackendService(project, region string, in *api.BackendService, l core.Links) (*api.ComputeOperation, error) {
	if err := validateRegion(region); err != nil {
		return nil, err
	}
	if err := validateComputeName(in.Name); err != nil {
		return nil, err
	}
	path := loadbalancers.BackendServicePath(project, region, in.Name)
	_, gkeErr := w.backendService(project, region, in.Name)
	if w.userBackendService(project, region, in.Name) != nil || gkeErr == nil {
		return nil, model.ComputeError(http.StatusConflict, "alreadyExists", "The resource '%s' already exists", path)
	}
	bs, err := w.buildBackendService(project, region, path, in)
	if err != nil {
		return nil, err
	}
	uc := w.userCompute()
	uc.Seq++
	bs.ID, bs.CreateTime = w.computeID("user-bs", path, strconv.FormatInt(uc.Seq, 10)), w.st.Now
	uc.BackendServices[path] = bs
	w.engine.Record("ComputeBackendServiceInserted", nil, "", "", "", "backend service %s created outside GKE: %s %s, backends %s", path, bs.LoadBalancingScheme, bs.Protocol, describeBackends(bs))
	return w.computeOp(project, "regions/"+region, "insert", path, bs.ID, l), nil
}

// UpdateBackendService is regionBackendServices.update (PUT, the whole resource) and, with
// patch, regionBackendServices.patch (the fields sent; backends when sent). gcloud's
// backend-services add-backend and remove-backend go through update. R-LB-5 holds as on insert.
func (w *Compute) UpdateBackendService(project, region, name string, in *api.BackendService, patch bool, l core.Links) (*api.ComputeOperation, error) {
	path := loadbalancers.BackendServicePath(project, region, name)
	cur := w.userBackendService(project, region, name)
	if cur == nil {
		if _, err := w.backendService(project, region, name); err == nil {
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Backend service '%s' is GKE's: GKE's load balancer controller owns it and would undo the change. Create a backend service of your own.", path)
		}
		return nil, computeNotFound(path)
	}
	if in.Name != "" && in.Name != name {
		return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'resource.name': '%s'. The name of a backend service cannot change (it is %s).", in.Name, name)
	}
	req := *in
	if patch {
		req = w.mergeBackendService(path, cur, in)
	}
	bs, err := w.buildBackendService(project, region, path, &req)
	if err != nil {
		return nil, err
	}
	bs.ID, bs.CreateTime = cur.ID, cur.CreateTime
	w.st.Compute.BackendServices[path] = bs
	typ := "update"
	if patch {
		typ = "patch"
	}
	w.engine.Record("ComputeBackendServiceUpdated", nil, "", "", "", "backend service %s updated (%s): %s %s, backends %s", path, typ, bs.LoadBalancingScheme, bs.Protocol, describeBackends(bs))
	return w.computeOp(project, "regions/"+region, typ, path, bs.ID, l), nil
}

// mergeBackendService is a patch request applied to a backend service: the fields sent
// replace the current ones.
func (w *Compute) mergeBackendService(path string, cur *model.UserBackendService, in *api.BackendService) api.BackendService {
	out := *w.renderUserBackendService(path, cur, core.Links{})
	for _, f := range []struct {
		to   *string
		from string
	}{{&out.Description, in.Description}, {&out.LoadBalancingScheme, in.LoadBalancingScheme},
		{&out.Protocol, in.Protocol}, {&out.SessionAffinity, in.SessionAffinity}, {&out.Network, in.Network}} {
		if f.from != "" {
			*f.to = f.from
		}
	}
	if in.Backends != nil {
		out.Backends = in.Backends
	}
	if in.HealthChecks != nil {
		out.HealthChecks = in.HealthChecks
	}
	if in.TimeoutSec != 0 {
		out.TimeoutSec = in.TimeoutSec
	}
	if in.PortName != "" {
		out.PortName = in.PortName
	}
	if in.ConnectionDraining != nil {
		out.ConnectionDraining = in.ConnectionDraining
	}
	return out
}

func describeBackends(bs *model.UserBackendService) string {
	groups := make([]string, 0, len(bs.Backends))
	for _, b := range bs.Backends {
		groups = append(groups, b.Group)
	}
	return "[" + strings.Join(groups, " ") + "]"
}

// buildBackendService validates a backend service of a request (insert, update or patch) at
// path, with Compute's defaults, and checks R-LB-5 against every other load-balanced group.
func (w *Compute) buildBackendService(project, region, path string, in *api.BackendService) (*model.UserBackendService, error) {
	bs := &model.UserBackendService{Project: project, Region: region, Name: model.LastSegment(path), Description: in.Description, LoadBalancingScheme: in.LoadBalancingScheme,
		Protocol: in.Protocol, SessionAffinity: in.SessionAffinity, TimeoutSec: in.TimeoutSec, PortName: in.PortName}
	if err := validateComputeDescription(in.Description); err != nil {
		return nil, err
	}
	// The official client leaves a 0 out: it means Compute's default.
	switch {
	case bs.TimeoutSec == 0:
		bs.TimeoutSec = defaultTimeoutSec
	case bs.TimeoutSec < 1:
		return nil, invalidComputeValue("resource.timeoutSec", bs.TimeoutSec, "Must be from 1 to %d seconds (default %d).", maxTimeoutSec, defaultTimeoutSec)
	}
	if cd := in.ConnectionDraining; cd != nil {
		if cd.DrainingTimeoutSec < 0 || cd.DrainingTimeoutSec > maxDrainingTimeoutSec {
			return nil, invalidComputeValue("resource.connectionDraining.drainingTimeoutSec", cd.DrainingTimeoutSec, "Must be from 0 to %d seconds.", maxDrainingTimeoutSec)
		}
		bs.DrainingTimeoutSec = cd.DrainingTimeoutSec
	}
	if bs.PortName != "" && !computeNameRE.MatchString(bs.PortName) {
		return nil, invalidComputeValue("resource.portName", bs.PortName, "Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'.")
	}
	if bs.LoadBalancingScheme == "" {
		bs.LoadBalancingScheme = "INTERNAL"
	}
	passthrough := passthroughScheme(bs.LoadBalancingScheme)
	if !passthrough && bs.LoadBalancingScheme != "INTERNAL_MANAGED" && bs.LoadBalancingScheme != "EXTERNAL_MANAGED" {
		return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'resource.loadBalancingScheme': '%s'. A regional backend service takes INTERNAL, EXTERNAL, INTERNAL_MANAGED or EXTERNAL_MANAGED.", bs.LoadBalancingScheme)
	}
	protocols := proxyProtocols
	if passthrough {
		protocols = passthroughProtocols
	}
	if bs.Protocol == "" {
		bs.Protocol = protocols[0]
	}
	if !slices.Contains(protocols, bs.Protocol) {
		return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'resource.protocol': '%s'. A backend service with load balancing scheme %s takes protocol %s.",
			bs.Protocol, bs.LoadBalancingScheme, strings.Join(protocols, ", "))
	}
	if bs.SessionAffinity == "" {
		bs.SessionAffinity = "NONE"
	}
	if !slices.Contains(sessionAffinities, bs.SessionAffinity) {
		return nil, invalidComputeValue("resource.sessionAffinity", bs.SessionAffinity, "Must be one of %s.", strings.Join(sessionAffinities, ", "))
	}
	if in.Network != "" {
		bs.Network = loadbalancers.ComputePathOf(in.Network, project)
	}
	if passthrough && len(in.HealthChecks) > 1 {
		return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'resource.healthChecks': %q. A backend service with load balancing scheme %s takes at most one health check.",
			in.HealthChecks, bs.LoadBalancingScheme)
	}
	for _, hc := range in.HealthChecks {
		bs.HealthChecks = append(bs.HealthChecks, loadbalancers.ComputePathOf(hc, project))
	}
	var attach []loadbalancers.IGAttach
	for i, b := range in.Backends {
		field := fmt.Sprintf("resource.backends[%d].group", i)
		if b == nil || b.Group == "" {
			return nil, model.ComputeError(http.StatusBadRequest, "required", "Required field '%s' not specified", field)
		}
		ref, ok := loadbalancers.ParseComputeRef(b.Group, project)
		switch {
		case ok && ref.Collection == "networkEndpointGroups":
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. gkesim takes instance groups as the backends of backend services created outside GKE; network endpoint groups are not emulated for them.", field, b.Group)
		case !ok || ref.ScopeKind != "zones" || ref.Collection != "instanceGroups":
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. The URL is malformed: give projects/{project}/zones/{zone}/instanceGroups/{name}.", field, b.Group)
		case ref.Project != project:
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. gkesim resolves backends in the backend service's project (%s) only.", field, b.Group, project)
		}
		zone, zok := catalog.ParseLocation(ref.Scope)
		if passthrough && zok && zone.Region != region {
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. A backend service with load balancing scheme %s takes instance groups of its own region (%s).",
				field, b.Group, bs.LoadBalancingScheme, region)
		}
		g, found := w.loadbalancers.FindInstanceGroup(project, ref.Scope, ref.Name)
		if !found {
			return nil, computeNotFound(ref.Path())
		}
		for _, prev := range bs.Backends {
			if prev.Group == g.Path {
				return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. The instance group is already a backend of this backend service.", field, b.Group)
			}
		}
		mode := b.BalancingMode
		switch {
		case mode == "" && passthrough:
			mode = "CONNECTION"
		case mode == "":
			mode = "UTILIZATION"
		case !slices.Contains(balancingModes, mode):
			return nil, invalidComputeValue(fmt.Sprintf("resource.backends[%d].balancingMode", i), mode, "Must be one of %s.", strings.Join(balancingModes, ", "))
		case passthrough && mode != "CONNECTION":
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'resource.backends[%d].balancingMode': '%s'. Balancing mode must be CONNECTION for a backend service with load balancing scheme %s.",
				i, mode, bs.LoadBalancingScheme)
		}
		bs.Backends = append(bs.Backends, model.UserBackend{Group: g.Path, BalancingMode: mode})
		attach = append(attach, loadbalancers.IGAttach{Group: g.Path, Zone: ref.Scope, Nodes: g.Members()})
	}
	if cf := w.loadbalancers.AttachConflict(project, path, attach, true); cf != nil {
		return nil, cf.ComputeError()
	}
	return bs, nil
}

// DeleteBackendService is regionBackendServices.delete. GKE's backend services are in use by
// their forwarding rules.
func (w *Compute) DeleteBackendService(project, region, name string, l core.Links) (*api.ComputeOperation, error) {
	path := loadbalancers.BackendServicePath(project, region, name)
	bs := w.userBackendService(project, region, name)
	if bs == nil {
		r, err := w.backendService(project, region, name)
		if err != nil {
			return nil, computeNotFound(path)
		}
		fr := ""
		for _, p := range loadbalancers.LBProtocols(&r.Service.Spec) {
			fr = "projects/" + project + "/regions/" + region + "/forwardingRules/" + r.Names.ForwardingRules[p]
			break
		}
		return nil, resourceInUse("backend_service", path, fr)
	}
	delete(w.st.Compute.BackendServices, path)
	w.engine.Record("ComputeBackendServiceDeleted", nil, "", "", "", "backend service %s deleted", path)
	return w.computeOp(project, "regions/"+region, "delete", path, bs.ID, l), nil
}

func (w *Compute) renderUserBackendService(path string, bs *model.UserBackendService, l core.Links) *api.BackendService {
	out := &api.BackendService{Kind: "compute#backendService", Id: bs.ID, CreationTimestamp: computeTime(bs.CreateTime), Name: bs.Name,
		Description: bs.Description, Region: l.Compute("projects/%s/regions/%s", bs.Project, bs.Region), Backends: []*api.Backend{}, HealthChecks: []string{},
		Protocol: bs.Protocol, LoadBalancingScheme: bs.LoadBalancingScheme, SessionAffinity: bs.SessionAffinity,
		ConnectionDraining: &api.ConnectionDraining{DrainingTimeoutSec: bs.DrainingTimeoutSec}, TimeoutSec: bs.TimeoutSec, PortName: bs.PortName,
		SelfLink: l.Compute("%s", path), Fingerprint: loadbalancers.ContentHash(path+bs.ID, 12)}
	if out.TimeoutSec == 0 {
		out.TimeoutSec = defaultTimeoutSec
	}
	if bs.Network != "" {
		out.Network = l.Compute("%s", bs.Network)
	}
	for _, hc := range bs.HealthChecks {
		out.HealthChecks = append(out.HealthChecks, l.Compute("%s", hc))
	}
	for _, b := range bs.Backends {
		out.Backends = append(out.Backends, &api.Backend{Group: l.Compute("%s", b.Group), BalancingMode: b.BalancingMode})
	}
	return out
}

// userBackendServices lists a region's backend services created outside GKE.
func (w *Compute) userBackendServices(project, region string, l core.Links) []*api.BackendService {
	var out []*api.BackendService
	if uc := w.st.Compute; uc != nil {
		for _, key := range model.SortedKeys(uc.BackendServices) {
			if bs := uc.BackendServices[key]; bs.Project == project && bs.Region == region {
				out = append(out, w.renderUserBackendService(key, bs, l))
			}
		}
	}
	return out
}

// userBackendService finds a backend service created outside GKE.
func (w *Compute) userBackendService(project, region, name string) *model.UserBackendService {
	if uc := w.st.Compute; uc != nil {
		return uc.BackendServices[loadbalancers.BackendServicePath(project, region, name)]
	}
	return nil
}

// userBackendServiceOf names the first backend service created outside GKE that has the group
// as a backend, or "".
func (w *Compute) userBackendServiceOf(group string) string {
	uc := w.st.Compute
	if uc == nil {
		return ""
	}
	for _, key := range model.SortedKeys(uc.BackendServices) {
		for _, b := range uc.BackendServices[key].Backends {
			if b.Group == group {
				return key
			}
		}
	}
	return ""
}
