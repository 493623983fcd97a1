package sim

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
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

func (l *EventLog) append(e LogEntry) {
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

// record appends an entry for cluster c (which may be nil) at the current emulated time.
func (w *World) record(typ string, c *Cluster, pool, node, op, format string, args ...any) {
	e := LogEntry{Time: w.st.Now, Type: typ, Pool: pool, Node: node, Op: op, Message: fmt.Sprintf(format, args...)}
	if c != nil {
		e.Cluster = c.Key()
	}
	w.st.Log.append(e)
	if c != nil && w.hooks.entryLogged != nil {
		w.hooks.entryLogged(c, w.st.Log.At(w.st.Log.Len()-1))
	}
	if w.logWaiters != nil {
		close(w.logWaiters)
		w.logWaiters = nil
	}
}

// LogChanged returns a channel that is closed when the next entry is appended.
func (w *World) LogChanged() <-chan struct{} {
	if w.logWaiters == nil {
		w.logWaiters = make(chan struct{})
	}
	return w.logWaiters
}

// EventFilter selects log entries. Empty fields match everything.
type EventFilter struct {
	// Cluster matches a cluster's resource name or its bare name.
	Cluster  string
	Pool     string
	Node     string
	Op       string
	Type     string
	AfterSeq int64
	Since    time.Time
	Limit    int
}

func (f EventFilter) match(e *LogEntry) bool {
	if e.Seq <= f.AfterSeq {
		return false
	}
	if f.Cluster != "" && e.Cluster != f.Cluster && !strings.HasSuffix(e.Cluster, "/clusters/"+f.Cluster) {
		return false
	}
	if (f.Pool != "" && e.Pool != f.Pool) || (f.Node != "" && e.Node != f.Node) ||
		(f.Op != "" && e.Op != f.Op) || (f.Type != "" && e.Type != f.Type) {
		return false
	}
	return f.Since.IsZero() || !e.Time.Before(f.Since)
}

// Events returns the entries that match f, oldest first, and the seq to continue after.
func (w *World) Events(f EventFilter) ([]*api.Event, int64) {
	log := &w.st.Log
	n := log.Len()
	// Entries are in seq order: skip straight to the first one after AfterSeq.
	start := 0
	if n > 0 && f.AfterSeq >= log.At(0).Seq {
		start = min(int(f.AfterSeq-log.At(0).Seq)+1, n)
	}
	var out []*api.Event
	for i := start; i < n; i++ {
		e := log.At(i)
		if !f.match(e) {
			continue
		}
		out = append(out, &api.Event{
			Seq: e.Seq, Time: e.Time.Format(time.RFC3339), Type: e.Type, Cluster: e.Cluster,
			NodePool: e.Pool, Node: e.Node, Operation: e.Op, Message: e.Message,
		})
		if f.Limit > 0 && len(out) >= f.Limit {
			return out, e.Seq
		}
	}
	return out, w.st.Log.LastSeq
}
