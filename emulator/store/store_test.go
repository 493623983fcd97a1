package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

var start = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// The same suite runs against every backend (fake-gcs-server style).
func backends(t *testing.T) map[string]func() *Store {
	dir := filepath.Join(t.TempDir(), "data")
	mem := NewMemory()
	return map[string]func() *Store{
		"memory": func() *Store { return mem },
		"dir": func() *Store {
			d, err := NewDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
	}
}

func open(t *testing.T, s *Store) *Saved {
	t.Helper()
	saved, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	return saved
}

func mustClose(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestEmptyStoreLoadsNothing(t *testing.T) {
	for name, s := range backends(t) {
		t.Run(name, func(t *testing.T) {
			st := s()
			saved := open(t, st)
			defer mustClose(t, st)
			if saved.State != nil || len(saved.Records) != 0 {
				t.Fatalf("Open on an empty store found %+v", saved)
			}
		})
	}
}

// Records come back in order after a restart, clock marks included; Wait returns only once a
// record is durable and the journal holds the emulated time asked for.
func TestJournalSurvivesRestart(t *testing.T) {
	for name, s := range backends(t) {
		t.Run(name, func(t *testing.T) {
			st := s()
			open(t, st)
			w := sim.New(sim.Options{Seed: 1, Start: start})
			if err := st.Begin(w.State(), 1000); err != nil {
				t.Fatal(err)
			}
			var last uint64
			for i := range 5 {
				last = st.Append(start.Add(time.Duration(i)*time.Second), []byte(fmt.Sprintf(`{"n":%d}`, i)))
			}
			if err := st.Wait(context.Background(), last, start.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			mustClose(t, st)

			st = s()
			saved := open(t, st)
			defer mustClose(t, st)
			if saved.State == nil || !saved.HasTimeScale || saved.TimeScale != 1000 {
				t.Fatalf("snapshot not found, or without its time scale: %+v", saved)
			}
			if len(saved.Records) != 6 {
				t.Fatalf("found %d records, want 5 commands and 1 clock mark", len(saved.Records))
			}
			for i, r := range saved.Records[:5] {
				if r.Seq != uint64(i+1) || string(r.Data) != fmt.Sprintf(`{"n":%d}`, i) || !r.At.Equal(start.Add(time.Duration(i)*time.Second)) {
					t.Fatalf("record %d = %d %s %s", i, r.Seq, r.At, r.Data)
				}
			}
			if mark := saved.Records[5]; mark.Data != nil || !mark.At.Equal(start.Add(time.Minute)) {
				t.Fatalf("last record should be the clock mark at +1m, got %+v", mark)
			}
			// New records continue the numbering.
			if seq := st.Append(start.Add(2*time.Minute), []byte(`{}`)); seq != 7 {
				t.Fatalf("next record after a restart got seq %d, want 7", seq)
			}
		})
	}
}

// A checkpoint replaces the records it includes: after it, Open returns the new snapshot and
// only what came after, and the covered segments are gone.
func TestCheckpointCompactsTheJournal(t *testing.T) {
	for name, s := range backends(t) {
		t.Run(name, func(t *testing.T) {
			st := s()
			open(t, st)
			w := sim.New(sim.Options{Seed: 1, Start: start})
			if err := st.Begin(w.State(), 0); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				st.Append(start, []byte(fmt.Sprintf(`{"before":%d}`, i)))
			}
			w.RunUntil(start.Add(time.Hour))
			if ok, err := st.Checkpoint(w.State(), 60); !ok || err != nil {
				t.Fatalf("Checkpoint = %v, %v", ok, err)
			}
			seq := st.Append(start.Add(time.Hour), []byte(`{"after":1}`))
			if err := st.Wait(context.Background(), seq, time.Time{}); err != nil {
				t.Fatal(err)
			}
			mustClose(t, st)
			segs, _ := st.b.segments()
			if len(segs) != 1 || segs[0] != 4 {
				t.Fatalf("segments after a checkpoint: %v, want only the one starting at record 4", segs)
			}

			st = s()
			saved := open(t, st)
			defer mustClose(t, st)
			if !saved.State.Now.Equal(start.Add(time.Hour)) || saved.TimeScale != 60 {
				t.Fatalf("snapshot is not the checkpoint: now %s, scale %g", saved.State.Now, saved.TimeScale)
			}
			if len(saved.Records) != 1 || string(saved.Records[0].Data) != `{"after":1}` {
				t.Fatalf("records after the checkpoint: %+v", saved.Records)
			}
		})
	}
}

// A crash in the middle of a write leaves a torn record at the end of the last segment: it was
// never acknowledged, so Open drops it, says so, and keeps everything before it.
func TestTornTailIsDropped(t *testing.T) {
	for _, tear := range []struct {
		name string
		cut  func([]byte) []byte
	}{
		{"half a header", func(b []byte) []byte { return append(b, 0x20, 0) }},
		{"an empty segment after it", nil},
		{"half a record", func(b []byte) []byte { return appendFrame(b, 3, start, []byte(`{"x":1}`))[:len(b)+20] }},
		{"bad checksum", func(b []byte) []byte {
			f := appendFrame(b, 3, start, []byte(`{"x":1}`))
			f[len(f)-1] ^= 0xff
			return f
		}},
	} {
		t.Run(tear.name, func(t *testing.T) {
			dir := t.TempDir()
			st, _ := NewDir(dir)
			open(t, st)
			if err := st.Begin(sim.New(sim.Options{Start: start}).State(), 0); err != nil {
				t.Fatal(err)
			}
			st.Append(start, []byte(`{"a":1}`))
			if err := st.Wait(context.Background(), st.Append(start, []byte(`{"a":2}`)), time.Time{}); err != nil {
				t.Fatal(err)
			}
			mustClose(t, st)
			seg := filepath.Join(dir, journalDir, fmt.Sprintf(segmentName, 1))
			b, _ := os.ReadFile(seg)
			size := len(b)
			notes := 1
			if tear.cut == nil {
				// A crash between creating the next segment and writing to it.
				os.WriteFile(filepath.Join(dir, journalDir, fmt.Sprintf(segmentName, 3)), nil, 0o644)
				notes = 0
			} else if err := os.WriteFile(seg, tear.cut(b), 0o644); err != nil {
				t.Fatal(err)
			}

			st, _ = NewDir(dir)
			saved := open(t, st)
			defer mustClose(t, st)
			// The next record goes on, in a new segment.
			if err := st.Wait(context.Background(), st.Append(start, []byte(`{"a":3}`)), time.Time{}); err != nil {
				t.Fatalf("appending after the repair: %v", err)
			}
			if len(saved.Records) != 2 || len(saved.Notes) != notes || notes == 1 && !strings.Contains(saved.Notes[0], "torn") {
				t.Fatalf("records %d, notes %q; want the 2 whole records and a note on the torn one", len(saved.Records), saved.Notes)
			}
			if fi, _ := os.Stat(seg); fi.Size() != int64(size) {
				t.Fatalf("segment is %d bytes after the repair, want %d", fi.Size(), size)
			}
		})
	}
}

// Damage that a crash cannot explain is refused, naming the file and what is wrong, and
// nothing is written.
func TestDamagedStoreIsRefused(t *testing.T) {
	newStore := func(t *testing.T) string {
		dir := t.TempDir()
		st, _ := NewDir(dir)
		open(t, st)
		if err := st.Begin(sim.New(sim.Options{Start: start}).State(), 0); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			st.Append(start, []byte(fmt.Sprintf(`{"n":%d}`, i)))
		}
		w := sim.New(sim.Options{Start: start})
		st.Checkpoint(w.State(), 0)
		st.Append(start, []byte(`{"n":3}`))
		mustClose(t, st)
		return dir
	}
	for _, tc := range []struct {
		name, want string
		damage     func(t *testing.T, dir string)
	}{
		{"snapshot is not JSON", "state.json: decode state at line 1, column 14", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"format": 2 "state": {}}`), 0o644)
		}},
		{"snapshot of another format", "format 99", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"format": 99, "state": {}}`), 0o644)
		}},
		{"records missing", "records 4 to 4 are missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, journalDir, fmt.Sprintf(segmentName, 4)))
			f, _ := os.Create(filepath.Join(dir, journalDir, fmt.Sprintf(segmentName, 5)))
			f.Write(appendFrame(nil, 5, start, []byte(`{}`)))
			f.Close()
		}},
		{"damage before the last segment", "cannot be repaired", func(t *testing.T, dir string) {
			seg := filepath.Join(dir, journalDir, fmt.Sprintf(segmentName, 4))
			b, _ := os.ReadFile(seg)
			b[len(b)-1] ^= 0xff
			os.WriteFile(seg, b, 0o644)
			f, _ := os.Create(filepath.Join(dir, journalDir, fmt.Sprintf(segmentName, 5)))
			f.Write(appendFrame(nil, 5, start, []byte(`{}`)))
			f.Close()
		}},
		{"journal without a snapshot", "no snapshot", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, stateFile))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newStore(t)
			tc.damage(t, dir)
			before := listing(t, dir)
			st, _ := NewDir(dir)
			_, err := st.Open()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open = %v, want an error containing %q", err, tc.want)
			}
			if after := listing(t, dir); after != before {
				t.Fatalf("a failed Open changed the directory:\nbefore %s\nafter  %s", before, after)
			}
			// The lock is released: fixing the damage and opening again works.
		})
	}
}

// listing describes every file of a directory tree with its size and content hash.
func listing(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Name() != lockFile {
			data, _ := os.ReadFile(path)
			fmt.Fprintf(&b, "%s:%d:%x ", strings.TrimPrefix(path, dir), len(data), binary.LittleEndian.Uint64(append(data, make([]byte, 8)...)))
		}
		return nil
	})
	return b.String()
}

// Format 1, the state.json of earlier versions, is a snapshot with no journal: it loads.
func TestFormatOneStateLoads(t *testing.T) {
	dir := t.TempDir()
	w := sim.New(sim.Options{Seed: 7, Start: start})
	if _, err := w.CreateCluster("p", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c", NodePools: []*api.NodePool{{Name: "np", InitialNodeCount: 1}}}}); err != nil {
		t.Fatal(err)
	}
	w.RunUntil(start.Add(20 * time.Minute))
	raw, _ := json.Marshal(map[string]any{"format": 1, "state": w.State()})
	os.WriteFile(filepath.Join(dir, stateFile), raw, 0o644)
	st, _ := NewDir(dir)
	saved := open(t, st)
	defer mustClose(t, st)
	r, err := sim.Restore(saved.State)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Cluster("p", "us-central1", "c"); c == nil || len(c.Nodes) != 3 || saved.HasTimeScale {
		t.Fatalf("format 1 state did not load whole: %+v", saved)
	}
}

// Two emulators cannot share a data directory.
func TestDirIsLocked(t *testing.T) {
	dir := t.TempDir()
	a, _ := NewDir(dir)
	open(t, a)
	b, _ := NewDir(dir)
	if _, err := b.Open(); err == nil || !strings.Contains(err.Error(), "is in use by another gkesim (pid") {
		t.Fatalf("second Open = %v, want the directory in use", err)
	}
	mustClose(t, a)
	saved := open(t, b)
	mustClose(t, b)
	if saved.State != nil {
		t.Fatal("unexpected state")
	}
}

// slowSync is a backend whose segment fsyncs wait for the test to release them.
type slowSync struct {
	backend
	mu      sync.Mutex
	syncs   int
	release chan struct{}
	started chan struct{}
}

type slowSegment struct {
	segmentFile
	b *slowSync
}

func (s *slowSync) createSegment(first uint64) (segmentFile, error) {
	f, err := s.backend.createSegment(first)
	return &slowSegment{f, s}, err
}

func (s *slowSegment) Sync() error {
	s.b.mu.Lock()
	s.b.syncs++
	s.b.mu.Unlock()
	s.b.started <- struct{}{}
	<-s.b.release
	return s.segmentFile.Sync()
}

// Group commit: writers that arrive while an fsync is under way share the next one.
func TestConcurrentWritersShareAnFsync(t *testing.T) {
	b := &slowSync{backend: newMemoryBackend(), release: make(chan struct{}), started: make(chan struct{}, 64)}
	st := newStore(b)
	open(t, st)
	defer mustClose(t, st)
	done := make(chan error, 32)
	go func() { done <- st.Wait(context.Background(), st.Append(start, []byte(`{"first":1}`)), time.Time{}) }()
	<-b.started // the first fsync is under way
	for i := range 31 {
		go func() {
			done <- st.Wait(context.Background(), st.Append(start, []byte(fmt.Sprintf(`{"n":%d}`, i))), time.Time{})
		}()
	}
	// Let every writer append before the first fsync ends.
	for st.pendingRecords() < 31 {
		time.Sleep(time.Millisecond)
	}
	close(b.release)
	for range 32 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if b.syncs != 2 {
		t.Fatalf("32 writers took %d fsyncs, want 2 (the first, then one for the 31 that waited)", b.syncs)
	}
}

// pendingRecords counts appended records not yet taken by the writer (for tests).
func (s *Store) pendingRecords() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ch := range s.pending {
		recs, _, _ := parseFrames(ch.data)
		n += len(recs)
	}
	return n
}

// After a write fails nothing more is acknowledged while it keeps failing, and Close, bounded,
// says what it could not save.
func TestWriteFailureIsNotAcknowledged(t *testing.T) {
	dir := t.TempDir()
	st, _ := NewDir(dir)
	open(t, st)
	st.SetCloseTimeout(300 * time.Millisecond)
	if err := st.Begin(sim.New(sim.Options{Start: start}).State(), 0); err != nil {
		t.Fatal(err)
	}
	// The journal directory disappears: creating the segment fails, and keeps failing.
	os.RemoveAll(filepath.Join(dir, journalDir))
	err := st.Wait(context.Background(), st.Append(start, []byte(`{}`)), time.Time{})
	if err == nil || !strings.Contains(err.Error(), "write the journal in the data directory") {
		t.Fatalf("Wait = %v, want the write failure", err)
	}
	if err := st.Wait(context.Background(), st.Append(start, []byte(`{"n":2}`)), time.Time{}); err == nil {
		t.Fatal("a later Wait succeeded while writes fail")
	}
	if err := st.WriteError(); err == nil {
		t.Fatal("WriteError is nil while writes fail")
	}
	err = st.Close()
	if err == nil || !strings.Contains(err.Error(), "could not save journal records 1 to 2 (2 changes") {
		t.Fatalf("Close = %v, want it to say which records it could not save", err)
	}
}
