// Package emulatortest runs a gkesim emulator inside a Go test, for the tests of Terraform
// modules, GKE tooling and controllers that would otherwise need a Google Cloud project.
//
// New starts an emulator on a free loopback port and stops it when the test ends. Point the
// code under test at Endpoint (the provider, the gkesim CLI and `terraform` read it from the
// GKESIM_ENDPOINT variable that EnvVars sets; a GKE client takes it as its endpoint), move the
// emulated clock with Advance instead of sleeping, and read what GKE did with Events:
//
//	func TestUpgrade(t *testing.T) {
//		emu := emulatortest.New(t, emulatortest.Options{Seed: 7, Start: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)})
//		cmd := exec.Command("terraform", "apply", "-auto-approve") // or terraform-exec, Terratest
//		cmd.Env = os.Environ()
//		for k, v := range emu.EnvVars() {
//			cmd.Env = append(cmd.Env, k+"="+v)
//		}
//		... run it ...
//		emu.Advance(7 * 24 * time.Hour) // a week of maintenance windows, in milliseconds
//		for _, ev := range emu.Events(emulatortest.EventFilter{Cluster: "shop", Type: "AutoUpgradeStarted"}) {
//			t.Log(ev.Time, ev.Message)
//		}
//	}
//
// Each test gets its own emulator, so tests run in parallel: call t.Parallel() before New (and
// Terraform's resource.Test after it, not resource.ParallelTest). A parallel test waits at
// t.Parallel() for the sequential tests to end and for a free -parallel slot, and a running
// clock started before that wait has moved on by then, as far as an automatic upgrade the test
// did not expect. With the same Options and the same requests at the same emulated times, the
// event log is the same on every run.
// examples/go-test in the repository is a module that uses this package the way a user would.
package emulatortest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// Options configure an emulator for a test. The zero value is a running clock at the default
// time scale, seed 0, starting now.
type Options struct {
	// TimeScale is emulated seconds per wall second; 0 means emulator.DefaultTimeScale (1000: a
	// node pool is up in about a tenth of a second). Terraform waits for GKE's operations, so
	// its applies need a running clock.
	TimeScale float64
	// Frozen stops the clock: only Advance moves it. For tests that drive the API themselves
	// and want every step at an exact emulated time.
	Frozen bool
	// Seed makes node names, ids, addresses and timing jitter reproducible.
	Seed uint64
	// Start is the emulated time to start at (default: now). The versions GKE offers depend on
	// it; a fixed Start gives the same versions on every run.
	Start time.Time
	// EventLog, when not empty, is a file the emulator's event log is written to if the test
	// fails: upload it from CI to see what GKE did.
	EventLog string
}

// Emulator is an emulator running for one test.
type Emulator struct {
	t        testing.TB
	endpoint string
	// Emulator is the running emulator itself, for tests in this repository that reach into
	// the simulation.
	Emulator *emulator.Emulator
}

// New starts an emulator on a free loopback port; it stops when the test ends.
func New(t testing.TB, opts Options) *Emulator {
	t.Helper()
	scale := opts.TimeScale
	switch {
	case opts.Frozen:
		scale = 0
	case scale == 0:
		scale = emulator.DefaultTimeScale
	}
	e, endpoint := start(t, emulator.Options{TimeScale: scale, Seed: opts.Seed, Start: opts.Start})
	emu := &Emulator{t: t, endpoint: endpoint, Emulator: e}
	if opts.EventLog != "" {
		// Registered after start's Cleanup, so it runs first, while the emulator still serves.
		t.Cleanup(func() {
			if t.Failed() {
				emu.writeEventLog(opts.EventLog)
			}
		})
	}
	return emu
}

// Start runs an emulator with opts (emulator.Options: a zero TimeScale is a frozen clock) on a
// free loopback port until the test ends, and returns it and its base URL. New is the same
// with test-friendly defaults and the helpers below.
func Start(t testing.TB, opts emulator.Options) (*emulator.Emulator, string) {
	t.Helper()
	return start(t, opts)
}

func start(t testing.TB, opts emulator.Options) (*emulator.Emulator, string) {
	t.Helper()
	e, err := emulator.New(opts)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		e.Close()
		t.Fatalf("start emulator: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("close emulator: %v", err)
		}
	})
	return e, url
}

// Endpoint is the emulator's base URL, http://127.0.0.1:PORT: the provider's endpoint, the GKE
// API's endpoint (with a trailing /), and the gkesim CLI's --endpoint.
func (e *Emulator) Endpoint() string { return e.endpoint }

// EnvVars are the environment variables that point the gkesim provider and CLI at the emulator
// (GKESIM_ENDPOINT), to add to the environment of the terraform or gkesim a test runs (the
// form Terratest's Options.EnvVars takes).
func (e *Emulator) EnvVars() map[string]string {
	return map[string]string{"GKESIM_ENDPOINT": e.endpoint}
}

// Now is the emulated time.
func (e *Emulator) Now() time.Time {
	e.t.Helper()
	return e.clock("GET", "/emulator/v1/clock", nil)
}

// Advance runs everything due within d of emulated time (node boots, drains, soaks, maintenance
// windows, autoscaler passes) and returns the new emulated time. A week takes milliseconds.
func (e *Emulator) Advance(d time.Duration) time.Time {
	e.t.Helper()
	return e.clock("POST", "/emulator/v1/clock:advance", &api.AdvanceClockRequest{Duration: d.String()})
}

// SetTimeScale sets emulated seconds per wall second; 0 freezes the clock.
func (e *Emulator) SetTimeScale(scale float64) {
	e.t.Helper()
	e.clock("PATCH", "/emulator/v1/clock", &api.SetClockRequest{TimeScale: &scale})
}

func (e *Emulator) clock(method, path string, body any) time.Time {
	e.t.Helper()
	var c api.Clock
	e.call(method, path, nil, body, &c)
	t, err := time.Parse(time.RFC3339Nano, c.Now)
	if err != nil {
		e.t.Fatalf("emulator clock %q: %v", c.Now, err)
	}
	return t
}

// EventFilter selects events; empty fields match everything.
type EventFilter struct {
	// Cluster is a cluster's name, or its resource name projects/P/locations/L/clusters/C
	// (a name alone matches that name in every location).
	Cluster   string
	NodePool  string
	Node      string
	Operation string
	// Type is an event type, e.g. NodeReady, NodeUpgraded, BlueGreenSoak, ScaleUp,
	// AutoUpgradeStarted.
	Type string
	// Since keeps events at or after this emulated time.
	Since time.Time
}

// Event is one entry of the emulator's event log: what GKE did, to what, at which emulated time.
type Event = api.Event

// Events returns the event log's entries that match f, oldest first.
func (e *Emulator) Events(f EventFilter) []*Event {
	e.t.Helper()
	q := url.Values{}
	for k, v := range map[string]string{"cluster": f.Cluster, "nodePool": f.NodePool, "node": f.Node, "operation": f.Operation, "type": f.Type} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if !f.Since.IsZero() {
		q.Set("since", f.Since.UTC().Format(time.RFC3339))
	}
	var resp api.ListEventsResponse
	e.call("GET", "/emulator/v1/events", q, nil, &resp)
	return resp.Events
}

// writeEventLog writes every event, one line each, to path.
func (e *Emulator) writeEventLog(path string) {
	var b strings.Builder
	for _, ev := range e.Events(EventFilter{}) {
		fmt.Fprintf(&b, "%s  %-22s %s %s %s\n", ev.Time, ev.Type, ev.Cluster, ev.NodePool, ev.Message)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		e.t.Errorf("write the event log: %v", err)
		return
	}
	e.t.Logf("the emulator's event log is in %s", path)
}

// call sends a request to the emulator's own API and decodes the answer into out; a failure
// fails the test with the emulator's message.
func (e *Emulator) call(method, path string, q url.Values, body, out any) {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	u := e.endpoint + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(context.Background(), method, u, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("emulator %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("emulator %s %s: %v", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		var eb api.ErrorBody
		if json.Unmarshal(b, &eb) == nil && eb.Error != nil {
			e.t.Fatalf("emulator %s %s: %s", method, path, eb.Error.Message)
		}
		e.t.Fatalf("emulator %s %s: HTTP %d: %s", method, path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		e.t.Fatalf("emulator %s %s: %v", method, path, err)
	}
}
