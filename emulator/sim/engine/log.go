package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Record appends an entry for cluster c (which may be nil) at the current emulated time.
func (w *Engine) Record(typ string, c *model.Cluster, pool, node, op, format string, args ...any) {
	w.RecordText(typ, c, pool, node, op, fmt.Sprintf(format, args...))
}

// RecordText is Record with the message already written: the entries logged for every pod (a
// pod scheduled, evicted) build theirs by concatenation, which allocates once, where
// formatting boxes each argument first.
func (w *Engine) RecordText(typ string, c *model.Cluster, pool, node, op, msg string) {
	e := model.LogEntry{Time: w.st.Now, Type: typ, Pool: pool, Node: node, Op: op, Message: msg}
	if c != nil {
		e.Cluster = c.Key()
	}
	w.st.Log.Append(e)
	if c != nil && w.Hooks.EntryLogged != nil {
		w.Hooks.EntryLogged(c, w.st.Log.At(w.st.Log.Len()-1))
	}
	if w.logWaiters != nil {
		close(w.logWaiters)
		w.logWaiters = nil
	}
}

// LogChanged returns a channel that is closed when the next entry is appended.
func (w *Engine) LogChanged() <-chan struct{} {
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

func (f EventFilter) match(e *model.LogEntry) bool {
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
func (w *Engine) Events(f EventFilter) ([]*api.Event, int64) {
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
