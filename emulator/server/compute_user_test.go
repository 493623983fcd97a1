package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
)

const computeProj = "/compute/v1/projects/proj"

// R-LB-5 over HTTP with plain JSON: a backend service created outside GKE on the node pool's
// managed instance group keeps an internal Service (GKE subsetting off) without an address,
// with SyncLoadBalancerFailed Warnings (7 in 10 emulated minutes) and the reason in the
// emulator's status view; deleting it lets GKE's next try (15 s later) build the load balancer;
// then Compute refuses to put the nodes, now in GKE's load-balanced groups, behind another
// backend service (400 instanceInMultipleLoadBalancedIgs).
func TestComputeWritesAndRLB5OverHTTP(t *testing.T) {
	e := newEnv(t).withBase()
	var igs struct {
		Kind  string              `json:"kind"`
		Items []api.InstanceGroup `json:"items"`
	}
	e.OK("GET", computeProj+"/zones/us-central1-a/instanceGroups", nil, &igs)
	if len(igs.Items) != 1 || !strings.HasSuffix(igs.Items[0].Name, "-grp") {
		t.Fatalf("instance groups: %s", servertest.MustJSON(igs))
	}
	mig := igs.Items[0].Name
	var members api.InstanceGroupsListInstances
	e.OK("POST", computeProj+"/zones/us-central1-a/instanceGroups/"+mig+"/listInstances", nil, &members)
	if len(members.Items) != 2 {
		t.Fatalf("managed group members: %s", servertest.MustJSON(members))
	}
	node := members.Items[0].Instance[strings.LastIndex(members.Items[0].Instance, "/")+1:]

	bsJSON := func(name, scheme, group string) string {
		return `{"name": "` + name + `", "loadBalancingScheme": "` + scheme + `", "protocol": "TCP",
			"backends": [{"group": "projects/proj/zones/us-central1-a/instanceGroups/` + group + `"}],
			"healthChecks": ["projects/proj/global/healthChecks/user-hc"]}`
	}
	var op api.ComputeOperation
	e.OK("POST", computeProj+"/regions/us-central1/backendServices", bsJSON("user-bs", "INTERNAL", mig), &op)
	if op.Kind != "compute#operation" || op.Status != "DONE" || op.OperationType != "insert" || op.Progress != 100 ||
		!strings.HasSuffix(op.Region, "/compute/v1/projects/proj/regions/us-central1") || !strings.HasSuffix(op.TargetLink, "/regions/us-central1/backendServices/user-bs") {
		t.Fatalf("insert operation: %s", servertest.MustJSON(op))
	}
	var again api.ComputeOperation
	e.OK("GET", strings.TrimPrefix(op.SelfLink, e.URL), nil, &again)
	if again.Name != op.Name || again.Status != "DONE" {
		t.Errorf("operations.get: %s", servertest.MustJSON(again))
	}
	var bs api.BackendService
	e.OK("GET", computeProj+"/regions/us-central1/backendServices/user-bs", nil, &bs)
	if len(bs.Backends) != 1 || !strings.HasSuffix(bs.Backends[0].Group, "/zones/us-central1-a/instanceGroups/"+mig) || bs.Backends[0].BalancingMode != "CONNECTION" ||
		bs.LoadBalancingScheme != "INTERNAL" || len(bs.HealthChecks) != 1 || !strings.HasSuffix(bs.HealthChecks[0], "/global/healthChecks/user-hc") {
		t.Errorf("backend service: %s", servertest.MustJSON(bs))
	}
	code, b := e.Call("POST", computeProj+"/regions/us-central1/backendServices", bsJSON("user-bs", "INTERNAL", mig))
	servertest.WantError(t, code, b, http.StatusConflict, "ALREADY_EXISTS", "alreadyExists", "The resource 'projects/proj/regions/us-central1/backendServices/user-bs' already exists")
	code, b = e.Call("POST", computeProj+"/regions/us-central1/backendServices", `{"name": "Bad_Name"}`)
	servertest.WantError(t, code, b, http.StatusBadRequest, "INVALID_ARGUMENT", "invalid", "Invalid value for field 'resource.name': 'Bad_Name'")

	e.K8sOK("POST", k8sSvcs, "application/json", `{"metadata": {"name": "ilb", "annotations": {"networking.gke.io/load-balancer-type": "Internal"}},
		"spec": {"type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}}`, nil)
	e.Advance(10 * time.Minute)
	var svc corev1.Service
	e.K8sOK("GET", k8sSvcs+"/ilb", "", "", &svc)
	if len(svc.Status.LoadBalancer.Ingress) != 0 {
		t.Fatalf("an address while blocked: %s", servertest.MustJSON(svc.Status))
	}
	var evs corev1.EventList
	e.K8sOK("GET", k8sBase+"/api/v1/namespaces/default/events", "", "", &evs)
	warnings := 0
	for _, ev := range evs.Items {
		if ev.Reason == "SyncLoadBalancerFailed" {
			warnings++
			if ev.Type != corev1.EventTypeWarning || ev.InvolvedObject.Kind != "Service" || ev.InvolvedObject.Name != "ilb" || ev.InvolvedObject.UID != svc.UID ||
				!strings.Contains(ev.Message, "backendServices/user-bs") || !strings.Contains(ev.Message, "#r-lb-5") {
				t.Errorf("event: %s", servertest.MustJSON(ev))
			}
		}
	}
	if warnings != 7 {
		t.Errorf("%d SyncLoadBalancerFailed events after 10 minutes, want 7", warnings)
	}
	var st api.LoadBalancerStatus
	e.OK("GET", "/emulator/v1/projects/proj/locations/us-central1-a/clusters/base/loadBalancers/default/ilb", nil, &st)
	if st.State != "FAILED" || st.IP != "" || st.Blocked == nil || st.Blocked.Attempts != 7 || st.Blocked.BackendService != "projects/proj/regions/us-central1/backendServices/user-bs" ||
		st.Blocked.InstanceGroup != "projects/proj/zones/us-central1-a/instanceGroups/"+mig || !strings.Contains(st.Blocked.Reason, "instanceInMultipleLoadBalancedIgs") {
		t.Errorf("status: %s", servertest.MustJSON(st))
	}

	e.OK("DELETE", computeProj+"/regions/us-central1/backendServices/user-bs", nil, &op)
	if op.OperationType != "delete" || op.Status != "DONE" {
		t.Errorf("delete operation: %s", servertest.MustJSON(op))
	}
	e.Advance(90 * time.Second) // the retry at 615 s, then 45-75 s to build
	e.K8sOK("GET", k8sSvcs+"/ilb", "", "", &svc)
	if len(svc.Status.LoadBalancer.Ingress) != 1 {
		t.Fatalf("no address 90 s after the delete: %s", servertest.MustJSON(svc.Status))
	}
	var ready api.LoadBalancerStatus
	e.OK("GET", "/emulator/v1/projects/proj/locations/us-central1-a/clusters/base/loadBalancers/default/ilb", nil, &ready)
	if ready.State != "READY" || ready.Blocked != nil || len(ready.Warnings) != 0 || ready.BackendCount != 2 {
		t.Errorf("status after the delete: %s", servertest.MustJSON(ready))
	}

	// The nodes are now in GKE's load-balanced groups: Compute refuses them elsewhere.
	code, b = e.Call("POST", computeProj+"/regions/us-central1/backendServices", bsJSON("on-mig", "INTERNAL", mig))
	servertest.WantError(t, code, b, http.StatusBadRequest, "INVALID_ARGUMENT", "instanceInMultipleLoadBalancedIgs",
		"Validation failed for instance 'projects/proj/zones/us-central1-a/instances/", "instance may belong to at most one load-balanced instance group",
		"instanceGroups/k8s-ig--", "instanceGroups/"+mig+"'")
	e.OK("POST", computeProj+"/zones/us-central1-a/instanceGroups", `{"name": "custom", "description": "mine"}`, &op)
	if op.OperationType != "insert" || !strings.HasSuffix(op.Zone, "/zones/us-central1-a") {
		t.Errorf("instance group insert: %s", servertest.MustJSON(op))
	}
	e.OK("POST", computeProj+"/zones/us-central1-a/instanceGroups/custom/addInstances", `{"instances": [{"instance": "projects/proj/zones/us-central1-a/instances/`+node+`"}]}`, &op)
	if op.OperationType != "compute.instanceGroups.addInstances" {
		t.Errorf("addInstances: %s", servertest.MustJSON(op))
	}
	e.OK("GET", computeProj+"/zones/us-central1-a/instanceGroups", nil, &igs)
	if len(igs.Items) != 3 || igs.Items[0].Name != "custom" || igs.Items[0].Size != 1 || igs.Items[0].Description != "mine" {
		t.Errorf("instance groups: %s", servertest.MustJSON(igs))
	}
	code, b = e.Call("POST", computeProj+"/regions/us-central1/backendServices", bsJSON("on-custom", "EXTERNAL", "custom"))
	servertest.WantError(t, code, b, http.StatusBadRequest, "INVALID_ARGUMENT", "instanceInMultipleLoadBalancedIgs", "instances/"+node+"'", "instanceGroups/custom'")
	code, b = e.Call("DELETE", computeProj+"/zones/us-central1-a/instanceGroups/"+mig, nil)
	servertest.WantError(t, code, b, http.StatusBadRequest, "INVALID_ARGUMENT", "resourceInUseByAnotherResource", "instanceGroupManagers/"+mig)
	e.OK("DELETE", computeProj+"/zones/us-central1-a/instanceGroups/custom", nil, &op)
	code, b = e.Call("GET", computeProj+"/zones/us-central1-a/operations/operation-nope", nil)
	servertest.WantError(t, code, b, http.StatusNotFound, "NOT_FOUND", "notFound", "operations/operation-nope' was not found")
}

// What a user's backend service or instance group stores is validated as Compute does (the
// probe: timeoutSec -1 was accepted), and kept: a timeout, connection draining and port name
// are echoed and survive a patch that does not send them.
func TestComputeValidatesWhatItStores(t *testing.T) {
	e := newEnv(t).withBase()
	e.OK("POST", computeProj+"/zones/us-central1-a/instanceGroups", `{"name": "ig"}`, nil)
	bs := func(extra string) string {
		return `{"name": "bs", "loadBalancingScheme": "EXTERNAL_MANAGED", "protocol": "HTTP",
			"backends": [{"group": "projects/proj/zones/us-central1-a/instanceGroups/ig"}]` + extra + `}`
	}
	for _, tc := range []struct{ name, path, body, want string }{
		{"negative timeout", "/regions/us-central1/backendServices", bs(`, "timeoutSec": -1`),
			"Invalid value for field 'resource.timeoutSec': '-1'. Must be from 1 to 2147483647 seconds (default 30)."},
		{"draining too long", "/regions/us-central1/backendServices", bs(`, "connectionDraining": {"drainingTimeoutSec": 4000}`),
			"Invalid value for field 'resource.connectionDraining.drainingTimeoutSec': '4000'. Must be from 0 to 3600 seconds."},
		{"session affinity", "/regions/us-central1/backendServices", bs(`, "sessionAffinity": "STICKY"`),
			"Invalid value for field 'resource.sessionAffinity': 'STICKY'. Must be one of NONE, CLIENT_IP"},
		{"port name", "/regions/us-central1/backendServices", bs(`, "portName": "HTTP_1"`),
			"Invalid value for field 'resource.portName': 'HTTP_1'."},
		{"balancing mode", "/regions/us-central1/backendServices",
			`{"name": "bs", "loadBalancingScheme": "EXTERNAL_MANAGED", "backends": [{"group": "projects/proj/zones/us-central1-a/instanceGroups/ig", "balancingMode": "FAST"}]}`,
			"Invalid value for field 'resource.backends[0].balancingMode': 'FAST'. Must be one of UTILIZATION, RATE, CONNECTION, CUSTOM_METRICS."},
		{"description", "/regions/us-central1/backendServices", bs(`, "description": "` + strings.Repeat("d", 2049) + `"`),
			"Must be at most 2048 characters long (it is 2049)."},
		{"named port", "/zones/us-central1-a/instanceGroups", `{"name": "ig2", "namedPorts": [{"name": "http", "port": 0}]}`,
			"Invalid value for field 'resource.namedPorts[0].port': '0'. Must be from 1 to 65535."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b := e.Call("POST", computeProj+tc.path, tc.body)
			servertest.WantError(t, code, b, http.StatusBadRequest, "INVALID_ARGUMENT", "invalid", tc.want)
		})
	}
	e.OK("POST", computeProj+"/regions/us-central1/backendServices", bs(`, "timeoutSec": 45, "portName": "http", "connectionDraining": {"drainingTimeoutSec": 60}`), nil)
	e.OK("PATCH", computeProj+"/regions/us-central1/backendServices/bs", `{"description": "patched"}`, nil)
	var got api.BackendService
	e.OK("GET", computeProj+"/regions/us-central1/backendServices/bs", nil, &got)
	if got.TimeoutSec != 45 || got.PortName != "http" || got.ConnectionDraining.DrainingTimeoutSec != 60 || got.Description != "patched" {
		t.Errorf("backend service after patch: %s", servertest.MustJSON(got))
	}
}
