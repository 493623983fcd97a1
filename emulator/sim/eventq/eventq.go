// Package eventq is a priority queue of timed items: the earliest due time first, and items due
// at the same time in the order they were pushed. It is the event queue of the simulation.
package eventq

import (
	"container/heap"
	"time"
)

// Item is something due at a time. Seq breaks ties so that equal times pop in push order,
// which keeps the simulation deterministic.
type Item[T any] struct {
	At    time.Time `json:"at"`
	Seq   uint64    `json:"seq"`
	Value T         `json:"value"`
}

// Queue is a min-heap of items. The zero value is ready to use. Items is exported so that a
// queue can be serialised and restored (heap order is kept by Init).
type Queue[T any] struct {
	Items   []Item[T] `json:"items"`
	NextSeq uint64    `json:"nextSeq"`
}

type byDue[T any] []Item[T]

func (h byDue[T]) Len() int { return len(h) }
func (h byDue[T]) Less(i, j int) bool {
	if h[i].At.Equal(h[j].At) {
		return h[i].Seq < h[j].Seq
	}
	return h[i].At.Before(h[j].At)
}
func (h byDue[T]) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *byDue[T]) Push(x any)   { *h = append(*h, x.(Item[T])) }
func (h *byDue[T]) Pop() any {
	old := *h
	n := len(old)
	it := old[n-1]
	var zero Item[T]
	old[n-1] = zero
	*h = old[:n-1]
	return it
}

func (q *Queue[T]) heap() *byDue[T] { return (*byDue[T])(&q.Items) }

// Init restores the heap order after Items was set directly (after decoding).
func (q *Queue[T]) Init() { heap.Init(q.heap()) }

// Push schedules v at time at.
func (q *Queue[T]) Push(at time.Time, v T) {
	q.NextSeq++
	heap.Push(q.heap(), Item[T]{At: at, Seq: q.NextSeq, Value: v})
}

// Len is the number of scheduled items.
func (q *Queue[T]) Len() int { return len(q.Items) }

// Peek returns the earliest item without removing it.
func (q *Queue[T]) Peek() (Item[T], bool) {
	if len(q.Items) == 0 {
		return Item[T]{}, false
	}
	return q.Items[0], true
}

// PopDue removes and returns the earliest item if it is due at or before now.
func (q *Queue[T]) PopDue(now time.Time) (Item[T], bool) {
	it, ok := q.Peek()
	if !ok || it.At.After(now) {
		return Item[T]{}, false
	}
	return heap.Pop(q.heap()).(Item[T]), true
}
