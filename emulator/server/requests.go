package server

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	compute "google.golang.org/api/compute/v1"
	container "google.golang.org/api/container/v1"
	containerbeta "google.golang.org/api/container/v1beta1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/googlejson"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The request message each route's body fills, as Google's API defines it, so that a body is
// read as Google's front end reads it (googlejson): a member that is no field of the message is
// refused with Google's `Unknown name "x" at 'cluster': Cannot find field.`, while a field GKE
// has and the emulator does not simulate is stored and echoed. The official client's types are
// the schema: container/v1 for /v1, container/v1beta1 for /v1beta1 (terraform-provider-google
// and `gcloud beta` send its fields), compute/v1 for Compute. A Compute body is the request's
// resource, which Compute's messages call 'resource'. The emulator's own routes are read
// against their own types.

type requestSchema struct {
	v1, v1beta1 *googlejson.Message
	root        string
}

func gkeRequest[V1, Beta any]() requestSchema {
	return requestSchema{v1: googlejson.ForValue(*new(V1)), v1beta1: googlejson.ForValue(*new(Beta))}
}

func computeRequest[T any]() requestSchema {
	m := googlejson.ForValue(*new(T))
	return requestSchema{v1: m, v1beta1: m, root: "resource"}
}

// gkeRequests is keyed by method and the route below .../locations/{location}/, with
// ":verb" for custom methods.
var gkeRequests = map[string]requestSchema{
	"POST clusters":                                  gkeRequest[container.CreateClusterRequest, containerbeta.CreateClusterRequest](),
	"PUT clusters/:cluster":                          gkeRequest[container.UpdateClusterRequest, containerbeta.UpdateClusterRequest](),
	"POST clusters/:cluster:updateMaster":            gkeRequest[container.UpdateMasterRequest, containerbeta.UpdateMasterRequest](),
	"POST clusters/:cluster:setLocations":            gkeRequest[container.SetLocationsRequest, containerbeta.SetLocationsRequest](),
	"POST clusters/:cluster:setLogging":              gkeRequest[container.SetLoggingServiceRequest, containerbeta.SetLoggingServiceRequest](),
	"POST clusters/:cluster:setMonitoring":           gkeRequest[container.SetMonitoringServiceRequest, containerbeta.SetMonitoringServiceRequest](),
	"POST clusters/:cluster:setAddons":               gkeRequest[container.SetAddonsConfigRequest, containerbeta.SetAddonsConfigRequest](),
	"POST clusters/:cluster:setLegacyAbac":           gkeRequest[container.SetLegacyAbacRequest, containerbeta.SetLegacyAbacRequest](),
	"POST clusters/:cluster:setNetworkPolicy":        gkeRequest[container.SetNetworkPolicyRequest, containerbeta.SetNetworkPolicyRequest](),
	"POST clusters/:cluster:setResourceLabels":       gkeRequest[container.SetLabelsRequest, containerbeta.SetLabelsRequest](),
	"POST clusters/:cluster:setMasterAuth":           gkeRequest[container.SetMasterAuthRequest, containerbeta.SetMasterAuthRequest](),
	"POST clusters/:cluster:setMaintenancePolicy":    gkeRequest[container.SetMaintenancePolicyRequest, containerbeta.SetMaintenancePolicyRequest](),
	"POST clusters/:cluster/nodePools":               gkeRequest[container.CreateNodePoolRequest, containerbeta.CreateNodePoolRequest](),
	"PUT clusters/:cluster/nodePools/:pool":          gkeRequest[container.UpdateNodePoolRequest, containerbeta.UpdateNodePoolRequest](),
	"POST clusters/:cluster/nodePools/:pool:setSize": gkeRequest[container.SetNodePoolSizeRequest, containerbeta.SetNodePoolSizeRequest](),
	"POST clusters/:cluster/nodePools/:pool:setManagement": gkeRequest[container.SetNodePoolManagementRequest,
		containerbeta.SetNodePoolManagementRequest](),
	"POST clusters/:cluster/nodePools/:pool:setAutoscaling": gkeRequest[container.SetNodePoolAutoscalingRequest,
		containerbeta.SetNodePoolAutoscalingRequest](),
	"POST clusters/:cluster/nodePools/:pool:rollback": gkeRequest[container.RollbackNodePoolUpgradeRequest,
		containerbeta.RollbackNodePoolUpgradeRequest](),
	"POST clusters/:cluster/nodePools/:pool:completeUpgrade": gkeRequest[container.CompleteNodePoolUpgradeRequest,
		containerbeta.CompleteNodePoolUpgradeRequest](),
	"POST operations/:op:cancel": gkeRequest[container.CancelOperationRequest, containerbeta.CancelOperationRequest](),
}

// computeRequests is keyed by method and the route below /compute/v1/projects/{project}/.
var computeRequests = map[string]requestSchema{
	"POST regions/:region/backendServices":                              computeRequest[compute.BackendService](),
	"PUT regions/:region/backendServices/:name":                         computeRequest[compute.BackendService](),
	"PATCH regions/:region/backendServices/:name":                       computeRequest[compute.BackendService](),
	"POST regions/:region/backendServices/:name/getHealth":              computeRequest[compute.ResourceGroupReference](),
	"POST regions/:region/targetPools/:name/getHealth":                  computeRequest[compute.InstanceReference](),
	"POST zones/:zone/networkEndpointGroups/:name/listNetworkEndpoints": computeRequest[compute.NetworkEndpointGroupsListEndpointsRequest](),
	"POST zones/:zone/instanceGroups":                                   computeRequest[compute.InstanceGroup](),
	"POST zones/:zone/instanceGroups/:name/addInstances":                computeRequest[compute.InstanceGroupsAddInstancesRequest](),
	"POST zones/:zone/instanceGroups/:name/removeInstances":             computeRequest[compute.InstanceGroupsRemoveInstancesRequest](),
}

// requestKey is the key of a request in gkeRequests or computeRequests ("" for other routes).
func requestKey(c echo.Context) (key string, schemas map[string]requestSchema) {
	route := c.Path()
	if _, rest, ok := strings.Cut(route, "/locations/:location/"); ok && !strings.HasPrefix(route, "/k8s/") && !strings.HasPrefix(route, "/emulator/") {
		key, schemas = c.Request().Method+" "+rest, gkeRequests
		if _, verb := splitVerb(c.Param("pool")); c.Param("pool") != "" {
			key += appendVerb(verb)
		} else if _, verb := splitVerb(c.Param("cluster")); c.Param("cluster") != "" {
			key += appendVerb(verb)
		} else if _, verb := splitVerb(c.Param("op")); c.Param("op") != "" {
			key += appendVerb(verb)
		}
		return key, schemas
	}
	if rest, ok := strings.CutPrefix(route, "/compute/v1/projects/:project/"); ok {
		return c.Request().Method + " " + rest, computeRequests
	}
	return "", nil
}

func appendVerb(verb string) string {
	if verb == "" {
		return ""
	}
	return ":" + verb
}

// schemaOf is the message a request's body fills: the route's Google request message, or the
// type the handler decodes into (the emulator's own routes).
func schemaOf(c echo.Context, into any) (*googlejson.Message, string) {
	if key, schemas := requestKey(c); schemas != nil {
		if s, ok := schemas[key]; ok {
			if strings.HasPrefix(c.Path(), "/v1beta1/") {
				return s.v1beta1, s.root
			}
			return s.v1, s.root
		}
	}
	return googlejson.ForValue(into), ""
}

// decodeChecked reads body into v as Google's front end reads it (see above).
func decodeChecked(c echo.Context, body []byte, v any) error {
	msg, root := schemaOf(c, v)
	normalized, violations, err := msg.Check(body, root)
	if err != nil {
		return httpio.BadRequest("Invalid JSON payload received. %s", describeJSONError(err))
	}
	if len(violations) > 0 {
		return invalidJSONPayload(violations)
	}
	if err := json.Unmarshal(normalized, v); err != nil {
		return httpio.BadRequest("Invalid JSON payload received. %s", describeJSONError(err))
	}
	return nil
}

// invalidJSONPayload is Google's answer to a body that does not fit the request message: every
// violation, one a line, and the google.rpc.BadRequest detail that lists them.
func invalidJSONPayload(vs []googlejson.Violation) error {
	msgs := make([]string, len(vs))
	fv := make([]api.FieldViolation, len(vs))
	for i, v := range vs {
		msgs[i] = v.Description
		fv[i] = api.FieldViolation{Field: v.Field, Description: v.Description}
	}
	return &sim.Error{HTTPCode: http.StatusBadRequest, Status: "INVALID_ARGUMENT", Reason: "badRequest",
		Message: strings.Join(msgs, "\n"), FieldViolations: fv}
}
