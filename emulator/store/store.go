// Package store keeps an emulator's state across restarts (gkesim serve --data-dir).
//
// What is kept is a snapshot of the whole simulation plus a journal of every command the
// emulator accepted after it. The simulation is deterministic (same state, same commands at
// the same emulated times, same result), so the snapshot plus the journal replayed in order is
// exactly the state the emulator had. A command is appended to the journal on the simulation
// goroutine in the order it ran, and the emulator answers only once the journal holds it on disk
// (fsync); concurrent requests share one fsync (group commit). The journal also records the
// emulated time every answer showed (clock marks), so that a restart never lands the clock
// before a time a client has seen. From time to time the runner asks for a checkpoint: the
// state is encoded at once and written in the background, and the journal segments it stands
// for are deleted once it is durable.
//
// Two backends share that logic and its tests: a directory (NewDir) and memory (NewMemory:
// it outlives an emulator inside one process, which tests use to restart one).
package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// formatVersion is written with every snapshot. Format 1 (state.json saved whole every two
// seconds, before the journal) is still read: it is a snapshot with no journal after it.
const formatVersion = 2

// envelope is the snapshot file's content.
type envelope struct {
	Format int `json:"format"`
	// JournalSeq is the last journal record the state includes.
	JournalSeq uint64 `json:"journalSeq,omitempty"`
	// TimeScale is the runner's time scale when the snapshot was taken.
	TimeScale *float64   `json:"timeScale,omitempty"`
	State     *sim.State `json:"state"`
}

// Record is one journal record: a command the simulation ran at emulated time At, or, with
// nil Data, a clock mark (the simulation reached At and someone saw it).
type Record struct {
	Seq  uint64
	At   time.Time
	Data []byte
}

// Saved is what Open found.
type Saved struct {
	// State is the last snapshot; nil when nothing was saved yet.
	State *sim.State
	// TimeScale is the time scale saved with the snapshot (HasTimeScale says whether one was).
	TimeScale    float64
	HasTimeScale bool
	// Records are the journal records after the snapshot, in order.
	Records []Record
	// Snapshot names the snapshot file, for messages.
	Snapshot string
	// Notes say what Open repaired (a journal tail torn by a crash before its fsync).
	Notes []string
}

// Store is a durable home for one emulator's state. Open it once, then the runner appends to
// it, waits on it and checkpoints through it (it implements sim.Journal); Close it last.
type Store struct {
	b backend

	mu sync.Mutex
	// opened and closing guard the life cycle.
	opened, closing bool
	// truncateDamaged lets Open cut a damaged last segment (SetTruncateDamagedJournal).
	truncateDamaged bool
	// nextSeq is the sequence number the next record gets.
	nextSeq uint64
	// pending is what the writer has not written yet, in order.
	pending []chunk
	// appendedAt is the latest emulated time appended (commands and marks); wantAt the latest
	// a waiter needs durable.
	appendedAt, wantAt time.Time
	// durableSeq and durableAt are what is on disk.
	durableSeq uint64
	durableAt  time.Time
	// err is the first write failure; after it nothing more is acknowledged.
	err error
	// flushed is closed (and replaced) after every write.
	flushed chan struct{}
	kick    chan struct{}
	// sinceCheckpoint counts journal bytes appended since the last checkpoint.
	sinceCheckpoint int64
	// snapshotBusy is set while a checkpoint's snapshot is being written; snapshotErr is the
	// last one's failure (reported by the next Checkpoint).
	snapshotBusy bool
	snapshotErr  error
	snapshotDone chan struct{}
	writerDone   chan struct{}

	// closedSeg are the segments closed since the last checkpoint (or left by a failed one).
	closedSeg []uint64

	// Writer-goroutine state: the segment being appended to.
	seg      segmentFile
	segFirst uint64
}

// chunk is a run of encoded records, or a checkpoint between two runs.
type chunk struct {
	data       []byte
	first      uint64 // seq of the first record in data
	checkpoint []byte // an encoded snapshot: the records before it are in it
}

// NewDir keeps the state in the directory dir (created if needed): state.json (the snapshot),
// journal/ (the segments) and lock (held while an emulator uses the directory).
func NewDir(dir string) (*Store, error) {
	b, err := newDirBackend(dir)
	if err != nil {
		return nil, err
	}
	return newStore(b), nil
}

// NewMemory keeps the state in memory. A Store from NewMemory can be closed and opened again
// in the same process: an emulator restarted on it resumes.
func NewMemory() *Store { return newStore(newMemoryBackend()) }

func newStore(b backend) *Store {
	return &Store{b: b, flushed: make(chan struct{}), kick: make(chan struct{}, 1)}
}

// CrashCopy returns a new memory store holding exactly what this memory store has written so
// far: what a crash at this instant would leave. Tests restart an emulator on it.
func (s *Store) CrashCopy() (*Store, error) {
	m, ok := s.b.(*memoryBackend)
	if !ok {
		return nil, errors.New("only a memory store can be copied")
	}
	return newStore(m.clone()), nil
}

// Open locks the store, reads the snapshot and the journal after it, and starts the writer.
// A damaged snapshot or journal is an error naming the file and what is wrong; nothing is
// written on a failed Open.
func (s *Store) Open() (*Saved, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opened {
		return nil, errors.New("store is already open")
	}
	if err := s.b.lock(); err != nil {
		return nil, err
	}
	// A crash during a checkpoint leaves the snapshot's temporary file: the snapshot it held
	// never replaced state.json, so the file is of no use, and repeated crashes would fill the disk.
	partial, err := s.b.removePartialSnapshots()
	if err != nil {
		s.b.unlock()
		return nil, err
	}
	saved, last, err := s.load()
	if err != nil {
		s.b.unlock()
		return nil, err
	}
	for _, p := range partial {
		saved.Notes = append(saved.Notes, fmt.Sprintf("removed %s, a snapshot a crash interrupted before it replaced %s", p, saved.Snapshot))
	}
	s.opened, s.closing, s.err, s.snapshotErr = true, false, nil, nil
	s.nextSeq = last + 1
	s.durableSeq = last
	s.pending, s.seg, s.closedSeg, s.sinceCheckpoint = nil, nil, nil, 0
	s.durableAt = time.Time{}
	if saved.State != nil {
		s.durableAt = saved.State.Now
	}
	for _, r := range saved.Records {
		if r.At.After(s.durableAt) {
			s.durableAt = r.At
		}
		s.sinceCheckpoint += frameSize(r.Data)
	}
	s.appendedAt, s.wantAt = s.durableAt, s.durableAt
	s.writerDone = make(chan struct{})
	go s.writer()
	return saved, nil
}

// load reads the snapshot and the journal after it; last is the last record's seq.
func (s *Store) load() (*Saved, uint64, error) {
	saved := &Saved{Snapshot: s.b.snapshotName()}
	var snapSeq uint64
	raw, err := s.b.readSnapshot()
	if err != nil {
		return nil, 0, err
	}
	if raw != nil {
		env, err := decodeSnapshot(raw)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", saved.Snapshot, err)
		}
		saved.State, snapSeq = env.State, env.JournalSeq
		if env.TimeScale != nil {
			saved.TimeScale, saved.HasTimeScale = *env.TimeScale, true
		}
	}
	segs, err := s.b.segments()
	if err != nil {
		return nil, 0, err
	}
	if raw == nil && len(segs) > 0 {
		return nil, 0, fmt.Errorf("%s has journal segments but no snapshot (%s): the journal cannot be replayed without it; move the directory away to start afresh", s.b.describe(), saved.Snapshot)
	}
	last := snapSeq
	for i, first := range segs {
		data, err := s.b.readSegment(first)
		if err != nil {
			return nil, 0, err
		}
		recs, good, perr := parseFrames(data)
		if perr != nil {
			if i != len(segs)-1 {
				return nil, 0, fmt.Errorf("%s: %w at byte %d; a damaged journal segment that is not the last one cannot be repaired", s.b.segmentName(first), perr, good)
			}
			note, err := s.repairLastSegment(first, data, good, perr, recs)
			if err != nil {
				return nil, 0, err
			}
			saved.Notes = append(saved.Notes, note)
		}
		if len(recs) == 0 && i == len(segs)-1 {
			// Created by a crash before its first record was written: the next record, which
			// gets its name, goes into a new file of that name.
			if err := s.b.removeSegment(first); err != nil {
				return nil, 0, err
			}
			continue
		}
		for _, r := range recs {
			if r.Seq <= snapSeq {
				continue // the snapshot includes it; the segment outlived a crash before its deletion
			}
			if r.Seq != last+1 {
				return nil, 0, fmt.Errorf("%s: record %d follows record %d: records %d to %d are missing", s.b.segmentName(first), r.Seq, last, last+1, r.Seq-1)
			}
			saved.Records = append(saved.Records, r)
			last = r.Seq
		}
	}
	return saved, last, nil
}

// repairLastSegment deals with a bad record at byte good of the last segment, recs being the
// records before it. A crash tears only the record being written, the last one: nothing whole
// follows it, and it was never acknowledged, so it is cut with a note. Whole records after the
// bad one mean the disk or someone damaged acknowledged records: Open refuses, naming the file,
// the offset and what a cut would lose, unless the store was told to cut
// (SetTruncateDamagedJournal), which keeps a copy of what it cuts.
func (s *Store) repairLastSegment(first uint64, data []byte, good int, perr error, recs []Record) (string, error) {
	name := s.b.segmentName(first)
	lastSeq := first - 1
	if len(recs) > 0 {
		lastSeq = recs[len(recs)-1].Seq
	}
	next := intactFrameAfter(data, good, lastSeq)
	if next < 0 {
		if err := s.b.truncateSegment(first, int64(good)); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: dropped the last %d bytes, a record torn by a crash while it was written (never acknowledged)", name, len(data)-good), nil
	}
	after, _, _ := parseFrames(data[next:])
	commands := 0
	for _, r := range after {
		if r.Data != nil {
			commands++
		}
	}
	lost := fmt.Sprintf("the bad record and the %d intact records after it (records %d to %d, %d of them acknowledged changes, the last at emulated time %s)",
		len(after), after[0].Seq, after[len(after)-1].Seq, commands, after[len(after)-1].At.Format(time.RFC3339))
	if !s.truncateDamaged {
		return "", fmt.Errorf("%s is damaged at byte %d (%v), and intact records follow the damage: this is not a record torn by a crash but "+
			"damage to acknowledged records, so nothing is cut silently. Cutting the segment at byte %d would lose %s. "+
			"Restore the data directory from a backup, or start with --truncate-damaged-journal to cut it there "+
			"(a copy of the cut bytes is kept beside the journal)", name, good, perr, good, lost)
	}
	copyName, err := s.b.keepCut(first, data[good:])
	if err != nil {
		return "", fmt.Errorf("keep a copy of what would be cut from %s: %w; nothing was cut", name, err)
	}
	if err := s.b.truncateSegment(first, int64(good)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: cut at byte %d, where it was damaged (%v), as --truncate-damaged-journal asked: dropped %s; the %d cut bytes are kept in %s",
		name, good, perr, lost, len(data)-good, copyName), nil
}

// SetTruncateDamagedJournal makes Open cut the last journal segment at a damaged record even
// when intact records follow it (gkesim serve --truncate-damaged-journal), instead of refusing
// to start. Open says how many acknowledged records the cut drops and where it kept them.
func (s *Store) SetTruncateDamagedJournal(cut bool) {
	s.mu.Lock()
	s.truncateDamaged = cut
	s.mu.Unlock()
}

func decodeSnapshot(raw []byte) (*envelope, error) {
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, describeJSONError(raw, err)
	}
	if env.Format != 1 && env.Format != formatVersion {
		return nil, fmt.Errorf("the state was written in format %d; this gkesim reads formats 1 and %d (use the gkesim that wrote it, or move the directory away to start afresh)", env.Format, formatVersion)
	}
	if env.State == nil {
		return nil, errors.New(`no "state" in the saved data`)
	}
	return &env, nil
}

// describeJSONError says where in the file a JSON error is.
func describeJSONError(raw []byte, err error) error {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 1 || off > int64(len(raw)) {
		return fmt.Errorf("decode state: %w", err)
	}
	// The offending byte is the off-th one.
	before := raw[:off-1]
	line := bytes.Count(before, []byte("\n")) + 1
	col := off - 1 - int64(bytes.LastIndexByte(before, '\n'))
	return fmt.Errorf("decode state at line %d, column %d: %w", line, col, err)
}

// Begin saves the first snapshot of a state that starts afresh, before anything is journaled
// (a journal is only ever replayed on top of a snapshot). It writes synchronously.
func (s *Store) Begin(st *sim.State, timeScale float64) error {
	state, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	raw, err := encodeSnapshot(s.nextSeq-1, timeScale, state)
	if err != nil {
		return err
	}
	if err := s.b.writeSnapshot(raw); err != nil {
		return fmt.Errorf("write the first snapshot in %s: %w", s.b.describe(), err)
	}
	s.mu.Lock()
	if st.Now.After(s.durableAt) {
		s.durableAt, s.appendedAt, s.wantAt = st.Now, st.Now, st.Now
	}
	s.mu.Unlock()
	return nil
}

// Append adds a record (nil data: none; use Wait for clock marks) and returns its sequence
// number. It never waits for the disk; Wait does.
func (s *Store) Append(at time.Time, data []byte) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := s.appendLocked(at, data)
	s.signal()
	return seq
}

func (s *Store) appendLocked(at time.Time, data []byte) uint64 {
	seq := s.nextSeq
	s.nextSeq++
	frame := appendFrame(nil, seq, at, data)
	if n := len(s.pending); n > 0 && s.pending[n-1].checkpoint == nil {
		s.pending[n-1].data = append(s.pending[n-1].data, frame...)
	} else {
		s.pending = append(s.pending, chunk{data: frame, first: seq})
	}
	if at.After(s.appendedAt) {
		s.appendedAt = at
	}
	s.sinceCheckpoint += int64(len(frame))
	return seq
}

func (s *Store) signal() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Wait blocks until every record up to seq is durable and the journal holds an emulated time
// of at least at (adding a clock mark if no record does).
func (s *Store) Wait(ctx context.Context, seq uint64, at time.Time) error {
	s.mu.Lock()
	if at.After(s.wantAt) {
		s.wantAt = at
	}
	for {
		if s.err != nil {
			err := s.err
			s.mu.Unlock()
			return err
		}
		if s.durableSeq >= seq && !s.durableAt.Before(at) {
			s.mu.Unlock()
			return nil
		}
		if !s.opened {
			s.mu.Unlock()
			return errors.New("the store is closed")
		}
		s.signal()
		ch := s.flushed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		s.mu.Lock()
	}
}

// SinceCheckpoint is the journal bytes appended since the last checkpoint.
func (s *Store) SinceCheckpoint() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sinceCheckpoint
}

// Checkpoint encodes st (which includes every record appended so far) at once and has it
// written in the background; the journal segments it stands for are deleted once it is
// durable. It returns false, doing nothing, while the previous checkpoint is still being
// written, and reports that checkpoint's failure, if any (the journal still holds everything).
func (s *Store) Checkpoint(st *sim.State, timeScale float64) (bool, error) {
	s.mu.Lock()
	busy, prevErr := s.snapshotBusy, s.snapshotErr
	s.mu.Unlock()
	if busy {
		return false, nil
	}
	state, err := json.Marshal(st)
	if err != nil {
		return false, fmt.Errorf("encode state: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// The snapshot stands for every record before it in the journal: the commands appended so
	// far, and the clock marks the writer added while the state was being encoded (their times
	// are not after the state's, which the simulation goroutine holds still meanwhile).
	raw, err := encodeSnapshot(s.nextSeq-1, timeScale, state)
	if err != nil {
		return false, err
	}
	s.snapshotBusy, s.snapshotErr = true, nil
	s.snapshotDone = make(chan struct{})
	s.pending = append(s.pending, chunk{checkpoint: raw})
	s.sinceCheckpoint = 0
	s.signal()
	return true, prevErr
}

// encodeSnapshot builds the snapshot file around an encoded state. The state is spliced in as
// it is: marshalling it inside a struct would validate and compact its hundreds of megabytes
// a second time.
func encodeSnapshot(seq uint64, timeScale float64, state []byte) ([]byte, error) {
	scale, err := json.Marshal(timeScale)
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	head := fmt.Sprintf(`{"format":%d,"journalSeq":%d,"timeScale":%s,"state":`, formatVersion, seq, scale)
	raw := make([]byte, 0, len(head)+len(state)+1)
	raw = append(append(append(raw, head...), state...), '}')
	return raw, nil
}

// Close writes what is pending, waits for a checkpoint being written, and unlocks the store.
func (s *Store) Close() error {
	s.mu.Lock()
	if !s.opened {
		s.mu.Unlock()
		return nil
	}
	s.closing = true
	s.signal()
	done := s.writerDone
	s.mu.Unlock()
	<-done
	s.mu.Lock()
	snap := s.snapshotDone
	busy := s.snapshotBusy
	s.mu.Unlock()
	if busy {
		<-snap
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	if s.seg != nil {
		errs = append(errs, s.seg.Close())
		s.seg = nil
	}
	errs = append(errs, s.err, s.snapshotErr, s.b.unlock())
	s.opened = false
	close(s.flushed) // wake waiters: they see the store closed
	s.flushed = make(chan struct{})
	return errors.Join(errs...)
}

// writer writes pending records and checkpoints, one batch and one fsync at a time.
func (s *Store) writer() {
	defer close(s.writerDone)
	for {
		<-s.kick
		s.mu.Lock()
		if s.wantAt.After(s.appendedAt) {
			s.appendLocked(s.wantAt, nil) // a clock mark
		}
		work := s.pending
		s.pending = nil
		lastSeq, lastAt, closing := s.nextSeq-1, s.appendedAt, s.closing
		failed := s.err != nil
		s.mu.Unlock()

		var err error
		if !failed {
			err = s.write(work)
		}
		s.mu.Lock()
		if err != nil && s.err == nil {
			s.err = fmt.Errorf("write the journal in %s: %w", s.b.describe(), err)
		}
		if s.err == nil {
			s.durableSeq = lastSeq
			if lastAt.After(s.durableAt) {
				s.durableAt = lastAt
			}
		}
		close(s.flushed)
		s.flushed = make(chan struct{})
		more := len(s.pending) > 0
		s.mu.Unlock()
		if closing && !more {
			return
		}
		if more {
			s.signal()
		}
	}
}

// write puts a batch on disk: records into the current segment (fsynced once at the end), a
// checkpoint closes the segment and hands the snapshot to a background writer.
func (s *Store) write(work []chunk) error {
	dirty := false
	for _, ch := range work {
		if ch.checkpoint != nil {
			if s.seg != nil {
				if err := s.seg.Sync(); err != nil {
					return err
				}
				if err := s.seg.Close(); err != nil {
					return err
				}
				s.mu.Lock()
				s.closedSeg = append(s.closedSeg, s.segFirst)
				s.mu.Unlock()
				s.seg, dirty = nil, false
			}
			s.mu.Lock()
			covered := s.closedSeg
			s.closedSeg = nil
			s.mu.Unlock()
			go s.writeSnapshot(ch.checkpoint, covered)
			continue
		}
		if s.seg == nil {
			seg, err := s.b.createSegment(ch.first)
			if err != nil {
				return err
			}
			s.seg, s.segFirst = seg, ch.first
		}
		if _, err := s.seg.Write(ch.data); err != nil {
			return err
		}
		dirty = true
	}
	if dirty {
		return s.seg.Sync()
	}
	return nil
}

// writeSnapshot makes a checkpoint durable, then deletes the segments it covers.
func (s *Store) writeSnapshot(raw []byte, covered []uint64) {
	err := s.b.writeSnapshot(raw)
	if err == nil {
		sort.Slice(covered, func(i, j int) bool { return covered[i] < covered[j] })
		for _, first := range covered {
			if rerr := s.b.removeSegment(first); rerr != nil {
				err = rerr
				break
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.snapshotErr = fmt.Errorf("write a checkpoint in %s: %w", s.b.describe(), err)
		// The journal keeps what the checkpoint would have replaced; the next one retries.
		s.closedSeg = append(covered, s.closedSeg...)
	}
	s.snapshotBusy = false
	close(s.snapshotDone)
}
