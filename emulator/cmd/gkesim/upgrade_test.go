package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// The upgrade commands against an emulator with a frozen clock: the tests move emulated time.

const upZone = "us-central1-a"

// apiCall sends a GKE API request (path after /v1/projects/proj/locations/us-central1-a) and
// decodes the answer into out.
func apiCall(t *testing.T, endpoint, method, path, body string, out any) {
	t.Helper()
	req, err := http.NewRequest(method, endpoint+"/v1/projects/proj/locations/"+upZone+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, b.String())
	}
	if out != nil {
		if err := json.Unmarshal(b.Bytes(), out); err != nil {
			t.Fatal(err)
		}
	}
}

// upgradePool makes cluster "up" with a 3-node pool "pool-a" on the second newest node version
// of the default minor, with the given upgradeSettings JSON, and returns that version and the
// newer one.
func upgradePool(t *testing.T, url, settings string) (string, string) {
	t.Helper()
	createCluster(t, url, upZone, "up")
	mustGkesim(t, url, "clock", "advance", "1h")
	var sc api.ServerConfig
	apiCall(t, url, "GET", "/serverConfig", "", &sc)
	minor := sc.DefaultClusterVersion[:strings.LastIndex(sc.DefaultClusterVersion[:strings.Index(sc.DefaultClusterVersion, "-")], ".")]
	var versions []string
	for _, v := range sc.ValidNodeVersions {
		if strings.HasPrefix(v, minor+".") {
			versions = append(versions, v)
		}
	}
	if len(versions) < 2 || versions[0] != sc.DefaultClusterVersion {
		t.Fatalf("want two versions of %s, the newest %s: %v", minor, sc.DefaultClusterVersion, sc.ValidNodeVersions)
	}
	apiCall(t, url, "POST", "/clusters/up/nodePools", `{"nodePool": {"name": "pool-a", "initialNodeCount": 3, "version": "`+versions[1]+`", "upgradeSettings": `+settings+`}}`, nil)
	mustGkesim(t, url, "clock", "advance", "1h")
	return versions[1], versions[0]
}

// startUpgrade updates pool-a to version and returns the upgrade operation's name.
func startUpgrade(t *testing.T, url, version string) string {
	t.Helper()
	var op api.Operation
	apiCall(t, url, "PUT", "/clusters/up/nodePools/pool-a", `{"nodeVersion": "`+version+`"}`, &op)
	return op.Name
}

var poolArgs = []string{"--cluster", "up", "--location", upZone}

func status(t *testing.T, url string) *upgradeStatus {
	t.Helper()
	var st upgradeStatus
	out := mustGkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a", "--format", "json"}, poolArgs...)...)
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("upgrade-status --format json: %v\n%s", err, out)
	}
	return &st
}

// advanceUntil moves the clock 1 minute at a time until ok, at most 3 emulated hours.
func advanceUntil(t *testing.T, url, what string, ok func(*upgradeStatus) bool) *upgradeStatus {
	t.Helper()
	for i := 0; i < 180; i++ {
		if st := status(t, url); ok(st) {
			return st
		}
		mustGkesim(t, url, "clock", "advance", "1m")
	}
	t.Fatalf("no %s after 3 emulated hours: %+v", what, status(t, url))
	return nil
}

// A blue-green upgrade seen through upgrade-status and describe, completed in its soak (R-BG-7).
func TestUpgradeStatusAndCompleteUpgrade(t *testing.T) {
	url := startEmulator(t)
	from, to := upgradePool(t, url, `{"strategy": "BLUE_GREEN", "blueGreenSettings": {"standardRolloutPolicy": {"batchNodeCount": 1}, "nodePoolSoakDuration": "7200s"}}`)

	text := mustGkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a"}, poolArgs...)...)
	for _, want := range []string{"no upgrade in progress", "BLUE_GREEN (standard rollout, batches of 1 nodes, batch soak 0s, node pool soak 7200s)", from, upZone + "  3"} {
		if !strings.Contains(text, want) {
			t.Errorf("upgrade-status before the upgrade:\n%s\nwant %q", text, want)
		}
	}

	op := startUpgrade(t, url, to)
	st := advanceUntil(t, url, "soak", func(st *upgradeStatus) bool { return st.Phase == "NODE_POOL_SOAKING" })
	if !st.InProgress || st.Paused || st.Operation != op || st.TargetVersion != to || st.NodesDone != 3 || st.NodesTotal != 3 ||
		st.ETA == "" || st.BluePoolDeletionStart == "" || st.Zones[upZone][from] != 3 || st.Zones[upZone][to] != 3 {
		t.Errorf("upgrade-status in the soak: %+v", st)
	}
	text = mustGkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a"}, poolArgs...)...)
	for _, want := range []string{"upgrade in progress", "phase:                 NODE_POOL_SOAKING", "nodes done:            3/3", "ETA:                   " + st.ETA + " (in ",
		"ZONE", from, to, "READY NODES", upZone + "  3"} {
		if !strings.Contains(text, want) {
			t.Errorf("upgrade-status in the soak:\n%s\nwant %q", text, want)
		}
	}
	desc := mustGkesim(t, url, append([]string{"container", "node-pools", "describe", "pool-a"}, poolArgs...)...)
	for _, want := range []string{"updateInfo:\n  blueGreenInfo:\n", "    phase: NODE_POOL_SOAKING\n", "    greenPoolVersion: " + to + "\n", "bluePoolDeletionStartTime: "} {
		if !strings.Contains(desc, want) {
			t.Errorf("node-pools describe in the soak:\n%s\nwant %q", desc, want)
		}
	}

	out := mustGkesim(t, url, append([]string{"container", "node-pools", "complete-upgrade", "pool-a"}, poolArgs...)...)
	if !strings.Contains(out, "Completing the upgrade of node pool pool-a") {
		t.Errorf("complete-upgrade printed %q", out)
	}
	st = advanceUntil(t, url, "end of the upgrade", func(st *upgradeStatus) bool { return !st.InProgress })
	if st.Paused || st.Phase != "" || len(st.Zones[upZone]) != 1 || st.Zones[upZone][to] != 3 {
		t.Errorf("upgrade-status after complete-upgrade: %+v, want 3 nodes on %s", st, to)
	}
	// completeUpgrade is for the soak phase only.
	if _, err := gkesim(t, url, append([]string{"container", "node-pools", "complete-upgrade", "pool-a"}, poolArgs...)...); err == nil ||
		!strings.Contains(err.Error(), "(FAILED_PRECONDITION) completeUpgrade applies only to a blue-green upgrade in its NODE_POOL_SOAKING phase") {
		t.Errorf("complete-upgrade without an upgrade: %v", err)
	}
}

// Cancel pauses a blue-green upgrade in its phase; rollback takes the pool back (R-BG-7).
func TestCancelAndRollbackBlueGreen(t *testing.T) {
	url := startEmulator(t)
	from, to := upgradePool(t, url, `{"strategy": "BLUE_GREEN", "blueGreenSettings": {"standardRolloutPolicy": {"batchNodeCount": 1, "batchSoakDuration": "600s"}}}`)
	op := startUpgrade(t, url, to)
	advanceUntil(t, url, "drain", func(st *upgradeStatus) bool { return st.Phase == "DRAINING_BLUE_POOL" })

	out := mustGkesim(t, url, "container", "operations", "cancel", op, "--location", upZone)
	if !strings.Contains(out, "is paused in phase DRAINING_BLUE_POOL") || !strings.Contains(out, "gkesim container node-pools rollback pool-a --cluster up --location "+upZone) {
		t.Errorf("operations cancel printed %q", out)
	}
	st := status(t, url)
	if st.InProgress || !st.Paused || st.Phase != "DRAINING_BLUE_POOL" || st.Operation != op || st.ETA != "" {
		t.Errorf("upgrade-status after cancel: %+v, want paused in DRAINING_BLUE_POOL", st)
	}
	if text := mustGkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a"}, poolArgs...)...); !strings.Contains(text, "upgrade paused (cancelled)") {
		t.Errorf("upgrade-status after cancel:\n%s", text)
	}

	out = mustGkesim(t, url, append([]string{"container", "node-pools", "rollback", "pool-a", "--respect-pdb", "--async"}, poolArgs...)...)
	if !strings.HasPrefix(out, "Rolling back node pool pool-a: operation operation-") {
		t.Errorf("rollback printed %q", out)
	}
	st = advanceUntil(t, url, "end of the rollback", func(st *upgradeStatus) bool { return !st.InProgress && !st.Paused })
	if len(st.Zones[upZone]) != 1 || st.Zones[upZone][from] != 3 {
		t.Errorf("upgrade-status after the rollback: %+v, want 3 nodes on %s", st, from)
	}
	// Nothing is left to roll back.
	if _, err := gkesim(t, url, append([]string{"container", "node-pools", "rollback", "pool-a"}, poolArgs...)...); err == nil || !strings.Contains(err.Error(), "FAILED_PRECONDITION") {
		t.Errorf("a second rollback: %v", err)
	}
}

// --watch follows a surge upgrade zone by zone until it is done.
func TestUpgradeStatusWatch(t *testing.T) {
	url := startEmulator(t)
	_, to := upgradePool(t, url, `{"maxSurge": 1}`)

	// Started before any upgrade, --watch waits for one.
	out, err := gkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a", "--watch", "--interval", "10ms", "--timeout", "100ms"}, poolArgs...)...)
	if err == nil || !strings.Contains(err.Error(), "no upgrade of node pool pool-a started within 100ms") ||
		strings.Count(out, "Waiting for an upgrade of node pool pool-a to start") != 1 {
		t.Errorf("upgrade-status --watch before an upgrade: %v\n%s", err, out)
	}
	startUpgrade(t, url, to)

	// Without the clock moving the upgrade never ends: --timeout stops the watch.
	if _, err := gkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a", "--watch", "--interval", "10ms", "--timeout", "100ms"}, poolArgs...)...); err == nil ||
		!strings.Contains(err.Error(), "still in progress after 100ms") {
		t.Errorf("upgrade-status --watch on a frozen clock: %v", err)
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				http.Post(url+"/emulator/v1/clock:advance", "application/json", strings.NewReader(`{"duration": "30s"}`))
			}
		}
	}()
	out = mustGkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a", "--watch", "--interval", "10ms", "--timeout", "60s"}, poolArgs...)...)
	close(stop)
	wg.Wait()
	blocks := strings.Split(strings.TrimSpace(out), "\n\n")
	if len(blocks) < 3 {
		t.Fatalf("upgrade-status --watch printed %d blocks, want several:\n%s", len(blocks), out)
	}
	if !strings.Contains(out, "zone:                  "+upZone) || !strings.Contains(out, "SURGE (maxSurge 1, maxUnavailable 0)") {
		t.Errorf("upgrade-status --watch:\n%s\nwant the zone being upgraded and the surge settings", out)
	}
	final := blocks[len(blocks)-1]
	if !strings.Contains(final, "no upgrade in progress") || !strings.Contains(final, upZone+"  3") || strings.Join(strings.Fields(final[strings.Index(final, "ZONE"):strings.Index(final, "\n"+upZone)]), " ") != "ZONE "+to+" READY NODES" {
		t.Errorf("last block of upgrade-status --watch:\n%s\nwant no upgrade and 3 nodes on %s", final, to)
	}

	// Started after the upgrade ended, --watch shows the last one, what it did, and returns.
	var ops api.ListOperationsResponse
	apiCall(t, url, "GET", "/operations", "", &ops)
	var done *api.Operation
	for _, op := range ops.Operations {
		if op.OperationType == api.OpUpgradeNodes {
			done = op
		}
	}
	out = mustGkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a", "--watch", "--interval", "10ms", "--timeout", "10s"}, poolArgs...)...)
	if !strings.Contains(out, "last upgrade:          "+done.Name+", "+toSeconds(done.StartTime)+" to "+toSeconds(done.EndTime)) ||
		!strings.Contains(out, "what it did:         "+done.Detail) || strings.Contains(out, "Waiting for an upgrade") {
		t.Errorf("upgrade-status --watch after the upgrade:\n%s\nwant the last upgrade %s (%s) at once", out, done.Name, done.Detail)
	}
	// --next waits for another one.
	if _, err := gkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a", "--watch", "--next", "--interval", "10ms", "--timeout", "100ms"}, poolArgs...)...); err == nil ||
		!strings.Contains(err.Error(), "no upgrade of node pool pool-a started within 100ms") {
		t.Errorf("upgrade-status --watch --next after an upgrade: %v", err)
	}
}

// A machine-type change cancelled mid-way: upgrade-status says it is cancelling while the node
// mid-upgrade finishes (R-SURGE-9), and then shows the pool on two machine types.
func TestUpgradeStatusCancellingAndMachineTypes(t *testing.T) {
	url := startEmulator(t)
	upgradePool(t, url, `{"maxSurge": 1}`)
	var op api.Operation
	apiCall(t, url, "PUT", "/clusters/up/nodePools/pool-a", `{"machineType": "e2-standard-4"}`, &op)
	advanceUntil(t, url, "a node done", func(st *upgradeStatus) bool { return st.NodesDone == 1 })
	mustGkesim(t, url, "container", "operations", "cancel", op.Name, "--location", upZone)
	out := mustGkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a"}, poolArgs...)...)
	if !strings.Contains(out, "cancelling: nodes mid-upgrade finish") {
		t.Errorf("upgrade-status right after cancel:\n%s\nwant it cancelling", out)
	}
	advanceUntil(t, url, "the end of the cancelled upgrade", func(st *upgradeStatus) bool { return !st.InProgress })
	out = mustGkesim(t, url, append([]string{"container", "node-pools", "upgrade-status", "pool-a"}, poolArgs...)...)
	header := strings.Join(strings.Fields(out[strings.Index(out, "ZONE"):strings.Index(out, "\n"+upZone)]), " ")
	if !strings.Contains(header, "e2-medium") || !strings.Contains(header, "e2-standard-4") || !strings.Contains(out, "no upgrade in progress") {
		t.Errorf("upgrade-status after a cancelled machine-type change:\n%s\nwant columns per version and machine type", out)
	}
}
