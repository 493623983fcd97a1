//go:build unix

package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

const crashCheckpointEnv = "GKESIM_STORE_CRASH_CHECKPOINT_DIR"

// TestCrashDuringCheckpointChild is the child TestPartialSnapshotsAreRemoved kills: it takes
// a checkpoint and is killed (SIGKILL) once the snapshot's temporary file is durable and before
// it is renamed over state.json.
func TestCrashDuringCheckpointChild(t *testing.T) {
	dir := os.Getenv(crashCheckpointEnv)
	if dir == "" {
		t.Skip("run by TestPartialSnapshotsAreRemoved as the process it kills")
	}
	st, err := NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	open(t, st)
	crashBeforeRename = func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	if started, err := st.Checkpoint(sim.New(sim.Options{Start: start.Add(time.Hour)}).State(), 0); !started || err != nil {
		t.Fatalf("Checkpoint = %v, %v", started, err)
	}
	time.Sleep(10 * time.Second) // killed long before
	t.Fatal("the checkpoint did not reach its rename")
}

// A crash between a snapshot's write and its rename leaves the temporary file; Open removes
// it (and says so), and so does the next checkpoint for one that appears while running.
func TestPartialSnapshotsAreRemoved(t *testing.T) {
	dir := t.TempDir()
	st, _ := NewDir(dir)
	open(t, st)
	if err := st.Begin(sim.New(sim.Options{Start: start}).State(), 0); err != nil {
		t.Fatal(err)
	}
	mustClose(t, st)
	before, _ := os.ReadFile(filepath.Join(dir, stateFile))

	for crash := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringCheckpointChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashCheckpointEnv+"="+dir)
		out, err := cmd.CombinedOutput()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("crash %d: the child was not killed before the rename: %v\n%s", crash, err, out)
		}
	}
	partial, _ := filepath.Glob(filepath.Join(dir, tempPattern))
	if len(partial) != 1 {
		// Each crashed child's own Open removed the previous crash's file.
		t.Fatalf("after three crashes there are %d partial snapshots %q, want the last crash's one", len(partial), partial)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, stateFile)); string(after) != string(before) {
		t.Fatal("a crash before the rename changed state.json")
	}

	st, _ = NewDir(dir)
	saved := open(t, st)
	if left, _ := filepath.Glob(filepath.Join(dir, tempPattern)); len(left) != 0 {
		t.Fatalf("Open left the partial snapshots %q", left)
	}
	if len(saved.Notes) != 1 || !strings.Contains(saved.Notes[0], partial[0]) || !strings.Contains(saved.Notes[0], "crash interrupted") {
		t.Fatalf("Open's notes %q do not name the partial snapshot %s it removed", saved.Notes, partial[0])
	}
	if saved.State == nil || !saved.State.Now.Equal(start) {
		t.Fatalf("the state Open read is not the last complete snapshot's")
	}

	// A stray file that appears while the emulator runs goes at the next checkpoint.
	stray := filepath.Join(dir, stateFile+".123456")
	if err := os.WriteFile(stray, []byte(`{"format":2,"sta`), 0o644); err != nil {
		t.Fatal(err)
	}
	if started, err := st.Checkpoint(sim.New(sim.Options{Start: start.Add(time.Hour)}).State(), 0); !started || err != nil {
		t.Fatalf("Checkpoint = %v, %v", started, err)
	}
	mustClose(t, st) // waits for the checkpoint
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Fatalf("the checkpoint left the stray partial snapshot %s (%v)", stray, err)
	}
}
