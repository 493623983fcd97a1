package server

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// The console's files: served at /ui/ with a policy that keeps the page to its own origin,
// read-only; / and /ui lead there.
func TestConsoleFiles(t *testing.T) {
	e := newEnv(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(method, path string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, e.URL+path, nil)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, body := get(http.MethodGet, "/ui/")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `<script type="module" src="js/main.js">`) ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /ui/: %d %s: %.200s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") ||
		!strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	for path, ctype := range map[string]string{"/ui/js/main.js": "text/javascript", "/ui/css/console.css": "text/css", "/ui/favicon.svg": "image/svg+xml"} {
		if res, _ := get(http.MethodGet, path); res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), ctype) {
			t.Errorf("GET %s: %d %s, want %s", path, res.StatusCode, res.Header.Get("Content-Type"), ctype)
		}
	}
	for path, want := range map[string]int{"/ui/nope.js": http.StatusNotFound, "/ui/../go.mod": http.StatusNotFound} {
		if res, _ := get(http.MethodGet, path); res.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, res.StatusCode, want)
		}
	}
	if res, _ := get(http.MethodPost, "/ui/"); res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /ui/: %d, Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
	for path, want := range map[string]string{"/": "/ui/", "/ui": "/ui/"} {
		if res, _ := get(http.MethodGet, path); res.StatusCode/100 != 3 || res.Header.Get("Location") != want {
			t.Errorf("GET %s: %d to %q, want a redirect to %s", path, res.StatusCode, res.Header.Get("Location"), want)
		}
	}
}

// The aggregate views answer for a cluster, and say which parameter is wrong and how.
func TestConsoleViews(t *testing.T) {
	e := newEnv(t).withBase()
	cl := "/emulator/v1/projects/proj/locations/us-central1-a/clusters/base"
	var sum api.ClusterSummaryList
	e.OK("GET", "/emulator/v1/clusters", nil, &sum)
	if len(sum.Clusters) != 1 || sum.Clusters[0].Name != "base" || sum.Clusters[0].CurrentNodeCount == 0 {
		t.Fatalf("clusters %+v", sum.Clusters)
	}
	var nodes api.ClusterNodes
	e.OK("GET", cl+"/nodeSummary", nil, &nodes)
	total := 0
	for _, p := range nodes.Pools {
		total += p.Nodes
	}
	if total != sum.Clusters[0].CurrentNodeCount || len(nodes.States) != 6 {
		t.Fatalf("node summary counts %d nodes, the cluster %d", total, sum.Clusters[0].CurrentNodeCount)
	}
	var ops api.ListOperationsResponse
	e.OK("GET", "/v1/projects/proj/locations/-/operations", nil, &ops)
	var tl api.OperationTimeline
	e.OK("GET", "/emulator/v1/projects/proj/locations/us-central1-a/operations/"+ops.Operations[0].Name+"/timeline", nil, &tl)
	if tl.Operation.Type != api.OpCreateCluster || len(tl.Nodes) != total {
		t.Fatalf("timeline of %s: %d rows, want one per node (%d)", tl.Operation.Type, len(tl.Nodes), total)
	}
	for _, path := range []string{cl + "/autoscaler", cl + "/loadBalancerHistory", cl + "/maintenanceCalendar?days=30"} {
		e.OK("GET", path, nil, nil)
	}
	for path, want := range map[string]string{
		cl + "/autoscaler?since=yesterday":                                             `query parameter \"since\": \"yesterday\". It must be an RFC 3339 time`,
		cl + "/autoscaler?limit=0":                                                     `query parameter \"limit\": \"0\". Give a whole number from 1 to 5000`,
		cl + "/maintenanceCalendar?days=401":                                           `query parameter \"days\": \"401\". Give a whole number from 1 to 400`,
		"/emulator/v1/projects/proj/locations/us-central1-a/operations/nope/timeline":  `Operation \"nope\" not found`,
		"/emulator/v1/projects/proj/locations/us-central1-a/clusters/nope/nodeSummary": `nope`,
	} {
		code, b := e.Call("GET", path, nil)
		if code/100 != 4 || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %d %s, want a 4xx saying %s", path, code, b, want)
		}
	}
}
