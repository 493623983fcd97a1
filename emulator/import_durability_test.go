package emulator_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
)

// An import is one journaled request: a restart replays it to the very same state, and a
// snapshot taken after the emulator's clock moves the clock to it first, replayed alike.
func TestImportIsJournaledAndReplayed(t *testing.T) {
	cj, oj := shopFixture(t)
	st := store.NewMemory()
	e, err := emulator.New(emulator.Options{TimeScale: 0, Seed: 5, Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Store: st, ResumeTimeScale: true})
	if err != nil {
		t.Fatal(err)
	}
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c := client{t, url}
	sum := c.ok("POST", "/emulator/v1/projects/shop-prod/locations/europe-west1/clusters:import",
		map[string]any{"cluster": json.RawMessage(cj), "objects": json.RawMessage(oj)})
	if sum["importTime"] != "2026-03-10T02:39:30Z" || sum["snapshotTime"] != "2026-03-10T02:39:30Z" {
		t.Errorf("imported at %v from a snapshot of %v; want both at the snapshot's time", sum["importTime"], sum["snapshotTime"])
	}
	clock := c.ok("GET", "/emulator/v1/clock", nil)
	if clock["now"] != "2026-03-10T02:39:30Z" {
		t.Errorf("clock %v, want the snapshot's time", clock["now"])
	}
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "30m"})
	// A second import of the same cluster is refused, and journaled as refused.
	if code, out := c.call("POST", "/emulator/v1/projects/shop-prod/locations/europe-west1/clusters:import",
		map[string]any{"cluster": json.RawMessage(cj), "objects": json.RawMessage(oj)}); code != 409 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "delete it first") {
		t.Errorf("second import: HTTP %d %v", code, out)
	}
	want := stateJSON(t, e)
	cp, err := st.CrashCopy()
	if err != nil {
		t.Fatal(err)
	}
	r, err := emulator.New(emulator.Options{Store: cp, ResumeTimeScale: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Resumed || r.Replayed < 3 {
		t.Fatalf("resumed %v, replayed %d records", r.Resumed, r.Replayed)
	}
	if got := stateJSON(t, r); !bytes.Equal(got, want) {
		i := firstDiff(got, want)
		t.Fatalf("the resumed state differs at byte %d:\nlive    %s\nresumed %s", i, around(want, i), around(got, i))
	}
	if !bytes.Contains(want, []byte(`"gke-shop-db-pool-90fa27c5-5rwe"`)) {
		t.Error("the state has no imported node")
	}
}

// shopFixture reads the shop cluster's snapshot (testdata/snapshot): gcloud's cluster JSON and
// kubectl's objects.
func shopFixture(t *testing.T) (cluster, objects []byte) {
	t.Helper()
	cj, err := os.ReadFile("testdata/snapshot/shop-cluster.json")
	if err != nil {
		t.Fatal(err)
	}
	oj, err := os.ReadFile("testdata/snapshot/shop-objects.json")
	if err != nil {
		t.Fatal(err)
	}
	return cj, oj
}
