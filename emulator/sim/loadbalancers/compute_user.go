package loadbalancers

import (
	"fmt"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Compute Engine objects users create outside GKE: regional backend services and zonal
// unmanaged instance groups (regionBackendServices.insert and delete; instanceGroups.insert,
// delete, addInstances and removeInstances). They are part of the State, so they persist and
// replay like the rest; they appear in the Compute lists beside what GKE built; they are the
// user's, so they outlive the clusters whose VMs they name (a deleted VM leaves every unmanaged
// group, as in Compute Engine). Compute's rule that a VM may be in only one load-balanced
// instance group holds for them, and they are what blocks GKE's instance-group load balancers
// (R-LB-5, loadbalancer_igs.go). Each write answers with an Operation that is already DONE.

// maxComputeOps is how many write operations are kept for operations.get.
const maxComputeOps = 1000

// Schemes of regional backend services; the passthrough ones (INTERNAL, EXTERNAL) take
// instance groups with balancing mode CONNECTION and at most one health check.
var (
	passthroughProtocols = []string{"TCP", "UDP", "UNSPECIFIED"}
	proxyProtocols       = []string{"HTTP", "HTTPS", "HTTP2", "TCP", "SSL", "GRPC"}
)

func passthroughScheme(s string) bool { return s == "INTERNAL" || s == "EXTERNAL" }

func backendServicePath(project, region, name string) string {
	return "projects/" + project + "/regions/" + region + "/backendServices/" + name
}

func instanceGroupPath(project, zone, name string) string {
	return "projects/" + project + "/zones/" + zone + "/instanceGroups/" + name
}

func instancePath(project, zone, name string) string {
	return "projects/" + project + "/zones/" + zone + "/instances/" + name
}

// computePathOf reduces a Compute Engine URL, or a path relative to the project, to its path
// from "projects/" on.
func computePathOf(link, project string) string {
	if i := strings.Index(link, "projects/"); i >= 0 {
		return link[i:]
	}
	return "projects/" + project + "/" + strings.TrimPrefix(link, "/")
}

// computeRef is a zonal or regional resource named by a URL, a path (projects/P/zones/Z/...)
// or a path relative to the project (zones/Z/...).
type computeRef struct{ project, scopeKind, scope, collection, name string }

func parseComputeRef(link, project string) (computeRef, bool) {
	parts := strings.Split(computePathOf(link, project), "/")
	if len(parts) != 6 || (parts[2] != "zones" && parts[2] != "regions") {
		return computeRef{}, false
	}
	for _, s := range parts {
		if s == "" {
			return computeRef{}, false
		}
	}
	return computeRef{parts[1], parts[2], parts[3], parts[4], parts[5]}, true
}

func (r computeRef) path() string {
	return strings.Join([]string{"projects", r.project, r.scopeKind, r.scope, r.collection, r.name}, "/")
}

// Compute Engine names (RFC 1035): 1-63 characters.
var computeNameRE = regexp.MustCompile(`^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$`)

// invalidComputeValue is Compute's 400 for a field of a request resource.
func invalidComputeValue(field string, value any, rule string, args ...any) error {
	return model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%v'. %s", field, value, fmt.Sprintf(rule, args...))
}

// Compute's limits on what a user's backend service or instance group stores.
const (
	maxComputeDescription = 2048
	maxTimeoutSec         = math.MaxInt32
	maxDrainingTimeoutSec = 3600
	defaultTimeoutSec     = 30
)

var (
	sessionAffinities = []string{"NONE", "CLIENT_IP", "CLIENT_IP_PORT_PROTO", "CLIENT_IP_PROTO", "CLIENT_IP_NO_DESTINATION",
		"GENERATED_COOKIE", "HEADER_FIELD", "HTTP_COOKIE", "STRONG_COOKIE_AFFINITY"}
	balancingModes = []string{"UTILIZATION", "RATE", "CONNECTION", "CUSTOM_METRICS"}
)

func validateComputeDescription(d string) error {
	if len(d) > maxComputeDescription {
		return invalidComputeValue("resource.description", d[:40]+"...", "Must be at most %d characters long (it is %d).", maxComputeDescription, len(d))
	}
	return nil
}

// validateNamedPorts checks an instance group's named ports: RFC 1035 names, ports 1-65535.
func validateNamedPorts(ports []*api.NamedPort) error {
	for i, np := range ports {
		if np == nil {
			continue
		}
		if !computeNameRE.MatchString(np.Name) {
			return invalidComputeValue(fmt.Sprintf("resource.namedPorts[%d].name", i), np.Name, "Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'.")
		}
		if np.Port < 1 || np.Port > 65535 {
			return invalidComputeValue(fmt.Sprintf("resource.namedPorts[%d].port", i), np.Port, "Must be from 1 to 65535.")
		}
	}
	return nil
}

func validateComputeName(name string) error {
	if name == "" {
		return model.ComputeError(http.StatusBadRequest, "required", "Required field 'resource.name' not specified")
	}
	if !computeNameRE.MatchString(name) {
		return model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'resource.name': '%s'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)' (RFC 1035: 1-63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen).", name)
	}
	return nil
}

func validateRegion(region string) error {
	if l, ok := catalog.ParseLocation(region); !ok || l.Zonal {
		return model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'region': '%s'. Unknown region.", region)
	}
	return nil
}

func validateZone(zone string) error {
	if l, ok := catalog.ParseLocation(zone); !ok || !l.Zonal {
		return model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'zone': '%s'. Unknown zone.", zone)
	}
	return nil
}

func computeNotFound(path string) error {
	return model.ComputeError(http.StatusNotFound, "notFound", "The resource '%s' was not found", path)
}

func resourceInUse(kind, path, user string) error {
	return model.ComputeError(http.StatusBadRequest, "resourceInUseByAnotherResource", "The %s resource '%s' is already being used by '%s'", kind, path, user)
}

// userCompute returns the user's Compute objects, making them on first use.
func (w *LoadBalancers) userCompute() *model.UserCompute {
	uc := w.st.Compute
	if uc == nil {
		uc = &model.UserCompute{}
		w.st.Compute = uc
	}
	if uc.BackendServices == nil {
		uc.BackendServices = map[string]*model.UserBackendService{}
	}
	if uc.InstanceGroups == nil {
		uc.InstanceGroups = map[string]*model.UserInstanceGroup{}
	}
	return uc
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

// userBackendServiceOf names the first backend service created outside GKE that has the group
// as a backend, or "".
func (w *LoadBalancers) userBackendServiceOf(group string) string {
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

// ---- operations ----

// computeOp records a finished write and renders its Operation.
func (w *LoadBalancers) computeOp(project, scope, typ, target, targetID string, l core.Links) *api.ComputeOperation {
	uc := w.userCompute()
	uc.Seq++
	seq := strconv.FormatInt(uc.Seq, 10)
	hex := fmt.Sprintf("%016x%016x", w.hashOf("compute-op", seq), w.hashOf("compute-op-2", seq))
	name := fmt.Sprintf("operation-%d-%s-%s-%s", w.st.Now.UnixMilli(), hex[:13], hex[13:21], hex[21:29])
	op := &model.ComputeOp{Name: name, ID: w.computeID("op", project, name), Project: project, Scope: scope, Type: typ, Target: target, TargetID: targetID, Time: w.st.Now}
	uc.Operations = append(uc.Operations, op)
	if len(uc.Operations) > maxComputeOps {
		uc.Operations = append([]*model.ComputeOp(nil), uc.Operations[len(uc.Operations)-maxComputeOps:]...)
	}
	return renderComputeOp(op, l)
}

func renderComputeOp(op *model.ComputeOp, l core.Links) *api.ComputeOperation {
	t := computeTime(op.Time)
	out := &api.ComputeOperation{Kind: "compute#operation", Id: op.ID, Name: op.Name, OperationType: op.Type, TargetLink: l.Compute("%s", op.Target),
		TargetId: op.TargetID, Status: "DONE", User: "gkesim", Progress: 100, InsertTime: t, StartTime: t, EndTime: t,
		SelfLink: l.Compute("projects/%s/%s/operations/%s", op.Project, op.Scope, op.Name)}
	if strings.HasPrefix(op.Scope, "zones/") {
		out.Zone = l.Compute("projects/%s/%s", op.Project, op.Scope)
	} else {
		out.Region = l.Compute("projects/%s/%s", op.Project, op.Scope)
	}
	return out
}

// ComputeOperation is zoneOperations.get and regionOperations.get (scope zones/Z or
// regions/R): the write operations, all DONE.
func (w *LoadBalancers) ComputeOperation(project, scope, name string, l core.Links) (*api.ComputeOperation, error) {
	if uc := w.st.Compute; uc != nil {
		for _, op := range uc.Operations {
			if op.Project == project && op.Scope == scope && op.Name == name {
				return renderComputeOp(op, l), nil
			}
		}
	}
	return nil, computeNotFound("projects/" + project + "/" + scope + "/operations/" + name)
}

// ---- backend services ----

// InsertBackendService is regionBackendServices.insert: a backend service created outside GKE,
// with instance groups as backends. Compute refuses a group with a VM that is already in
// another load-balanced instance group (R-LB-5).
func (w *LoadBalancers) InsertBackendService(project, region string, in *api.BackendService, l core.Links) (*api.ComputeOperation, error) {
	if err := validateRegion(region); err != nil {
		return nil, err
	}
	if err := validateComputeName(in.Name); err != nil {
		return nil, err
	}
	path := backendServicePath(project, region, in.Name)
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
func (w *LoadBalancers) UpdateBackendService(project, region, name string, in *api.BackendService, patch bool, l core.Links) (*api.ComputeOperation, error) {
	path := backendServicePath(project, region, name)
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
func (w *LoadBalancers) mergeBackendService(path string, cur *model.UserBackendService, in *api.BackendService) api.BackendService {
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
func (w *LoadBalancers) buildBackendService(project, region, path string, in *api.BackendService) (*model.UserBackendService, error) {
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
	if !model.Contains(protocols, bs.Protocol) {
		return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'resource.protocol': '%s'. A backend service with load balancing scheme %s takes protocol %s.",
			bs.Protocol, bs.LoadBalancingScheme, strings.Join(protocols, ", "))
	}
	if bs.SessionAffinity == "" {
		bs.SessionAffinity = "NONE"
	}
	if !model.Contains(sessionAffinities, bs.SessionAffinity) {
		return nil, invalidComputeValue("resource.sessionAffinity", bs.SessionAffinity, "Must be one of %s.", strings.Join(sessionAffinities, ", "))
	}
	if in.Network != "" {
		bs.Network = computePathOf(in.Network, project)
	}
	if passthrough && len(in.HealthChecks) > 1 {
		return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'resource.healthChecks': %q. A backend service with load balancing scheme %s takes at most one health check.",
			in.HealthChecks, bs.LoadBalancingScheme)
	}
	for _, hc := range in.HealthChecks {
		bs.HealthChecks = append(bs.HealthChecks, computePathOf(hc, project))
	}
	var attach []igAttach
	for i, b := range in.Backends {
		field := fmt.Sprintf("resource.backends[%d].group", i)
		if b == nil || b.Group == "" {
			return nil, model.ComputeError(http.StatusBadRequest, "required", "Required field '%s' not specified", field)
		}
		ref, ok := parseComputeRef(b.Group, project)
		switch {
		case ok && ref.collection == "networkEndpointGroups":
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. gkesim takes instance groups as the backends of backend services created outside GKE; network endpoint groups are not emulated for them.", field, b.Group)
		case !ok || ref.scopeKind != "zones" || ref.collection != "instanceGroups":
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. The URL is malformed: give projects/{project}/zones/{zone}/instanceGroups/{name}.", field, b.Group)
		case ref.project != project:
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. gkesim resolves backends in the backend service's project (%s) only.", field, b.Group, project)
		}
		zone, zok := catalog.ParseLocation(ref.scope)
		if passthrough && zok && zone.Region != region {
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. A backend service with load balancing scheme %s takes instance groups of its own region (%s).",
				field, b.Group, bs.LoadBalancingScheme, region)
		}
		g, found := w.findInstanceGroup(project, ref.scope, ref.name)
		if !found {
			return nil, computeNotFound(ref.path())
		}
		for _, prev := range bs.Backends {
			if prev.Group == g.path {
				return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. The instance group is already a backend of this backend service.", field, b.Group)
			}
		}
		mode := b.BalancingMode
		switch {
		case mode == "" && passthrough:
			mode = "CONNECTION"
		case mode == "":
			mode = "UTILIZATION"
		case !model.Contains(balancingModes, mode):
			return nil, invalidComputeValue(fmt.Sprintf("resource.backends[%d].balancingMode", i), mode, "Must be one of %s.", strings.Join(balancingModes, ", "))
		case passthrough && mode != "CONNECTION":
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field 'resource.backends[%d].balancingMode': '%s'. Balancing mode must be CONNECTION for a backend service with load balancing scheme %s.",
				i, mode, bs.LoadBalancingScheme)
		}
		bs.Backends = append(bs.Backends, model.UserBackend{Group: g.path, BalancingMode: mode})
		attach = append(attach, igAttach{group: g.path, zone: ref.scope, nodes: g.members()})
	}
	if cf := w.attachConflict(project, path, attach, true); cf != nil {
		return nil, cf.computeError()
	}
	return bs, nil
}

// DeleteBackendService is regionBackendServices.delete. GKE's backend services are in use by
// their forwarding rules.
func (w *LoadBalancers) DeleteBackendService(project, region, name string, l core.Links) (*api.ComputeOperation, error) {
	path := backendServicePath(project, region, name)
	bs := w.userBackendService(project, region, name)
	if bs == nil {
		r, err := w.backendService(project, region, name)
		if err != nil {
			return nil, computeNotFound(path)
		}
		fr := ""
		for _, p := range lbProtocols(&r.s.Spec) {
			fr = "projects/" + project + "/regions/" + region + "/forwardingRules/" + r.n.forwardingRules[p]
			break
		}
		return nil, resourceInUse("backend_service", path, fr)
	}
	delete(w.st.Compute.BackendServices, path)
	w.engine.Record("ComputeBackendServiceDeleted", nil, "", "", "", "backend service %s deleted", path)
	return w.computeOp(project, "regions/"+region, "delete", path, bs.ID, l), nil
}

func (w *LoadBalancers) renderUserBackendService(path string, bs *model.UserBackendService, l core.Links) *api.BackendService {
	out := &api.BackendService{Kind: "compute#backendService", Id: bs.ID, CreationTimestamp: computeTime(bs.CreateTime), Name: bs.Name,
		Description: bs.Description, Region: l.Compute("projects/%s/regions/%s", bs.Project, bs.Region), Backends: []*api.Backend{}, HealthChecks: []string{},
		Protocol: bs.Protocol, LoadBalancingScheme: bs.LoadBalancingScheme, SessionAffinity: bs.SessionAffinity,
		ConnectionDraining: &api.ConnectionDraining{DrainingTimeoutSec: bs.DrainingTimeoutSec}, TimeoutSec: bs.TimeoutSec, PortName: bs.PortName,
		SelfLink: l.Compute("%s", path), Fingerprint: contentHash(path+bs.ID, 12)}
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
func (w *LoadBalancers) userBackendServices(project, region string, l core.Links) []*api.BackendService {
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

// ---- instance groups ----

// InsertInstanceGroup is instanceGroups.insert: an empty unmanaged instance group.
func (w *LoadBalancers) InsertInstanceGroup(project, zone string, in *api.InstanceGroup, l core.Links) (*api.ComputeOperation, error) {
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
	path := instanceGroupPath(project, zone, in.Name)
	if _, found := w.findInstanceGroup(project, zone, in.Name); found {
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
func (w *LoadBalancers) DeleteInstanceGroup(project, zone, name string, l core.Links) (*api.ComputeOperation, error) {
	g, found := w.findInstanceGroup(project, zone, name)
	switch {
	case !found:
		return nil, computeNotFound(instanceGroupPath(project, zone, name))
	case g.managed != nil:
		return nil, resourceInUse("instance_group", g.path, "projects/"+project+"/zones/"+zone+"/instanceGroupManagers/"+name)
	case g.gke != nil:
		return nil, resourceInUse("instance_group", g.path, w.gkeBackendServiceOf(project, g.path))
	}
	if bs := w.userBackendServiceOf(g.path); bs != "" {
		return nil, resourceInUse("instance_group", g.path, bs)
	}
	delete(w.st.Compute.InstanceGroups, g.path)
	w.engine.Record("ComputeInstanceGroupDeleted", nil, "", "", "", "instance group %s deleted", g.path)
	return w.computeOp(project, "zones/"+zone, "delete", g.path, g.user.ID, l), nil
}

// gkeBackendServiceOf names the first of GKE's backend services that has GKE's shared group as
// a backend.
func (w *LoadBalancers) gkeBackendServiceOf(project, group string) string {
	for _, r := range w.projectLBs(project) {
		if r.n.InstanceGroup == model.LastSegment(group) {
			return backendServicePath(project, RegionOf(r.c), r.n.BackendService)
		}
	}
	return ""
}

// userGroupFor finds a group users may change the members of.
func (w *LoadBalancers) userGroupFor(project, zone, name string) (instanceGroupFound, error) {
	g, found := w.findInstanceGroup(project, zone, name)
	switch {
	case !found:
		return g, computeNotFound(instanceGroupPath(project, zone, name))
	case g.managed != nil:
		return g, model.ComputeError(http.StatusBadRequest, "invalid", "Instance group '%s' is managed by instance group manager 'projects/%s/zones/%s/instanceGroupManagers/%s': change its instances through the instance group manager (for a GKE node pool, resize the node pool).",
			g.path, project, zone, name)
	case g.gke != nil:
		return g, model.ComputeError(http.StatusBadRequest, "invalid", "Instance group '%s' is %s: GKE keeps every node in it and would undo the change. Use an unmanaged instance group of your own.", g.path, g.describe())
	}
	return g, nil
}

// membershipRequest resolves an addInstances or removeInstances request: the user's group and
// the VM names (in the group's zone) it names.
func (w *LoadBalancers) membershipRequest(project, zone, name string, refs []*api.InstanceReference) (*model.UserInstanceGroup, string, []string, error) {
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
		ref, ok := parseComputeRef(link, project)
		switch {
		case !ok || ref.scopeKind != "zones" || ref.collection != "instances":
			return nil, "", nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. The URL is malformed: give projects/{project}/zones/{zone}/instances/{name}.", field, link)
		case ref.project != project || ref.scope != zone:
			return nil, "", nil, model.ComputeError(http.StatusBadRequest, "invalid", "Invalid value for field '%s': '%s'. The instance must be in the instance group's project and zone (projects/%s/zones/%s).", field, link, project, zone)
		}
		out = append(out, ref.name)
	}
	return g.user, g.path, out, nil
}

// AddInstances is instanceGroups.addInstances. When the group is load-balanced (a backend of
// some backend service), Compute refuses a VM that is already in another load-balanced
// instance group (R-LB-5).
func (w *LoadBalancers) AddInstances(project, zone, name string, refs []*api.InstanceReference, l core.Links) (*api.ComputeOperation, error) {
	ig, path, names, err := w.membershipRequest(project, zone, name, refs)
	if err != nil {
		return nil, err
	}
	var added []string
	for _, n := range names {
		if _, node := w.findVM(project, zone, n); node == nil {
			return nil, computeNotFound(instancePath(project, zone, n))
		}
		if model.Contains(ig.Instances, n) || model.Contains(added, n) {
			return nil, model.ComputeError(http.StatusBadRequest, "memberAlreadyExists", "Resource '%s' is already a member of '%s'.", instancePath(project, zone, n), path)
		}
		added = append(added, n)
	}
	if bs := w.userBackendServiceOf(path); bs != "" {
		if cf := w.attachConflict(project, bs, []igAttach{{group: path, zone: zone, nodes: added}}, false); cf != nil {
			return nil, cf.computeError()
		}
	}
	if ig.Network == "" {
		c, _ := w.findVM(project, zone, added[0])
		ig.Network = "projects/" + project + "/global/networks/" + model.LastSegment(c.Network)
	}
	ig.Instances = append(ig.Instances, added...)
	sort.Strings(ig.Instances)
	w.engine.Record("ComputeInstanceGroupInstancesAdded", nil, "", "", "", "instance group %s: added %s (%d instances)", path, strings.Join(added, " "), len(ig.Instances))
	return w.computeOp(project, "zones/"+zone, "compute.instanceGroups.addInstances", path, ig.ID, l), nil
}

// RemoveInstances is instanceGroups.removeInstances.
func (w *LoadBalancers) RemoveInstances(project, zone, name string, refs []*api.InstanceReference, l core.Links) (*api.ComputeOperation, error) {
	ig, path, names, err := w.membershipRequest(project, zone, name, refs)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if !model.Contains(ig.Instances, n) {
			return nil, model.ComputeError(http.StatusBadRequest, "invalid", "Resource '%s' is not a member of '%s'.", instancePath(project, zone, n), path)
		}
	}
	ig.Remove(names...)
	w.engine.Record("ComputeInstanceGroupInstancesRemoved", nil, "", "", "", "instance group %s: removed %s (%d instances)", path, strings.Join(names, " "), len(ig.Instances))
	return w.computeOp(project, "zones/"+zone, "compute.instanceGroups.removeInstances", path, ig.ID, l), nil
}

// UserGroupsNodeGone drops a deleted VM from the users' unmanaged instance groups, as Compute
// Engine does.
func (w *LoadBalancers) UserGroupsNodeGone(c *model.Cluster, n *model.Node) {
	uc := w.st.Compute
	if uc == nil || len(uc.InstanceGroups) == 0 {
		return
	}
	for _, key := range model.SortedKeys(uc.InstanceGroups) {
		ig := uc.InstanceGroups[key]
		if ig.Project != c.Project || ig.Zone != n.Zone || !model.Contains(ig.Instances, n.Name) {
			continue
		}
		ig.Remove(n.Name)
		w.engine.Record("ComputeInstanceGroupInstancesRemoved", c, "", "", "", "instance group %s: %s left it: the VM was deleted (%d instances)", key, n.Name, len(ig.Instances))
	}
}

func (w *LoadBalancers) renderUserInstanceGroup(path string, ig *model.UserInstanceGroup, l core.Links) *api.InstanceGroup {
	zoneURL := l.Compute("projects/%s/zones/%s", ig.Project, ig.Zone)
	out := &api.InstanceGroup{Kind: "compute#instanceGroup", Id: ig.ID, CreationTimestamp: computeTime(ig.CreateTime), Name: ig.Name, Description: ig.Description,
		Fingerprint: contentHash(path+"/"+strings.Join(ig.Instances, ","), 12), Zone: zoneURL, Size: int32(len(ig.Instances)), SelfLink: l.Compute("%s", path)}
	if ig.Network != "" {
		out.Network = l.Compute("%s", ig.Network)
	}
	for _, np := range ig.NamedPorts {
		out.NamedPorts = append(out.NamedPorts, &api.NamedPort{Name: np.Name, Port: np.Port})
	}
	return out
}

// userInstanceGroups lists a zone's instance groups created outside GKE.
func (w *LoadBalancers) userInstanceGroups(project, zone string) []string {
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

// userBackendService finds a backend service created outside GKE.
func (w *LoadBalancers) userBackendService(project, region, name string) *model.UserBackendService {
	if uc := w.st.Compute; uc != nil {
		return uc.BackendServices[backendServicePath(project, region, name)]
	}
	return nil
}
