package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// waitFor polls cond (bounded) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: not within 5s", what)
}

// A full disk is not permanent (the memory backend with a capacity fails as a full disk does,
// after storing what fits): nothing is acknowledged while writes fail, reads are let through,
// and once space returns the writer's retry saves every record, whole and in order, and the
// pending checkpoint, without a restart.
func TestFullDiskRecoversWhenSpaceReturns(t *testing.T) {
	m := newMemoryBackend()
	st := newStore(m)
	open(t, st)
	defer mustClose(t, st)
	if err := st.Begin(sim.New(sim.Options{Start: start}).State(), 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.Wait(ctx, st.Append(start, []byte(`{"n":1}`)), time.Time{}); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	m.capacity = int64(len(m.snapshot)) + int64(m.segs[1].Len()) + 20 // the next record half fits
	m.mu.Unlock()

	seq := st.Append(start.Add(time.Second), []byte(`{"n":2,"pad":"xxxxxxxxxxxxxxxxxxxxxxxx"}`))
	err := st.Wait(ctx, seq, time.Time{})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Wait on a full disk = %v, want ENOSPC", err)
	}
	if st.WriteError() == nil {
		t.Fatal("WriteError is nil on a full disk")
	}
	// A read that saw the unsaved record, at a later time, is answered; a change is not.
	if err := st.Wait(st.ForRead(ctx), seq, start.Add(time.Minute)); err != nil {
		t.Fatalf("a read was refused while the disk is full: %v", err)
	}
	if err := st.Wait(ctx, st.Append(start.Add(2*time.Second), []byte(`{"n":3}`)), time.Time{}); err == nil {
		t.Fatal("a change was acknowledged while the disk is full")
	}
	// A checkpoint on the full disk fails and stays pending.
	if started, _ := st.Checkpoint(sim.New(sim.Options{Start: start.Add(3 * time.Second)}).State(), 0); !started {
		t.Fatal("the checkpoint did not start")
	}

	m.mu.Lock()
	m.capacity = 0 // space returns
	m.mu.Unlock()
	waitFor(t, "the writer's retry", func() bool { return st.WriteError() == nil })
	if err := st.Wait(ctx, st.Append(start.Add(4*time.Second), []byte(`{"n":4}`)), time.Time{}); err != nil {
		t.Fatalf("a change after space returned: %v", err)
	}
	waitFor(t, "the pending checkpoint", func() bool {
		st.mu.Lock()
		defer st.mu.Unlock()
		return !st.snapshotBusy && st.snapshotErr == nil
	})

	// What a crash now would leave: the checkpoint (it stands for records 1 to 3) and record
	// 4 after it, nothing torn.
	crash, err := st.CrashCopy()
	if err != nil {
		t.Fatal(err)
	}
	saved := open(t, crash)
	defer mustClose(t, crash)
	if len(saved.Notes) != 0 {
		t.Fatalf("the journal written by the retries needed a repair: %q", saved.Notes)
	}
	var got []string
	for _, r := range saved.Records {
		if r.Data != nil {
			got = append(got, string(r.Data))
		}
	}
	if len(got) != 1 || got[0] != `{"n":4}` || !saved.State.Now.Equal(start.Add(3*time.Second)) {
		t.Fatalf("after the recovery the store holds the snapshot of %s and commands %q; want the retried checkpoint and {\"n\":4}", saved.State.Now, got)
	}
}

// A write error on the real filesystem too: the directory's segment cannot be created, then
// can. The records refused meanwhile are written by the retry, in order.
func TestFailedSegmentCreationIsRetried(t *testing.T) {
	dir := t.TempDir()
	st, _ := NewDir(dir)
	open(t, st)
	defer mustClose(t, st)
	if err := st.Begin(sim.New(sim.Options{Start: start}).State(), 0); err != nil {
		t.Fatal(err)
	}
	journal := dir + "/" + journalDir
	if err := syscall.Rmdir(journal); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.Wait(ctx, st.Append(start, []byte(`{"n":1}`)), time.Time{}); err == nil {
		t.Fatal("acknowledged without a journal directory")
	}
	if err := syscall.Mkdir(journal, 0o755); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the retry", func() bool { return st.WriteError() == nil })
	if err := st.Wait(ctx, st.Append(start, []byte(`{"n":2}`)), time.Time{}); err != nil {
		t.Fatal(err)
	}
	b, err := st.b.readSegment(1)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, perr := parseFrames(b)
	if perr != nil || len(recs) != 2 || string(recs[0].Data) != `{"n":1}` || string(recs[1].Data) != `{"n":2}` {
		t.Fatalf("segment holds %d records (%v), want 1 and 2", len(recs), perr)
	}
}

// A stop while writes fail finishes within its bound and says what it could not save.
func TestCloseIsBoundedWhileWritesFail(t *testing.T) {
	m := newMemoryBackend()
	st := newStore(m)
	open(t, st)
	if err := st.Begin(sim.New(sim.Options{Start: start}).State(), 0); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	m.capacity = int64(len(m.snapshot)) // full
	m.mu.Unlock()
	st.SetCloseTimeout(500 * time.Millisecond)
	for i := range 3 {
		st.Append(start, []byte(fmt.Sprintf(`{"n":%d}`, i)))
	}
	// The last checkpoint, as the runner takes it when it stops.
	st.Checkpoint(sim.New(sim.Options{Start: start.Add(time.Minute)}).State(), 0)
	began := time.Now()
	err := st.Close()
	took := time.Since(began)
	if took > 500*time.Millisecond+closeGrace {
		t.Fatalf("Close took %s, beyond its bound", took)
	}
	for _, want := range []string{"could not save journal records 1 to 3 (3 changes", "no space left on device", "the last checkpoint was not written"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Close = %v; want it to say %q", err, want)
		}
	}
	// The store is unlocked: it opens again, with what was saved (nothing but the snapshot).
	m.mu.Lock()
	m.capacity = 0
	m.mu.Unlock()
	saved := open(t, st)
	defer mustClose(t, st)
	if len(saved.Records) != 0 {
		t.Fatalf("records %d after a stop that saved none", len(saved.Records))
	}
}
