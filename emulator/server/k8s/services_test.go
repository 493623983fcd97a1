package k8s_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
)

// Services over HTTP: kubectl's table (NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, wide adds
// SELECTOR; <pending> until the load balancer is provisioned), the API server's errors as
// Status bodies, the Compute view of what GKE built (R-LB-2) and the emulator's status and
// packet trace (R-LB-7).
func TestK8sServicesAndLoadBalancers(t *testing.T) {
	e := newEnv(t).WithBase()
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("web", 2, "10m"), nil)
	var svc corev1.Service
	e.K8sOK("POST", servertest.K8sSvcs, "application/json", `{"metadata": {"name": "web"}, "spec": {"type": "LoadBalancer", "selector": {"app": "web"},
		"ports": [{"port": 80, "targetPort": 8080}]}}`, &svc)
	np := svc.Spec.Ports[0].NodePort
	if np < 30000 || np > 32767 || svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster || !strings.HasPrefix(svc.Spec.ClusterIP, "34.118.") {
		t.Fatalf("created service: %s", servertest.MustJSON(svc.Spec))
	}
	row := func() []any {
		tb := table(e, servertest.K8sSvcs)
		for _, r := range tb.Rows {
			if r.Cells[0] == "web" {
				if got := strings.Join(columns(tb, true), " "); got != "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR" {
					t.Fatalf("columns %s", got)
				}
				return r.Cells
			}
		}
		t.Fatalf("no row for web")
		return nil
	}
	if cells := row(); cells[3] != "<pending>" || cells[4] != "80:"+itoa(np)+"/TCP" || cells[6] != "app=web" {
		t.Errorf("while provisioning: %v", cells)
	}
	e.Advance(2 * time.Minute)
	e.K8sOK("GET", servertest.K8sSvcs+"/web", "", "", &svc)
	if len(svc.Status.LoadBalancer.Ingress) != 1 || !strings.HasPrefix(svc.Status.LoadBalancer.Ingress[0].IP, "35.") {
		t.Fatalf("status after provisioning: %s", servertest.MustJSON(svc.Status))
	}
	ip := svc.Status.LoadBalancer.Ingress[0].IP
	if cells := row(); cells[3] != ip {
		t.Errorf("after provisioning: %v", cells)
	}
	code, _, b := e.K8sCall("POST", servertest.K8sSvcs, "application/json", "", `{"metadata": {"name": "bad"}, "spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": `+itoa(np)+`}]}}`)
	servertest.WantStatus(t, code, b, http.StatusUnprocessableEntity, "Invalid", `Service "bad" is invalid: spec.ports[0].nodePort: Invalid value: `+itoa(np)+`: provided port is already allocated`)

	// The Compute view: a target pool-based NetLB (R-LB-2, no l4-rbs).
	var frs struct {
		Kind  string                `json:"kind"`
		Items []*api.ForwardingRule `json:"items"`
	}
	e.OK("GET", "/compute/v1/projects/proj/regions/us-central1/forwardingRules", nil, &frs)
	if frs.Kind != "compute#forwardingRuleList" || len(frs.Items) != 1 || frs.Items[0].IPAddress != ip || frs.Items[0].LoadBalancingScheme != "EXTERNAL" ||
		!strings.Contains(frs.Items[0].Target, "/regions/us-central1/targetPools/a") || frs.Items[0].PortRange != "80-80" {
		t.Fatalf("forwarding rules: %s", servertest.MustJSON(frs))
	}
	var tp api.TargetPool
	e.OK("GET", "/compute/v1/projects/proj/regions/us-central1/targetPools/"+frs.Items[0].Name, nil, &tp)
	if len(tp.Instances) != 2 || !strings.Contains(tp.HealthChecks[0], "/global/httpHealthChecks/k8s-") {
		t.Errorf("target pool: %s", servertest.MustJSON(tp))
	}
	var health api.TargetPoolInstanceHealth
	e.OK("POST", "/compute/v1/projects/proj/regions/us-central1/targetPools/"+tp.Name+"/getHealth", map[string]string{"instance": tp.Instances[0]}, &health)
	if len(health.HealthStatus) != 1 || health.HealthStatus[0].HealthState != "HEALTHY" || health.HealthStatus[0].Port != 10256 {
		t.Errorf("getHealth: %s", servertest.MustJSON(health))
	}
	code, b = e.Call("GET", "/compute/v1/projects/proj/regions/us-central1/backendServices/nope", nil)
	servertest.WantError(t, code, b, http.StatusNotFound, "NOT_FOUND", "notFound", "backendServices/nope")

	// The emulator's views.
	var st api.LoadBalancerStatus
	e.OK("GET", "/emulator/v1/projects/proj/locations/us-central1-a/clusters/base/loadBalancers/default/web", nil, &st)
	if st.Kind != "external-target-pool" || st.HealthyBackends != 2 || st.BackendCount != 2 || st.HealthCheck.Port != 10256 || !strings.Contains(st.Why, "target pool-based external passthrough Network Load Balancer") {
		t.Errorf("status: %s", servertest.MustJSON(st))
	}
	var tr api.PacketTrace
	e.OK("GET", "/emulator/v1/projects/proj/locations/us-central1-a/clusters/base/trace?ip="+ip+"&port=80&clientIp=198.51.100.1", nil, &tr)
	if tr.Result != "DELIVERED" || !tr.SNAT || tr.Pod == nil || tr.Pod.Port != 8080 || len(tr.Hops) < 3 {
		t.Errorf("trace: %s", servertest.MustJSON(tr))
	}
	code, b = e.Call("GET", "/emulator/v1/projects/proj/locations/us-central1-a/clusters/base/trace?ip=nope&port=80", nil)
	servertest.WantError(t, code, b, http.StatusBadRequest, "INVALID_ARGUMENT", "badRequest", `"ip"`)

	// Deletion: the finalizer holds the Service until the load balancer is gone.
	e.K8sOK("DELETE", servertest.K8sSvcs+"/web", "", "", &svc)
	if svc.DeletionTimestamp == nil || len(svc.Finalizers) != 1 {
		t.Errorf("deleted service: %s", servertest.MustJSON(svc.ObjectMeta))
	}
	e.Advance(time.Minute)
	code, _, b = e.K8sCall("GET", servertest.K8sSvcs+"/web", "", "", "")
	servertest.WantStatus(t, code, b, http.StatusNotFound, "NotFound", `services "web" not found`)
	e.OK("GET", "/compute/v1/projects/proj/regions/us-central1/forwardingRules", nil, &frs)
	if len(frs.Items) != 0 {
		t.Errorf("forwarding rules left: %s", servertest.MustJSON(frs))
	}
}

func itoa(n int32) string {
	return strings.TrimSpace(strings.Replace(servertest.MustJSON(n), `"`, "", -1))
}
