package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
)

// request is one request with full control of its headers and Host.
type request struct {
	method, path, host, body string
	header                   map[string]string
}

func (e *env) do(r request) (int, http.Header, []byte) {
	e.T.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req, err := http.NewRequest(r.method, e.URL+r.path, body)
	if err != nil {
		e.T.Fatal(err)
	}
	if r.host != "" {
		req.Host = r.host
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// A web page open on the machine cannot mutate the emulator. The probes: a cross-site POST with
// Content-Type text/plain (no CORS preflight) created a cluster and injected a fault.
func TestCrossSiteRequestsAreRefused(t *testing.T) {
	e := newEnv(t).withBase()
	before := e.snapshot()
	create := `{"cluster": {"name": "evil", "initialNodeCount": 1}}`
	fault := `{"kind": "STOCKOUT", "zone": "us-central1-a"}`
	page := map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}
	for _, tc := range []struct {
		name string
		r    request
		code int
		want string
	}{
		{"text/plain form of a JSON body", request{"POST", clusters, "", create, map[string]string{"Content-Type": "text/plain"}},
			http.StatusUnsupportedMediaType, `Unsupported Content-Type "text/plain": request bodies must be JSON`},
		{"a fault injected as a form", request{"POST", "/emulator/v1/faults", "", fault, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
			http.StatusUnsupportedMediaType, "request bodies must be JSON"},
		{"a body without a type", request{"POST", "/emulator/v1/faults", "", fault, nil}, http.StatusUnsupportedMediaType, "request bodies must be JSON"},
		{"Sec-Fetch-Site cross-site", request{"POST", clusters, "", create, page}, http.StatusForbidden,
			`Cross-site request refused: a web page on http://evil.example may not send requests to the emulator (Sec-Fetch-Site "cross-site")`},
		{"same-site is another site's page too", request{"POST", clusters, "", create,
			map[string]string{"Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site", "Content-Type": "application/json"}},
			http.StatusForbidden, "Cross-site request refused"},
		{"Origin alone, not ours", request{"DELETE", base, "", "", map[string]string{"Origin": "http://evil.example"}}, http.StatusForbidden, "Cross-site request refused"},
		{"a bodiless POST from a page", request{"POST", "/emulator/v1/projects/proj/locations/us-central1-a/clusters/base/nodes/x:fail", "", "",
			map[string]string{"Sec-Fetch-Site": "cross-site"}}, http.StatusForbidden, "Cross-site request refused"},
		{"DNS rebinding: a page's own host name", request{"POST", clusters, "evil.example:8790", create,
			map[string]string{"Origin": "http://evil.example:8790", "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}},
			http.StatusForbidden, `Host "evil.example:8790" is not an address of this emulator`},
		{"DNS rebinding, reading", request{"GET", base, "evil.example", "", nil}, http.StatusForbidden, "a defence against DNS rebinding"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, h, b := e.do(tc.r)
			var eb api.ErrorBody
			if err := json.Unmarshal(b, &eb); err != nil || eb.Error == nil || code != tc.code || !strings.Contains(eb.Error.Message, tc.want) {
				t.Errorf("HTTP %d %s, want %d with %q", code, b, tc.code, tc.want)
			}
			if h.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("CORS header on a refusal: %v", h)
			}
		})
	}
	if after := e.snapshot(); after != before {
		t.Errorf("refused requests changed the model")
	}

	// A preflight is never granted: no CORS headers, so the browser sends nothing.
	_, h, _ := e.do(request{"OPTIONS", clusters, "", "", map[string]string{"Origin": "http://evil.example",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}})
	for k := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("preflight answered with %s: %v", k, h)
		}
	}
	// The emulator's own pages (a console under /ui/) and programs are served.
	for _, hdr := range []map[string]string{
		{"Origin": e.URL, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"},
		{"Content-Type": "application/json; charset=utf-8"},
		{"Sec-Fetch-Site": "none", "Content-Type": "application/json"},
	} {
		if code, _, b := e.do(request{"PATCH", "/emulator/v1/clock", "", `{"timeScale": 0}`, hdr}); code != http.StatusOK {
			t.Errorf("%v: HTTP %d %s", hdr, code, b)
		}
	}
	// Safe methods pass, as navigations and reads a page cannot see do no harm.
	if code, _, _ := e.do(request{"GET", base, "", "", map[string]string{"Sec-Fetch-Site": "cross-site"}}); code != http.StatusOK {
		t.Errorf("cross-site GET: HTTP %d", code)
	}
}

// Links come from the address the server listens on (or --advertise-url), never from the Host
// header. The probe: the Host header was copied into selfLink and the cluster endpoint.
func TestLinksDoNotComeFromTheHostHeader(t *testing.T) {
	e := newEnv(t).withBase()
	addr := strings.TrimPrefix(e.URL, "http://")
	var cl api.Cluster
	for _, host := range []string{"localhost:1", "127.0.0.2:9999", addr} {
		_, _, b := e.do(request{"GET", base, host, "", nil})
		if err := json.Unmarshal(b, &cl); err != nil {
			t.Fatalf("Host %s: %s", host, b)
		}
		if cl.SelfLink != e.URL+base || cl.Endpoint != addr+"/k8s/projects/proj/locations/us-central1-a/clusters/base" ||
			!strings.HasPrefix(cl.InstanceGroupUrls[0], e.URL+"/compute/v1/") {
			t.Errorf("Host %s: selfLink %s, endpoint %s, instance groups %v; want them on %s", host, cl.SelfLink, cl.Endpoint, cl.InstanceGroupUrls, e.URL)
		}
	}
	var apis metav1.APIVersions
	_, _, b := e.do(request{"GET", k8sBase + "/api", "localhost:1", "", nil})
	if err := json.Unmarshal(b, &apis); err != nil || apis.ServerAddressByClientCIDRs[0].ServerAddress != addr {
		t.Errorf("/api server address: %s", b)
	}

	adv := newEnvWith(t, Options{AdvertiseURL: "https://gkesim.example.com/team-a/"}).withBase()
	_, _, b = adv.do(request{"GET", base, "gkesim.example.com", "", nil})
	if err := json.Unmarshal(b, &cl); err != nil {
		t.Fatalf("%s", b)
	}
	if cl.SelfLink != "https://gkesim.example.com/team-a"+base || cl.Endpoint != "gkesim.example.com/team-a/k8s/projects/proj/locations/us-central1-a/clusters/base" {
		t.Errorf("behind a proxy: selfLink %s, endpoint %s", cl.SelfLink, cl.Endpoint)
	}
	_, _, b = adv.do(request{"GET", "/v1/projects/proj/locations/-/operations", "", "", nil})
	var ops api.ListOperationsResponse
	if err := json.Unmarshal(b, &ops); err != nil || len(ops.Operations) == 0 || !strings.HasPrefix(ops.Operations[0].SelfLink, "https://gkesim.example.com/team-a/v1/") {
		t.Errorf("operations behind a proxy: %s", b)
	}
	if _, err := New(nil, Options{AdvertiseURL: "gkesim.example.com"}); err == nil || !strings.Contains(err.Error(), "advertise URL") {
		t.Errorf("an advertise URL without a scheme: %v", err)
	}
}

// With a token, every route requires `Authorization: Bearer TOKEN` but /healthz; errors are
// Google's 401 on the Google-shaped routes and the API server's on the Kubernetes ones.
func TestAuthToken(t *testing.T) {
	const token = "s3cret-token"
	e := newEnvWith(t, Options{AuthToken: token})
	bearer := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"}
	for _, tc := range []struct {
		name   string
		header map[string]string
	}{{"no header", nil}, {"wrong token", map[string]string{"Authorization": "Bearer nope"}},
		{"not a bearer token", map[string]string{"Authorization": "Basic " + token}}} {
		t.Run(tc.name, func(t *testing.T) {
			code, h, b := e.do(request{"GET", "/v1/projects/proj/locations/-/clusters", "", "", tc.header})
			servertest.WantError(t, code, b, http.StatusUnauthorized, "UNAUTHENTICATED", "authError", "Request had invalid authentication credentials", "Authorization: Bearer TOKEN")
			if h.Get("WWW-Authenticate") != `Bearer realm="gkesim"` {
				t.Errorf("WWW-Authenticate %q", h.Get("WWW-Authenticate"))
			}
		})
	}
	for _, p := range []string{"/metrics", "/emulator/v1/clock", "/compute/v1/projects/proj/zones/us-central1-a/instanceGroups"} {
		if code, _, _ := e.do(request{"GET", p, "", "", nil}); code != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: HTTP %d", p, code)
		}
	}
	code, _, b := e.do(request{"GET", k8sBase + "/api/v1/nodes", "", "", nil})
	servertest.WantStatus(t, code, b, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized")
	if code, _, b := e.do(request{"GET", "/healthz", "", "", nil}); code != http.StatusOK || string(b) != "ok\n" {
		t.Errorf("healthz without a token: HTTP %d %s", code, b)
	}
	// With the token, the request goes through, on any host name (a stranger cannot rebind
	// what it cannot authenticate).
	if code, _, b := e.do(request{"POST", clusters, "gkesim.internal:8790", `{"cluster": {"name": "c", "initialNodeCount": 1}}`, bearer}); code != http.StatusOK {
		t.Errorf("with the token: HTTP %d %s", code, b)
	}
	u, _ := url.Parse(e.URL)
	if code, _, _ := e.do(request{"GET", "/v1/projects/proj/locations/-/clusters", u.Host, "", map[string]string{"authorization": "bearer " + token}}); code != http.StatusOK {
		t.Errorf("scheme names are case-insensitive: HTTP %d", code)
	}
}
