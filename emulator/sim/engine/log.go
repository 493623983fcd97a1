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
	e := model.LogEntry{Time: w.st.Now, Type: typ, Pool: pool, Node: node, Op: op, Message: fmt.Sprintf(format, args...)}
	if c != nil {
		e.Cluster = c.Key()
	}
	w.st.Log.Append(e)
	w.logged(c)
}

// RecordPodLine logs one of the lines logged for every pod (a pod scheduled, evicted) about
// the pod podKey on node: the log keeps its parts and writes the message when it is read
// (model.PodLine), which costs nothing per pod beyond the entry.
func (w *Engine) RecordPodLine(typ string, c *model.Cluster, pool, node string, line model.PodLine, podKey string, grace time.Duration) {
	w.st.Log.AppendPodLine(model.LogEntry{Time: w.st.Now, Type: typ, Cluster: c.Key(), Pool: pool, Node: node}, line, podKey, grace)
	w.logged(c)
}

// RecordNodeLine logs a line about node whose message is prefix + node + rest + tail, kept as
// those parts and written out when read (model.EventLog.AppendNodeLine): no formatting, and no
// string per node beyond what the caller holds. prefix and rest must be among a few per
// operation (they join the log's table of names); anything that differs per node or per pod
// goes in tail, or the line is logged with Record.
func (w *Engine) RecordNodeLine(typ string, c *model.Cluster, pool, node, op, prefix, rest, tail string) {
	w.st.Log.AppendNodeLine(model.LogEntry{Time: w.st.Now, Type: typ, Cluster: c.Key(), Pool: pool, Node: node, Op: op}, prefix, rest, tail)
	w.logged(c)
}

// logged tells the hook and the waiters that an entry (about c, if not nil) joined the log.
func (w *Engine) logged(c *model.Cluster) {
	if c != nil && w.Hooks.EntryLogged != nil {
		w.Hooks.EntryLogged(c, &w.st.Log)
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

// start is the index in log of the first entry after f.AfterSeq (the entries are in seq order,
// one after another).
func (f EventFilter) start(log *model.EventLog) int {
	if n := log.Len(); n > 0 && f.AfterSeq >= log.Peek(0).Seq {
		return min(int(f.AfterSeq-log.Peek(0).Seq)+1, n)
	}
	return 0
}

// matching is the i-th oldest entry of log, its message written out, if it matches f.
func (f EventFilter) matching(log *model.EventLog, i int) (model.LogEntry, bool) {
	e := log.Peek(i)
	if !f.match(&e) {
		return e, false
	}
	return log.At(i), true
}

// Events returns the entries that match f, oldest first, and the seq to continue after.
func (w *Engine) Events(f EventFilter) ([]*api.Event, int64) {
	log := &w.st.Log
	n := log.Len()
	start := f.start(log)
	var out []*api.Event
	for i := start; i < n; i++ {
		e, ok := f.matching(log, i)
		if !ok {
			continue
		}
		out = append(out, e.API())
		if f.Limit > 0 && len(out) >= f.Limit {
			return out, e.Seq
		}
	}
	return out, w.st.Log.LastSeq
}
