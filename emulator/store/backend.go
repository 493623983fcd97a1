package store

import "io"

// backend is where a Store keeps its bytes: a directory, or memory.
type backend interface {
	// describe names the place for messages ("the data directory /x").
	describe() string
	// lock makes sure no other emulator uses the place; unlock releases it.
	lock() error
	unlock() error
	// readSnapshot returns the snapshot, nil if there is none; writeSnapshot replaces it atomically and durably.
	readSnapshot() ([]byte, error)
	writeSnapshot([]byte) error
	snapshotName() string
	// removePartialSnapshots deletes what a crash during a snapshot's write left, returning
	// the names it removed.
	removePartialSnapshots() ([]string, error)
	// segments lists the journal segments by the seq of their first record, ascending.
	segments() ([]uint64, error)
	readSegment(first uint64) ([]byte, error)
	truncateSegment(first uint64, size int64) error
	// keepCut keeps a copy of bytes about to be cut from a damaged segment and names it.
	keepCut(first uint64, cut []byte) (string, error)
	createSegment(first uint64) (segmentFile, error)
	// removeSegment deletes a segment; one already gone is not an error.
	removeSegment(first uint64) error
	segmentName(first uint64) string
}

// segmentFile is a journal segment open for appending.
type segmentFile interface {
	io.Writer
	Sync() error
	Close() error
	// Truncate cuts the segment to size bytes; the next Write goes there.
	Truncate(size int64) error
}
