package sim

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// fakeWall is a wall clock the test moves by hand; its timers never fire on their own.
type fakeWall struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeWall) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeWall) After(time.Duration) <-chan time.Time { return nil }

func (f *fakeWall) add(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func startRunner(t *testing.T, scale float64) (*Runner, *fakeWall) {
	t.Helper()
	wall := &fakeWall{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := NewRunner(New(Options{Seed: 3, Start: testStart}), RunnerOptions{Wall: wall, TimeScale: scale})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return r, wall
}

func emulatedNow(t *testing.T, r *Runner) time.Time {
	t.Helper()
	var now time.Time
	if err := r.Do(context.Background(), func(w *World) error { now = w.Now(); return nil }); err != nil {
		t.Fatal(err)
	}
	return now
}

// Emulated time runs at the time scale against the wall clock, and the events that fall due
// on the way run before the next command sees the world.
func TestRunnerPacesEmulatedTimeByScale(t *testing.T) {
	r, wall := startRunner(t, 600)
	var op *Operation
	err := r.Do(context.Background(), func(w *World) error {
		var err error
		op, err = w.CreateCluster("p", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c", InitialNodeCount: 1}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	wall.add(500 * time.Millisecond) // 300 emulated seconds
	if got := emulatedNow(t, r).Sub(testStart); got != 300*time.Second {
		t.Fatalf("after 0.5 s of wall time at 600x, emulated time moved %s, want 300s", got)
	}
	wall.add(time.Second) // 900 emulated seconds in all: control plane and node are up
	var status string
	r.Do(context.Background(), func(w *World) error { status = op.Status; return nil })
	if status != api.OpStatusDone {
		t.Fatalf("CREATE_CLUSTER is %s after 15 emulated minutes, want DONE", status)
	}
}

// At scale 0 the clock is frozen: wall time does not move it, Advance does, exactly.
func TestRunnerFrozenClockMovesOnlyOnAdvance(t *testing.T) {
	r, wall := startRunner(t, 0)
	wall.add(time.Hour)
	if got := emulatedNow(t, r); !got.Equal(testStart) {
		t.Fatalf("frozen clock moved to %s", got)
	}
	if err := r.Advance(context.Background(), 90*time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := emulatedNow(t, r).Sub(testStart); got != 90*time.Minute {
		t.Fatalf("Advance(90m) moved the clock %s", got)
	}
	if err := r.Advance(context.Background(), -time.Second); err == nil {
		t.Fatal("Advance accepted a negative duration")
	}
	// Changing the scale keeps emulated time continuous.
	if err := r.SetTimeScale(context.Background(), 60); err != nil {
		t.Fatal(err)
	}
	wall.add(time.Second)
	if got := emulatedNow(t, r).Sub(testStart); got != 91*time.Minute {
		t.Fatalf("one wall second at 60x after 90m: clock at +%s, want +91m", got)
	}
}
