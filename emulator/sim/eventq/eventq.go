// Package eventq is a priority queue of timed items: the earliest due time first, and items due
// at the same time in the order they were pushed. It is the event queue of the simulation.
//
// The heap orders small entries (due time, sequence, slot) while the values stay put in a slab,
// so that sifting moves 24 bytes rather than whole values; freed slots are reused.
package eventq

import (
	"encoding/json"
	"time"
)

// Item is something due at a time. Seq breaks ties so that equal times pop in push order,
// which keeps the simulation deterministic.
type Item[T any] struct {
	At    time.Time `json:"at"`
	Seq   uint64    `json:"seq"`
	Value T         `json:"value"`
}

// Queue is a min-heap of items. The zero value is ready to use. It marshals to JSON as
// {"items": [...], "nextSeq": N} (items in heap order), and a decoded queue is ready at once.
type Queue[T any] struct {
	heap    []entry
	vals    []T
	free    []int32
	NextSeq uint64
}

type entry struct {
	at   int64 // Unix nanoseconds
	seq  uint64
	slot int32
}

func (a entry) before(b entry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// Init is kept for callers that set the queue up by hand; a queue is always in heap order.
func (q *Queue[T]) Init() {}

// Push schedules v at time at.
func (q *Queue[T]) Push(at time.Time, v T) {
	q.NextSeq++
	q.push(at.UnixNano(), q.NextSeq, v)
}

func (q *Queue[T]) push(at int64, seq uint64, v T) {
	var slot int32
	if n := len(q.free); n > 0 {
		slot, q.free = q.free[n-1], q.free[:n-1]
		q.vals[slot] = v
	} else {
		slot = int32(len(q.vals))
		q.vals = append(q.vals, v)
	}
	q.heap = append(q.heap, entry{at: at, seq: seq, slot: slot})
	q.up(len(q.heap) - 1)
}

// Len is the number of scheduled items.
func (q *Queue[T]) Len() int { return len(q.heap) }

// Peek returns the earliest item without removing it.
func (q *Queue[T]) Peek() (Item[T], bool) {
	if len(q.heap) == 0 {
		return Item[T]{}, false
	}
	return q.item(q.heap[0]), true
}

func (q *Queue[T]) item(e entry) Item[T] {
	return Item[T]{At: time.Unix(0, e.at).UTC(), Seq: e.seq, Value: q.vals[e.slot]}
}

// PopDue removes and returns the earliest item if it is due at or before now.
func (q *Queue[T]) PopDue(now time.Time) (Item[T], bool) {
	if len(q.heap) == 0 || q.heap[0].at > now.UnixNano() {
		return Item[T]{}, false
	}
	top := q.heap[0]
	it := q.item(top)
	last := len(q.heap) - 1
	q.heap[0] = q.heap[last]
	q.heap = q.heap[:last]
	if last > 0 {
		q.down(0)
	}
	var zero T
	q.vals[top.slot] = zero
	q.free = append(q.free, top.slot)
	if len(q.vals) >= 4096 && len(q.free) > 3*len(q.vals)/4 {
		q.compact()
	}
	return it, true
}

// compact moves the live values into a slab their size: a burst of events (150,000 pods
// starting at once) must not keep its memory for the life of the simulation.
func (q *Queue[T]) compact() {
	vals := make([]T, len(q.heap), max(len(q.heap)*2, 64))
	for i := range q.heap {
		vals[i] = q.vals[q.heap[i].slot]
		q.heap[i].slot = int32(i)
	}
	q.vals, q.free = vals, nil
	if cap(q.heap) > 4*len(q.heap)+64 {
		q.heap = append(make([]entry, 0, len(q.heap)*2), q.heap...)
	}
}

// Each calls fn with every scheduled item, in no particular order.
func (q *Queue[T]) Each(fn func(at time.Time, v T)) {
	for _, e := range q.heap {
		fn(time.Unix(0, e.at).UTC(), q.vals[e.slot])
	}
}

func (q *Queue[T]) up(i int) {
	h := q.heap
	e := h[i]
	for i > 0 {
		parent := (i - 1) / 2
		if !e.before(h[parent]) {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = e
}

func (q *Queue[T]) down(i int) {
	h := q.heap
	n := len(h)
	e := h[i]
	for {
		child := 2*i + 1
		if child >= n {
			break
		}
		if r := child + 1; r < n && h[r].before(h[child]) {
			child = r
		}
		if !h[child].before(e) {
			break
		}
		h[i] = h[child]
		i = child
	}
	h[i] = e
}

type queueJSON[T any] struct {
	Items   []Item[T] `json:"items"`
	NextSeq uint64    `json:"nextSeq"`
}

// MarshalJSON writes the items in heap order.
func (q Queue[T]) MarshalJSON() ([]byte, error) {
	out := queueJSON[T]{Items: make([]Item[T], len(q.heap)), NextSeq: q.NextSeq}
	for i, e := range q.heap {
		out.Items[i] = q.item(e)
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (q *Queue[T]) UnmarshalJSON(b []byte) error {
	var in queueJSON[T]
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*q = Queue[T]{NextSeq: in.NextSeq}
	for _, it := range in.Items {
		q.push(it.At.UnixNano(), it.Seq, it.Value)
	}
	return nil
}

// FloorQueue is the queue the simulation's floor is measured on (BenchmarkPushPop, and the
// benchmarks' own measure: emulator/internal/benchfloor): 100,000 items due within 977 distinct
// seconds, about as many as a large simulation keeps queued, each push followed by a pop so
// that it keeps its size.
type FloorQueue struct {
	q  Queue[int]
	t0 time.Time
}

// NewFloorQueue fills a FloorQueue.
func NewFloorQueue() *FloorQueue {
	f := &FloorQueue{t0: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for i := 0; i < 100000; i++ {
		f.q.Push(f.due(i), i)
	}
	return f
}

func (f *FloorQueue) due(i int) time.Time { return f.t0.Add(time.Duration(i%977) * time.Second) }

// PushPop pushes item i and pops the earliest item.
func (f *FloorQueue) PushPop(i int) {
	f.q.Push(f.due(i), i)
	f.q.PopDue(f.t0.Add(time.Hour))
}
