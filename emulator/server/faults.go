package server

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Fault injection: /emulator/v1/faults lists, adds and clears faults. Capacity faults act in
// the simulation; API_ERROR and LATENCY faults act here, on the GKE, Kubernetes-shaped and
// Compute routes.

type faultsBody struct {
	Faults []*sim.Fault `json:"faults"`
}

// apiFaults is the server's copy of the faults that act on requests, refreshed whenever the
// faults change, with a request counter per fault for deterministic error rates.
type apiFaults struct {
	mu     sync.Mutex
	faults []*sim.Fault
	seen   map[string]int64
	// owed counts the errors a fault was due to answer on requests another fault answered;
	// it answers them on the next requests it matches, so that each fault keeps its rate.
	owed map[string]int
	// active is len(faults), read without the lock: with none, requests pass untouched.
	active atomic.Int32
}

func (s *Server) faultRoutes() {
	s.e.GET("/emulator/v1/faults", func(c echo.Context) error {
		return s.do(c, func(w *sim.World) (any, error) { return &faultsBody{Faults: nonNil(w.Faults())}, nil })
	})
	s.e.POST("/emulator/v1/faults", func(c echo.Context) error {
		var f sim.Fault
		if err := decode(c, &f); err != nil {
			return err
		}
		return s.do(c, func(w *sim.World) (any, error) {
			out, err := w.AddFault(f)
			if err == nil {
				s.faults.set(w.Faults())
			}
			return out, err
		})
	})
	s.e.DELETE("/emulator/v1/faults/:id", func(c echo.Context) error {
		return s.do(c, func(w *sim.World) (any, error) {
			if err := w.DeleteFault(c.Param("id")); err != nil {
				return nil, err
			}
			s.faults.set(w.Faults())
			return &faultsBody{Faults: nonNil(w.Faults())}, nil
		})
	})
}

func nonNil(fs []*sim.Fault) []*sim.Fault {
	if fs == nil {
		return []*sim.Fault{}
	}
	return fs
}

func (a *apiFaults) set(all []*sim.Fault) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults = a.faults[:0]
	for _, f := range all {
		if f.Kind == sim.FaultAPIError || f.Kind == sim.FaultLatency {
			a.faults = append(a.faults, f)
		}
	}
	if a.seen == nil {
		a.seen, a.owed = map[string]int64{}, map[string]int{}
	}
	a.active.Store(int32(len(a.faults)))
}

// match returns the latency to add and the error code to answer (0: none) for a request. An
// error fault of rate r is due to fail its k-th matching request where floor(k*r) moves:
// exactly r of them, spread evenly. Faults count on their own: when several are due on one
// request, the first answers it and the others answer the next ones they match (while their
// rates add up to at most 1, each fails exactly its share).
func (a *apiFaults) match(project, path string) (time.Duration, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var latency time.Duration
	code := 0
	for _, f := range a.faults {
		if (f.Project != "" && f.Project != project) || !strings.HasPrefix(path, f.PathPrefix) {
			continue
		}
		if f.Kind == sim.FaultLatency {
			latency += f.LatencyDuration()
			continue
		}
		a.seen[f.ID]++
		k := a.seen[f.ID]
		if int64(float64(k)*f.Rate) > int64(float64(k-1)*f.Rate) && a.owed[f.ID] < len(a.faults) {
			a.owed[f.ID]++
		}
		if code == 0 && a.owed[f.ID] > 0 {
			a.owed[f.ID]--
			code = f.Code
		}
	}
	return latency, code
}

// injectFaults applies API_ERROR and LATENCY faults to the emulated cloud APIs.
func (s *Server) injectFaults(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		path := c.Request().URL.Path
		if s.faults.active.Load() == 0 || sim.InRunner(c.Request().Context()) {
			// No fault acts on requests; or a request being replayed: its faults acted when
			// it was first served.
			return next(c)
		}
		if !(strings.HasPrefix(path, "/v1") || strings.HasPrefix(path, "/k8s/") || strings.HasPrefix(path, "/compute/")) {
			return next(c)
		}
		project := ""
		if parts := strings.Split(path, "/"); len(parts) > 3 && parts[2] == "projects" {
			project = parts[3]
		} else if len(parts) > 4 && parts[3] == "projects" {
			project = parts[4]
		}
		latency, code := s.faults.match(project, path)
		if latency > 0 {
			select {
			case <-time.After(latency):
			case <-c.Request().Context().Done():
				return c.Request().Context().Err()
			}
		}
		switch code {
		case http.StatusTooManyRequests:
			return &sim.Error{HTTPCode: code, Status: "RESOURCE_EXHAUSTED", Reason: "rateLimitExceeded", KubeReason: "TooManyRequests",
				Message: "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' (injected fault)."}
		case http.StatusServiceUnavailable:
			return &sim.Error{HTTPCode: code, Status: "UNAVAILABLE", Reason: "backendError", KubeReason: "ServiceUnavailable",
				Message: "The service is currently unavailable (injected fault)."}
		case http.StatusInternalServerError:
			return &sim.Error{HTTPCode: code, Status: "INTERNAL", Reason: "backendError", KubeReason: "InternalError",
				Message: "Internal error encountered (injected fault)."}
		}
		return next(c)
	}
}
