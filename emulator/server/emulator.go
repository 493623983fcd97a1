package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The emulator's own control API (not GKE): the virtual clock, the event log, health, metrics.

type rawJSON = json.RawMessage

// maxAdvance bounds one clock:advance, which holds the simulation until it is done: 400 days
// covers the longest span a scenario needs (a minor's support, 150 days of holiday freeze) and
// took 25 s of one core for a small regional cluster; longer spans are sent as several calls,
// between which other requests are served.
const maxAdvance = 400 * 24 * time.Hour

func (s *Server) emulatorRoutes() {
	s.e.GET("/emulator/v1/clock", s.getClock)
	s.e.PATCH("/emulator/v1/clock", s.setClock)
	s.e.POST("/emulator/v1/clock\\:advance", s.advanceClock)
	s.e.GET("/emulator/v1/events", s.listEvents)
	s.emulatorLBRoutes()
	s.e.GET("/healthz", s.healthz)
	s.e.GET("/readyz", s.readyz)
	s.e.GET("/metrics", s.metrics)
}

func (s *Server) clock(w *sim.World) *api.Clock {
	out := &api.Clock{Now: w.Now().Format(time.RFC3339Nano), TimeScale: s.runner.TimeScale(), PendingEvents: w.PendingEvents()}
	if next, ok := w.NextEventAt(); ok {
		out.NextEventTime = next.Format(time.RFC3339Nano)
	}
	return out
}

func (s *Server) getClock(c echo.Context) error {
	return s.do(c, func(w *sim.World) (any, error) { return s.clock(w), nil })
}

func (s *Server) setClock(c echo.Context) error {
	var req api.SetClockRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.TimeScale == nil {
		return httpio.BadRequest("Required field \"timeScale\" is missing: send {\"timeScale\": 600} (emulated seconds per wall second; 0 freezes the clock).")
	}
	if ts := *req.TimeScale; !(ts >= 0 && ts <= sim.MaxTimeScale) {
		return httpio.BadRequest("Invalid value for field \"timeScale\": %g. It must be 0 (frozen) or positive and at most %d emulated seconds per wall second: "+
			"faster, the simulation falls behind the wall clock. Jump further ahead with POST /emulator/v1/clock:advance.", ts, sim.MaxTimeScale)
	}
	if err := s.runner.SetTimeScale(c.Request().Context(), *req.TimeScale); err != nil {
		return err
	}
	return s.getClock(c)
}

func (s *Server) advanceClock(c echo.Context) error {
	var req api.AdvanceClockRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	d, err := api.ParseDuration(req.Duration)
	if err != nil || d < 0 || d > maxAdvance {
		return httpio.BadRequest("Invalid value for field \"duration\": %q. Give a non-negative duration of at most 400 days (%s), as \"3600s\" or \"1h\"; advance further in several calls.", req.Duration, api.FormatDuration(maxAdvance))
	}
	if err := s.runner.Advance(c.Request().Context(), d); err != nil {
		return err
	}
	return s.getClock(c)
}

func eventFilter(c echo.Context) (sim.EventFilter, error) {
	q := c.QueryParams()
	f := sim.EventFilter{Cluster: q.Get("cluster"), Pool: q.Get("nodePool"), Node: q.Get("node"), Op: q.Get("operation"), Type: q.Get("type")}
	if v := q.Get("afterSeq"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return f, httpio.BadRequest("Invalid value for query parameter \"afterSeq\": %q. It must be an integer.", v)
		}
		f.AfterSeq = n
	}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return f, httpio.BadRequest("Invalid value for query parameter \"since\": %q. It must be an RFC 3339 time.", v)
		}
		f.Since = t
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return f, httpio.BadRequest("Invalid value for query parameter \"limit\": %q. It must be a non-negative integer.", v)
		}
		f.Limit = n
	}
	return f, nil
}

// listEvents returns the event log, or with follow=true streams it as JSON lines until the
// client goes away (events_follow.go).
func (s *Server) listEvents(c echo.Context) error {
	f, err := eventFilter(c)
	if err != nil {
		return err
	}
	if c.QueryParam("follow") != "true" {
		return s.do(c, func(w *sim.World) (any, error) {
			evs, next := w.Events(f)
			if evs == nil {
				evs = []*api.Event{}
			}
			return &api.ListEventsResponse{Events: evs, NextSeq: next}, nil
		})
	}
	return s.followEvents(c, f)
}

// healthz is the liveness probe: the emulator answers. It says when the store cannot write,
// but stays 200: restarting the emulator would not give the disk space back.
func (s *Server) healthz(c echo.Context) error {
	if s.storage != nil {
		if err := s.storage.WriteError(); err != nil {
			return c.String(http.StatusOK, "ok, but changes are refused: "+err.Error()+"\n")
		}
	}
	return c.String(http.StatusOK, "ok\n")
}

// readyz is the readiness probe: 503, with the reason, while the store cannot write and the
// emulator refuses changes (reads are still served); 200 once its retries succeed.
func (s *Server) readyz(c echo.Context) error {
	if s.storage != nil {
		if err := s.storage.WriteError(); err != nil {
			c.Response().Header().Set("Retry-After", "5")
			return c.String(http.StatusServiceUnavailable, "not ready: changes are refused until the emulator can save them again: "+err.Error()+"\n")
		}
	}
	return c.String(http.StatusOK, "ready\n")
}

// metrics serves Prometheus text-format gauges about the simulation.
func (s *Server) metrics(c echo.Context) error {
	var st sim.Stats
	err := s.runner.Do(c.Request().Context(), func(w *sim.World) error {
		st = w.Stats()
		if s.inspect != nil {
			s.inspect(w, st)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var b strings.Builder
	gauge := func(name, help string, v float64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s %s\n", name, help, name, name, strconv.FormatFloat(v, 'f', -1, 64))
	}
	labelled := func(name, help, label string, m map[string]int) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s{%s=%q} %d\n", name, label, k, m[k])
		}
	}
	gauge("gkesim_emulated_time_seconds", "Emulated time as a Unix timestamp.", float64(st.Now.Unix()))
	gauge("gkesim_clusters", "Clusters in the emulator.", float64(st.Clusters))
	gauge("gkesim_node_pools", "Node pools in the emulator.", float64(st.NodePools))
	labelled("gkesim_nodes", "Nodes by state.", "state", st.NodesByState)
	labelled("gkesim_operations", "Operations by status.", "status", st.OperationsByStatus)
	gauge("gkesim_pending_events", "Scheduled simulation steps not yet run.", float64(st.PendingEvents))
	gauge("gkesim_event_log_last_seq", "Sequence number of the newest event log entry.", float64(st.LastEventSeq))
	return c.String(http.StatusOK, b.String())
}
