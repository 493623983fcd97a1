package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Storage faults. A write or an fsync that fails (a full disk, an I/O error) is not the end:
// the writer keeps what it could not make durable, cuts from the segment whatever part of it
// reached the file (a retry then writes it whole, never after a torn record), and tries again
// with a growing pause until it succeeds. Meanwhile nothing new is acknowledged (Wait returns
// the error), reads are answered from memory (ForRead) and WriteError says why. A checkpoint
// whose snapshot cannot be written is retried the same way; the journal keeps everything it
// would replace. Close waits for the disk at most SetCloseTimeout, then says what it could not
// save.

// Retry pauses after a failed write: from retryMin, doubling up to retryMax.
const (
	retryMin = 50 * time.Millisecond
	retryMax = 2 * time.Second
)

// DefaultCloseTimeout bounds how long Close waits for writes that keep failing (and for a
// last checkpoint), within the time a supervisor gives a stopping process (Kubernetes: 30 s).
const DefaultCloseTimeout = 10 * time.Second

// closeGrace is how long Close waits, once it gave up, for the writers to notice.
const closeGrace = 2 * time.Second

// SetCloseTimeout bounds how long Close waits for writes that keep failing.
func (s *Store) SetCloseTimeout(d time.Duration) {
	s.mu.Lock()
	s.closeTimeout = d
	s.mu.Unlock()
}

// Close writes what is pending, waits for a checkpoint being written, and unlocks the store.
// While the disk refuses writes it retries them for at most the close timeout, then returns an
// error saying what it could not save; it never waits longer (plus closeGrace for a write stuck
// in the kernel, after which the lock is left for the process's exit to release).
func (s *Store) Close() error {
	s.mu.Lock()
	if !s.opened {
		s.mu.Unlock()
		return nil
	}
	s.closing = true
	s.signal()
	done, timeout := s.writerDone, s.closeTimeout
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	gaveUp := false
	wait := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-ctx.Done():
		}
		if !gaveUp {
			gaveUp = true
			close(s.abandon)
		}
		select {
		case <-ch:
			return true
		case <-time.After(closeGrace):
			return false
		}
	}
	if !wait(done) {
		return fmt.Errorf("closing the store in %s: a write has not returned for %s; stopped waiting for it (nothing after record %d is saved)",
			s.b.describe(), timeout+closeGrace, s.durableRecord())
	}
	s.mu.Lock()
	snap, busy := s.snapshotDone, s.snapshotBusy
	s.mu.Unlock()
	if busy && !wait(snap) {
		return fmt.Errorf("closing the store in %s: the last checkpoint's write has not returned for %s; stopped waiting for it (the journal holds every change up to record %d)",
			s.b.describe(), timeout+closeGrace, s.durableRecord())
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	if s.seg != nil {
		errs = append(errs, s.seg.Close())
		s.seg = nil
	}
	errs = append(errs, s.unsavedLocked(), s.b.unlock())
	s.opened = false
	close(s.flushed) // wake waiters: they see the store closed
	s.flushed = make(chan struct{})
	return errors.Join(errs...)
}

func (s *Store) durableRecord() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.durableSeq
}

// unsavedLocked says what a closing store could not save, nil if everything is on disk.
func (s *Store) unsavedLocked() error {
	var records, commands int
	var first, last uint64
	checkpoint := false
	for _, ch := range append(append([]chunk{}, s.unwritten...), s.pending...) {
		if ch.checkpoint != nil {
			checkpoint = true
			continue
		}
		if first == 0 {
			first = ch.first
		}
		last = ch.first + uint64(ch.records) - 1
		records += ch.records
		commands += ch.commands
	}
	var errs []error
	if records > 0 {
		errs = append(errs, fmt.Errorf("could not save journal records %d to %d (%d changes, none of them acknowledged: their requests were refused with 503; and %d clock marks): %w; "+
			"they are lost, the next start resumes after record %d", first, last, commands, records-commands, s.err, s.durableSeq))
	}
	switch {
	case s.snapshotErr != nil:
		errs = append(errs, fmt.Errorf("%w; nothing is lost by it: the journal holds every change since the last checkpoint, which the next start replays", s.snapshotErr))
	case checkpoint:
		errs = append(errs, errors.New("the last checkpoint was not written (the journal before it could not be); the next start replays the journal"))
	}
	return errors.Join(errs...)
}

// writer writes pending records and checkpoints, one batch and one fsync at a time, and
// retries what a failed write left until it succeeds or Close gives up.
func (s *Store) writer() {
	defer close(s.writerDone)
	defer s.dropUnstartedCheckpoint()
	backoff := retryMin
	var retry <-chan time.Time
	for {
		if retry != nil {
			// Failing: try again after the pause (new records wait for it too).
			select {
			case <-retry:
			case <-s.abandon:
				return
			}
		} else {
			select {
			case <-s.kick:
			case <-s.abandon:
				return
			}
		}
		s.mu.Lock()
		if s.wantAt.After(s.appendedAt) {
			s.appendLocked(s.wantAt, nil) // a clock mark
		}
		work := append(s.unwritten, s.pending...)
		s.unwritten, s.pending = nil, nil
		lastSeq, lastAt := s.nextSeq-1, s.appendedAt
		s.mu.Unlock()

		left, err := s.write(work)

		s.mu.Lock()
		s.unwritten = left
		if err != nil {
			if s.err == nil {
				s.failedSince = time.Now()
				s.log.Error("the store cannot write: changes are refused and reads answered from memory until a retry succeeds",
					"where", s.b.describe(), "error", err)
			}
			s.err = fmt.Errorf("write the journal in %s: %w", s.b.describe(), err)
		} else {
			if s.err != nil {
				s.log.Warn("the store writes again: what it could not write is saved, changes are accepted again",
					"where", s.b.describe(), "failedFor", time.Since(s.failedSince).Round(time.Millisecond))
			}
			s.err = nil
			s.durableSeq = lastSeq
			if lastAt.After(s.durableAt) {
				s.durableAt = lastAt
			}
		}
		close(s.flushed)
		s.flushed = make(chan struct{})
		more := len(s.pending) > 0
		closing := s.closing
		finished := closing && err == nil && !more
		s.mu.Unlock()
		if finished {
			return
		}
		retry = nil
		if err != nil {
			retry = time.After(backoff)
			backoff = min(2*backoff, retryMax)
			continue
		}
		backoff = retryMin
		if more || closing {
			s.signal()
		}
	}
}

// write puts a batch on disk: records into the current segment (fsynced once at the end), a
// checkpoint closes the segment and hands the snapshot to a background writer. On failure it
// returns the chunks that are not durable, from the first one after the last fsync.
func (s *Store) write(work []chunk) ([]chunk, error) {
	if s.seg != nil && s.segWritten != s.segSynced {
		// A failed write or fsync: what reached the file of the bytes after the last good
		// fsync is unknown (an fsync error may have dropped pages), so they are cut and
		// written again whole.
		if err := s.seg.Truncate(s.segSynced); err != nil {
			return work, err
		}
		s.segWritten = s.segSynced
	}
	from := 0 // the first chunk not durable yet
	for i := range work {
		ch := &work[i]
		if ch.checkpoint != nil {
			if s.seg != nil {
				if err := s.syncSegment(); err != nil {
					return work[from:], err
				}
				// Closing a file whose bytes are durable loses nothing, whatever it returns.
				_ = s.seg.Close()
				s.mu.Lock()
				s.closedSeg = append(s.closedSeg, s.segFirst)
				s.mu.Unlock()
				s.seg = nil
			}
			from = i + 1
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
				return work[from:], err
			}
			s.seg, s.segFirst, s.segWritten, s.segSynced = seg, ch.first, 0, 0
		}
		for _, b := range [][]byte{ch.data, ch.big} {
			n, err := s.seg.Write(b)
			s.segWritten += int64(n)
			if err != nil {
				return work[from:], err
			}
		}
	}
	if s.seg != nil && s.segWritten != s.segSynced {
		if err := s.syncSegment(); err != nil {
			return work[from:], err
		}
	}
	return nil, nil
}

// dropUnstartedCheckpoint, when the writer stops with a checkpoint it never reached (the
// journal before it could not be written), ends that checkpoint: Close must not wait for it.
func (s *Store) dropUnstartedCheckpoint() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range append(append([]chunk{}, s.unwritten...), s.pending...) {
		if ch.checkpoint != nil && s.snapshotBusy {
			s.snapshotBusy = false
			close(s.snapshotDone)
			return
		}
	}
}

func (s *Store) syncSegment() error {
	if err := s.seg.Sync(); err != nil {
		return err
	}
	s.segSynced = s.segWritten
	return nil
}

// writeSnapshot makes a checkpoint durable, then deletes the segments it covers; a failure is
// retried (the next checkpoint waits for it) until it succeeds or the store closes.
func (s *Store) writeSnapshot(raw []byte, covered []uint64) {
	sort.Slice(covered, func(i, j int) bool { return covered[i] < covered[j] })
	backoff := retryMin
	for {
		err := s.b.writeSnapshot(raw)
		if err == nil {
			for _, first := range covered {
				if rerr := s.b.removeSegment(first); rerr != nil {
					err = rerr
					break
				}
			}
		}
		s.mu.Lock()
		if err == nil {
			if s.snapshotErr != nil {
				s.log.Warn("the checkpoint that failed is written now", "where", s.b.describe())
			}
			s.snapshotErr, s.snapshotBusy = nil, false
			close(s.snapshotDone)
			s.mu.Unlock()
			return
		}
		if s.snapshotErr == nil {
			s.log.Error("writing a checkpoint failed; the journal still holds every change, and the checkpoint is retried",
				"where", s.b.describe(), "error", err)
		}
		s.snapshotErr = fmt.Errorf("write a checkpoint in %s: %w", s.b.describe(), err)
		closing := s.closing
		s.mu.Unlock()
		if !closing {
			select {
			case <-time.After(backoff):
				backoff = min(2*backoff, retryMax)
				continue
			case <-s.abandon:
			}
		}
		// A stop does not wait for a snapshot the disk refuses: the journal has it all.
		s.mu.Lock()
		s.closedSeg = append(covered, s.closedSeg...)
		s.snapshotBusy = false
		close(s.snapshotDone)
		s.mu.Unlock()
		return
	}
}
