package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
)

// A data directory saved by an earlier gkesim must load and go on exactly as it would have in
// the gkesim that saved it. Each directory under testdata/ named in savedDirs is such a
// directory: a snapshot and a journal tail, caught in the middle of a surge and a blue-green
// upgrade, with workloads, a budget, a LoadBalancer Service, an autoscaled pool and a
// maintenance policy (savedScenario), and continuation.golden beside it is what that gkesim did
// next over 8 emulated hours: the event log and the pools, nodes, pods and Services as the API
// renders them. Regenerating either file is a change of behaviour (or of the saved format) and
// needs a reason in the commit. A directory is written by the last gkesim of its format (the
// commit savedDirs names): check that commit out and run, there,
//
//	go test ./emulator -run TestSavedStateResumesIdentically -update-saved saved-state-format3
//
// A gkesim of a newer format refuses to rewrite it (it would write its own format). A new
// saved format adds a directory, written the same way by the last commit of the old format.

var updateSaved = flag.String("update-saved", "", "rewrite this directory of testdata (its data directory and its continuation)")

// savedDirs are the saved directories, each written by the last gkesim of its format.
var savedDirs = []struct {
	dir    string
	format int
	commit string
}{
	// Written before the simulation was split into packages.
	{"saved-state", 2, "862eae7"},
	// Written before the event log kept its per-pod lines as their parts (format 4).
	{"saved-state-format3", 3, "5dc9f1c"},
	// Written before a saved pod left out its namespace and name, which its key says (format 5).
	{"saved-state-format4", 4, "8812073"},
}

const savedK8s = "/k8s/projects/p/locations/us-central1/clusters/shop"

// savedScenario drives the emulator that writes the saved data directory.
func savedScenario(c client) {
	c.ok("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "shop",
		"releaseChannel": map[string]any{"channel": "REGULAR"},
		"nodePools": []any{
			map[string]any{"name": "web", "initialNodeCount": 2, "upgradeSettings": map[string]any{"maxSurge": 1}},
			map[string]any{"name": "bg", "initialNodeCount": 2, "upgradeSettings": map[string]any{"strategy": "BLUE_GREEN",
				"blueGreenSettings": map[string]any{"standardRolloutPolicy": map[string]any{"batchPercentage": 0.5, "batchSoakDuration": "300s"},
					"nodePoolSoakDuration": "1200s"}}},
			map[string]any{"name": "auto", "initialNodeCount": 1, "config": map[string]any{"machineType": "e2-standard-4"},
				"autoscaling": map[string]any{"enabled": true, "minNodeCount": 1, "maxNodeCount": 4}},
		}}})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "20m"})
	c.ok("POST", loc+"/clusters/shop:setMaintenancePolicy", map[string]any{"maintenancePolicy": map[string]any{"window": map[string]any{
		"recurringWindow": map[string]any{"window": map[string]any{"startTime": "2026-11-02T10:00:00Z", "endTime": "2026-11-02T16:00:00Z"},
			"recurrence": "FREQ=DAILY"},
		"maintenanceExclusions": map[string]any{"freeze": map[string]any{"startTime": "2026-11-20T00:00:00Z", "endTime": "2026-11-27T00:00:00Z",
			"maintenanceExclusionOptions": map[string]any{"scope": "NO_UPGRADES"}}}}}})
	deploy := func(name string, replicas int, cpu, pool string) {
		spec := map[string]any{"containers": []any{map[string]any{"name": name, "image": "nginx",
			"resources": map[string]any{"requests": map[string]any{"cpu": cpu, "memory": "256Mi"}}}}}
		if pool != "" {
			spec["nodeSelector"] = map[string]any{"cloud.google.com/gke-nodepool": pool}
		}
		c.ok("POST", savedK8s+"/apis/apps/v1/namespaces/default/deployments", map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}}, "spec": spec}}})
	}
	deploy("web", 8, "300m", "web")
	deploy("api", 4, "250m", "bg")
	deploy("batch", 6, "1500m", "auto")
	c.ok("POST", savedK8s+"/apis/policy/v1/namespaces/default/poddisruptionbudgets", map[string]any{
		"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"maxUnavailable": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}}})
	c.ok("POST", savedK8s+"/api/v1/namespaces/default/services", map[string]any{
		"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"type": "LoadBalancer", "selector": map[string]any{"app": "web"},
			"ports": []any{map[string]any{"port": 80, "targetPort": 8080}}}})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "10m"})
	// A surge upgrade (a machine-type change) run to its end, then a blue-green one caught in
	// the middle.
	c.ok("PUT", loc+"/clusters/shop/nodePools/web", map[string]any{"machineType": "n2-standard-4"})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "7m"})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "2h"})
	c.ok("PUT", loc+"/clusters/shop/nodePools/bg", map[string]any{"machineType": "n2-standard-4"})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "9m"})
}

// savedContinuation is what a resumed emulator does next, as text: the event log and the
// API's answers, after every stretch of emulated time.
func savedContinuation(t *testing.T, e *emulator.Emulator, c client) []byte {
	var out bytes.Buffer
	dump := func(label string, v any) {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "== %s\n%s\n", label, b)
	}
	for i, d := range []string{"10m", "30m", "1h", "2h", "4h30m"} {
		dump(fmt.Sprintf("advance %d (%s)", i, d), c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": d}))
		dump("node pools", c.ok("GET", loc+"/clusters/shop/nodePools", nil))
		dump("operations", c.ok("GET", loc+"/operations", nil))
	}
	dump("cluster", c.ok("GET", loc+"/clusters/shop", nil))
	dump("nodes", c.ok("GET", savedK8s+"/api/v1/nodes", nil))
	dump("pods", c.ok("GET", savedK8s+"/api/v1/pods", nil))
	dump("services", c.ok("GET", savedK8s+"/api/v1/services", nil))
	dump("deployments", c.ok("GET", savedK8s+"/apis/apps/v1/deployments", nil))
	err := e.Runner.Do(context.Background(), func(w *sim.World) error {
		log := &w.State().Log
		fmt.Fprintf(&out, "== event log (%d entries, last seq %d)\n", log.Len(), log.LastSeq)
		for i := range log.Len() {
			en := log.At(i)
			fmt.Fprintf(&out, "%d %s %s %s/%s/%s/%s %s\n", en.Seq, en.Time.Format("2006-01-02T15:04:05Z"), en.Type,
				en.Cluster, en.Pool, en.Node, en.Op, en.Message)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Self links and the endpoint carry the listener's port, which changes from run to run.
	return bytes.ReplaceAll(out.Bytes(), []byte(strings.TrimPrefix(c.base, "http://")), []byte("emulator"))
}

// copyDir copies a data directory (files and the journal's folder).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSavedStateResumesIdentically(t *testing.T) {
	for _, sd := range savedDirs {
		t.Run(sd.dir, func(t *testing.T) { resumeSaved(t, sd.dir, sd.format, sd.commit, *updateSaved == sd.dir) })
	}
}

// resumeSaved resumes the saved directory testdata/dir, written in format by commit, and
// compares what it does next with its continuation; update rewrites both with this gkesim.
func resumeSaved(t *testing.T, name string, format int, commit string, update bool) {
	dir := filepath.Join("testdata", name)
	data := filepath.Join(dir, "data")
	golden := filepath.Join(dir, "continuation.golden")
	if update {
		if format != store.FormatVersion {
			t.Fatalf("this gkesim writes format %d; %s must hold format %d: rewrite it with %s, the last gkesim of that format", store.FormatVersion, data, format, commit)
		}
		if err := os.RemoveAll(data); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(data, 0o755); err != nil {
			t.Fatal(err)
		}
		st, err := store.NewDir(data)
		if err != nil {
			t.Fatal(err)
		}
		e, err := emulator.New(emulator.Options{TimeScale: 0, Seed: 11, Start: start, Store: st, CheckpointEvents: 400})
		if err != nil {
			t.Fatal(err)
		}
		url, err := e.Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		savedScenario(client{t, url})
		// A crash, not a clean stop: the directory keeps a journal tail after its snapshot.
		if err := e.Abandon(); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(data, "lock")); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	work := t.TempDir()
	copyDir(t, data, work)
	if !update {
		// The saved directory is of an older format: opening it says a checkpoint in the
		// current format must come before anything is journaled (emulator.New takes it).
		probe := t.TempDir()
		copyDir(t, data, probe)
		ps, err := store.NewDir(probe)
		if err != nil {
			t.Fatal(err)
		}
		saved, err := ps.Open()
		if err != nil || !saved.Outdated {
			t.Fatalf("opening the format-%d directory: %v, outdated %v; want it said outdated", format, err, saved != nil && saved.Outdated)
		}
		ps.Close()
	}
	st, err := store.NewDir(work)
	if err != nil {
		t.Fatal(err)
	}
	e, err := emulator.New(emulator.Options{TimeScale: 0, Seed: 99, Start: start, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !e.Resumed || e.Replayed == 0 {
		t.Fatalf("resumed %v, replayed %d journal records: the saved directory must hold a snapshot and a journal tail", e.Resumed, e.Replayed)
	}
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := savedContinuation(t, e, client{t, url})
	if !update {
		// What this gkesim saved after resuming is in its own format: the event log keeps the
		// pod lines that format 3 saved as text as their parts, and a pod is saved without the
		// namespace and name that format 4 repeated beside its key.
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		snap, err := os.ReadFile(filepath.Join(work, "state.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(snap, fmt.Appendf(nil, `{"format":%d,`, store.FormatVersion)) || !bytes.Contains(snap, []byte(`"line":"scheduled","pod":"default/`)) ||
			bytes.Contains(snap, []byte(`scheduled to gke-`)) {
			t.Fatalf("the snapshot after resuming the format-%d directory is not format %d with pod lines as parts: %.200s", format, store.FormatVersion, snap)
		}
		var saved struct {
			State struct {
				Clusters map[string]struct {
					Pods map[string]map[string]json.RawMessage `json:"pods"`
				} `json:"clusters"`
			} `json:"state"`
		}
		if err := json.Unmarshal(snap, &saved); err != nil {
			t.Fatal(err)
		}
		pods := 0
		for _, c := range saved.State.Clusters {
			for key, p := range c.Pods {
				pods++
				if p["namespace"] != nil || p["name"] != nil || p["phase"] == nil {
					t.Fatalf("pod %s is saved with its namespace or name, or without its phase: %v", key, p)
				}
			}
		}
		if pods == 0 {
			t.Fatal("the snapshot after resuming holds no pods")
		}
	}
	if update {
		writeFile(t, golden, got)
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := firstDiff(got, want)
		line := strings.Count(string(got[:i]), "\n") + 1
		t.Fatalf("the saved state went on differently from the gkesim that saved it, first at line %d of %s:\ngot:  %s\nwant: %s",
			line, golden, around(got, i), around(want, i))
	}
}
