package server

import (
	"net/http"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// readCache keeps the bytes of GKE answers that only read, keyed by what shapes them (the base
// of self links, the path and the query), with the simulation generation they were rendered
// at. While the generation stands, a repeated GET is answered from them without entering the
// simulation loop: polling clients (Terraform and gcloud wait on operations and node pools)
// never queue behind a running upgrade, and cost what writing the bytes costs.
type readCache struct {
	mu      sync.RWMutex
	entries map[string]cachedRead
}

type cachedRead struct {
	gen  uint64
	body []byte
}

// maxCachedReads bounds the cache; when full it starts again empty (the entries of a changed
// world are stale anyway).
const maxCachedReads = 4096

// get returns the bytes kept for key at generation gen. key may be the bytes of a buffer the
// caller reuses: looking it up copies nothing.
func (rc *readCache) get(key []byte, gen uint64) ([]byte, bool) {
	rc.mu.RLock()
	e, ok := rc.entries[string(key)]
	rc.mu.RUnlock()
	if !ok || e.gen != gen {
		return nil, false
	}
	return e.body, true
}

func (rc *readCache) put(key string, gen uint64, body []byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.entries == nil || len(rc.entries) >= maxCachedReads {
		rc.entries = make(map[string]cachedRead)
	}
	rc.entries[key] = cachedRead{gen: gen, body: body}
}

// read answers a GET that changes nothing: from the cache when the world has not changed since
// the same request was rendered, else by rendering it on the simulation goroutine (fn must not
// change the model) and keeping the bytes. Errors are never kept.
func (s *Server) read(c echo.Context, fn func(w *sim.World) (any, error)) error {
	r := c.Request()
	var buf [256]byte
	key := append(append(buf[:0], httpio.BaseURL(c)...), requestURI(r)...)
	if body, ok := s.reads.get(key, s.runner.Generation()); ok {
		return writeJSONBytes(c, body)
	}
	var out any
	gen, err := s.runner.Read(r.Context(), func(w *sim.World) error {
		var err error
		if out, err = fn(w); err == nil && s.inspect != nil {
			s.inspect(w, out)
		}
		return err
	})
	if err != nil {
		return err
	}
	body, err := httpio.EncodeJSON(c, out)
	if err != nil {
		return err
	}
	if gen != 0 {
		s.reads.put(string(key), gen, body)
	}
	return writeJSONBytes(c, body)
}

// serveCachedRead answers a GET of the GKE API (/v1/..., /v1beta1/...) from the read cache
// ahead of Echo's router, when the request chain would answer it from there too, and says
// whether it did. It does when the request passes the guard and authentication (the same
// checks: refusal, authorized), no fault acts on requests (they count the requests they
// match), and the cache holds the bytes of the same target on the same base URL at the
// simulation's current generation: then every link of the chain passes the request through
// unchanged (the console serves other paths; the journal keeps changes; the change feeds are
// the Kubernetes API's) and the handler, whatever route took the target, answers those bytes,
// as writeJSONBytes. Its log line is logRequests'. Any other request goes the Echo way, which
// answers, or refuses, it as always: this path only saves the router and the context of the
// hot polling path (Terraform and gcloud wait on operations, node pools and clusters).
func (s *Server) serveCachedRead(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet || !(strings.HasPrefix(r.URL.Path, "/v1/") || strings.HasPrefix(r.URL.Path, "/v1beta1/")) {
		return false
	}
	logged, start := s.logStart()
	if s.faults.active.Load() != 0 || !s.authorized(r) || s.refusal(r) != nil {
		return false
	}
	var buf [256]byte
	key := append(append(buf[:0], s.baseOf(r)...), requestURI(r)...)
	body, ok := s.reads.get(key, s.runner.Generation())
	if !ok {
		return false
	}
	h := w.Header()
	if h.Get(echo.HeaderContentType) == "" {
		h[echo.HeaderContentType] = jsonContentType
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body) // a client gone: nothing to answer (as the chain's error handler)
	if logged {
		s.logRequest(r, http.StatusOK, start)
	}
	return true
}

// requestURI is the request's target as the client sent it (the cache's key: the same target
// asks the same), else, for a request built in a program, its URL's.
func requestURI(r *http.Request) string {
	if r.RequestURI != "" {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

// jsonContentType is the Content-Type of every JSON answer, shared: net/http only reads it.
var jsonContentType = []string{echo.MIMEApplicationJSON}

// writeJSONBytes answers 200 with body, JSON: what c.Blob writes, without allocating the
// header's value on every request.
func writeJSONBytes(c echo.Context, body []byte) error {
	res := c.Response()
	if h := res.Header(); h.Get(echo.HeaderContentType) == "" {
		h[echo.HeaderContentType] = jsonContentType
	}
	res.WriteHeader(http.StatusOK)
	_, err := res.Write(body)
	return err
}
