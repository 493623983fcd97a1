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
	"log/slog"
	"sync"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// FormatVersion is the format this gkesim writes with every snapshot. Format 1 (state.json
// saved whole every two seconds, before the journal) is still read: it is a snapshot with no
// journal after it. Format 2's journal keeps every command as JSON (a request's body in
// base64); format 3's keeps a body as it came, after the command's JSON
// (sim/journal_record.go). This gkesim reads both kinds of record, so formats 2 and 3 are read
// alike; the number tells a gkesim that only knows format 2 not to replay a journal it would
// misread. Format 4's event log keeps the lines logged for every pod (scheduled, evicted) as
// their parts, not as text, and numbers its entries from the last (model.EventLog); format 3's
// logs are read and their pod lines kept as parts again, so a format-3 directory resumes as it
// would have. Format 5 saves a pod without its namespace and name, which its key in its
// cluster's map of pods says (model.Cluster.KeyPods); a format-4 state's pods are read alike
// (their namespace and name were always their key's).
const FormatVersion = 5

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
	// Outdated says the snapshot was written in an older format than this gkesim writes: a
	// checkpoint should replace it before anything is journaled in the new encoding (so that
	// an older gkesim refuses the directory rather than misreads its journal).
	Outdated bool
}

// Store is a durable home for one emulator's state. Open it once, then the runner appends to
// it, waits on it and checkpoints through it (it implements sim.Journal); Close it last.
type Store struct {
	b   backend
	log *slog.Logger

	mu sync.Mutex
	// opened and closing guard the life cycle.
	opened, closing bool
	// truncateDamaged lets Open cut a damaged last segment (SetTruncateDamagedJournal).
	truncateDamaged bool
	// closeTimeout bounds Close (SetCloseTimeout).
	closeTimeout time.Duration
	// nextSeq is the sequence number the next record gets.
	nextSeq uint64
	// pending is what the writer has not taken yet, in order; unwritten what it took and could
	// not make durable (a failed write), written again first.
	pending, unwritten []chunk
	// appendedAt is the latest emulated time appended (commands and marks); wantAt the latest
	// a waiter needs durable.
	appendedAt, wantAt time.Time
	// durableSeq and durableAt are what is on disk.
	durableSeq uint64
	durableAt  time.Time
	// err is why the last write failed, nil once a write succeeds again: meanwhile nothing new
	// is acknowledged and the writer retries. failedSince is when it started failing.
	err         error
	failedSince time.Time
	// flushed is closed (and replaced) after every write.
	flushed chan struct{}
	kick    chan struct{}
	// abandon is closed when Close stops waiting for the disk.
	abandon chan struct{}
	// sinceCheckpoint counts journal bytes appended since the last checkpoint.
	sinceCheckpoint int64
	// snapshotBusy is set while a checkpoint's snapshot is being written (retried until it is);
	// snapshotErr is its last failure.
	snapshotBusy bool
	snapshotErr  error
	snapshotDone chan struct{}
	writerDone   chan struct{}

	// closedSeg are the segments closed since the last checkpoint (or left by a failed one).
	closedSeg []uint64

	// Writer-goroutine state: the segment being appended to, how many of its bytes were
	// written and how many are durable (a failed write or fsync leaves written > synced: those
	// bytes are cut before they are written again).
	seg                   segmentFile
	segFirst              uint64
	segWritten, segSynced int64
}

// chunk is a run of encoded records, or a checkpoint between two runs.
type chunk struct {
	data []byte
	// big is a large record's data, written after its frame's head (data) as the caller gave
	// it: an import's body is not copied once more.
	big   []byte
	first uint64 // seq of the first record in data
	// records and commands count the records of the run and those that are commands.
	records, commands int
	checkpoint        []byte // an encoded snapshot: the records before it are in it
}

// bigRecord is the size from which a record's data is kept by reference, not copied.
const bigRecord = 64 << 10

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
	return &Store{b: b, log: slog.New(slog.DiscardHandler), closeTimeout: DefaultCloseTimeout,
		flushed: make(chan struct{}), kick: make(chan struct{}, 1)}
}

// SetLogger makes the store say when its writes start failing and when they recover.
func (s *Store) SetLogger(log *slog.Logger) {
	s.mu.Lock()
	s.log = log
	s.mu.Unlock()
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
	s.opened, s.closing, s.err, s.snapshotErr, s.failedSince = true, false, nil, nil, time.Time{}
	s.nextSeq = last + 1
	s.durableSeq = last
	s.pending, s.unwritten, s.seg, s.closedSeg, s.sinceCheckpoint = nil, nil, nil, nil, 0
	s.abandon = make(chan struct{})
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
		saved.State, snapSeq, saved.Outdated = env.State, env.JournalSeq, env.Format < FormatVersion
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
	if env.Format < 1 || env.Format > FormatVersion {
		return nil, fmt.Errorf("the state was written in format %d; this gkesim reads formats 1 to %d (use the gkesim that wrote it, or move the directory away to start afresh)", env.Format, FormatVersion)
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
// number. It never waits for the disk; Wait does. The store keeps data (a large one is written
// as it is, not copied): the caller must not change it afterwards.
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
	n := len(s.pending)
	switch {
	case len(data) >= bigRecord:
		s.pending = append(s.pending, chunk{data: frameHead(seq, at, data), big: data, first: seq})
	case n > 0 && s.pending[n-1].checkpoint == nil && s.pending[n-1].big == nil:
		s.pending[n-1].data = appendFrame(s.pending[n-1].data, seq, at, data)
	default:
		s.pending = append(s.pending, chunk{data: appendFrame(nil, seq, at, data), first: seq})
	}
	last := &s.pending[len(s.pending)-1]
	last.records++
	if data != nil {
		last.commands++
	}
	if at.After(s.appendedAt) {
		s.appendedAt = at
	}
	s.sinceCheckpoint += frameSize(data)
	return seq
}

func (s *Store) signal() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Wait blocks until every record up to seq is durable and the journal holds an emulated time
// of at least at (adding a clock mark if no record does). While writes fail it returns their
// error at once, but to a read (ForRead), which is answered from memory meanwhile.
func (s *Store) Wait(ctx context.Context, seq uint64, at time.Time) error {
	s.mu.Lock()
	if at.After(s.wantAt) {
		s.wantAt = at
	}
	for {
		if s.durableSeq >= seq && !s.durableAt.Before(at) {
			s.mu.Unlock()
			return nil
		}
		if s.err != nil {
			err := s.err
			s.mu.Unlock()
			if ctx.Value(readKey{}) != nil {
				return nil
			}
			return err
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

// readKey marks the context of a request that only reads (ForRead).
type readKey struct{}

// ForRead marks the context of a request that changes nothing: while the store cannot write,
// Wait lets its answer go from memory (what it shows may be lost in a crash meanwhile: the
// changes of requests answered 503, and the emulated time) instead of refusing it.
func (s *Store) ForRead(ctx context.Context) context.Context {
	return context.WithValue(ctx, readKey{}, true)
}

// WriteError says why the store cannot make writes durable now, nil while it can. The
// writer retries meanwhile; the emulator refuses changes and tells its readiness probe.
func (s *Store) WriteError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
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
	head := fmt.Sprintf(`{"format":%d,"journalSeq":%d,"timeScale":%s,"state":`, FormatVersion, seq, scale)
	raw := make([]byte, 0, len(head)+len(state)+1)
	raw = append(append(append(raw, head...), state...), '}')
	return raw, nil
}
