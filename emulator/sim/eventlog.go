package sim

import (
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

// EventLog keeps the newest entries, oldest first.
type EventLog struct {
	Entries []LogEntry `json:"entries"`
	LastSeq int64      `json:"lastSeq"`
	// Capacity is how many entries are kept; 0 means DefaultLogCapacity.
	Capacity int `json:"capacity,omitempty"`
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
	l.Entries = append(l.Entries, e)
	// Trim in halves so that appends stay amortised O(1).
	if c := l.capacity(); len(l.Entries) >= 2*c {
		l.Entries = append([]LogEntry(nil), l.Entries[len(l.Entries)-c:]...)
	}
}

// record appends an entry for cluster c (which may be nil) at the current emulated time.
func (w *World) record(typ string, c *Cluster, pool, node, op, format string, args ...any) {
	e := LogEntry{Time: w.st.Now, Type: typ, Pool: pool, Node: node, Op: op, Message: fmt.Sprintf(format, args...)}
	if c != nil {
		e.Cluster = c.Key()
	}
	w.st.Log.append(e)
	if c != nil {
		w.recordChange(c, &w.st.Log.Entries[len(w.st.Log.Entries)-1])
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
	entries := w.st.Log.Entries
	// Entries are in seq order: skip straight to the first one after AfterSeq.
	start := 0
	if n := len(entries); n > 0 && f.AfterSeq >= entries[0].Seq {
		start = min(int(f.AfterSeq-entries[0].Seq)+1, n)
	}
	var out []*api.Event
	for i := start; i < len(entries); i++ {
		e := &entries[i]
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
