package sim

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/wall"
)

func startRunner(t *testing.T, scale float64, opts ...func(*RunnerOptions)) (*Runner, *wall.Fake) {
	t.Helper()
	clock := wall.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	ro := RunnerOptions{Wall: clock, TimeScale: scale}
	for _, o := range opts {
		o(&ro)
	}
	r := NewRunner(New(Options{Seed: 3, Start: testStart}), ro)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return r, clock
}

func emulatedNow(t *testing.T, r *Runner) time.Time {
	t.Helper()
	var now time.Time
	if err := r.Do(context.Background(), func(w *World) error { now = w.engine.Now(); return nil }); err != nil {
		t.Fatal(err)
	}
	return now
}

// Emulated time runs at the time scale against the wall clock, and the events that fall due
// on the way run before the next command sees the world.
func TestRunnerPacesEmulatedTimeByScale(t *testing.T) {
	r, clock := startRunner(t, 600)
	var op *model.Operation
	err := r.Do(context.Background(), func(w *World) error {
		var err error
		op, err = w.gke.CreateCluster("p", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c", InitialNodeCount: 1}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(500 * time.Millisecond) // 300 emulated seconds
	if got := emulatedNow(t, r).Sub(testStart); got != 300*time.Second {
		t.Fatalf("after 0.5 s of wall time at 600x, emulated time moved %s, want 300s", got)
	}
	clock.Advance(time.Second) // 900 emulated seconds in all: control plane and node are up
	var status string
	r.Do(context.Background(), func(w *World) error { status = op.Status; return nil })
	if status != api.OpStatusDone {
		t.Fatalf("CREATE_CLUSTER is %s after 15 emulated minutes, want DONE", status)
	}
}

// At scale 0 the clock is frozen: wall time does not move it, Advance does, exactly.
func TestRunnerFrozenClockMovesOnlyOnAdvance(t *testing.T) {
	r, clock := startRunner(t, 0)
	clock.Advance(time.Hour)
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
	clock.Advance(time.Second)
	if got := emulatedNow(t, r).Sub(testStart); got != 91*time.Minute {
		t.Fatalf("one wall second at 60x after 90m: clock at +%s, want +91m", got)
	}
}

// bound is how long a test waits, in wall time, for the runner's goroutine to react; it bounds
// a failure, it does not time anything.
const bound = 10 * time.Second

// With no command at all, the runner wakes when the next event falls due on the wall clock
// and runs it: a cluster comes up while nobody asks.
func TestRunnerWakesWhenAnEventFallsDue(t *testing.T) {
	r, clock := startRunner(t, 600)
	var changed <-chan struct{}
	var op *model.Operation
	err := r.Do(context.Background(), func(w *World) error {
		var err error
		op, err = w.gke.CreateCluster("p", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c", InitialNodeCount: 1}})
		changed = w.engine.LogChanged()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The runner sleeps until the operation starts (1 emulated second, 1/600 s of wall time).
	if !clock.WaitForTimers(1, bound) {
		t.Fatal("the runner did not go to sleep on the wall clock")
	}
	clock.Advance(10 * time.Millisecond) // 6 emulated seconds: the operation starts
	select {
	case <-changed:
	case <-time.After(bound):
		t.Fatal("the runner did not wake to run the event that fell due")
	}
	var status string
	r.Do(context.Background(), func(*World) error { status = op.Status; return nil })
	if status != api.OpStatusRunning {
		t.Fatalf("operation is %s after its start fell due, want RUNNING", status)
	}
}

// memJournal is a journal in memory that records checkpoints.
type memJournal struct {
	mu          sync.Mutex
	seq         uint64
	bytes       int64
	checkpoints chan time.Time
}

func (j *memJournal) Append(at time.Time, data []byte) uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	j.bytes += int64(len(data))
	return j.seq
}
func (j *memJournal) Wait(context.Context, uint64, time.Time) error { return nil }
func (j *memJournal) Checkpoint(st *model.State, _ float64) (bool, error) {
	j.mu.Lock()
	j.bytes = 0
	j.mu.Unlock()
	j.checkpoints <- st.Now
	return true, nil
}
func (j *memJournal) SinceCheckpoint() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.bytes
}

// A change is checkpointed once CheckpointEvery of wall time has passed, with the runner asleep
// all along (it wakes for it), and once more when the runner stops; an unchanged world is not.
func TestRunnerCheckpointsOnWallTime(t *testing.T) {
	j := &memJournal{checkpoints: make(chan time.Time, 10)}
	r, clock := startRunner(t, 0, func(o *RunnerOptions) { o.Journal, o.CheckpointEvery = j, time.Minute })
	if err := r.Advance(context.Background(), time.Hour); err != nil { // a journaled command
		t.Fatal(err)
	}
	if !clock.WaitForTimers(1, bound) {
		t.Fatal("the runner did not set a timer for its checkpoint")
	}
	clock.Advance(59 * time.Second)
	select {
	case <-j.checkpoints:
		t.Fatal("checkpoint before CheckpointEvery passed")
	default:
	}
	clock.Advance(time.Second)
	select {
	case at := <-j.checkpoints:
		if !at.Equal(testStart.Add(time.Hour)) {
			t.Fatalf("checkpoint of the state at %s, want the state after the advance", at)
		}
	case <-time.After(bound):
		t.Fatal("no checkpoint after CheckpointEvery of wall time")
	}
	// Nothing changed since: no timer, no checkpoint.
	clock.Advance(time.Hour)
	if n := clock.Timers(); n != 0 {
		t.Fatalf("%d timers set with nothing to checkpoint", n)
	}
	select {
	case <-j.checkpoints:
		t.Fatal("checkpoint of an unchanged world")
	default:
	}
}

// A checkpoint is also taken when the journal has grown CheckpointBytes or the simulation has
// run CheckpointEvents events since the last one.
func TestRunnerCheckpointsOnJournalSizeAndEvents(t *testing.T) {
	j := &memJournal{checkpoints: make(chan time.Time, 10)}
	r, _ := startRunner(t, 0, func(o *RunnerOptions) { o.Journal, o.CheckpointEvents, o.CheckpointBytes = j, 20, 1<<20 })
	err := r.DoRecorded(context.Background(), &Command{Kind: CommandRequest, Request: &Request{Method: "POST", URI: "/x"}}, func(ctx context.Context) error {
		return r.Do(ctx, func(w *World) error {
			_, err := w.gke.CreateCluster("p", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c", InitialNodeCount: 3}})
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.checkpoints:
		t.Fatal("checkpoint after one command and no events")
	default:
	}
	// Creating the cluster runs over 30 events.
	if err := r.Advance(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.checkpoints:
	case <-time.After(bound):
		t.Fatal("no checkpoint after more than CheckpointEvents events")
	}
	big := &Command{Kind: CommandRequest, Request: &Request{Method: "POST", URI: "/x", Body: make([]byte, 2<<20)}}
	if err := r.DoRecorded(context.Background(), big, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	r.Do(context.Background(), func(*World) error { return nil }) // the loop goes round once more
	select {
	case <-j.checkpoints:
	case <-time.After(bound):
		t.Fatal("no checkpoint after the journal grew CheckpointBytes")
	}
}

// The generation a Read returns stays current until something a reader could see changes: a
// command other than a Read, or events run as the clock catches up; a clock moving with
// nothing due leaves it (renders do not depend on the clock alone).
func TestRunnerGenerationMovesOnlyWithChange(t *testing.T) {
	r, clock := startRunner(t, 600)
	ctx := context.Background()
	read := func() uint64 {
		t.Helper()
		g, err := r.Read(ctx, func(*World) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if g != r.Generation() {
			t.Fatalf("Read saw generation %d, Generation() says %d with nothing run since", g, r.Generation())
		}
		return g
	}
	g0 := read()
	if g := read(); g != g0 {
		t.Fatalf("a Read moved the generation from %d to %d", g0, g)
	}
	clock.Advance(time.Second) // 600 emulated seconds with nothing due
	if g := read(); g != g0 {
		t.Fatalf("the clock alone moved the generation from %d to %d", g0, g)
	}
	if err := r.Do(ctx, func(w *World) error {
		_, err := w.gke.CreateCluster("p", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c", InitialNodeCount: 1}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	g1 := read()
	if g1 == g0 {
		t.Fatal("creating a cluster left the generation where it was")
	}
	clock.Advance(10 * time.Millisecond) // 6 emulated seconds: the operation starts
	if g := read(); g == g1 {
		t.Fatal("events run by the clock's catch-up left the generation where it was")
	}
	// Inside a command a Read is never current: the command may change more before it ends.
	if err := r.Do(ctx, func(w *World) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := r.DoRecorded(ctx, &Command{Kind: CommandAdvance}, func(inner context.Context) error {
		g, err := r.Read(inner, func(*World) error { return nil })
		if g != 0 || err != nil {
			t.Errorf("a Read inside a command returned generation %d (%v), want 0", g, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
