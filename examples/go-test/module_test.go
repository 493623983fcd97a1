// Package gkesimtest is an example of testing a Terraform module from Go against the gkesim
// emulator, the way Terratest-style tests do against a cloud project: the emulator starts in
// the test process on a free port, terraform applies the module against it, and the test moves
// the emulated clock and reads the emulator's event log. It tests ../terraform-test.
package gkesimtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

// start is the emulated time the tests begin at: a fixed time gives the same versions and the
// same maintenance windows on every run.
var start = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// An 18-day change freeze holds back the automatic upgrade that reaches the cluster meanwhile
// (a new patch version, on the 18th of November at this start time); once the freeze ends, the
// upgrade runs in the next maintenance window.
func TestFreezeHoldsBackAutoUpgrades(t *testing.T) {
	t.Parallel()
	emu := emulatortest.New(t, emulatortest.Options{Seed: 1, Start: start, TimeScale: 2000,
		EventLog: filepath.Join(os.TempDir(), "gkesim-"+t.Name()+"-events.log")})
	tf := terraform(t, copyModule(t, "../terraform-test"), emu)

	tf("apply", "-auto-approve", "-input=false", "-var", "name=shop")
	var out struct {
		Nodes struct {
			Value []struct{ Name, State, Version string }
		}
		Maintenance struct {
			Value struct{ Now string }
		}
	}
	if err := json.Unmarshal(tf("output", "-json"), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Nodes.Value) != 6 {
		t.Fatalf("the module made %d nodes, want 6 (two pools, one node in each of three zones)", len(out.Nodes.Value))
	}
	for _, n := range out.Nodes.Value {
		if n.State != "Ready" {
			t.Errorf("node %s is %s after apply, want Ready", n.Name, n.State)
		}
	}
	now, err := time.Parse(time.RFC3339, out.Maintenance.Value.Now)
	if err != nil {
		t.Fatal(err)
	}
	freezeEnd := now.Add(18 * 24 * time.Hour)
	tf("apply", "-auto-approve", "-input=false", "-var", "name=shop",
		"-var", fmt.Sprintf(`freeze={start=%q, end=%q}`, now.Format(time.RFC3339), freezeEnd.Format(time.RFC3339)))

	// From here on only the test moves the clock: two months pass in milliseconds.
	emu.SetTimeScale(0)
	emu.Advance(60 * 24 * time.Hour)
	held := 0
	for _, ev := range emu.Events(emulatortest.EventFilter{Cluster: "shop", Type: "AutoUpgradeWaiting"}) {
		if at, _ := time.Parse(time.RFC3339, ev.Time); at.Before(freezeEnd) && strings.Contains(ev.Message, "freeze") {
			held++
			t.Logf("held back: %s %s", ev.Time, ev.Message)
		}
	}
	if held == 0 {
		t.Errorf("no automatic upgrade waited for the freeze: nothing reached the cluster while it lasted")
	}
	started := emu.Events(emulatortest.EventFilter{Cluster: "shop", Type: "AutoUpgradeStarted"})
	if len(started) == 0 {
		t.Fatalf("no automatic upgrade in the 60 days after the freeze began (emulated now %s)", emu.Now())
	}
	for _, ev := range started {
		at, err := time.Parse(time.RFC3339, ev.Time)
		if err != nil {
			t.Fatal(err)
		}
		if at.Before(freezeEnd) {
			t.Errorf("an automatic upgrade started during the freeze (it ends %s): %s %s", freezeEnd.Format(time.RFC3339), ev.Time, ev.Message)
		}
	}
	t.Logf("first automatic upgrade after the freeze: %s %s", started[0].Time, started[0].Message)

	emu.SetTimeScale(2000) // destroy waits for GKE's delete operations
	tf("destroy", "-auto-approve", "-input=false", "-var", "name=shop")
}

// terraform returns a function that runs terraform in dir against the emulator and returns
// its standard output; a failure fails the test with terraform's output.
func terraform(t *testing.T, dir string, emu *emulatortest.Emulator) func(args ...string) []byte {
	t.Helper()
	env := append(os.Environ(), "TF_IN_AUTOMATION=1", "TF_DATA_DIR="+filepath.Join(dir, ".terraform"),
		"GKESIM_PROJECT=go-test", "GKESIM_LOCATION=us-central1")
	for k, v := range emu.EnvVars() { // GKESIM_ENDPOINT
		env = append(env, k+"="+v)
	}
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command("terraform", append([]string{"-chdir=" + dir}, args...)...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("terraform %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.Bytes()
	}
	// terraform init installs the provider from the registry. With a local build of the
	// provider (dev_overrides in the CLI configuration, as this repository's make test uses)
	// Terraform asks to skip it, and nothing else needs installing.
	if cfg, err := os.ReadFile(os.Getenv("TF_CLI_CONFIG_FILE")); err != nil || !bytes.Contains(cfg, []byte("dev_overrides")) {
		run("init", "-input=false")
	}
	return run
}

// copyModule copies a module's .tf files to a temporary directory, so that state and
// Terraform's working files stay out of the module.
func copyModule(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join(src, "*.tf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .tf files in %s", src)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
