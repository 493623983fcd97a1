package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The paths and the start time of servertest's bench, by the names this package's tests use.
var testStart = servertest.Start

const (
	locPath   = servertest.LocPath
	clusters  = servertest.Clusters
	base      = servertest.Base
	pools     = servertest.Pools
	poolA     = servertest.PoolA
	k8sBase   = servertest.K8sBase
	k8sDeploy = servertest.K8sDeploy
	k8sPods   = servertest.K8sPods
	k8sSvcs   = servertest.K8sSvcs
)

// env is servertest's bench around this package's Server, which tests reach as srv.
type env struct {
	*servertest.Env
	srv *Server
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, Options{})
}

func newEnvWith(t *testing.T, opts Options) *env {
	t.Helper()
	return newEnvWithWorld(t, opts, servertest.World())
}

// newEnvWithWorld is newEnvWith a world of its own options.
func newEnvWithWorld(t *testing.T, opts Options, wopts sim.Options) *env {
	t.Helper()
	e := &env{}
	e.Env = servertest.New(t, wopts, func(r *sim.Runner) (http.Handler, error) {
		srv, err := New(r, opts)
		e.srv = srv
		return srv, err
	})
	return e
}

// withBase creates the cluster most tests start from (servertest's Env.WithBase).
func (e *env) withBase() *env {
	e.T.Helper()
	e.WithBase()
	return e
}

// snapshot is everything a client can read about the model. With the clock frozen, a request
// that changed nothing leaves it byte for byte the same.
func (e *env) snapshot() string {
	e.T.Helper()
	var b strings.Builder
	for _, p := range []string{"/v1/projects/proj/locations/-/clusters", pools, "/v1/projects/proj/locations/-/operations",
		"/emulator/v1/clock", "/emulator/v1/events", "/metrics"} {
		code, body := e.Call("GET", p, nil)
		fmt.Fprintf(&b, "GET %s: %d\n%s\n", p, code, body)
	}
	return b.String()
}

// Malformed requests get 400 INVALID_ARGUMENT naming the field, and change nothing.
func TestMalformedRequestsAreRejected(t *testing.T) {
	e := newEnv(t).withBase()
	long := strings.Repeat("a", 41)
	cases := []struct {
		name, method, path, body string
		want                     []string
	}{
		{"bad JSON syntax", "POST", clusters, `{"cluster": {"name": "c2",`, []string{"Invalid JSON payload", "Syntax error"}},
		{"empty create body", "POST", clusters, ``, []string{`"cluster"`}},
		{"body is not an object", "POST", poolA + ":setSize", `[3]`, []string{`Invalid JSON payload received. Unknown name "": Root element must be a message.`}},
		{"cluster is not an object", "POST", clusters, `{"cluster": ["c2"]}`,
			[]string{`Invalid JSON payload received. Unknown name "cluster": Proto field is not repeating, cannot start list.`}},
		{"initialNodeCount is a string", "POST", clusters, `{"cluster": {"name": "c2", "initialNodeCount": "abc"}}`,
			[]string{`Invalid value at 'cluster.initial_node_count' (TYPE_INT32), "abc"`}},
		{"diskSizeGb is a string", "POST", pools, `{"nodePool": {"name": "p2", "initialNodeCount": 1, "config": {"diskSizeGb": "big"}}}`,
			[]string{`Invalid value at 'node_pool.config.disk_size_gb' (TYPE_INT32), "big"`}},
		{"int64 diskSizeGb is not a number", "PUT", poolA, `{"diskSizeGb": "big"}`, []string{`Invalid value at 'disk_size_gb' (TYPE_INT64), "big"`}},
		{"int64 maxPodsPerNode is not a number", "POST", pools, `{"nodePool": {"name": "p2", "initialNodeCount": 1, "maxPodsConstraint": {"maxPodsPerNode": "many"}}}`,
			[]string{`Invalid value at 'node_pool.max_pods_constraint.max_pods_per_node' (TYPE_INT64), "many"`}},
		{"unknown release channel", "POST", clusters, `{"cluster": {"name": "c2", "initialNodeCount": 1, "releaseChannel": {"channel": "FOO"}}}`,
			[]string{`"cluster.releaseChannel.channel"`, `"FOO"`, "REGULAR"}},
		{"unknown taint effect", "POST", pools, `{"nodePool": {"name": "p2", "initialNodeCount": 1, "config": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}}}`,
			[]string{`"nodePool.config.taints[0].effect"`, "NO_SCHEDULE"}},
		{"unknown taint effect in update", "PUT", poolA, `{"taints": {"taints": [{"key": "k", "effect": "BLOCK"}]}}`,
			[]string{`"taints.taints[0].effect"`, `"BLOCK"`}},
		{"unknown autoscaling profile", "POST", clusters, `{"cluster": {"name": "c2", "initialNodeCount": 1, "autoscaling": {"autoscalingProfile": "FASTEST"}}}`,
			[]string{`"cluster.autoscaling.autoscalingProfile"`, "OPTIMIZE_UTILIZATION"}},
		{"unknown autoscaling profile in update", "PUT", base, `{"update": {"desiredClusterAutoscaling": {"autoscalingProfile": "FASTEST"}}}`,
			[]string{`"update.desiredClusterAutoscaling.autoscalingProfile"`}},
		{"unknown upgrade strategy", "POST", pools, `{"nodePool": {"name": "p2", "initialNodeCount": 1, "upgradeSettings": {"strategy": "ROLLING"}}}`,
			[]string{`"nodePool.upgradeSettings.strategy"`, "BLUE_GREEN"}},
		{"unknown upgrade strategy in update", "PUT", poolA, `{"upgradeSettings": {"strategy": "ROLLING"}}`,
			[]string{`"upgradeSettings.strategy"`}},
		{"negative initialNodeCount", "POST", clusters, `{"cluster": {"name": "c2", "nodePools": [{"name": "p", "initialNodeCount": -1}]}}`,
			[]string{`"cluster.nodePools[0].initialNodeCount"`, "-1"}},
		{"negative initialNodeCount of a new pool", "POST", pools, `{"nodePool": {"name": "p2", "initialNodeCount": -3}}`,
			[]string{`"nodePool.initialNodeCount"`, "-3"}},
		{"negative setSize nodeCount", "POST", poolA + ":setSize", `{"nodeCount": -1}`, []string{`"nodeCount"`, "-1"}},
		{"uppercase cluster name", "POST", clusters, `{"cluster": {"name": "BadName", "initialNodeCount": 1}}`,
			[]string{`"cluster.name"`, `"BadName"`}},
		{"cluster name of 41 characters", "POST", clusters, `{"cluster": {"name": "` + long + `", "initialNodeCount": 1}}`,
			[]string{`"cluster.name"`, "at most 40 characters"}},
		{"missing cluster name", "POST", clusters, `{"cluster": {"initialNodeCount": 1}}`, []string{`"cluster.name"`}},
		{"bad node pool name", "POST", pools, `{"nodePool": {"name": "Pool_1", "initialNodeCount": 1}}`,
			[]string{`"nodePool.name"`, `"Pool_1"`}},
		{"bad node pool name in cluster create", "POST", clusters, `{"cluster": {"name": "c2", "nodePools": [{"name": "-p", "initialNodeCount": 1}]}}`,
			[]string{`"cluster.nodePools[0].name"`}},
		{"unknown location", "POST", "/v1/projects/proj/locations/mars-central1/clusters", `{"cluster": {"name": "c2", "initialNodeCount": 1}}`,
			[]string{`"mars-central1"`, "us-central1"}},
		{"node zone outside the region", "POST", clusters, `{"cluster": {"name": "c2", "initialNodeCount": 1, "locations": ["us-east1-b"]}}`,
			[]string{`"cluster.locations"`, `"us-east1-b"`}},
		{"unknown machine type", "POST", pools, `{"nodePool": {"name": "p2", "initialNodeCount": 1, "config": {"machineType": "e2-huge"}}}`,
			[]string{`"nodePool.config.machineType"`, `"e2-huge"`}},
		{"unknown machine type in update", "PUT", poolA, `{"machineType": "e2-huge"}`, []string{`field "machineType"`, `"e2-huge"`}},
		{"disk of 5 GB", "POST", pools, `{"nodePool": {"name": "p2", "initialNodeCount": 1, "config": {"diskSizeGb": 5}}}`,
			[]string{`"nodePool.config.diskSizeGb"`, ": 5.", "between 10"}},
		{"disk of 5 GB in update", "PUT", poolA, `{"diskSizeGb": "5"}`, []string{`field "diskSizeGb"`, ": 5."}},
		{"unsupported cluster version", "POST", clusters, `{"cluster": {"name": "c2", "initialNodeCount": 1, "initialClusterVersion": "1.20"}}`,
			[]string{`"cluster.initialClusterVersion"`, `"1.20"`}},
		{"unsupported node pool version", "POST", pools, `{"nodePool": {"name": "p2", "initialNodeCount": 1, "version": "1.2.3"}}`,
			[]string{`"nodePool.version"`, `"1.2.3"`}},
		{"unsupported version in node pool update", "PUT", poolA, `{"nodeVersion": "1.99.0-gke.1"}`, []string{`field "nodeVersion"`}},
		{"unsupported node version in cluster update", "PUT", base, `{"update": {"desiredNodeVersion": "1.99"}}`,
			[]string{`"update.desiredNodeVersion"`, `"1.99"`}},
		{"unknown image type in cluster update", "PUT", base, `{"update": {"desiredImageType": "WINDOWS_95"}}`,
			[]string{`"update.desiredImageType"`, `"WINDOWS_95"`}},
		{"unsupported control plane version", "PUT", base, `{"update": {"desiredMasterVersion": "2.0"}}`,
			[]string{`"update.desiredMasterVersion"`, `"2.0"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.snapshot()
			code, body := e.Call(tc.method, tc.path, tc.body)
			servertest.WantError(t, code, body, http.StatusBadRequest, "INVALID_ARGUMENT", "badRequest", tc.want...)
			if after := e.snapshot(); after != before {
				t.Errorf("the rejected request changed the model:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

func TestNotFound(t *testing.T) {
	e := newEnv(t).withBase()
	cases := []struct {
		name, method, path string
		want               []string
	}{
		{"unknown cluster", "GET", clusters + "/nope", []string{"Not found: projects/proj/locations/us-central1-a/clusters/nope"}},
		{"cluster in another location", "GET", "/v1/projects/proj/locations/us-central1-b/clusters/base", []string{"clusters/base"}},
		{"delete unknown cluster", "DELETE", clusters + "/nope", []string{"clusters/nope"}},
		{"node pools of an unknown cluster", "GET", clusters + "/nope/nodePools", []string{"clusters/nope"}},
		{"unknown node pool", "GET", pools + "/nope", []string{`"nope"`}},
		{"resize unknown node pool", "POST", pools + "/nope:setSize", []string{`"nope"`}},
		{"unknown operation", "GET", locPath + "/operations/operation-1-deadbeef", []string{"operations/operation-1-deadbeef"}},
		{"unknown URL", "GET", "/v2/projects/proj", []string{"The requested URL /v2/projects/proj was not found"}},
		{"unknown cluster method", "POST", base + ":explode", []string{`"explode"`}},
		{"unknown node pool method", "POST", poolA + ":explode", []string{`"explode"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.Call(tc.method, tc.path, "{}")
			servertest.WantError(t, code, body, http.StatusNotFound, "NOT_FOUND", "notFound", tc.want...)
		})
	}
}

func TestDuplicatesAreAlreadyExists(t *testing.T) {
	e := newEnv(t).withBase()
	before := e.snapshot()
	code, body := e.Call("POST", clusters, `{"cluster": {"name": "base", "initialNodeCount": 1}}`)
	servertest.WantError(t, code, body, http.StatusConflict, "ALREADY_EXISTS", "alreadyExists", "Already exists: projects/proj/locations/us-central1-a/clusters/base")
	code, body = e.Call("POST", pools, `{"nodePool": {"name": "pool-a", "initialNodeCount": 1}}`)
	servertest.WantError(t, code, body, http.StatusConflict, "ALREADY_EXISTS", "alreadyExists", "clusters/base/nodePools/pool-a")
	if after := e.snapshot(); after != before {
		t.Errorf("duplicates changed the model:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// While an operation holds a cluster, other mutations get GKE's "please wait" (400
// FAILED_PRECONDITION), which clients such as terraform-provider-google retry on.
func TestMutationWhileOperationRunsIsFailedPrecondition(t *testing.T) {
	e := newEnv(t).withBase()
	var op api.Operation
	e.OK("POST", poolA+":setSize", `{"nodeCount": 3}`, &op)
	if op.Status != api.OpStatusPending || op.OperationType != api.OpSetNodePoolSize {
		t.Fatalf("setSize returned %s %s, want a PENDING SET_NODE_POOL_SIZE operation", op.OperationType, op.Status)
	}
	wantMsg := "Operation " + op.Name + " is currently operating on cluster base. Please wait and try again once it is done."
	cases := []struct{ name, method, path, body string }{
		{"setSize", "POST", poolA + ":setSize", `{"nodeCount": 1}`},
		{"create node pool", "POST", pools, `{"nodePool": {"name": "p2", "initialNodeCount": 1}}`},
		{"update node pool", "PUT", poolA, `{"labels": {"labels": {"a": "b"}}}`},
		{"delete node pool", "DELETE", poolA, ``},
		{"update cluster", "PUT", base, `{"update": {"desiredReleaseChannel": {"channel": "STABLE"}}}`},
		{"delete cluster", "DELETE", base, ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.Call(tc.method, tc.path, tc.body)
			servertest.WantError(t, code, body, http.StatusBadRequest, "FAILED_PRECONDITION", "failedPrecondition", wantMsg)
		})
	}
	// setManagement only changes metadata, so it may run while another operation holds the cluster.
	var mgmt api.Operation
	e.OK("POST", poolA+":setManagement", `{"management": {"autoUpgrade": true, "autoRepair": true}}`, &mgmt)
	if mgmt.OperationType != api.OpSetNodePoolManagement {
		t.Errorf("setManagement operation type %s", mgmt.OperationType)
	}
	e.Wait(&op)
	e.Wait(&mgmt)
	// Once the operation is done the cluster takes mutations again.
	e.Mutate("POST", poolA+":setSize", `{"nodeCount": 1}`)
}

// Operations go PENDING -> RUNNING -> DONE on the emulated clock, stepped by clock:advance.
func TestOperationLifecycle(t *testing.T) {
	e := newEnv(t)
	var op api.Operation
	e.OK("POST", clusters, `{"cluster": {"name": "life", "nodePools": [{"name": "pool-a", "initialNodeCount": 1}]}}`, &op)
	if op.Status != api.OpStatusPending || op.OperationType != api.OpCreateCluster || op.EndTime != "" {
		t.Fatalf("create returned %s %s endTime %q, want PENDING CREATE_CLUSTER without endTime", op.OperationType, op.Status, op.EndTime)
	}
	if op.StartTime != testStart.Format(time.RFC3339Nano) || op.Location != "us-central1-a" || op.Zone != "us-central1-a" {
		t.Errorf("startTime %s location %s zone %s", op.StartTime, op.Location, op.Zone)
	}
	if want := e.URL + "/v1/projects/proj/locations/us-central1-a/clusters/life"; op.TargetLink != want {
		t.Errorf("targetLink %s, want %s", op.TargetLink, want)
	}
	if got := e.Operation("us-central1-a", op.Name); got.Status != api.OpStatusPending {
		t.Fatalf("operations.get before any time passed: %s, want PENDING", got.Status)
	}
	if c := e.Advance(time.Second); c.Now != testStart.Add(time.Second).Format(time.RFC3339Nano) {
		t.Errorf("clock after advancing 1s: %s", c.Now)
	}
	running := e.Operation("us-central1-a", op.Name)
	if running.Status != api.OpStatusRunning || running.EndTime != "" || running.Progress == nil {
		t.Fatalf("after 1s: status %s endTime %q progress %v, want RUNNING with progress and no endTime", running.Status, running.EndTime, running.Progress)
	}
	var cl api.Cluster
	e.OK("GET", clusters+"/life", nil, &cl)
	if cl.Status != sim.ClusterProvisioning {
		t.Errorf("cluster status while creating: %s, want PROVISIONING", cl.Status)
	}
	// The operation is also visible through the all-locations list.
	var list api.ListOperationsResponse
	e.OK("GET", "/v1/projects/proj/locations/-/operations", nil, &list)
	if len(list.Operations) != 1 || list.Operations[0].Name != op.Name {
		t.Errorf("operations.list: %s", servertest.MustJSON(list.Operations))
	}
	done := e.Wait(&op)
	end, err := time.Parse(time.RFC3339Nano, done.EndTime)
	if err != nil || !end.After(testStart) {
		t.Errorf("DONE operation endTime %q (%v), want a time after the start", done.EndTime, err)
	}
	if done.Error != nil || done.StatusMessage != "" || done.StartTime != op.StartTime {
		t.Errorf("DONE operation: error %v statusMessage %q startTime %s", done.Error, done.StatusMessage, done.StartTime)
	}
	e.OK("GET", clusters+"/life", nil, &cl)
	if cl.Status != sim.ClusterRunning || cl.CurrentNodeCount != 1 {
		t.Errorf("cluster after create: %s with %d nodes, want RUNNING with 1", cl.Status, cl.CurrentNodeCount)
	}
}

func TestClock(t *testing.T) {
	e := newEnv(t)
	var c api.Clock
	e.OK("GET", "/emulator/v1/clock", nil, &c)
	if c.Now != testStart.Format(time.RFC3339Nano) || c.TimeScale != 0 || c.PendingEvents != 0 || c.NextEventTime != "" {
		t.Fatalf("fresh clock: %s", servertest.MustJSON(c))
	}
	for _, tc := range []struct {
		duration string
		want     time.Duration
	}{{"90s", 90 * time.Second}, {"1h30m", 90 * time.Minute}, {"0.5s", 500 * time.Millisecond}, {"0s", 0}} {
		before := e.clockNow()
		var after api.Clock
		e.OK("POST", "/emulator/v1/clock:advance", &api.AdvanceClockRequest{Duration: tc.duration}, &after)
		if got := mustTime(t, after.Now).Sub(before); got != tc.want {
			t.Errorf("advance %s moved the clock by %s", tc.duration, got)
		}
	}
	for _, bad := range []string{`{"duration": "-1s"}`, `{"duration": "soon"}`, `{}`, `{"duration": "10000h"}`, `{"duration": "1e300s"}`, `{"duration": "NaNs"}`} {
		code, body := e.Call("POST", "/emulator/v1/clock:advance", bad)
		servertest.WantError(t, code, body, http.StatusBadRequest, "INVALID_ARGUMENT", "badRequest", `"duration"`, "at most 400 days (34560000s)")
	}
	// The probe: a time scale of 1e12 broke the clock (decades jumped, then a spinning runner).
	for _, bad := range []string{`{"timeScale": 1e12}`, `{"timeScale": 100001}`, `{"timeScale": -1}`} {
		code, body := e.Call("PATCH", "/emulator/v1/clock", bad)
		servertest.WantError(t, code, body, http.StatusBadRequest, "INVALID_ARGUMENT", "badRequest", `"timeScale"`, "at most 100000 emulated seconds per wall second")
	}
	e.OK("PATCH", "/emulator/v1/clock", `{"timeScale": 100000}`, &c)
	e.OK("PATCH", "/emulator/v1/clock", `{"timeScale": 0}`, &c)
	if c.TimeScale != 0 {
		t.Fatalf("time scale after setting 0: %g", c.TimeScale)
	}
	// A pending event shows up on the clock.
	e.OK("POST", clusters, `{"cluster": {"name": "c1", "initialNodeCount": 1}}`, nil)
	e.OK("GET", "/emulator/v1/clock", nil, &c)
	if c.PendingEvents == 0 || c.NextEventTime == "" {
		t.Errorf("clock with an operation pending: %s", servertest.MustJSON(c))
	}
}

func (e *env) clockNow() time.Time {
	e.T.Helper()
	var c api.Clock
	e.OK("GET", "/emulator/v1/clock", nil, &c)
	return mustTime(e.T, c.Now)
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEventsFilters(t *testing.T) {
	e := newEnv(t).withBase()
	e.Mutate("POST", "/v1/projects/proj/locations/us-east1-b/clusters", `{"cluster": {"name": "other", "initialNodeCount": 1}}`)
	const baseKey = "projects/proj/locations/us-central1-a/clusters/base"
	events := func(query string) *api.ListEventsResponse {
		t.Helper()
		var r api.ListEventsResponse
		e.OK("GET", "/emulator/v1/events?"+query, nil, &r)
		return &r
	}
	all := events("")
	byCluster := events("cluster=base")
	if len(byCluster.Events) == 0 || len(byCluster.Events) >= len(all.Events) {
		t.Fatalf("cluster=base gave %d of %d events", len(byCluster.Events), len(all.Events))
	}
	for _, ev := range byCluster.Events {
		if ev.Cluster != baseKey {
			t.Errorf("cluster=base returned an event of %q: %s", ev.Cluster, ev.Message)
		}
	}
	if full := events("cluster=" + baseKey); len(full.Events) != len(byCluster.Events) {
		t.Errorf("the resource name matched %d events, the bare name %d", len(full.Events), len(byCluster.Events))
	}
	if r := events("cluster=base&type=ClusterRunning"); len(r.Events) != 1 || r.Events[0].Type != "ClusterRunning" {
		t.Errorf("cluster=base&type=ClusterRunning: %s", servertest.MustJSON(r.Events))
	}
	if r := events("cluster=base&type=NodeReady"); len(r.Events) != 2 {
		t.Errorf("base has 2 nodes, NodeReady events: %d", len(r.Events))
	}
	// afterSeq returns only what happened since.
	last := all.NextSeq
	code, body := e.Call("GET", "/emulator/v1/events?afterSeq="+fmt.Sprint(last), nil)
	if code != http.StatusOK || !bytes.Contains(body, []byte(`"events": []`)) {
		t.Errorf("nothing new: HTTP %d %s, want an empty events array", code, body)
	}
	e.Mutate("POST", poolA+":setSize", `{"nodeCount": 3}`)
	newer := events(fmt.Sprintf("cluster=base&afterSeq=%d", last))
	if len(newer.Events) == 0 {
		t.Fatal("no events after the resize")
	}
	for _, ev := range newer.Events {
		if ev.Seq <= last {
			t.Errorf("afterSeq=%d returned seq %d", last, ev.Seq)
		}
	}
	if r := events(fmt.Sprintf("type=NodePoolResizing&afterSeq=%d", last)); len(r.Events) != 1 || r.Events[0].NodePool != "pool-a" {
		t.Errorf("NodePoolResizing after the resize: %s", servertest.MustJSON(r.Events))
	}
	code, body = e.Call("GET", "/emulator/v1/events?afterSeq=x", nil)
	servertest.WantError(t, code, body, http.StatusBadRequest, "INVALID_ARGUMENT", "badRequest", `"afterSeq"`)
}

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t).withBase()
	if code, body := e.Call("GET", "/healthz", nil); code != http.StatusOK || string(body) != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	code, body := e.Call("GET", "/metrics", nil)
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{"# TYPE gkesim_nodes gauge", `gkesim_nodes{state="ready"} 2`, "gkesim_clusters 1", "gkesim_node_pools 1",
		`gkesim_operations{status="DONE"} 1`, fmt.Sprintf("gkesim_emulated_time_seconds %d", e.clockNow().Unix())} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
}

func TestClusterUpdateRules(t *testing.T) {
	e := newEnv(t).withBase()
	for _, body := range []string{`{}`, `{"update": {}}`, `{"update": {"etag": "x", "desiredNodePoolId": "pool-a"}}`} {
		code, resp := e.Call("PUT", base, body)
		servertest.WantError(t, code, resp, http.StatusBadRequest, "INVALID_ARGUMENT", "badRequest", "Must provide an update.")
	}
	code, resp := e.Call("PUT", base, `{"update": {"desiredReleaseChannel": {"channel": "STABLE"}, "desiredL4ilbSubsettingConfig": {"enabled": true}}}`)
	servertest.WantError(t, code, resp, http.StatusBadRequest, "INVALID_ARGUMENT", "badRequest", "desiredReleaseChannel", "desiredL4ilbSubsettingConfig")

	// R-LB-4: GKE subsetting for L4 ILBs can be enabled but never disabled again.
	e.Mutate("PUT", base, `{"update": {"desiredL4ilbSubsettingConfig": {"enabled": true}}}`)
	var cl api.Cluster
	e.OK("GET", base, nil, &cl)
	if cl.NetworkConfig == nil || !cl.NetworkConfig.EnableL4IlbSubsetting {
		t.Fatalf("networkConfig after enabling subsetting: %s", servertest.MustJSON(cl.NetworkConfig))
	}
	before := e.snapshot()
	code, resp = e.Call("PUT", base, `{"update": {"desiredL4ilbSubsettingConfig": {"enabled": false}}}`)
	servertest.WantError(t, code, resp, http.StatusBadRequest, "INVALID_ARGUMENT", "badRequest", `"update.desiredL4ilbSubsettingConfig.enabled"`, "#r-lb-4")
	if after := e.snapshot(); after != before {
		t.Errorf("the rejected disable changed the model")
	}
}

// Members the emulator stores but does not simulate are accepted and read back as written.
func TestUnknownClusterFieldsAreEchoed(t *testing.T) {
	e := newEnv(t)
	e.Mutate("POST", clusters, `{"cluster": {"name": "echo", "initialNodeCount": 1,
		"addonsConfig": {"httpLoadBalancing": {"disabled": true}, "gcePersistentDiskCsiDriverConfig": {"enabled": true}},
		"loggingService": "logging.googleapis.com/kubernetes",
		"ipAllocationPolicy": {"useIpAliases": true},
		"networkConfig": {"datapathProvider": "ADVANCED_DATAPATH"}}}`)
	var got map[string]json.RawMessage
	e.OK("GET", clusters+"/echo", nil, &got)
	want := map[string]string{
		"addonsConfig":       `{"gcePersistentDiskCsiDriverConfig":{"enabled":true},"httpLoadBalancing":{"disabled":true}}`,
		"loggingService":     `"logging.googleapis.com/kubernetes"`,
		"ipAllocationPolicy": `{"useIpAliases":true}`,
	}
	for k, v := range want {
		if compact(t, got[k]) != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
	var nc map[string]any
	if err := json.Unmarshal(got["networkConfig"], &nc); err != nil || nc["datapathProvider"] != "ADVANCED_DATAPATH" || nc["network"] == nil {
		t.Errorf("networkConfig = %s, want datapathProvider kept beside the simulated members", got["networkConfig"])
	}
}

// Bodies are read as Google's front end reads them: a member that is no field of the request
// message is refused with Google's error and its google.rpc.BadRequest detail, and nothing is
// stored (the probe: a 7 MB unknown member was echoed on every GET), on the GKE routes (v1
// against container/v1, v1beta1 against container/v1beta1, which knows more fields), the
// Compute routes and the emulator's own; real fields the emulator does not simulate pass.
func TestUnknownFieldsAreRefusedAsGoogleDoes(t *testing.T) {
	e := newEnv(t).withBase()
	before := e.snapshot()
	huge := strings.Repeat("x", 7<<20)
	for _, tc := range []struct {
		name, method, path, body string
		field, message           string
	}{
		{"create cluster", "POST", clusters, `{"cluster": {"name": "c2", "initialNodeCount": 1, "x": "` + huge + `"}}`,
			"cluster", `Invalid JSON payload received. Unknown name "x" at 'cluster': Cannot find field.`},
		{"a typo in a nested message", "POST", clusters, `{"cluster": {"name": "c2", "nodePools": [{"name": "p", "config": {"machinetype": "e2-small"}}]}}`,
			"cluster.node_pools[0].config", `Invalid JSON payload received. Unknown name "machinetype" at 'cluster.node_pools[0].config': Cannot find field.`},
		{"a v1beta1 field on v1", "POST", clusters, `{"cluster": {"name": "c2", "initialNodeCount": 1, "podSecurityPolicyConfig": {"enabled": false}}}`,
			"cluster", `Invalid JSON payload received. Unknown name "podSecurityPolicyConfig" at 'cluster': Cannot find field.`},
		{"update cluster", "PUT", base, `{"update": {"desiredNodeVersion": "-", "desiredFoo": 1}}`,
			"update", `Invalid JSON payload received. Unknown name "desiredFoo" at 'update': Cannot find field.`},
		{"a custom method", "POST", poolA + ":setSize", `{"nodeCount": 3, "count": 3}`,
			"", `Invalid JSON payload received. Unknown name "count": Cannot find field.`},
		{"a stored field", "POST", base + ":setLogging", `{"loggingService": "none", "monitoringService": "none"}`,
			"", `Invalid JSON payload received. Unknown name "monitoringService": Cannot find field.`},
		{"maintenance policy", "POST", base + ":setMaintenancePolicy", `{"maintenancePolicy": {"window": {"dailyMaintenanceWindow": {"startTime": "03:00", "length": "4h"}}}}`,
			"maintenance_policy.window.daily_maintenance_window",
			`Invalid JSON payload received. Unknown name "length" at 'maintenance_policy.window.daily_maintenance_window': Cannot find field.`},
		{"compute backend service", "POST", computeProj + "/regions/us-central1/backendServices", `{"name": "bs", "timeoutSecs": 30}`,
			"resource", `Invalid JSON payload received. Unknown name "timeoutSecs" at 'resource': Cannot find field.`},
		{"compute instance group", "POST", computeProj + "/zones/us-central1-a/instanceGroups", `{"name": "ig", "instances": []}`,
			"resource", `Invalid JSON payload received. Unknown name "instances" at 'resource': Cannot find field.`},
		{"emulator fault", "POST", "/emulator/v1/faults", `{"kind": "STOCKOUT", "zone": "us-central1-b", "zones": ["us-central1-c"]}`,
			"", `Invalid JSON payload received. Unknown name "zones": Cannot find field.`},
		{"emulator clock", "PATCH", "/emulator/v1/clock", `{"timeScale": 10, "scale": 10}`,
			"", `Invalid JSON payload received. Unknown name "scale": Cannot find field.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b := e.Call(tc.method, tc.path, tc.body)
			servertest.WantError(t, code, b, http.StatusBadRequest, "INVALID_ARGUMENT", "badRequest")
			var eb struct {
				Error struct {
					Message string
					Details []api.BadRequest
				}
			}
			if err := json.Unmarshal(b, &eb); err != nil {
				t.Fatal(err)
			}
			want := []api.FieldViolation{{Field: tc.field, Description: tc.message}}
			if eb.Error.Message != tc.message || len(eb.Error.Details) != 1 || eb.Error.Details[0].Type != api.BadRequestType ||
				!slices.Equal(eb.Error.Details[0].FieldViolations, want) {
				t.Errorf("got %.600s\nwant message %q and one BadRequest detail %v", b, tc.message, want)
			}
		})
	}
	if after := e.snapshot(); after != before {
		t.Errorf("refused requests changed the model")
	}

	// v1beta1 knows its own fields; proto names are read as JSON names.
	e.Mutate("POST", "/v1beta1/projects/proj/locations/us-central1-a/clusters", `{"cluster": {"name": "beta", "initial_node_count": 1,
		"podSecurityPolicyConfig": {"enabled": false}}}`)
	var got map[string]json.RawMessage
	e.OK("GET", "/v1beta1/projects/proj/locations/us-central1-a/clusters/beta", nil, &got)
	if compact(t, got["podSecurityPolicyConfig"]) != `{"enabled":false}` || compact(t, got["currentNodeCount"]) != "1" {
		t.Errorf("v1beta1 cluster: podSecurityPolicyConfig %s, currentNodeCount %s", got["podSecurityPolicyConfig"], got["currentNodeCount"])
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v) // maps come out with sorted keys
	return string(b)
}

// Golden files pin the JSON shape of a created cluster and of its operation: field names,
// int64 as strings, omitted zero values, `autoscaling: {}` when disabled. Regenerate with
// go test ./emulator/server -run Golden -update.
func TestGoldenShapes(t *testing.T) {
	e := newEnv(t)
	var created api.Operation
	pending := e.golden("operation_pending.json", "POST", clusters,
		`{"cluster": {"name": "golden", "nodePools": [{"name": "pool-a", "initialNodeCount": 2, "config": {"machineType": "e2-standard-4", "labels": {"team": "conformance"}}}]}}`)
	if err := json.Unmarshal(pending, &created); err != nil {
		t.Fatal(err)
	}
	e.Wait(&created)
	e.golden("operation_done.json", "GET", locPath+"/operations/"+created.Name, nil)
	cluster := e.golden("cluster.json", "GET", clusters+"/golden", nil)

	var shape struct {
		NodePools []map[string]json.RawMessage `json:"nodePools"`
	}
	if err := json.Unmarshal(cluster, &shape); err != nil || len(shape.NodePools) != 1 {
		t.Fatalf("cluster nodePools: %v", err)
	}
	np := shape.NodePools[0]
	for member, want := range map[string]string{
		"maxPodsConstraint": `{"maxPodsPerNode":"110"}`, // int64 is a JSON string
		"upgradeSettings":   `{"maxSurge":1,"strategy":"SURGE"}`,
		"autoscaling":       `{}`,
		"management":        `{"autoRepair":true,"autoUpgrade":true}`,
	} {
		if got := compact(t, np[member]); got != want {
			t.Errorf("nodePools[0].%s = %s, want %s", member, got, want)
		}
	}
}

// golden sends a request, normalises the server's host:port to HOST and compares the body
// with testdata/name (or rewrites it with -update). It returns the normalised body.
func (e *env) golden(name, method, path string, body any) []byte {
	e.T.Helper()
	code, got := e.Call(method, path, body)
	if code != http.StatusOK {
		e.T.Fatalf("%s %s: HTTP %d: %s", method, path, code, got)
	}
	got = bytes.ReplaceAll(got, []byte(strings.TrimPrefix(e.URL, "http://")), []byte("HOST"))
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			e.T.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			e.T.Fatal(err)
		}
		return got
	}
	want, err := os.ReadFile(file)
	if err != nil {
		e.T.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		e.T.Errorf("%s %s differs from %s (run with -update if the change is intended):\ngot:\n%s\nwant:\n%s", method, path, file, got, want)
	}
	return got
}

// Moving a node pool to other zones (PUT nodePools/{np} with locations) brings up the groups of
// the zones it gains and retires the nodes of the zones it leaves; no node is recreated.
func TestNodePoolLocationsChange(t *testing.T) {
	e := newEnv(t).withBase()
	pool := func() (*api.NodePool, *api.Cluster) {
		t.Helper()
		var np api.NodePool
		var cl api.Cluster
		e.OK("GET", poolA, nil, &np)
		e.OK("GET", base, nil, &cl)
		return &np, &cl
	}
	op := e.Mutate("PUT", poolA, `{"locations": ["us-central1-a", "us-central1-b"]}`)
	if op.OperationType != api.OpUpgradeNodes {
		t.Errorf("operation type %s", op.OperationType)
	}
	np, cl := pool()
	if !slices.Equal(np.Locations, []string{"us-central1-a", "us-central1-b"}) || len(np.InstanceGroupUrls) != 2 || np.Status != sim.PoolRunning || cl.CurrentNodeCount != 4 {
		t.Fatalf("after adding us-central1-b: locations %v, %d instance groups, status %s, %d nodes; want 2 zones x 2 nodes",
			np.Locations, len(np.InstanceGroupUrls), np.Status, cl.CurrentNodeCount)
	}
	kept := np.InstanceGroupUrls[1]
	e.Mutate("PUT", poolA, `{"locations": ["us-central1-b"]}`)
	np, cl = pool()
	if !slices.Equal(np.Locations, []string{"us-central1-b"}) || !slices.Equal(np.InstanceGroupUrls, []string{kept}) || cl.CurrentNodeCount != 2 {
		t.Fatalf("after leaving us-central1-a: locations %v, instance groups %v, %d nodes; want only %s with 2 nodes",
			np.Locations, np.InstanceGroupUrls, cl.CurrentNodeCount, kept)
	}
}
