package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
)

var start = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// client is a tiny JSON client of one emulator.
type client struct {
	t    *testing.T
	base string
}

// call sends a request and returns the status and the decoded body.
func (c client) call(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// ok sends a request that must succeed.
func (c client) ok(method, path string, body any) map[string]any {
	c.t.Helper()
	code, out := c.call(method, path, body)
	if code != http.StatusOK && code != http.StatusCreated {
		c.t.Fatalf("%s %s: HTTP %d %v", method, path, code, out)
	}
	return out
}

func start1(t *testing.T, st *store.Store, scale float64) (*emulator.Emulator, client) {
	t.Helper()
	e, err := emulator.New(emulator.Options{TimeScale: scale, Seed: 5, Start: start, Store: st, ResumeTimeScale: true})
	if err != nil {
		t.Fatal(err)
	}
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return e, client{t, url}
}

// stateJSON is the emulator's whole simulation state, as a store would save it.
func stateJSON(t *testing.T, e *emulator.Emulator) []byte {
	t.Helper()
	var b []byte
	err := e.Runner.Do(context.Background(), func(w *sim.World) error {
		var err error
		b, err = json.Marshal(w.State())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const loc = "/v1/projects/p/locations/us-central1"
const k8s = "/k8s/projects/p/locations/us-central1/clusters/shop"

// durabilityScenario drives an emulator through what users do: clusters, pools, a surge
// upgrade, workloads, a PDB, faults, clock changes, reads in between; crash says when to
// compare a crash copy with the live emulator.
func durabilityScenario(t *testing.T, c client, crash func(step string)) {
	c.ok("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "shop",
		"nodePools": []any{map[string]any{"name": "web", "initialNodeCount": 2}}}})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "20m"})
	c.ok("GET", loc+"/clusters/shop", nil)
	crash("cluster up")

	c.ok("POST", loc+"/clusters/shop/nodePools", map[string]any{"nodePool": map[string]any{"name": "batch", "initialNodeCount": 1,
		"config": map[string]any{"machineType": "e2-standard-4"}}})
	c.ok("POST", k8s+"/apis/apps/v1/namespaces/default/deployments", map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"replicas": 12, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx",
					"resources": map[string]any{"requests": map[string]any{"cpu": "300m", "memory": "256Mi"}}}}}}}})
	c.ok("POST", k8s+"/apis/policy/v1/namespaces/default/poddisruptionbudgets", map[string]any{
		"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"maxUnavailable": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}}})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "5m"})
	fault := c.ok("POST", "/emulator/v1/faults", map[string]any{"kind": "STOCKOUT", "zone": "us-central1-c", "machineFamily": "e2"})
	crash("workloads and a fault")

	// A surge upgrade, caught in the middle; the clock runs on wall time for a while (60x: the
	// upgrade of two nodes takes minutes of emulated time, so that it is still running after
	// these reads even when a loaded machine makes them take seconds).
	c.ok("PUT", loc+"/clusters/shop/nodePools/web", map[string]any{"machineType": "n2-standard-4"})
	c.ok("PATCH", "/emulator/v1/clock", map[string]any{"timeScale": 60})
	for range 5 {
		c.ok("GET", loc+"/operations", nil)
		c.ok("GET", k8s+"/api/v1/pods", nil)
		time.Sleep(20 * time.Millisecond)
	}
	c.ok("PATCH", "/emulator/v1/clock", map[string]any{"timeScale": 0})
	crash("mid-upgrade, after the clock ran on wall time")

	// Refused requests are journaled too (a refusal may have drawn from the random generator).
	if code, _ := c.call("POST", loc+"/clusters/shop/nodePools/batch:setSize", map[string]any{"nodeCount": 3}); code != http.StatusBadRequest {
		t.Fatalf("setSize during an upgrade: HTTP %d, want 400", code)
	}
	c.call("POST", loc+"/clusters/shop/nodePools/nope:setSize", map[string]any{"nodeCount": 3})
	c.ok("DELETE", "/emulator/v1/faults/"+fault["id"].(string), nil)
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "3h"})
	c.ok("POST", loc+"/clusters/shop/nodePools/batch:setSize", map[string]any{"nodeCount": 2})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "10m"})
	crash("upgrade done, pool resized")
}

// A restart replays the journal to exactly the state the emulator had: at several points of a
// scenario, a crash copy of the store, resumed by a second emulator, holds the same state byte
// for byte (nodes, pods, operations, the event log, the random generator, the event queue).
func TestJournalReplayRebuildsTheExactState(t *testing.T) {
	for _, every := range []int{0, 40} {
		t.Run(fmt.Sprintf("checkpoint every %d events", every), func(t *testing.T) { testReplay(t, every) })
	}
}

func testReplay(t *testing.T, checkpointEvents int) {
	st := store.NewMemory()
	e, err := emulator.New(emulator.Options{Seed: 5, Start: start, Store: st, ResumeTimeScale: true, CheckpointEvents: checkpointEvents})
	if err != nil {
		t.Fatal(err)
	}
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := client{t, url}
	defer e.Close()
	durabilityScenario(t, c, func(step string) {
		want := stateJSON(t, e)
		cp, err := st.CrashCopy()
		if err != nil {
			t.Fatal(err)
		}
		r, err := emulator.New(emulator.Options{Store: cp, ResumeTimeScale: true})
		if err != nil {
			t.Fatalf("%s: resume: %v", step, err)
		}
		defer r.Close()
		if !r.Resumed || r.Replayed == 0 && checkpointEvents == 0 {
			t.Fatalf("%s: resumed %v, replayed %d records", step, r.Resumed, r.Replayed)
		}
		if got := stateJSON(t, r); !bytes.Equal(got, want) {
			t.Fatalf("%s: the resumed state differs from the live one at byte %d:\nlive    %s\nresumed %s", step,
				firstDiff(got, want), around(want, firstDiff(got, want)), around(got, firstDiff(got, want)))
		}
	})
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(b []byte, i int) string {
	return string(b[max(0, i-300):min(len(b), i+300)])
}

// Stopping cleanly takes a checkpoint: the next start replays nothing and goes on from the
// same emulated time with the same time scale.
func TestCleanRestartResumesFromACheckpoint(t *testing.T) {
	st := store.NewMemory()
	e, c := start1(t, st, 0)
	c.ok("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "shop", "initialNodeCount": 1}})
	c.ok("PATCH", "/emulator/v1/clock", map[string]any{"timeScale": 0})
	clock := c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "1h"})
	want := stateJSON(t, e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	r, c2 := start1(t, st, 1000)
	defer r.Close()
	if !r.Resumed || r.Replayed != 0 {
		t.Fatalf("resumed %v, replayed %d; want a resume from the final checkpoint", r.Resumed, r.Replayed)
	}
	if got := c2.ok("GET", "/emulator/v1/clock", nil); got["now"] != clock["now"] || got["timeScale"] != 0.0 {
		t.Fatalf("clock after restart %v, before %v (time scale 0 kept)", got, clock)
	}
	if got := stateJSON(t, r); !bytes.Equal(got, want) {
		t.Fatal("the state after a clean restart differs")
	}
}

// A state that does not hang together is refused with the file and the first broken
// reference, and the file is left as it was.
func TestInconsistentStateIsRefused(t *testing.T) {
	dir := t.TempDir()
	st, err := store.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, c := start1(t, st, 0)
	c.ok("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "shop", "initialNodeCount": 1}})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "20m"})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := readFile(dir + "/state.json")
	if err != nil {
		t.Fatal(err)
	}
	// Remove one node from the cluster, leaving its instance group and pods pointing at it.
	var env map[string]any
	json.Unmarshal(raw, &env)
	cl := env["state"].(map[string]any)["clusters"].(map[string]any)["projects/p/locations/us-central1/clusters/shop"].(map[string]any)
	nodes := cl["nodes"].(map[string]any)
	var victim string
	for n := range nodes {
		if victim == "" || n < victim {
			victim = n
		}
	}
	delete(nodes, victim)
	edited, _ := json.Marshal(env)
	writeFile(t, dir+"/state.json", edited)

	st2, _ := store.NewDir(dir)
	_, err = emulator.New(emulator.Options{Store: st2})
	want := fmt.Sprintf("lists node %s, which is not among the cluster's nodes", victim)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), dir+"/state.json") {
		t.Fatalf("resume = %v; want an error naming %s/state.json and %q", err, dir, want)
	}
	after, _ := readFile(dir + "/state.json")
	if !bytes.Equal(after, edited) {
		t.Fatal("a failed start rewrote state.json")
	}
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Under concurrent clients, a running clock and frequent checkpoints, a crash copy taken at
// any moment resumes to exactly the live state: the journal records commands in the order
// they ran and every answer waited for what it showed.
func TestReplayUnderConcurrentLoad(t *testing.T) {
	st := store.NewMemory()
	e, err := emulator.New(emulator.Options{TimeScale: 1000, Seed: 9, Start: start, Store: st, ResumeTimeScale: true,
		CheckpointBytes: 16 << 10, CheckpointEvents: 2000})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := client{t, url}
	l := &ledger{clusters: map[string]string{}, ops: map[string]string{}, faults: map[string]string{}, deployments: map[string]bool{}}
	c.ok("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "base", "locations": []string{"us-central1-a"},
		"nodePools": []any{map[string]any{"name": "web", "initialNodeCount": 3}}}})
	for round := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		var wg sync.WaitGroup
		for id := range 6 {
			wg.Add(1)
			r := rand.New(rand.NewPCG(uint64(round), uint64(id)))
			go func() { defer wg.Done(); actor(ctx, c.base, l, round, id, r) }()
		}
		wg.Wait()
		cancel()
		// Stop the clock so that the live state holds still while it is compared.
		c.ok("PATCH", "/emulator/v1/clock", map[string]any{"timeScale": 0})
		want := stateJSON(t, e)
		cp, err := st.CrashCopy()
		if err != nil {
			t.Fatal(err)
		}
		r, err := emulator.New(emulator.Options{Store: cp, ResumeTimeScale: true})
		if err != nil {
			t.Fatal(err)
		}
		got := stateJSON(t, r)
		r.Close()
		if !bytes.Equal(got, want) {
			i := firstDiff(got, want)
			t.Fatalf("round %d (%d acknowledged mutations): the resumed state differs at byte %d:\nlive    %s\nresumed %s", round, l.acks, i, around(want, i), around(got, i))
		}
		c.ok("PATCH", "/emulator/v1/clock", map[string]any{"timeScale": 1000})
	}
}
