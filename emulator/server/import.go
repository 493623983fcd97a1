package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Importing a real cluster (not GKE): POST
// /emulator/v1/projects/{p}/locations/{l}/clusters:import with {"cluster": gcloud's JSON,
// "objects": kubectl's JSON}. Like every mutation it runs whole on the simulation goroutine as
// one journaled command (journal.go), so a restart replays it: its effect is a function of the
// body and the emulated time. A snapshot taken after the emulator's clock moves the clock to it
// first, as clock:advance would; one taken before is imported at the current time (the clock
// never goes back), and the summary says so.

// importPath is the route of clusters:import, with its verb escaped for Echo.
const importPath = "/emulator/v1/projects/:project/locations/:location/clusters\\:import"

// maxImportBytes bounds an import's body: kubectl prints a 3,000-node, 30,000-pod cluster in
// about 300 MB (less once `gkesim import` has dropped what the import does not read). The
// journal keeps the body as it came, so the bound keeps one record under the journal's 1 GiB.
const maxImportBytes = 512 << 20

// bodyLimit is how large a request body may be.
func bodyLimit(r *http.Request) int64 {
	if isImport(r) {
		return maxImportBytes
	}
	return httpio.MaxBodyBytes
}

// isImport says whether r is a clusters:import.
func isImport(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/emulator/v1/projects/") && strings.HasSuffix(r.URL.Path, "/clusters:import")
}

func (s *Server) importRoutes() {
	s.e.POST(importPath, s.importCluster)
}

// importRequestMembers are the members an import body may have.
var importRequestMembers = map[string]bool{"cluster": true, "objects": true, "snapshotTime": true}

// importKey is where journalRequests leaves the snapshot it read from an import's body: the
// body is checked, and read once, before it is journaled (a refused import writes nothing).
type importKey struct{}

// readImport reads an import's body (already read whole, at most maxImportBytes). The members
// are read where they lie in the body, not copied: what the import costs beside its body is
// the snapshot it reads.
func readImport(body []byte) (*sim.Snapshot, error) {
	members, err := topLevelMembers(body)
	if err != nil {
		return nil, err
	}
	for name := range members {
		if !importRequestMembers[name] {
			return nil, httpio.BadRequest("Invalid JSON payload received. Unknown name %q: an import is {\"cluster\": ..., \"objects\": ..., \"snapshotTime\": ...}.", name)
		}
	}
	req := &api.ImportClusterRequest{Cluster: members["cluster"], Objects: members["objects"]}
	if t := bytes.TrimSpace(members["snapshotTime"]); len(t) > 0 {
		if err := json.Unmarshal(t, &req.SnapshotTime); err != nil {
			return nil, httpio.BadRequest("Invalid value at \"snapshotTime\": an RFC 3339 time as a JSON string.")
		}
	}
	return sim.ReadSnapshot(req)
}

// topLevelMembers splits a JSON object into its members' values, sub-slices of body.
func topLevelMembers(body []byte) (map[string]json.RawMessage, error) {
	var skip struct{} // checks the syntax (and that it is an object) without building anything
	if err := json.Unmarshal(body, &skip); err != nil {
		return nil, httpio.BadRequest("Invalid JSON payload received. %s", describeJSONError(err))
	}
	members := map[string]json.RawMessage{}
	i := bytes.IndexByte(body, '{') + 1
	for {
		i = skipSpace(body, i)
		if body[i] == '}' {
			return members, nil
		}
		end := skipValue(body, i) // the key, a string
		var name string
		if err := json.Unmarshal(body[i:end], &name); err != nil {
			return nil, httpio.BadRequest("Invalid JSON payload received. %s", describeJSONError(err))
		}
		i = skipSpace(body, skipSpace(body, end)+1) // past the colon
		end = skipValue(body, i)
		members[name] = body[i:end]
		i = skipSpace(body, end)
		if body[i] == ',' {
			i++
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value that starts at b[i]; b is valid JSON.
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			continue
		case '}', ']':
			if depth == 0 {
				return i // the end of a number, true, false or null: the object closes
			}
			depth--
		default:
			if depth == 0 && (b[i] == ',' || b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
				return i // the end of a number, true, false or null
			}
			continue
		}
		if depth == 0 {
			return i + 1
		}
	}
	return i
}

func (s *Server) importCluster(c echo.Context) error {
	snap, _ := c.Request().Context().Value(importKey{}).(*sim.Snapshot)
	if snap == nil { // a replay: the journal has the body, checked when it was first served
		body, err := readBody(c.Request(), maxImportBytes)
		if err != nil {
			return err
		}
		if snap, err = readImport(body); err != nil {
			return err
		}
	}
	var now time.Time
	if err := s.runner.Do(c.Request().Context(), func(w *sim.World) error { now = w.Now(); return nil }); err != nil {
		return err
	}
	if ahead := snap.Time().Sub(now); ahead > 0 {
		if ahead > maxAdvance {
			return httpio.BadRequest("The snapshot was taken at %s, more than 400 days after the emulator's clock (%s): start gkesim serve --start-time %s.",
				snap.Time().Format(time.RFC3339), now.Format(time.RFC3339), snap.Time().Format(time.RFC3339))
		}
		if err := s.runner.Advance(c.Request().Context(), ahead); err != nil {
			return err
		}
	}
	return s.do(c, func(w *sim.World) (any, error) {
		return w.ImportSnapshot(c.Param("project"), c.Param("location"), snap)
	})
}
