package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// The event log: every step the simulation takes, with its emulated time, so that users can
// see what GKE would have done and why.
//
// A large simulation logs hundreds of thousands of entries, most of them two lines per pod
// (scheduled, evicted) and the rest mostly a few lines per node (creating, ready, cordoned,
// draining, drained, deleting, deleted), so the log keeps each entry compact (logRecord): its
// time as integers, the strings that repeat (type, cluster, pool, operation) as indexes into a
// table of names, and a pod's or a node's line as its parts, written out only when the entry is
// read.

// DefaultLogCapacity is how many entries the log keeps; older ones are dropped.
const DefaultLogCapacity = 200000

// LogEntry is one line of the event log, as its readers see it.
type LogEntry struct {
	Seq     int64
	Time    time.Time
	Type    string
	Cluster string
	Pool    string
	Node    string
	Op      string
	Message string
}

// API is the entry as the emulator's API shows it (/emulator/v1/events, a cluster's
// Kubernetes Events feed).
func (e *LogEntry) API() *api.Event {
	return &api.Event{Seq: e.Seq, Time: e.Time.Format(time.RFC3339), Type: e.Type, Cluster: e.Cluster,
		NodePool: e.Pool, Node: e.Node, Operation: e.Op, Message: e.Message}
}

// PodLine is the shape of a line the simulation logs for every pod, kept as its parts (the
// pod's key, the node, a grace period) and written out when read. The text is the one these
// lines always had. (A node's line, AppendNodeLine, is a shape of its own, nodeLine.)
type PodLine uint8

const (
	// textLine is an entry whose message is kept as written.
	textLine PodLine = iota
	// ScheduledLine: "pod NAMESPACE/NAME scheduled to NODE".
	ScheduledLine
	// EvictedLine: "evicted pod NAMESPACE/NAME from NODE (grace GRACE)".
	EvictedLine
	// nodeLine: PREFIX NODE REST TAIL (AppendNodeLine).
	nodeLine
)

// podLineNames are the lines' names in the saved log.
var podLineNames = map[PodLine]string{ScheduledLine: "scheduled", EvictedLine: "evicted"}

// podLineTypes are the entry types each line is logged under (what a format-3 log's text is
// read back as, see parsePodLine).
var podLineTypes = map[string]PodLine{"Scheduled": ScheduledLine, "PodEvicted": EvictedLine}

// render writes the line out.
func (l PodLine) render(pod, node string, grace time.Duration) string {
	if l == EvictedLine {
		return "evicted pod " + pod + " from " + node + " (grace " + grace.String() + ")"
	}
	return "pod " + pod + " scheduled to " + node
}

// parsePodLine reads back a message that line wrote for node; ok is false for any other text
// (which then stays text).
func parsePodLine(line PodLine, msg, node string) (pod string, grace time.Duration, ok bool) {
	switch line {
	case ScheduledLine:
		pod, ok = strings.CutPrefix(msg, "pod ")
		if ok {
			pod, ok = strings.CutSuffix(pod, " scheduled to "+node)
		}
	case EvictedLine:
		rest, found := strings.CutPrefix(msg, "evicted pod ")
		var g string
		if found {
			pod, g, found = strings.Cut(rest, " from "+node+" (grace ")
		}
		if found {
			g, found = strings.CutSuffix(g, ")")
		}
		if found {
			d, err := time.ParseDuration(g)
			grace, ok = d, err == nil
		}
	}
	return pod, grace, ok && line.render(pod, node, grace) == msg
}

// nodeLineTypes are the entry types logged as node lines: what a saved log's text of these
// types is read back as, when it is one (parseNodeLine).
var nodeLineTypes = map[string]bool{"NodeCreating": true, "NodeReady": true, "NodeCordoned": true,
	"NodeDraining": true, "NodeDrained": true, "NodeDeleting": true, "NodeDeleted": true, "NodeRecreating": true}

// parseNodeLine cuts msg, logged about node, into a node line's parts: what comes before the
// node, what follows it up to and including the first ": " (or to the end), and the tail after
// that, a caller's reason that may name another node ("replaced by surge node X") and so is not
// put in the table of names. The parts are cut from msg, so they write it back exactly; ok is
// false when msg does not name node.
func parseNodeLine(msg, node string) (prefix, rest, tail string, ok bool) {
	i := strings.Index(msg, node)
	if node == "" || i < 0 {
		return "", "", "", false
	}
	prefix, rest = msg[:i], msg[i+len(node):]
	if j := strings.Index(rest, ": "); j >= 0 {
		rest, tail = rest[:j+2], rest[j+2:]
	}
	return prefix, rest, tail, true
}

// logRecord is an entry as the log keeps it. Its seq is not kept: the entries are numbered one
// after another, and the log knows the last number.
type logRecord struct {
	sec int64
	// arg is an EvictedLine's grace period, or a node line's prefix and rest (indexes of
	// EventLog.names, the prefix in the high 32 bits).
	arg  int64
	node string
	// text is the message of a text entry, the pod's key of a PodLine, or a node line's tail.
	text string
	nsec int32
	// typ, cluster, pool and op index EventLog.names.
	typ, cluster, pool, op uint32
	line                   PodLine
}

// EventLog keeps the newest Capacity entries in a ring: appending never copies the log. It
// marshals to JSON as {"entries": [oldest ... newest], "lastSeq": N, "capacity": C}.
type EventLog struct {
	// chunks are the ring's storage, logChunk records each, added as the log first grows
	// (never copied as a growing slice would be); n is how many entries it holds.
	chunks [][]logRecord
	n      int
	// head is the index of the oldest entry once the ring is full.
	head    int
	LastSeq int64
	// Capacity is how many entries are kept; 0 means DefaultLogCapacity. Raising it later takes
	// effect while the ring has not wrapped (its oldest entry is still its first); lowering it
	// drops nothing: the log keeps the entries it holds.
	Capacity int
	// names are the strings that repeat, each once (names[0] is ""), and nameIndex finds them.
	// The table only grows: it holds the types, clusters, pools and operations ever logged,
	// a few per operation, never per pod or per node.
	names     []string
	nameIndex map[string]uint32
}

func (l *EventLog) capacity() int {
	if l.Capacity > 0 {
		return l.Capacity
	}
	return DefaultLogCapacity
}

// name is the index of s in the table of names, added if new.
func (l *EventLog) name(s string) uint32 {
	if l.nameIndex == nil {
		l.names, l.nameIndex = []string{""}, map[string]uint32{}
	}
	if s == "" {
		return 0
	}
	if i, ok := l.nameIndex[s]; ok {
		return i
	}
	i := uint32(len(l.names))
	l.names = append(l.names, s)
	l.nameIndex[s] = i
	return i
}

// record is e as kept (its text the message); Seq is not kept.
func (l *EventLog) record(e *LogEntry) logRecord {
	return logRecord{sec: e.Time.Unix(), nsec: int32(e.Time.Nanosecond()), node: e.Node, text: e.Message,
		typ: l.name(e.Type), cluster: l.name(e.Cluster), pool: l.name(e.Pool), op: l.name(e.Op)}
}

// Append adds e (its Seq is the next number; its Message is kept as written).
func (l *EventLog) Append(e LogEntry) {
	l.LastSeq++
	l.push(l.record(&e))
}

// AppendPodLine adds e with its message the line of pod (its key) on e.Node (and grace, for
// EvictedLine), kept as those parts: e.Message is not used.
func (l *EventLog) AppendPodLine(e LogEntry, line PodLine, pod string, grace time.Duration) {
	r := l.record(&e)
	r.line, r.text, r.arg = line, pod, int64(grace)
	l.LastSeq++
	l.push(r)
}

// AppendNodeLine adds e with its message prefix + e.Node + rest + tail, kept as those parts:
// e.Message is not used. prefix and rest go in the table of names, so they must be among a few
// per operation (never naming a pod, another node, a count or a time); tail is kept as given,
// shared with the caller (a string it holds anyway: a drain's reason, a cached description).
func (l *EventLog) AppendNodeLine(e LogEntry, prefix, rest, tail string) {
	r := l.record(&e)
	r.line, r.text, r.arg = nodeLine, tail, nodeLineArg(l.name(prefix), l.name(rest))
	l.LastSeq++
	l.push(r)
}

// nodeLineArg packs a node line's prefix and rest (indexes of names) into a record's arg.
func nodeLineArg(prefix, rest uint32) int64 { return int64(prefix)<<32 | int64(rest) }

// nodeLineParts is the prefix and rest a node line's record keeps.
func (l *EventLog) nodeLineParts(r *logRecord) (prefix, rest string) {
	return l.names[uint64(r.arg)>>32], l.names[uint32(r.arg)]
}

// push stores r as the newest entry (its number is the caller's to count).
func (l *EventLog) push(r logRecord) {
	// A log that has wrapped keeps its size (Capacity is set before the first entry).
	if l.n < l.capacity() && l.head == 0 {
		if last := len(l.chunks) - 1; last < 0 || l.n == last*logChunk+len(l.chunks[last]) {
			if last >= 0 && len(l.chunks[last]) < logChunk {
				// Capacity grew since the short last chunk was made: widen it.
				l.chunks[last] = append(l.chunks[last], make([]logRecord, min(logChunk, l.capacity()-last*logChunk)-len(l.chunks[last]))...)
			} else {
				l.chunks = append(l.chunks, make([]logRecord, min(logChunk, l.capacity()-l.n)))
			}
		}
		l.n++
		*l.slot(l.n - 1) = r
		return
	}
	*l.slot(l.head) = r
	l.head = (l.head + 1) % l.n
}

// logChunk is how many records a chunk of the ring holds.
const logChunk = 4096

// slot is the ring's storage at position p.
func (l *EventLog) slot(p int) *logRecord { return &l.chunks[p/logChunk][p%logChunk] }

// Len is how many entries the log holds.
func (l *EventLog) Len() int { return l.n }

func (l *EventLog) rec(i int) *logRecord { return l.slot((l.head + i) % l.n) }

// seq is the number of the i-th oldest entry held.
func (l *EventLog) seq(i int) int64 { return l.LastSeq - int64(l.n-1-i) }

// At returns the i-th oldest entry held, its message written out.
func (l *EventLog) At(i int) LogEntry { return l.Kept(i).Entry() }

// KeptEntry is an entry as the log keeps it, with its names resolved and its message not yet
// written out (Entry writes it): for a reader that may write it out later, or never.
type KeptEntry struct {
	// LogEntry is the entry; its Message is empty for a line kept as parts.
	LogEntry
	line PodLine
	// pod is a PodLine's pod, or a node line's tail.
	pod   string
	grace time.Duration
	// prefix and rest are a node line's.
	prefix, rest string
}

// Kept returns the i-th oldest entry held, as kept.
func (l *EventLog) Kept(i int) KeptEntry {
	r := l.rec(i)
	k := KeptEntry{LogEntry: l.Peek(i), line: r.line}
	switch r.line {
	case textLine:
		k.Message = r.text
	case nodeLine:
		k.pod = r.text
		k.prefix, k.rest = l.nodeLineParts(r)
	default:
		k.pod, k.grace = r.text, time.Duration(r.arg)
	}
	return k
}

// Entry is the entry with its message written out.
func (k KeptEntry) Entry() LogEntry {
	e := k.LogEntry
	switch k.line {
	case textLine:
	case nodeLine:
		e.Message = k.prefix + e.Node + k.rest + k.pod
	default:
		e.Message = k.line.render(k.pod, e.Node, k.grace)
	}
	return e
}

// Peek returns the i-th oldest entry held without its message, which At writes out: for scans
// that choose entries by their other fields and read the message only of those they keep.
func (l *EventLog) Peek(i int) LogEntry {
	r := l.rec(i)
	return LogEntry{Seq: l.seq(i), Time: r.time(), Type: l.names[r.typ], Cluster: l.names[r.cluster],
		Pool: l.names[r.pool], Node: r.node, Op: l.names[r.op]}
}

// Text is the message of the i-th oldest entry held if it is kept as text, and "" for a pod's
// or a node's line (PodLine, AppendNodeLine), which At writes out: for scans that look for
// messages of another kind (a load balancer's, say).
func (l *EventLog) Text(i int) string {
	if r := l.rec(i); r.line == textLine {
		return r.text
	}
	return ""
}

// TimeAt is the time of the i-th oldest entry held.
func (l *EventLog) TimeAt(i int) time.Time { return l.rec(i).time() }

func (r *logRecord) time() time.Time { return time.Unix(r.sec, int64(r.nsec)).UTC() }

// Clone is a copy of the log that appending to either leaves the other as it was (the entries'
// strings, which nothing changes, are shared).
func (l *EventLog) Clone() EventLog {
	out := *l
	out.chunks = make([][]logRecord, len(l.chunks))
	for i, ch := range l.chunks {
		out.chunks[i] = slices.Clone(ch)
	}
	out.names, out.nameIndex = slices.Clone(l.names), maps.Clone(l.nameIndex)
	return out
}

// savedEntry is an entry in the saved log. Format 4 keeps a PodLine as its parts (Line, Pod,
// Grace, with no Message) and numbers the entries from lastSeq; format 3 kept every message as
// text and each entry's Seq, and is read too: its pod lines become PodLines again.
//
// A node line is saved as the text it writes out, as format 4 did before node lines were kept
// as parts: its parts would save little on disk (the node is saved anyway, and most of the text
// is the prefix and rest), and would need a new format number that older gkesims refuse. Read
// back, the text of a node line's type becomes a node line again (parseNodeLine).
type savedEntry struct {
	Seq     int64     `json:"seq,omitempty"`
	Time    time.Time `json:"time"`
	Type    string    `json:"type"`
	Cluster string    `json:"cluster,omitempty"`
	Pool    string    `json:"pool,omitempty"`
	Node    string    `json:"node,omitempty"`
	Op      string    `json:"op,omitempty"`
	Message string    `json:"message,omitempty"`
	// Line is the PodLine's name ("scheduled", "evicted"), Pod the pod's key, Grace an
	// evicted pod's grace period.
	Line  string `json:"line,omitempty"`
	Pod   string `json:"pod,omitempty"`
	Grace string `json:"grace,omitempty"`
}

type eventLogJSON struct {
	Entries  []savedEntry `json:"entries"`
	LastSeq  int64        `json:"lastSeq"`
	Capacity int          `json:"capacity,omitempty"`
}

// MarshalJSON writes the entries oldest first.
func (l EventLog) MarshalJSON() ([]byte, error) {
	out := eventLogJSON{Entries: make([]savedEntry, l.n), LastSeq: l.LastSeq, Capacity: l.Capacity}
	for i := range l.n {
		k := l.Kept(i)
		s := &out.Entries[i]
		*s = savedEntry{Time: k.Time, Type: k.Type, Cluster: k.Cluster, Pool: k.Pool, Node: k.Node, Op: k.Op, Message: k.Message}
		switch k.line {
		case textLine:
		case nodeLine:
			s.Message = k.Entry().Message // saved as its text (savedEntry)
		default:
			s.Line, s.Pod = podLineNames[k.line], k.pod
			if k.line == EvictedLine {
				s.Grace = k.grace.String()
			}
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote, and format 3's logs (each entry's seq and text,
// up to twice their capacity: the newest are kept).
func (l *EventLog) UnmarshalJSON(b []byte) error {
	var in eventLogJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*l = EventLog{LastSeq: in.LastSeq, Capacity: in.Capacity}
	if c := l.capacity(); len(in.Entries) > c {
		in.Entries = in.Entries[len(in.Entries)-c:]
	}
	first := in.LastSeq - int64(len(in.Entries)) + 1
	for i := range in.Entries {
		s := &in.Entries[i]
		if want := first + int64(i); s.Seq != 0 && s.Seq != want {
			return fmt.Errorf("event log: entry %d has seq %d, want %d (entries are numbered one after another up to lastSeq %d)", i, s.Seq, want, in.LastSeq)
		}
		r := l.record(&LogEntry{Time: s.Time, Type: s.Type, Cluster: s.Cluster, Pool: s.Pool, Node: s.Node, Op: s.Op, Message: s.Message})
		switch {
		case s.Line != "":
			if r.line = lineNamed(s.Line); r.line == textLine {
				return fmt.Errorf("event log: entry seq %d: line %q is not one this gkesim writes (scheduled, evicted)", first+int64(i), s.Line)
			}
			r.text = s.Pod
			if r.line == EvictedLine {
				d, err := time.ParseDuration(s.Grace)
				if err != nil {
					return fmt.Errorf("event log: entry seq %d: grace %q is not a duration: %v", first+int64(i), s.Grace, err)
				}
				r.arg = int64(d)
			}
		case podLineTypes[s.Type] != textLine:
			// Format 3: a pod's line as text, kept as its parts again when it reads back.
			if pod, grace, ok := parsePodLine(podLineTypes[s.Type], s.Message, s.Node); ok {
				r.line, r.text, r.arg = podLineTypes[s.Type], pod, int64(grace)
			}
		case nodeLineTypes[s.Type]:
			if prefix, rest, tail, ok := parseNodeLine(s.Message, s.Node); ok {
				r.line, r.text, r.arg = nodeLine, tail, nodeLineArg(l.name(prefix), l.name(rest))
			}
		}
		l.push(r)
	}
	return nil
}

// lineNamed is the PodLine saved as name (textLine for none).
func lineNamed(name string) PodLine {
	for l, n := range podLineNames {
		if n == name {
			return l
		}
	}
	return textLine
}
