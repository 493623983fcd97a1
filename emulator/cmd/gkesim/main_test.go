package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

var testStart = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// startEmulator runs an emulator in-process on a loopback port with a frozen clock: emulated
// time moves only when a test advances it.
func startEmulator(t *testing.T) string {
	t.Helper()
	_, url := emulatortest.Start(t, emulator.Options{TimeScale: 0, Seed: 3, Start: testStart})
	return url
}

// gkesim runs the CLI in-process against endpoint and returns what it printed.
func gkesim(t *testing.T, endpoint string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newRootCmd(&out, &errOut)
	cmd.SetArgs(append([]string{"--endpoint", endpoint, "--project", "proj"}, args...))
	err := cmd.Execute()
	if errOut.Len() > 0 {
		t.Logf("gkesim %s: stderr: %s", strings.Join(args, " "), errOut.String())
	}
	return out.String(), err
}

func mustGkesim(t *testing.T, endpoint string, args ...string) string {
	t.Helper()
	out, err := gkesim(t, endpoint, args...)
	if err != nil {
		t.Fatalf("gkesim %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// createCluster creates a one-node cluster through the GKE API (the CLI has no create verb).
func createCluster(t *testing.T, endpoint, location, name string) {
	t.Helper()
	body := `{"cluster": {"name": "` + name + `", "initialNodeCount": 1}}`
	resp, err := http.Post(endpoint+"/v1/projects/proj/locations/"+location+"/clusters", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create cluster %s: HTTP %d", name, resp.StatusCode)
	}
}

func TestClockCommands(t *testing.T) {
	url := startEmulator(t)
	out := mustGkesim(t, url, "clock")
	for _, want := range []string{"now:            2026-11-02T10:00:00Z\n", "time scale:     frozen\n", "pending events: 0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("gkesim clock printed:\n%s\nwant a line %q", out, want)
		}
	}
	out = mustGkesim(t, url, "clock", "advance", "1h")
	if !strings.Contains(out, "now:            2026-11-02T11:00:00Z\n") {
		t.Errorf("gkesim clock advance 1h printed:\n%s\nwant now 11:00:00Z", out)
	}
	// With the clock frozen, emulated time moved by exactly the hour and nothing else.
	var c api.Clock
	if err := json.Unmarshal([]byte(mustGkesim(t, url, "clock", "--format", "json")), &c); err != nil {
		t.Fatal(err)
	}
	if c.Now != testStart.Add(time.Hour).Format(time.RFC3339Nano) || c.TimeScale != 0 {
		t.Errorf("clock after advancing 1h: %+v, want now %s", c, testStart.Add(time.Hour))
	}
	if _, err := gkesim(t, url, "clock", "advance", "soon"); err == nil || !strings.Contains(err.Error(), `"duration"`) {
		t.Errorf("clock advance soon: %v, want an error naming the duration field", err)
	}
}

func TestContainerAndEventsCommands(t *testing.T) {
	url := startEmulator(t)
	createCluster(t, url, "us-central1-a", "cli")
	createCluster(t, url, "us-east1-b", "other")
	mustGkesim(t, url, "clock", "advance", "1h")

	var ops api.ListOperationsResponse
	if err := json.Unmarshal([]byte(mustGkesim(t, url, "container", "operations", "list", "--format", "json")), &ops); err != nil {
		t.Fatal(err)
	}
	if len(ops.Operations) != 2 {
		t.Fatalf("operations list: %d operations, want the two CREATE_CLUSTER", len(ops.Operations))
	}
	var op *api.Operation
	for _, o := range ops.Operations {
		if strings.HasSuffix(o.TargetLink, "/locations/us-central1-a/clusters/cli") {
			op = o
		}
	}
	if op == nil || op.OperationType != api.OpCreateCluster || op.Status != api.OpStatusDone {
		t.Fatalf("operations list --format json: no DONE CREATE_CLUSTER of cli in %+v", ops.Operations)
	}
	table := mustGkesim(t, url, "container", "operations", "list", "--location", "us-central1-a")
	if lines := strings.Split(strings.TrimSpace(table), "\n"); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[1], op.Name) || !strings.Contains(lines[1], "CREATE_CLUSTER") ||
		!strings.Contains(lines[1], " cli ") || !strings.Contains(lines[1], "DONE") {
		t.Errorf("operations list --location us-central1-a:\n%s", table)
	}
	for _, args := range [][]string{{"--location", "us-central1-a"}, {}} {
		out := mustGkesim(t, url, append([]string{"container", "operations", "describe", op.Name}, args...)...)
		for _, want := range []string{"name: " + op.Name + "\n", "operationType: CREATE_CLUSTER\n", "status: DONE\n", "endTime: "} {
			if !strings.Contains(out, want) {
				t.Errorf("operations describe %s %v:\n%s\nwant %q", op.Name, args, out, want)
			}
		}
	}
	if _, err := gkesim(t, url, "container", "operations", "describe", "operation-1-nope", "--location", "us-central1-a"); err == nil ||
		!strings.Contains(err.Error(), "NOT_FOUND") {
		t.Errorf("describe of an unknown operation: %v", err)
	}

	events := mustGkesim(t, url, "events", "--cluster", "cli")
	lines := strings.Split(strings.TrimSpace(events), "\n")
	if len(lines) < 5 || !strings.Contains(events, "ClusterRunning") || strings.Contains(events, "other") {
		t.Errorf("events --cluster cli:\n%s\nwant the cli cluster's events only", events)
	}
	for _, l := range lines {
		if !strings.Contains(l, " us-central1-a/cli") {
			t.Errorf("events --cluster cli printed a line without the cluster's location and name (us-central1-a/cli): %s", l)
		}
	}
	jsonLines := strings.Split(strings.TrimSpace(mustGkesim(t, url, "events", "--cluster", "cli", "--type", "ClusterRunning", "--format", "json")), "\n")
	var ev api.Event
	if len(jsonLines) != 1 || json.Unmarshal([]byte(jsonLines[0]), &ev) != nil ||
		ev.Type != "ClusterRunning" || ev.Cluster != "projects/proj/locations/us-central1-a/clusters/cli" {
		t.Errorf("events --cluster cli --type ClusterRunning --format json: %q", jsonLines)
	}

	clusters := mustGkesim(t, url, "container", "clusters", "list")
	rows := strings.Split(strings.TrimSpace(clusters), "\n")
	if len(rows) != 3 || strings.Join(strings.Fields(rows[0]), " ") != "NAME LOCATION MASTER_VERSION MACHINE_TYPE NODE_VERSION NUM_NODES STATUS" {
		t.Fatalf("clusters list:\n%s", clusters)
	}
	cli := strings.Fields(rows[1])
	if len(cli) != 7 || cli[0] != "cli" || cli[1] != "us-central1-a" || cli[3] != "e2-medium" || cli[2] != cli[4] || cli[5] != "1" || cli[6] != "RUNNING" {
		t.Errorf("clusters list row for cli: %q", rows[1])
	}
	if !strings.HasPrefix(rows[2], "other ") || !strings.Contains(rows[2], "us-east1-b") {
		t.Errorf("clusters list row for other: %q", rows[2])
	}

	// Two clusters of one name in two locations: each line says which.
	createCluster(t, url, "us-east1-b", "cli")
	mustGkesim(t, url, "clock", "advance", "1h")
	both := mustGkesim(t, url, "events", "--cluster", "cli", "--type", "ClusterRunning")
	if !strings.Contains(both, " us-central1-a/cli ") || !strings.Contains(both, " us-east1-b/cli ") {
		t.Errorf("events of two clusters named cli:\n%s\nwant each line to name its location", both)
	}
}

// unusedAddr is a loopback address nothing listens on.
func unusedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func TestUnreachableEndpointNamesGKESIM_ENDPOINT(t *testing.T) {
	addr := unusedAddr(t)
	_, err := gkesim(t, addr, "clock")
	if err == nil || !strings.Contains(err.Error(), "GKESIM_ENDPOINT") || !strings.Contains(err.Error(), addr) {
		t.Errorf("clock against %s: %v, want an error naming the address and GKESIM_ENDPOINT", addr, err)
	}
	// The endpoint may come from the environment instead of --endpoint.
	t.Setenv("GKESIM_ENDPOINT", addr)
	cmd := newRootCmd(&bytes.Buffer{}, &bytes.Buffer{})
	cmd.SetArgs([]string{"container", "clusters", "list", "--project", "proj"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "GKESIM_ENDPOINT") || !strings.Contains(err.Error(), addr) {
		t.Errorf("clusters list with GKESIM_ENDPOINT=%s: %v", addr, err)
	}
}
