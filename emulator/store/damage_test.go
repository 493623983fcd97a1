package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// One byte changed inside an early record of the last segment, with intact acknowledged
// records after it, is damage, not a torn tail: Open refuses, naming the file, the offset and
// what a cut would lose, and changes nothing; told to cut, it cuts there, says how many
// acknowledged records it dropped and keeps a copy of the cut bytes.
func TestDamageInTheMiddleOfTheLastSegment(t *testing.T) {
	dir := t.TempDir()
	st, _ := NewDir(dir)
	open(t, st)
	if err := st.Begin(sim.New(sim.Options{Start: start}).State(), 0); err != nil {
		t.Fatal(err)
	}
	var seq uint64
	for i := range 5 {
		seq = st.Append(start.Add(time.Duration(i)*time.Second), []byte(fmt.Sprintf(`{"n":%d}`, i)))
	}
	if err := st.Wait(context.Background(), seq, time.Time{}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, st)

	seg := filepath.Join(dir, journalDir, fmt.Sprintf(segmentName, 1))
	b, _ := os.ReadFile(seg)
	frame := int(frameSize([]byte(`{"n":0}`)))
	at := frame + frame - 3 // inside record 2's data
	b[at] ^= 0x01
	if err := os.WriteFile(seg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	before := listing(t, dir)

	st, _ = NewDir(dir)
	_, err := st.Open()
	if err == nil {
		t.Fatal("Open accepted a segment damaged in the middle")
	}
	for _, want := range []string{seg, fmt.Sprintf("damaged at byte %d", frame), "intact records follow the damage",
		"the 3 intact records after it (records 3 to 5, 3 of them acknowledged changes", "--truncate-damaged-journal"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open's error does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "dropped") {
		t.Errorf("Open says it dropped something while refusing: %v", err)
	}
	if after := listing(t, dir); after != before {
		t.Fatalf("the refused Open changed the directory:\nbefore %s\nafter  %s", before, after)
	}

	// The explicit way out.
	st, _ = NewDir(dir)
	st.SetTruncateDamagedJournal(true)
	saved := open(t, st)
	defer mustClose(t, st)
	if len(saved.Records) != 1 || saved.Records[0].Seq != 1 {
		t.Fatalf("after the cut Open replays %d records, want record 1 alone", len(saved.Records))
	}
	if len(saved.Notes) != 1 || !strings.Contains(saved.Notes[0], fmt.Sprintf("cut at byte %d", frame)) ||
		!strings.Contains(saved.Notes[0], "3 of them acknowledged changes") {
		t.Fatalf("the cut's note %q does not say where it cut and how many acknowledged records it dropped", saved.Notes)
	}
	copies, _ := filepath.Glob(filepath.Join(dir, "damaged-*"))
	if len(copies) != 1 || !strings.Contains(saved.Notes[0], copies[0]) {
		t.Fatalf("copies of the cut bytes %q, not named by the note %q", copies, saved.Notes)
	}
	if kept, _ := os.ReadFile(copies[0]); string(kept) != string(b[frame:]) {
		t.Fatalf("the copy holds %d bytes, not the %d cut", len(kept), len(b)-frame)
	}
	if fi, _ := os.Stat(seg); fi.Size() != int64(frame) {
		t.Fatalf("the segment is %d bytes after the cut, want %d", fi.Size(), frame)
	}
	// Appending goes on after the cut: the next record is number 2 again, never acknowledged before.
	if err := st.Wait(context.Background(), st.Append(start, []byte(`{"n":"after"}`)), time.Time{}); err != nil {
		t.Fatal(err)
	}
}

// A bad checksum in the last record, with nothing whole after it, is what a crash during its
// write leaves: it is cut with a note, as before.
func TestBadLastRecordIsATornTail(t *testing.T) {
	dir := t.TempDir()
	st, _ := NewDir(dir)
	open(t, st)
	if err := st.Begin(sim.New(sim.Options{Start: start}).State(), 0); err != nil {
		t.Fatal(err)
	}
	st.Append(start, []byte(`{"n":0}`))
	if err := st.Wait(context.Background(), st.Append(start, []byte(`{"n":1}`)), time.Time{}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, st)
	seg := filepath.Join(dir, journalDir, fmt.Sprintf(segmentName, 1))
	b, _ := os.ReadFile(seg)
	b[len(b)-2] ^= 0x01
	os.WriteFile(seg, b, 0o644)
	st, _ = NewDir(dir)
	saved := open(t, st)
	defer mustClose(t, st)
	if len(saved.Records) != 1 || len(saved.Notes) != 1 || !strings.Contains(saved.Notes[0], "torn by a crash") {
		t.Fatalf("records %d, notes %q: want record 1 and a note on the torn record 2", len(saved.Records), saved.Notes)
	}
}
