package compute

import (
	"fmt"
	"math"
	"net/http"
	"regexp"
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
// (R-LB-5, loadbalancers/loadbalancer_igs.go). Each write answers with an Operation that is already DONE.
//
// This file holds what they share: names and paths, validation, and the Operations; the
// backend services are in user_backend_services.go, the instance groups in
// user_instance_groups.go.

// ---- operations ----

// maxComputeOps is how many write operations are kept for operations.get.
const maxComputeOps = 1000

// Schemes of regional backend services; the passthrough ones (INTERNAL, EXTERNAL) take
// instance groups with balancing mode CONNECTION and at most one health check.
var (
	passthroughProtocols = []string{"TCP", "UDP", "UNSPECIFIED"}
	proxyProtocols       = []string{"HTTP", "HTTPS", "HTTP2", "TCP", "SSL", "GRPC"}
)

func passthroughScheme(s string) bool { return s == "INTERNAL" || s == "EXTERNAL" }

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
func (w *Compute) userCompute() *model.UserCompute {
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

// computeOp records a finished write and renders its Operation.
func (w *Compute) computeOp(project, scope, typ, target, targetID string, l core.Links) *api.ComputeOperation {
	uc := w.userCompute()
	uc.Seq++
	seq := strconv.FormatInt(uc.Seq, 10)
	hex := fmt.Sprintf("%016x%016x", w.loadbalancers.HashOf("compute-op", seq), w.loadbalancers.HashOf("compute-op-2", seq))
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
func (w *Compute) ComputeOperation(project, scope, name string, l core.Links) (*api.ComputeOperation, error) {
	if uc := w.st.Compute; uc != nil {
		for _, op := range uc.Operations {
			if op.Project == project && op.Scope == scope && op.Name == name {
				return renderComputeOp(op, l), nil
			}
		}
	}
	return nil, computeNotFound("projects/" + project + "/" + scope + "/operations/" + name)
}
