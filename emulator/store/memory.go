package store

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"sync"
	"syscall"
)

// memoryBackend keeps the store in memory, for the life of the process.
type memoryBackend struct {
	mu       sync.Mutex
	locked   bool
	snapshot []byte
	segs     map[uint64]*bytes.Buffer
	// cuts are the bytes cut from damaged segments, by name.
	cuts map[string][]byte
	// capacity, when positive, is how many bytes the snapshot and the segments may hold
	// together: beyond it a write stores what fits and fails as a full disk does (tests).
	capacity int64
}

// room is how many more bytes fit (capacity), -1 for no limit; m.mu is held.
func (m *memoryBackend) room() int64 {
	if m.capacity <= 0 {
		return -1
	}
	used := int64(len(m.snapshot))
	for _, b := range m.segs {
		used += int64(b.Len())
	}
	return max(m.capacity-used, 0)
}

func newMemoryBackend() *memoryBackend { return &memoryBackend{segs: map[uint64]*bytes.Buffer{}} }

func (m *memoryBackend) describe() string { return "memory" }

func (m *memoryBackend) lock() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locked {
		return errors.New("the memory store is in use by another emulator")
	}
	m.locked = true
	return nil
}

func (m *memoryBackend) unlock() error {
	m.mu.Lock()
	m.locked = false
	m.mu.Unlock()
	return nil
}

func (m *memoryBackend) snapshotName() string { return "the memory store's snapshot" }

func (m *memoryBackend) readSnapshot() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snapshot, nil
}

// removePartialSnapshots has nothing to do: a memory snapshot is replaced in one step.
func (m *memoryBackend) removePartialSnapshots() ([]string, error) { return nil, nil }

func (m *memoryBackend) writeSnapshot(b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.room(); r >= 0 && int64(len(b)) > r+int64(len(m.snapshot)) {
		return fmt.Errorf("write %s: %w", m.snapshotName(), syscall.ENOSPC)
	}
	m.snapshot = b
	return nil
}

func (m *memoryBackend) segmentName(first uint64) string {
	return fmt.Sprintf("memory journal segment "+segmentName, first)
}

func (m *memoryBackend) segments() ([]uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]uint64, 0, len(m.segs))
	for k := range m.segs {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

func (m *memoryBackend) readSegment(first uint64) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.segs[first]
	if !ok {
		return nil, fmt.Errorf("%s does not exist", m.segmentName(first))
	}
	return bytes.Clone(b.Bytes()), nil
}

func (m *memoryBackend) truncateSegment(first uint64, size int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.segs[first].Truncate(int(size))
	return nil
}

func (m *memoryBackend) keepCut(first uint64, cut []byte) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cuts == nil {
		m.cuts = map[string][]byte{}
	}
	name := fmt.Sprintf("bytes cut from memory journal segment "+segmentName+" (%d)", first, len(m.cuts)+1)
	m.cuts[name] = bytes.Clone(cut)
	return name, nil
}

func (m *memoryBackend) createSegment(first uint64) (segmentFile, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.segs[first]; dup {
		return nil, fmt.Errorf("%s exists already", m.segmentName(first))
	}
	b := &bytes.Buffer{}
	m.segs[first] = b
	return &memorySegment{m: m, b: b}, nil
}

func (m *memoryBackend) removeSegment(first uint64) error {
	m.mu.Lock()
	delete(m.segs, first)
	m.mu.Unlock()
	return nil
}

type memorySegment struct {
	m *memoryBackend
	b *bytes.Buffer
}

func (s *memorySegment) Write(p []byte) (int, error) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if r := s.m.room(); r >= 0 && int64(len(p)) > r {
		s.b.Write(p[:r])
		return int(r), fmt.Errorf("write a memory journal segment: %w", syscall.ENOSPC)
	}
	return s.b.Write(p)
}
func (s *memorySegment) Truncate(size int64) error {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.b.Truncate(int(size))
	return nil
}
func (s *memorySegment) Sync() error  { return nil }
func (s *memorySegment) Close() error { return nil }

func (m *memoryBackend) clone() *memoryBackend {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := newMemoryBackend()
	c.snapshot = bytes.Clone(m.snapshot)
	for k, b := range m.segs {
		c.segs[k] = bytes.NewBuffer(bytes.Clone(b.Bytes()))
	}
	return c
}
