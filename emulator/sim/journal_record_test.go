package sim

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A request's body is journaled as it came, after the command's JSON: a 1 MiB body makes a
// record a few hundred bytes longer than the body, not a third longer (base64), and it reads
// back byte for byte. Records written before, the body in base64 inside the JSON, still read.
func TestJournalRecordKeepsBodiesRaw(t *testing.T) {
	body := bytes.Repeat([]byte(`{"x":"\u00e9"}`+"\n"), 1<<16)
	c := &Command{Kind: CommandRequest, Request: &Request{Method: "POST", URI: "/emulator/v1/projects/p/locations/l/clusters:import",
		ContentType: "application/json", Body: body}}
	rec, err := encodeCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	if over := len(rec) - len(body); over < 0 || over > 256 {
		t.Errorf("a %d-byte body makes a %d-byte record: %d bytes over, want the body and at most 256 bytes", len(body), len(rec), over)
	}
	got, err := decodeCommand(rec)
	if err != nil || got.Kind != c.Kind || got.Request.URI != c.Request.URI || got.Request.ContentType != c.Request.ContentType || !bytes.Equal(got.Request.Body, body) {
		t.Fatalf("round trip: %v, %+v", err, got)
	}

	old, _ := json.Marshal(c) // the encoding of records written before
	got, err = decodeCommand(old)
	if err != nil || !bytes.Equal(got.Request.Body, body) || got.Request.Method != "POST" {
		t.Fatalf("an old record: %v", err)
	}
	for _, rec := range []*Command{{Kind: CommandAdvance, Duration: 5}, {Kind: CommandRequest, Request: &Request{Method: "DELETE", URI: "/x"}}} {
		data, _ := encodeCommand(rec)
		if data[0] != '{' {
			t.Errorf("a command without a body is not plain JSON: %q", data)
		}
		if back, err := decodeCommand(data); err != nil || back.Kind != rec.Kind {
			t.Errorf("round trip of %+v: %v", rec, err)
		}
	}
	for _, bad := range [][]byte{{bodyRecord, 1}, {bodyRecord, 200, 0, 0, 0, '{'}, append([]byte{bodyRecord, 2, 0, 0, 0}, "{}"...)} {
		if _, err := decodeCommand(bad); err == nil {
			t.Errorf("a damaged record %q decoded", bad)
		}
	}
}
