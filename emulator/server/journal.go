package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Durability: every request that may change the simulation runs whole on the simulation
// goroutine, as one command the runner journals with the emulated time it ran at (see
// emulator/store). Its answer is held back until the journal has it on disk, so what the
// emulator acknowledges survives a crash, and a restart replays the same requests through the
// same handlers at the same emulated times. Reads need no journal record: Do alone holds their
// answer until what they saw is durable.

// mutating says whether a request of this method may change the simulation.
func mutating(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// journalRequests runs a mutating request as one journaled command. Only a request that passed
// every check reaches the journal: the guard, authentication and faults come before this
// middleware, a route that does not exist or does not take the method is answered by the
// router here, and a body that is too large, not JSON where JSON is declared, or an import
// that does not read, is refused before the command starts. The body is read before the command
// starts (a slow client never holds the simulation) and the response is buffered until the
// runner says the command is durable. While the store cannot write, changes are refused at once
// (nothing is run, nothing is journaled) and reads are answered from memory.
func (s *Server) journalRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if sim.InRunner(req.Context()) {
			return next(c)
		}
		if !mutating(req.Method) || isForecast(req) { // a forecast runs on a copy: a read
			if s.storage != nil {
				c.SetRequest(req.WithContext(s.storage.ForRead(req.Context())))
			}
			return next(c)
		}
		if !routed(c) {
			return next(c) // the router's 404 or 405: nothing to journal
		}
		if s.storage != nil {
			if err := s.storage.WriteError(); err != nil {
				c.Response().Header().Set("Retry-After", "5")
				return &sim.Error{HTTPCode: http.StatusServiceUnavailable, Status: "UNAVAILABLE", Reason: "backendError", KubeReason: "ServiceUnavailable",
					Message: "The emulator cannot save changes now, so it refuses them (reads are still served): " + err.Error() +
						". It retries by itself; free space or fix the data directory, and send the request again (GET /readyz says when)."}
			}
		}
		body, err := readBody(req, bodyLimit(req))
		if err != nil {
			return err
		}
		if err := checkJSONBody(req, body); err != nil {
			return err
		}
		if isImport(req) {
			snap, err := readImport(body)
			if err != nil {
				return err
			}
			req = req.WithContext(context.WithValue(req.Context(), importKey{}, snap))
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		rec := &sim.Command{Kind: sim.CommandRequest, Request: &sim.Request{
			Method: req.Method, URI: req.RequestURI, ContentType: req.Header.Get(echo.HeaderContentType), Body: body}}
		if strings.HasPrefix(req.URL.Path, "/k8s/") {
			rec.Request.UserAgent = req.UserAgent()
		}
		if rec.Request.URI == "" {
			rec.Request.URI = req.URL.RequestURI()
		}

		res := c.Response()
		orig := res.Writer
		buf := &heldResponse{header: http.Header{}}
		res.Writer = buf
		var herr error
		err = s.runner.DoRecorded(req.Context(), rec, func(ctx context.Context) error {
			c.SetRequest(req.WithContext(ctx))
			herr = next(c)
			if herr != nil {
				// Render the error here too: the answer, good or bad, leaves only once durable.
				c.Error(herr)
				herr = nil
			}
			return nil
		})
		c.SetRequest(req)
		res.Writer = orig
		if err != nil {
			res.Committed = false
			return err
		}
		return buf.sendTo(orig)
	}
}

// routed says whether the router found a route that takes the request's method (not its 404
// or 405 handler).
func routed(c echo.Context) bool {
	h := reflect.ValueOf(c.Handler()).Pointer()
	return h != reflect.ValueOf(echo.NotFoundHandler).Pointer() && h != reflect.ValueOf(echo.MethodNotAllowedHandler).Pointer()
}

// readBody reads a request body of at most limit bytes into one buffer: of the declared
// length when there is one (no growing copies), refused with 413 beyond the limit.
func readBody(req *http.Request, limit int64) ([]byte, error) {
	tooLarge := func() error {
		return &sim.Error{HTTPCode: http.StatusRequestEntityTooLarge, Status: "INVALID_ARGUMENT", Reason: "badRequest", KubeReason: "RequestEntityTooLarge",
			Message: fmt.Sprintf("The request body is larger than %d bytes: send less (an import: leave out what it does not read, as gkesim import does).", limit)}
	}
	if req.ContentLength > limit {
		return nil, tooLarge()
	}
	var body []byte
	var err error
	if req.ContentLength >= 0 {
		body = make([]byte, req.ContentLength)
		_, err = io.ReadFull(req.Body, body)
		if err == nil {
			// A body longer than it said is refused by net/http; nothing more to read.
			var one [1]byte
			if n, _ := req.Body.Read(one[:]); n > 0 {
				return nil, tooLarge()
			}
		}
	} else {
		body, err = io.ReadAll(io.LimitReader(req.Body, limit+1))
		if err == nil && int64(len(body)) > limit {
			return nil, tooLarge()
		}
	}
	if err != nil {
		return nil, httpio.BadRequest("Could not read the request body: %v", err)
	}
	return body, nil
}

// checkJSONBody refuses a body declared JSON (application/json and the +json types) that is
// not: no handler could read it. The Kubernetes-shaped routes are left to their handlers,
// whose messages name the kind, as the API server's do.
func checkJSONBody(req *http.Request, body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 || strings.HasPrefix(req.URL.Path, "/k8s/") {
		return nil
	}
	mt, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	if err != nil || mt != echo.MIMEApplicationJSON && !strings.HasSuffix(mt, "+json") {
		return nil
	}
	var skip struct{} // checks the syntax without building anything
	if err := json.Unmarshal(body, &skip); err != nil {
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return nil // valid JSON, not an object: the handler says what it wants
		}
		return httpio.BadRequest("Invalid JSON payload received. %s", describeJSONError(err))
	}
	return nil
}

// heldResponse keeps a response until it may be sent.
type heldResponse struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header { return h.header }
func (h *heldResponse) WriteHeader(code int) {
	if h.code == 0 {
		h.code = code
	}
}
func (h *heldResponse) Write(b []byte) (int, error) {
	h.WriteHeader(http.StatusOK)
	return h.body.Write(b)
}
func (h *heldResponse) Flush() {}

func (h *heldResponse) sendTo(w http.ResponseWriter) error {
	for k, v := range h.header {
		w.Header()[k] = v
	}
	if h.code == 0 {
		h.code = http.StatusOK
	}
	w.WriteHeader(h.code)
	_, err := w.Write(h.body.Bytes())
	return err
}

// Replay serves a journaled request again, on the simulation goroutine of a runner that is not
// running yet (ctx comes from sim.Runner.Replay). The answer is thrown away: it was given when
// the request was first served.
func (s *Server) Replay(ctx context.Context, r *sim.Request) error {
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URI, bytes.NewReader(r.Body))
	if err != nil {
		return err
	}
	req.RequestURI = r.URI
	if r.ContentType != "" {
		req.Header.Set(echo.HeaderContentType, r.ContentType)
	}
	if r.UserAgent != "" {
		req.Header.Set("User-Agent", r.UserAgent)
	}
	s.e.ServeHTTP(&heldResponse{header: http.Header{}}, req)
	return nil
}
