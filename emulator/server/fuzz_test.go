package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/wall"
)

// Fuzz targets for every request decoder, driven through the server as a client drives it:
// the body of each route that takes one, whatever it holds, gets an answer that is not a 5xx
// (a 500 is a bug: a panic the runner caught, or a decoder error nobody named), and an error
// answer is Google's envelope or the API server's Status. The world is frozen (time moves only
// if a request moves it) and rebuilt every fuzzRebuild inputs, so that it stays small.

const fuzzRebuild = 200

// fuzzEnv is a server on a world with the base cluster (pool-a, two nodes) up.
type fuzzEnv struct {
	srv      *Server
	stop     func()
	n        int
	populate bool
}

func newFuzzEnv(tb testing.TB, populate bool) *fuzzEnv {
	f := &fuzzEnv{populate: populate}
	f.rebuild(tb)
	tb.Cleanup(func() { f.stop() })
	return f
}

func (f *fuzzEnv) rebuild(tb testing.TB) {
	if f.stop != nil {
		f.stop()
	}
	w := sim.New(sim.Options{Seed: 7, Start: testStart})
	r := sim.NewRunner(w, sim.RunnerOptions{Wall: wall.System{}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	f.stop = func() { cancel(); <-done }
	srv, err := New(r, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	f.srv, f.n = srv, 0
	if !f.populate {
		return
	}
	for _, s := range []struct{ method, path, body string }{
		{"POST", clusters, `{"cluster": {"name": "base", "nodePools": [{"name": "pool-a", "initialNodeCount": 2}]}}`},
		{"POST", "/emulator/v1/clock:advance", `{"duration": "900s"}`},
		{"POST", k8sDeploy, servertest.DeploymentJSON("web", 2, "10m")},
		{"POST", k8sBase + "/apis/policy/v1/namespaces/default/poddisruptionbudgets", `{"metadata": {"name": "web"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}`},
		{"POST", k8sSvcs, `{"metadata": {"name": "web"}, "spec": {"type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 80}]}}`},
		{"POST", computeProj + "/zones/us-central1-a/instanceGroups", `{"name": "ig"}`},
		{"POST", computeProj + "/regions/us-central1/backendServices", `{"name": "bs", "loadBalancingScheme": "EXTERNAL_MANAGED", "protocol": "HTTP"}`},
		{"POST", "/emulator/v1/clock:advance", `{"duration": "120s"}`},
	} {
		if rec := f.send(s.method, s.path, "application/json", []byte(s.body)); rec.Code >= 300 {
			tb.Fatalf("%s %s: HTTP %d %s", s.method, s.path, rec.Code, rec.Body)
		}
	}
}

func (f *fuzzEnv) send(method, path, contentType string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Host = "127.0.0.1"
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, req)
	return rec
}

// call sends one fuzzed request and checks the answer.
func (f *fuzzEnv) call(t *testing.T, method, path, contentType string, body []byte) {
	if f.n++; f.n > fuzzRebuild {
		f.rebuild(t)
	}
	rec := f.send(method, path, contentType, body)
	if rec.Code >= 500 {
		t.Fatalf("%s %s %q: HTTP %d %s", method, path, body, rec.Code, rec.Body)
	}
	if rec.Code < 400 {
		return
	}
	if isK8sPath(path) {
		var st metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Kind != "Status" || st.Message == "" || int(st.Code) != rec.Code {
			t.Fatalf("%s %s %q: HTTP %d, not a Status: %s", method, path, body, rec.Code, rec.Body)
		}
		return
	}
	var eb api.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error == nil || eb.Error.Message == "" || eb.Error.Code != rec.Code {
		t.Fatalf("%s %s %q: HTTP %d, not Google's error envelope: %s", method, path, body, rec.Code, rec.Body)
	}
}

type fuzzRoute struct{ method, path string }

func pick[T any](routes []T, i uint8) T { return routes[int(i)%len(routes)] }

// The GKE routes that take a body (v1 and v1beta1, as their schemas differ).
func FuzzGKERequests(f *testing.F) {
	routes := []fuzzRoute{
		{"POST", clusters}, {"PUT", base}, {"POST", base + ":updateMaster"}, {"POST", base + ":setLocations"},
		{"POST", base + ":setLogging"}, {"POST", base + ":setMonitoring"}, {"POST", base + ":setAddons"}, {"POST", base + ":setLegacyAbac"},
		{"POST", base + ":setNetworkPolicy"}, {"POST", base + ":setResourceLabels"}, {"POST", base + ":setMasterAuth"},
		{"POST", base + ":setMaintenancePolicy"}, {"POST", pools}, {"PUT", poolA}, {"POST", poolA + ":setSize"},
		{"POST", poolA + ":setManagement"}, {"POST", poolA + ":setAutoscaling"}, {"POST", poolA + ":rollback"},
		{"POST", poolA + ":completeUpgrade"}, {"POST", locPath + "/operations/operation-1:cancel"},
		{"POST", strings.Replace(clusters, "/v1/", "/v1beta1/", 1)}, {"PUT", strings.Replace(poolA, "/v1/", "/v1beta1/", 1)},
	}
	env := newFuzzEnv(f, true)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		r := pick(routes, route)
		env.call(t, r.method, r.path, "application/json", body)
	})
}

// The Compute routes that take a body.
func FuzzComputeRequests(f *testing.F) {
	routes := []fuzzRoute{
		{"POST", computeProj + "/regions/us-central1/backendServices"}, {"PUT", computeProj + "/regions/us-central1/backendServices/bs"},
		{"PATCH", computeProj + "/regions/us-central1/backendServices/bs"}, {"POST", computeProj + "/zones/us-central1-a/instanceGroups"},
		{"POST", computeProj + "/zones/us-central1-a/instanceGroups/ig/addInstances"},
		{"POST", computeProj + "/zones/us-central1-a/instanceGroups/ig/removeInstances"},
		{"POST", computeProj + "/regions/us-central1/backendServices/bs/getHealth"},
		{"POST", computeProj + "/regions/us-central1/targetPools/a/getHealth"},
		{"POST", computeProj + "/zones/us-central1-a/networkEndpointGroups/n/listNetworkEndpoints"},
	}
	env := newFuzzEnv(f, true)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		r := pick(routes, route)
		env.call(t, r.method, r.path, "application/json", body)
	})
}

// The emulator's own routes that take a body, on an empty world (an advance runs nothing).
func FuzzEmulatorRequests(f *testing.F) {
	routes := []fuzzRoute{{"POST", "/emulator/v1/faults"}, {"PATCH", "/emulator/v1/clock"}, {"POST", "/emulator/v1/clock:advance"}}
	env := newFuzzEnv(f, false)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		r := pick(routes, route)
		env.call(t, r.method, r.path, "application/json", body)
		// Leave the clock frozen for the next input.
		if r.method == "PATCH" {
			env.send("PATCH", "/emulator/v1/clock", "application/json", []byte(`{"timeScale": 0}`))
		}
	})
}

// The Kubernetes routes that take a body: creates, updates, the three patch types,
// evictions and delete options, under each fieldValidation.
func FuzzK8sRequests(f *testing.F) {
	pdbs := k8sBase + "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	env := newFuzzEnv(f, true)
	node, pod := env.first(f, k8sBase+"/api/v1/nodes"), env.first(f, k8sPods)
	routes := []fuzzRoute{
		{"POST", k8sBase + "/api/v1/namespaces"}, {"POST", k8sPods}, {"POST", k8sDeploy}, {"PUT", k8sDeploy + "/web"},
		{"PATCH", k8sDeploy + "/web"}, {"PUT", k8sDeploy + "/web/scale"}, {"PATCH", k8sDeploy + "/web/scale"}, {"POST", pdbs},
		{"PUT", pdbs + "/web"}, {"PATCH", pdbs + "/web"}, {"POST", k8sSvcs}, {"PUT", k8sSvcs + "/web"}, {"PATCH", k8sSvcs + "/web"},
		{"PATCH", k8sBase + "/api/v1/nodes/" + node}, {"POST", k8sPods + "/" + pod + "/eviction"}, {"DELETE", k8sPods + "/" + pod},
	}
	types := []string{"application/json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json"}
	queries := []string{"", "?fieldValidation=Strict", "?fieldValidation=Warn", "?fieldValidation=Ignore"}
	f.Fuzz(func(t *testing.T, route, contentType, query uint8, body []byte) {
		r := pick(routes, route)
		ct := "application/json"
		if r.method == "PATCH" {
			ct = pick(types, contentType)
		}
		env.call(t, r.method, r.path+pick(queries, query), ct, body)
	})
}

// first is the name of the first item a list route answers with (rebuilt worlds name their
// objects the same: the seed is fixed).
func (f *fuzzEnv) first(tb testing.TB, list string) string {
	var l struct {
		Items []struct{ Metadata struct{ Name string } }
	}
	rec := f.send("GET", list, "", nil)
	if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil || len(l.Items) == 0 {
		tb.Fatalf("GET %s: %d %s", list, rec.Code, rec.Body)
	}
	return l.Items[0].Metadata.Name
}

// The fuzz environment itself: the seeds' routes answer.
func TestFuzzEnvServes(t *testing.T) {
	env := newFuzzEnv(t, true)
	if rec := env.send("GET", k8sBase+"/api/v1/nodes", "", nil); rec.Code != http.StatusOK {
		t.Fatalf("nodes: HTTP %d %s", rec.Code, rec.Body)
	}
}
