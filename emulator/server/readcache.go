package server

import (
	"net/http"
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

func (rc *readCache) get(key string, gen uint64) ([]byte, bool) {
	rc.mu.RLock()
	e, ok := rc.entries[key]
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
	key := httpio.BaseURL(c) + c.Request().URL.RequestURI()
	if body, ok := s.reads.get(key, s.runner.Generation()); ok {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body)
	}
	var out any
	gen, err := s.runner.Read(c.Request().Context(), func(w *sim.World) error {
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
		s.reads.put(key, gen, body)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body)
}
