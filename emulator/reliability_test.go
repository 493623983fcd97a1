package emulator_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/internal/tmpfs"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
)

// journalBytes is the size of a data directory's journal: what requests wrote to disk.
func journalBytes(t *testing.T, dataDir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dataDir, "journal"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// text sends a request and returns its status and body.
func text(t *testing.T, method, url string, header http.Header, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Refused requests write nothing: only a request that passed every check, on a route that
// exists, with a method it accepts, reaches the journal. Issue 25's case first: a POST of
// 4 MB to /healthz, unauthenticated or cross-site, was journaled before its 405.
func TestRefusedRequestsJournalNothing(t *testing.T) {
	big := append([]byte(`{"pad":"`), bytes.Repeat([]byte("x"), 4<<20)...)
	big = append(big, `"}`...)
	json := http.Header{"Content-Type": {"application/json"}}
	with := func(h http.Header, kv ...string) http.Header {
		out := h.Clone()
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	for _, token := range []string{"", "s3cret"} {
		t.Run("token="+token, func(t *testing.T) {
			dataDir := filepath.Join(t.TempDir(), "data")
			st, err := store.NewDir(dataDir)
			if err != nil {
				t.Fatal(err)
			}
			e, err := emulator.New(emulator.Options{TimeScale: 0, Seed: 5, Start: start, Store: st, AuthToken: token})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			base, err := e.Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			auth := json
			if token != "" {
				auth = with(json, "Authorization", "Bearer "+token)
			}
			type refused struct {
				name, method, path string
				header             http.Header
				body               []byte
				code               int
			}
			cases := []refused{
				{"POST /healthz", "POST", "/healthz", auth, big, http.StatusMethodNotAllowed},
				{"POST /readyz", "POST", "/readyz", auth, big, http.StatusMethodNotAllowed},
				{"cross-site POST /healthz", "POST", "/healthz", with(auth, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"), big, http.StatusForbidden},
				{"route that does not exist", "POST", "/v1/projects/p/locations/l/nothing", auth, big, http.StatusNotFound},
				{"method the route does not take", "DELETE", "/emulator/v1/clock", auth, big, http.StatusMethodNotAllowed},
				{"body over the limit", "POST", "/emulator/v1/faults", auth, bytes.Repeat([]byte(" "), 9<<20), http.StatusRequestEntityTooLarge},
				{"body that is not JSON", "POST", "/emulator/v1/faults", auth, []byte(`{"kind": STOCKOUT`), http.StatusBadRequest},
				{"body as text/plain", "POST", "/emulator/v1/faults", with(auth, "Content-Type", "text/plain"), big, http.StatusUnsupportedMediaType},
			}
			if token == "" {
				cases = append(cases, refused{"Host of another name", "POST", "/healthz", with(json, "Host", "evil.example"), big, http.StatusForbidden})
			} else {
				cases = append(cases, refused{"POST /healthz without the token", "POST", "/healthz", json, big, http.StatusUnauthorized},
					refused{"route without the token", "POST", "/emulator/v1/faults", json, []byte(`{"kind":"STOCKOUT","zone":"us-central1-a"}`), http.StatusUnauthorized})
			}
			// Whatever the clock marks, the journal holds the first snapshot's time already.
			text(t, "GET", base+"/emulator/v1/clock", auth, nil)
			before := journalBytes(t, dataDir)
			for _, tc := range cases {
				code, body := text(t, tc.method, base+tc.path, tc.header, tc.body)
				if code != tc.code {
					t.Errorf("%s: HTTP %d, want %d: %.200s", tc.name, code, tc.code, body)
				}
			}
			text(t, "GET", base+"/emulator/v1/clock", auth, nil) // waits for anything pending
			if n := journalBytes(t, dataDir) - before; n != 0 {
				t.Fatalf("%d refused requests journaled %d bytes, want 0", len(cases), n)
			}
			t.Logf("%d refused requests (bodies up to 9 MiB) journaled 0 bytes", len(cases))
			// The measure sees what is journaled: an accepted change is.
			if code, body := text(t, "POST", base+"/emulator/v1/faults", auth, []byte(`{"kind":"STOCKOUT","zone":"us-central1-a"}`)); code != http.StatusOK {
				t.Fatalf("an accepted change: HTTP %d %s", code, body)
			}
			if journalBytes(t, dataDir) == before {
				t.Fatal("an accepted change journaled nothing: the measure is blind")
			}
		})
	}
}

// A 64 MiB import that is not JSON, or not an import, is refused before it is journaled
// (nothing is written) and costs at most twice its size in memory: the body is read once, at
// its declared length, and checked where it lies.
func TestLargeRefusedImportIsBounded(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	st, err := store.NewDir(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := emulator.New(emulator.Options{TimeScale: 0, Seed: 5, Start: start, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const size = 64 << 20
	notJSON := bytes.Repeat([]byte("x"), size)
	notJSON[0] = '{'
	notImport := append([]byte(`{"clusters": "`), bytes.Repeat([]byte("x"), size-16)...)
	notImport = append(notImport, `"}`...)
	for _, tc := range []struct {
		name string
		body []byte
		want string
	}{
		{"not JSON", notJSON, "Invalid JSON payload received. Syntax error at byte 2"},
		{"JSON, not an import", notImport, `Unknown name \"clusters\"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := journalBytes(t, dataDir)
			req := httptest.NewRequest("POST", "/emulator/v1/projects/p/locations/us-central1/clusters:import", bytes.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Host = "127.0.0.1"
			rec := httptest.NewRecorder()
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			e.Handler().ServeHTTP(rec, req)
			runtime.ReadMemStats(&m1)
			if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), tc.want) {
				t.Fatalf("HTTP %d %.300s; want 400 saying %q", rec.Code, rec.Body.String(), tc.want)
			}
			// Everything allocated while the request was served, by anyone: a bound on what it
			// raised memory by.
			alloc := m1.TotalAlloc - m0.TotalAlloc
			t.Logf("a refused %d MiB import allocated %.1f MiB (%.2fx its body)", len(tc.body)>>20, float64(alloc)/(1<<20), float64(alloc)/float64(len(tc.body)))
			if alloc > 2*uint64(len(tc.body)) {
				t.Errorf("a refused %d MiB import allocated %d MiB, more than twice its body", len(tc.body)>>20, alloc>>20)
			}
			if _, err := e.Runner.Read(req.Context(), func(*sim.World) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if n := journalBytes(t, dataDir) - before; n != 0 {
				t.Fatalf("the refused import journaled %d bytes, want 0", n)
			}
		})
	}
}

// A full disk that frees up, on a filesystem of the test's own (a small tmpfs; root only):
// changes are refused (503) while it is full, reads are served, /readyz says why; once space
// returns the emulator saves what it could not and accepts changes again, without a restart,
// and a crash after that loses nothing it acknowledged.
func TestFullDiskRecoversWithoutRestart(t *testing.T) {
	dir := tmpfs.Mount(t, "8m")
	dataDir := filepath.Join(dir, "data")
	st, err := store.NewDir(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	e, c := start1(t, st, 0)
	defer e.Close()
	create := func(name string) (int, map[string]any) {
		return c.call("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": name, "initialNodeCount": 1}})
	}
	c.ok("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "before", "initialNodeCount": 1}})
	filler := tmpfs.Fill(t, dir)

	// The changes that meet the full disk: the first ones may fit in the journal's last page.
	acked := []string{"before"}
	var refused string
	for i := range 50 {
		name := fmt.Sprintf("during-%d", i)
		code, out := create(name)
		if code == http.StatusOK {
			acked = append(acked, name)
			continue
		}
		if code != http.StatusServiceUnavailable {
			t.Fatalf("a change on a full disk: HTTP %d %v, want 503", code, out)
		}
		refused = name
		break
	}
	if refused == "" {
		t.Fatal("50 changes on a full disk were all acknowledged")
	}
	t.Logf("on the full disk, %d changes fitted in the journal's last page; %s was answered 503", len(acked)-1, refused)
	// Now the emulator knows: changes are refused before they run, reads are served.
	code, out := create("while-full")
	if code != http.StatusServiceUnavailable || !strings.Contains(fmt.Sprint(out), "reads are still served") {
		t.Fatalf("a change while the disk is full: HTTP %d %v, want 503 saying reads are served", code, out)
	}
	if code, _ := c.call("GET", loc+"/clusters", nil); code != http.StatusOK {
		t.Fatalf("a read while the disk is full: HTTP %d, want 200", code)
	}
	if code, body := text(t, "GET", c.base+"/readyz", nil, nil); code != http.StatusServiceUnavailable || !strings.Contains(body, "no space left on device") {
		t.Fatalf("/readyz while the disk is full: HTTP %d %q, want 503 naming the full disk", code, body)
	}
	if code, body := text(t, "GET", c.base+"/healthz", nil, nil); code != http.StatusOK || !strings.Contains(body, "changes are refused") {
		t.Fatalf("/healthz while the disk is full: HTTP %d %q, want 200 saying changes are refused", code, body)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	ready := false
	for range 100 {
		if code, _ := text(t, "GET", c.base+"/readyz", nil, nil); code == http.StatusOK {
			ready = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !ready {
		t.Fatal("/readyz still fails 5s after space returned")
	}
	c.ok("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "after", "initialNodeCount": 1}})
	acked = append(acked, "after")

	// A crash (no last checkpoint): what was acknowledged is there, and so is the change
	// answered 503 when the disk filled (it ran; the retry saved it), not the one refused after.
	if err := e.Abandon(); err != nil {
		t.Fatalf("stopping after the recovery: %v", err)
	}
	st2, err := store.NewDir(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	e2, c2 := start1(t, st2, 0)
	defer e2.Close()
	for _, name := range append(acked, refused) {
		c2.ok("GET", loc+"/clusters/"+name, nil)
	}
	if code, _ := c2.call("GET", loc+"/clusters/while-full", nil); code != http.StatusNotFound {
		t.Fatalf("the change refused while the disk was full exists after the restart (HTTP %d)", code)
	}
}

// An accepted import is journaled as it came (sim/journal_record.go): its record is the body
// and a few hundred bytes, not the body in base64 (a third more), and a crash right after it
// resumes to the same state byte for byte, the imported cluster included.
func TestAcceptedImportIsJournaledAsSent(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	st, err := store.NewDir(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := emulator.New(emulator.Options{TimeScale: 0, Seed: 5, Start: time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	cj, oj := shopFixture(t)
	body := []byte(`{"cluster": ` + string(cj) + `, "objects": ` + string(oj) + `}`)
	before := journalBytes(t, dataDir)
	req := httptest.NewRequest("POST", "/emulator/v1/projects/p/locations/europe-west1/clusters:import", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	e.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("import: HTTP %d %.500s", rec.Code, rec.Body.String())
	}
	journaled := journalBytes(t, dataDir) - before
	t.Logf("a %d-byte import journaled %d bytes", len(body), journaled)
	if journaled < int64(len(body)) || journaled > int64(len(body))+4096 {
		t.Errorf("a %d-byte import journaled %d bytes; want its body and at most 4 KiB more (the body as sent, not in base64)", len(body), journaled)
	}
	want := stateJSON(t, e)
	e.Runner.SkipFinalCheckpoint() // as a crash: the restart replays the journal
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := store.NewDir(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := emulator.New(emulator.Options{Store: st2})
	if err != nil {
		t.Fatalf("resume after the import: %v", err)
	}
	defer r.Close()
	if r.Replayed == 0 {
		t.Fatal("the restart replayed no journal record: the test would not see how the import was journaled")
	}
	if got := stateJSON(t, r); !bytes.Equal(got, want) || !strings.Contains(string(got), `"shop"`) {
		t.Fatalf("the state resumed after the import differs from the live one at byte %d", firstDiff(got, want))
	}
}
