package model

import (
	"encoding/json"
	"time"
)

// The event log: every step the simulation takes, with its emulated time, so that users can
// see what GKE would have done and why.

// DefaultLogCapacity is how many entries the log keeps; older ones are dropped.
const DefaultLogCapacity = 200000

// LogEntry is one line of the event log.
type LogEntry struct {
	Seq     int64     `json:"seq"`
	Time    time.Time `json:"time"`
	Type    string    `json:"type"`
	Cluster string    `json:"cluster,omitempty"`
	Pool    string    `json:"pool,omitempty"`
	Node    string    `json:"node,omitempty"`
	Op      string    `json:"op,omitempty"`
	Message string    `json:"message"`
}

// EventLog keeps the newest Capacity entries in a ring: appending never copies the log. It
// marshals to JSON as {"entries": [oldest ... newest], "lastSeq": N, "capacity": C}.
type EventLog struct {
	ring []LogEntry
	// head is the index of the oldest entry once the ring is full.
	head    int
	LastSeq int64
	// Capacity is how many entries are kept; 0 means DefaultLogCapacity.
	Capacity int
}

func (l *EventLog) capacity() int {
	if l.Capacity > 0 {
		return l.Capacity
	}
	return DefaultLogCapacity
}

func (l *EventLog) Append(e LogEntry) {
	l.LastSeq++
	e.Seq = l.LastSeq
	if len(l.ring) < l.capacity() {
		l.ring = append(l.ring, e)
		return
	}
	l.ring[l.head] = e
	l.head = (l.head + 1) % len(l.ring)
}

// Len is how many entries the log holds.
func (l *EventLog) Len() int { return len(l.ring) }

// At returns the i-th oldest entry held.
func (l *EventLog) At(i int) *LogEntry { return &l.ring[(l.head+i)%len(l.ring)] }

type eventLogJSON struct {
	Entries  []LogEntry `json:"entries"`
	LastSeq  int64      `json:"lastSeq"`
	Capacity int        `json:"capacity,omitempty"`
}

// MarshalJSON writes the entries oldest first.
func (l EventLog) MarshalJSON() ([]byte, error) {
	out := eventLogJSON{Entries: make([]LogEntry, 0, len(l.ring)), LastSeq: l.LastSeq, Capacity: l.Capacity}
	out.Entries = append(out.Entries, l.ring[l.head:]...)
	out.Entries = append(out.Entries, l.ring[:l.head]...)
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote (and logs saved before, which could hold up to
// twice their capacity: the newest are kept).
func (l *EventLog) UnmarshalJSON(b []byte) error {
	var in eventLogJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*l = EventLog{LastSeq: in.LastSeq, Capacity: in.Capacity}
	if c := l.capacity(); len(in.Entries) > c {
		in.Entries = in.Entries[len(in.Entries)-c:]
	}
	l.ring = in.Entries
	return nil
}
