package emulatortest_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

var start = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// createCluster creates a one-node zonal cluster through the GKE API, as any client would.
func createCluster(t *testing.T, emu *emulatortest.Emulator, name string) {
	t.Helper()
	resp, err := http.Post(emu.Endpoint()+"/v1/projects/p/locations/us-central1-a/clusters", "application/json",
		strings.NewReader(`{"cluster": {"name": "`+name+`", "initialNodeCount": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create cluster: HTTP %d", resp.StatusCode)
	}
}

// A frozen clock moves only by Advance, which runs what falls due: the cluster's control
// plane and its node come up within ten emulated minutes, and the event log says when.
func TestFrozenClockAdvanceAndEvents(t *testing.T) {
	emu := emulatortest.New(t, emulatortest.Options{Frozen: true, Seed: 5, Start: start})
	if !strings.HasPrefix(emu.Endpoint(), "http://127.0.0.1:") {
		t.Fatalf("Endpoint() = %q, want a loopback URL", emu.Endpoint())
	}
	if got := emu.EnvVars()["GKESIM_ENDPOINT"]; got != emu.Endpoint() {
		t.Errorf("EnvVars()[GKESIM_ENDPOINT] = %q, want %q", got, emu.Endpoint())
	}
	if now := emu.Now(); !now.Equal(start) {
		t.Errorf("Now() = %s, want the start %s", now, start)
	}
	createCluster(t, emu, "shop")
	if evs := emu.Events(emulatortest.EventFilter{Cluster: "shop", Type: "NodeReady"}); len(evs) != 0 {
		t.Fatalf("a node is ready before the clock moved: %v", evs[0])
	}
	if now := emu.Advance(10 * time.Minute); !now.Equal(start.Add(10 * time.Minute)) {
		t.Errorf("Advance(10m) = %s, want %s", now, start.Add(10*time.Minute))
	}
	ready := emu.Events(emulatortest.EventFilter{Cluster: "shop", Type: "NodeReady"})
	if len(ready) != 1 {
		t.Fatalf("NodeReady events after 10 emulated minutes: %d, want 1", len(ready))
	}
	at, err := time.Parse(time.RFC3339, ready[0].Time)
	if err != nil || at.Before(start) || at.After(start.Add(10*time.Minute)) {
		t.Errorf("NodeReady at %q, want within the ten minutes", ready[0].Time)
	}
	if !strings.HasSuffix(ready[0].Cluster, "/locations/us-central1-a/clusters/shop") {
		t.Errorf("event cluster %q", ready[0].Cluster)
	}
	if later := emu.Events(emulatortest.EventFilter{Since: start.Add(10 * time.Minute)}); len(later) != 0 {
		t.Errorf("events since the end of the advance: %v", later)
	}
}

// timeScale is the emulator's time scale, as GET /emulator/v1/clock reports it.
func timeScale(t *testing.T, emu *emulatortest.Emulator) float64 {
	t.Helper()
	resp, err := http.Get(emu.Endpoint() + "/emulator/v1/clock")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct {
		TimeScale float64 `json:"timeScale"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c.TimeScale
}

// The zero Options run the clock at the default scale (Terraform's applies wait for
// operations, so a frozen clock would hold them forever); SetTimeScale(0) freezes it.
func TestTimeScale(t *testing.T) {
	if got := timeScale(t, emulatortest.New(t, emulatortest.Options{})); got != emulator.DefaultTimeScale {
		t.Errorf("zero Options: time scale %g, want %d", got, emulator.DefaultTimeScale)
	}
	emu := emulatortest.New(t, emulatortest.Options{TimeScale: 60})
	if got := timeScale(t, emu); got != 60 {
		t.Errorf("TimeScale 60: time scale %g", got)
	}
	emu.SetTimeScale(0)
	frozen := emu.Now()
	if now := emu.Advance(time.Hour); !now.Equal(frozen.Add(time.Hour)) {
		t.Errorf("after SetTimeScale(0), Advance(1h) from %s = %s", frozen, now)
	}
}

// failedTB is a test that has failed, whose cleanups the test runs itself.
type failedTB struct {
	testing.TB
	cleanups []func()
}

func (f *failedTB) Failed() bool        { return true }
func (f *failedTB) Cleanup(fn func())   { f.cleanups = append(f.cleanups, fn) }
func (f *failedTB) Logf(string, ...any) {}

// A failed test leaves the event log in Options.EventLog, for CI to upload.
func TestEventLogOnFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.log")
	ft := &failedTB{TB: t}
	emu := emulatortest.New(ft, emulatortest.Options{Frozen: true, Start: start, EventLog: path})
	createCluster(t, emu, "shop")
	emu.Advance(10 * time.Minute)
	for i := len(ft.cleanups) - 1; i >= 0; i-- {
		ft.cleanups[i]()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "NodeReady") || !strings.Contains(string(b), "/clusters/shop") {
		t.Errorf("event log:\n%s\nwant the cluster's NodeReady", b)
	}
}
