package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

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

// journalRequests runs a mutating request as one journaled command. The body is read before
// the command starts (a slow client never holds the simulation) and the response is buffered
// until the runner says the command is durable.
func (s *Server) journalRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if !mutating(req.Method) || sim.InRunner(req.Context()) {
			return next(c)
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, bodyLimit(req)+1))
		if err != nil {
			return badRequest("Could not read the request body: %v", err)
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
