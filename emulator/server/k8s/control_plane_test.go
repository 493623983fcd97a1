package k8s_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
)

// R-MW-6 at the HTTP side: while a zonal cluster's control plane is upgraded, reads, writes,
// discovery and open watches of its Kubernetes API all meet 503 ServiceUnavailable; once the
// upgrade is done the same requests are served.
func TestZonalKubeAPIRefusesDuringControlPlaneUpgrade(t *testing.T) {
	e := newEnv(t)
	reg := catalog.VersionsAt(servertest.Start).Channels[api.ChannelRegular].Valid
	from, to := reg[1], reg[0]
	e.Mutate("POST", servertest.Clusters, fmt.Sprintf(`{"cluster": {"name": "zonal", "initialClusterVersion": %q,
		"releaseChannel": {"channel": "UNSPECIFIED"}, "nodePools": [{"name": "pool-a", "initialNodeCount": 2}]}}`, from))
	const k8s = "/k8s/projects/proj/locations/us-central1-a/clusters/zonal"
	deploys := k8s + "/apis/apps/v1/namespaces/default/deployments"
	pods := k8s + "/api/v1/namespaces/default/pods"
	e.K8sOK("POST", deploys, "application/json", servertest.DeploymentJSON("web", 2, "10m"), nil)
	e.Advance(time.Minute)
	watch := e.Watch(pods+"?watch=true&resourceVersion="+fmt.Sprint(e.ListRV(pods)), "")

	var op api.Operation
	e.OK("PUT", servertest.Clusters+"/zonal", fmt.Sprintf(`{"update": {"desiredMasterVersion": %q}}`, to), &op)
	e.Advance(2 * time.Second) // the operation runs: the API goes down

	for _, ev := range watch.Until(func(ev servertest.Received) bool { return ev.Type == "ERROR" }) {
		if ev.Type == "ERROR" {
			if st := ev.Status(t); st.Code != http.StatusServiceUnavailable || st.Reason != metav1.StatusReasonServiceUnavailable {
				t.Errorf("the open watch ended with %+v, want 503 ServiceUnavailable", st)
			}
		}
	}
	for _, req := range []struct{ method, path, body string }{
		{"POST", deploys, servertest.DeploymentJSON("during", 1, "10m")},
		{"GET", pods, ""},
		{"GET", k8s + "/api", ""},
		{"GET", pods + "?watch=true", ""},
	} {
		code, _, body := e.K8sCall(req.method, req.path, "application/json", "", req.body)
		servertest.WantStatus(t, code, body, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable,
			"the server is currently unable to handle the request", "zonal cluster zonal", "maintenance#r-mw-6")
	}
	// The GKE API answers reads.
	var cl api.Cluster
	e.OK("GET", servertest.Clusters+"/zonal", nil, &cl)
	if cl.Status != "RECONCILING" {
		t.Errorf("cluster status %s during the upgrade, want RECONCILING", cl.Status)
	}

	e.Wait(&op)
	e.K8sOK("POST", deploys, "application/json", servertest.DeploymentJSON("after", 1, "10m"), nil)
	e.K8sOK("GET", pods, "", "", nil)
	if code, _, body := e.K8sCall("GET", deploys+"/during", "", "", ""); code != http.StatusNotFound {
		t.Errorf("the Deployment refused during the upgrade: HTTP %d %s, want 404", code, body)
	}
}
