package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unsafe"
)

var logStart = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// sampleLog is a log of text entries and pod lines, the last at a fraction of a second.
func sampleLog() *EventLog {
	l := &EventLog{}
	c := "projects/p/locations/l/clusters/c"
	l.Append(LogEntry{Time: logStart, Type: "NodeCreating", Cluster: c, Pool: "web", Node: "n1", Op: "operation-1", Message: "creating node n1 in zone a"})
	l.AppendPodLine(LogEntry{Time: logStart.Add(time.Second), Type: "Scheduled", Cluster: c, Pool: "web", Node: "n1"}, ScheduledLine, "default/web-1", 0)
	l.AppendPodLine(LogEntry{Time: logStart.Add(2 * time.Minute), Type: "PodEvicted", Cluster: c, Pool: "web", Node: "n1"}, EvictedLine, "default/web-1", 90*time.Second)
	l.Append(LogEntry{Time: logStart.Add(2*time.Minute + 250*time.Millisecond), Type: "Test", Message: "no cluster"})
	return l
}

// A pod's line is kept as its parts and read as the text such lines always had; every other
// field reads back as appended, and the entries are numbered one after another.
func TestEventLogWritesPodLinesWhenRead(t *testing.T) {
	l := sampleLog()
	want := []string{
		"1 2026-11-02T10:00:00Z NodeCreating web n1 operation-1 creating node n1 in zone a",
		"2 2026-11-02T10:00:01Z Scheduled web n1  pod default/web-1 scheduled to n1",
		"3 2026-11-02T10:02:00Z PodEvicted web n1  evicted pod default/web-1 from n1 (grace 1m30s)",
		"4 2026-11-02T10:02:00.25Z Test    no cluster",
	}
	for i, w := range want {
		e := l.At(i)
		got := strings.Join([]string{itoa(e.Seq), e.Time.Format(time.RFC3339Nano), e.Type, e.Pool, e.Node, e.Op, e.Message}, " ")
		if got != w {
			t.Errorf("entry %d: %q, want %q", i, got, w)
		}
		if p := l.Peek(i); p.Message != "" || p.Seq != e.Seq || p.Time != e.Time || p.Cluster != e.Cluster || !l.TimeAt(i).Equal(e.Time) {
			t.Errorf("entry %d: Peek %+v disagrees with At %+v", i, p, e)
		}
		if k := l.Kept(i); k.Entry() != e || (k.Message != "") != (i == 0 || i == 3) {
			t.Errorf("entry %d: kept %+v, written out %+v; want At's %+v, a pod's line not yet written", i, k, k.Entry(), e)
		}
	}
	if l.Text(0) != "creating node n1 in zone a" || l.Text(1) != "" || l.Text(2) != "" {
		t.Errorf("Text gives a text entry's message and nothing for a pod's line: %q %q %q", l.Text(0), l.Text(1), l.Text(2))
	}
	// A record is 72 bytes where an entry with its message written out took about 190.
	if size := unsafe.Sizeof(logRecord{}); size > 72 {
		t.Errorf("a log record takes %d bytes, want at most 72", size)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// Format 4 saves a pod's line as its parts and no seq per entry; it reads back to the same
// entries, and so does the format-3 log of the same entries (text and seq), whose pod lines
// become parts again.
func TestEventLogSavedFormats(t *testing.T) {
	l := sampleLog()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); strings.Contains(s, `"seq"`) || strings.Contains(s, "scheduled to") ||
		!strings.Contains(s, `"line":"evicted","pod":"default/web-1","grace":"1m30s"`) {
		t.Fatalf("format 4 log: %s", s)
	}
	var back EventLog
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	// Format 3: each entry's seq and message as text, as the gkesim before this one wrote.
	format3 := `{"entries":[` +
		`{"seq":7,"time":"2026-11-02T10:00:00Z","type":"NodeCreating","cluster":"projects/p/locations/l/clusters/c","pool":"web","node":"n1","op":"operation-1","message":"creating node n1 in zone a"},` +
		`{"seq":8,"time":"2026-11-02T10:00:01Z","type":"Scheduled","cluster":"projects/p/locations/l/clusters/c","pool":"web","node":"n1","message":"pod default/web-1 scheduled to n1"},` +
		`{"seq":9,"time":"2026-11-02T10:02:00Z","type":"PodEvicted","cluster":"projects/p/locations/l/clusters/c","pool":"web","node":"n1","message":"evicted pod default/web-1 from n1 (grace 1m30s)"},` +
		`{"seq":10,"time":"2026-11-02T10:02:00.25Z","type":"Test","message":"no cluster"}],"lastSeq":10}`
	var old EventLog
	if err := json.Unmarshal([]byte(format3), &old); err != nil {
		t.Fatal(err)
	}
	for i := range l.Len() {
		a, f4, f3 := l.At(i), back.At(i), old.At(i)
		f3.Seq -= 6 // the format-3 log numbers from 7
		if a != f4 || a != f3 {
			t.Errorf("entry %d: %+v; from format 4 %+v; from format 3 %+v", i, a, f4, f3)
		}
	}
	if old.Text(1) != "" || old.Text(2) != "" {
		t.Errorf("format 3's pod lines are kept as text after reading: %q %q", old.Text(1), old.Text(2))
	}
	// Text under a pod line's type that such a line never writes stays text, as it was.
	odd := `{"entries":[{"seq":1,"time":"2026-11-02T10:00:00Z","type":"Scheduled","node":"n1","message":"pod default/web-1 scheduled to n2"},` +
		`{"seq":2,"time":"2026-11-02T10:00:00Z","type":"PodEvicted","node":"n1","message":"evicted pod default/web-1 from n1 (grace soon)"}],"lastSeq":2}`
	var kept EventLog
	if err := json.Unmarshal([]byte(odd), &kept); err != nil {
		t.Fatal(err)
	}
	if kept.At(0).Message != "pod default/web-1 scheduled to n2" || kept.Text(0) == "" ||
		kept.At(1).Message != "evicted pod default/web-1 from n1 (grace soon)" || kept.Text(1) == "" {
		t.Errorf("text that does not read back as a pod's line: %q, %q", kept.At(0).Message, kept.At(1).Message)
	}
}

// A saved log that is not one gkesim wrote is refused with the entry and the rule it breaks.
func TestEventLogRefusesMalformedEntries(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"entries":[{"seq":1,"time":"2026-11-02T10:00:00Z","type":"T"},{"seq":3,"time":"2026-11-02T10:00:00Z","type":"T"}],"lastSeq":3}`,
			"entry 0 has seq 1, want 2 (entries are numbered one after another up to lastSeq 3)"},
		{`{"entries":[{"time":"2026-11-02T10:00:00Z","type":"T","line":"moved","pod":"a/b"}],"lastSeq":5}`,
			`entry seq 5: line "moved" is not one this gkesim writes (scheduled, evicted)`},
		{`{"entries":[{"time":"2026-11-02T10:00:00Z","type":"T","line":"evicted","pod":"a/b","grace":"later"}],"lastSeq":5}`,
			`entry seq 5: grace "later" is not a duration`},
	} {
		var l EventLog
		if err := json.Unmarshal([]byte(tc.json), &l); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.json, err, tc.want)
		}
	}
}

// A clone and its original go their own ways: appending to one, past capacity too, leaves
// the other's entries and names as they were.
func TestEventLogCloneIsIndependent(t *testing.T) {
	l := sampleLog()
	l.Capacity = 4
	c := l.Clone()
	c.Append(LogEntry{Time: logStart.Add(time.Hour), Type: "OnlyInClone", Pool: "other", Message: "x"})
	l.AppendPodLine(LogEntry{Time: logStart.Add(time.Hour), Type: "Scheduled", Pool: "web", Node: "n2"}, ScheduledLine, "default/web-2", 0)
	if c.Len() != 4 || c.At(3).Type != "OnlyInClone" || c.At(0).Type != "Scheduled" {
		t.Errorf("clone: %+v .. %+v", c.At(0), c.At(3))
	}
	if l.At(3).Message != "pod default/web-2 scheduled to n2" || l.At(0).Type != "Scheduled" || l.At(3).Type != "Scheduled" {
		t.Errorf("original: %+v .. %+v", l.At(0), l.At(3))
	}
	if _, ok := l.nameIndex["OnlyInClone"]; ok {
		t.Error("the clone's new name reached the original's table")
	}
}

// Capacity changed on a live log: raised before the ring wraps, the log grows past its old
// size (its storage widened); after it wrapped, it keeps its size and order. Entries with no
// type, cluster, pool or operation read and save like any other.
func TestEventLogCapacityChangesAndBareEntries(t *testing.T) {
	l := &EventLog{Capacity: 3}
	for i := range 3 {
		l.Append(LogEntry{Time: logStart, Message: itoa(int64(i))})
	}
	l.Capacity = 5000
	for i := 3; i < 4100; i++ {
		l.Append(LogEntry{Time: logStart, Message: itoa(int64(i))})
	}
	if l.Len() != 4100 || l.At(0).Message != "0" || l.At(4099).Message != "4099" || l.At(4099).Seq != 4100 {
		t.Fatalf("raised capacity: %d entries, first %q, last %q (seq %d)", l.Len(), l.At(0).Message, l.At(4099).Message, l.At(4099).Seq)
	}
	w := &EventLog{Capacity: 2}
	for i := range 3 {
		w.Append(LogEntry{Time: logStart, Message: itoa(int64(i))})
	}
	w.Capacity = 10
	w.Append(LogEntry{Time: logStart, Message: "3"})
	if w.Len() != 2 || w.At(0).Message != "2" || w.At(1).Message != "3" {
		t.Fatalf("raised after wrapping: %d entries, %q then %q; want the newest 2 in order", w.Len(), w.At(0).Message, w.At(1).Message)
	}
	var bare EventLog
	if err := json.Unmarshal([]byte(`{"entries":[{"seq":1,"time":"2026-01-01T00:00:00Z","type":"","message":"x"}],"lastSeq":1}`), &bare); err != nil {
		t.Fatal(err)
	}
	bare.Append(LogEntry{Time: logStart, Message: "y"})
	if _, err := json.Marshal(&bare); err != nil || bare.At(0).Message != "x" || bare.At(1).Message != "y" || bare.Peek(1).Type != "" {
		t.Fatalf("bare entries: %v, %+v, %+v", err, bare.At(0), bare.At(1))
	}
}

// nodeLineLog is a log of node lines (and one text entry) about nodes n1 and n3, one of them
// with a tail naming another node.
func nodeLineLog() *EventLog {
	l := &EventLog{}
	c := "projects/p/locations/l/clusters/c"
	at := func(s int) LogEntry {
		return LogEntry{Time: logStart.Add(time.Duration(s) * time.Second), Cluster: c, Pool: "web"}
	}
	e := at(0)
	e.Type, e.Node = "NodeCreating", "n1"
	l.AppendNodeLine(e, "creating node ", " in us-central1-a (e2-standard-8, 1.30.5-gke.1014001)", "")
	e = at(1)
	e.Type, e.Node, e.Op = "NodeCordoned", "n1", "operation-2"
	l.AppendNodeLine(e, "cordoned node ", ": ", "replaced by surge node n2")
	e = at(2)
	e.Type, e.Node, e.Message = "NodeFailed", "n1", "node n1 failed"
	l.Append(e)
	for i, n := range []string{"n1", "n3"} {
		e = at(3 + i)
		e.Type, e.Node = "NodeDeleted", n
		l.AppendNodeLine(e, "node ", " deleted", "")
	}
	return l
}

// A node's line is kept as its parts and read, every way the log is read, as the text such a
// line always had; its prefix and rest join the table of names once, its tail and its node
// never do.
func TestEventLogWritesNodeLinesWhenRead(t *testing.T) {
	l := nodeLineLog()
	want := []string{
		"creating node n1 in us-central1-a (e2-standard-8, 1.30.5-gke.1014001)",
		"cordoned node n1: replaced by surge node n2",
		"node n1 failed",
		"node n1 deleted",
		"node n3 deleted",
	}
	for i, w := range want {
		e := l.At(i)
		if e.Message != w || e.Seq != int64(i+1) || e.Pool != "web" || (i == 1) != (e.Op == "operation-2") {
			t.Errorf("entry %d: %+v, want message %q", i, e, w)
		}
		if p := l.Peek(i); p.Message != "" || p.Node != e.Node || p.Type != e.Type || p.Op != e.Op {
			t.Errorf("entry %d: Peek %+v disagrees with At %+v", i, p, e)
		}
		if k := l.Kept(i); k.Entry() != e || (k.Message != "") != (i == 2) || e.API().Message != w {
			t.Errorf("entry %d: kept %+v, written out %+v; want At's %+v, a node's line not yet written", i, k, k.Entry(), e)
		}
		if text := l.Text(i); (text != "") != (i == 2) {
			t.Errorf("entry %d: Text %q; want only the text entry's message", i, text)
		}
	}
	for _, name := range l.names {
		if strings.Contains(name, "n1") || strings.Contains(name, "n2") || strings.Contains(name, "n3") {
			t.Errorf("the table of names holds %q, which names a node", name)
		}
	}
	// "", 4 types, the cluster, the pool, the operation, and the prefix and rest of 3 shapes.
	if len(l.names) != 14 {
		t.Errorf("%d names %q, want 14", len(l.names), l.names)
	}
}

// A node's line is saved as the text it writes out, byte for byte what the same entries saved
// as text give, and reads back as a node's line again; text that does not name its node, or
// of a type no node line is logged under, stays text.
func TestEventLogSavesNodeLinesAsText(t *testing.T) {
	l := nodeLineLog()
	asText := &EventLog{}
	for i := range l.Len() {
		asText.Append(l.At(i))
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if t2, _ := json.Marshal(asText); string(b) != string(t2) || strings.Contains(string(b), `"line"`) {
		t.Fatalf("saved node lines:\n%s\nwant the text entries':\n%s", b, t2)
	}
	var back EventLog
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for i := range l.Len() {
		if a, r := l.At(i), back.At(i); a != r || (back.Text(i) == "") != (l.Text(i) == "") {
			t.Errorf("entry %d read back: %+v (text %q), want %+v (text %q)", i, r, back.Text(i), a, l.Text(i))
		}
	}
	if again, _ := json.Marshal(&back); string(again) != string(b) {
		t.Errorf("saved again:\n%s\nwant\n%s", again, b)
	}
	if _, ok := back.nameIndex["replaced by surge node n2"]; ok || len(back.names) != len(l.names) {
		t.Errorf("names read back %q, want %q", back.names, l.names)
	}
	odd := `{"entries":[{"time":"2026-11-02T10:00:00Z","type":"NodeDeleted","node":"n1","message":"node n9 deleted"},` +
		`{"time":"2026-11-02T10:00:00Z","type":"NodeDeleted","message":"node n1 deleted"},` +
		`{"time":"2026-11-02T10:00:00Z","type":"NodeDeleted","node":"n1"},` +
		`{"time":"2026-11-02T10:00:00Z","type":"NodeFailed","node":"n1","message":"node n1 failed"}],"lastSeq":4}`
	var kept EventLog
	if err := json.Unmarshal([]byte(odd), &kept); err != nil {
		t.Fatal(err)
	}
	if kept.Text(0) != "node n9 deleted" || kept.Text(1) != "node n1 deleted" || kept.At(2).Message != "" || kept.Text(3) != "node n1 failed" {
		t.Errorf("text that does not read back as a node's line: %q %q %q %q", kept.Text(0), kept.Text(1), kept.At(2).Message, kept.Text(3))
	}
	if again, _ := json.Marshal(&kept); string(again) != odd {
		t.Errorf("saved again:\n%s\nwant\n%s", again, odd)
	}
}

// A clone's node lines and names are its own: a new shape appended to the clone leaves the
// original's table of names as it was.
func TestEventLogCloneKeepsItsNodeLines(t *testing.T) {
	l := nodeLineLog()
	c := l.Clone()
	c.AppendNodeLine(LogEntry{Time: logStart, Type: "NodeRecreating", Node: "n1"}, "recreating node ", " with ", "version 1.30 -> 1.31")
	if c.At(5).Message != "recreating node n1 with version 1.30 -> 1.31" || l.Len() != 5 || l.At(1) != c.At(1) {
		t.Errorf("clone %+v, original %d entries", c.At(5), l.Len())
	}
	if _, ok := l.nameIndex["recreating node "]; ok {
		t.Error("the clone's new prefix reached the original's table")
	}
}
