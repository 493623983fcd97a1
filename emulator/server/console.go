package server

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/console"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The web console and the aggregate views it reads (not GKE):
//
//	GET /ui/                                                                the console (embedded files)
//	GET /emulator/v1/clusters                                               every cluster in a line
//	GET /emulator/v1/projects/P/locations/L/clusters/C/nodeSummary          nodes per pool, zone, version, state
//	GET /emulator/v1/projects/P/locations/L/clusters/C/autoscaler           pool sizes over time, decisions
//	GET /emulator/v1/projects/P/locations/L/clusters/C/loadBalancerHistory  backends' health over time
//	GET /emulator/v1/projects/P/locations/L/clusters/C/maintenanceCalendar  windows, exclusions, availability
//	GET /emulator/v1/projects/P/locations/L/operations/OP/timeline          an operation, node by node
//
// The console's files are served before the rest of the request chain (serveConsole): they are the same for everyone
// (anyone can read them in the binary) and hold no data, so the page loads without
// credentials and then asks for the token when the API answers 401. Everything the page shows
// comes from the API, through the same checks as any client.

// serveConsole serves the console's files and its redirects, ahead of every other link of
// the request chain (see New).
func serveConsole(next echo.HandlerFunc) echo.HandlerFunc {
	files := console.Handler()
	return func(c echo.Context) error {
		r := c.Request()
		switch p := r.URL.Path; {
		case p == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			return c.Redirect(http.StatusFound, console.Prefix)
		case p == strings.TrimSuffix(console.Prefix, "/"):
			return c.Redirect(http.StatusMovedPermanently, console.Prefix)
		case strings.HasPrefix(p, console.Prefix):
			files.ServeHTTP(c.Response(), r)
			return nil
		}
		return next(c)
	}
}

func (s *Server) consoleRoutes() {
	s.e.GET("/emulator/v1/clusters", func(c echo.Context) error {
		return s.do(c, func(w *sim.World) (any, error) { return w.ClusterSummaries(), nil })
	})
	cl := "/emulator/v1/projects/:project/locations/:location/clusters/:cluster"
	s.e.GET(cl+"/nodeSummary", func(c echo.Context) error {
		p := params(c)
		return s.do(c, func(w *sim.World) (any, error) { return w.ClusterNodeSummary(p.project, p.location, p.cluster) })
	})
	s.e.GET(cl+"/autoscaler", func(c echo.Context) error {
		p := params(c)
		since, err := timeParam(c, "since")
		if err != nil {
			return err
		}
		limit, err := intParam(c, "limit", sim.MaxDecisions)
		if err != nil {
			return err
		}
		return s.do(c, func(w *sim.World) (any, error) {
			return w.AutoscalerHistory(p.project, p.location, p.cluster, since, limit)
		})
	})
	s.e.GET(cl+"/loadBalancerHistory", func(c echo.Context) error {
		p := params(c)
		since, err := timeParam(c, "since")
		if err != nil {
			return err
		}
		return s.do(c, func(w *sim.World) (any, error) { return w.LoadBalancerHistory(p.project, p.location, p.cluster, since) })
	})
	s.e.GET(cl+"/maintenanceCalendar", func(c echo.Context) error {
		p := params(c)
		days, err := intParam(c, "days", sim.MaxCalendarDays)
		if err != nil {
			return err
		}
		return s.do(c, func(w *sim.World) (any, error) { return w.MaintenanceCalendar(p.project, p.location, p.cluster, days) })
	})
	s.e.GET("/emulator/v1/projects/:project/locations/:location/operations/:operation/timeline", func(c echo.Context) error {
		limit, err := intParam(c, "limit", sim.MaxTimelineNodes)
		if err != nil {
			return err
		}
		project, location, op := c.Param("project"), c.Param("location"), c.Param("operation")
		return s.do(c, func(w *sim.World) (any, error) { return w.OperationTimeline(project, location, op, limit) })
	})
}

// timeParam reads an optional RFC 3339 query parameter.
func timeParam(c echo.Context, name string) (time.Time, error) {
	v := c.QueryParam(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, httpio.BadRequest("Invalid value for query parameter %q: %q. It must be an RFC 3339 time, as 2026-05-01T10:00:00Z.", name, v)
	}
	return t, nil
}

// intParam reads an optional query parameter from 1 to most (0 when absent: the default).
func intParam(c echo.Context, name string, most int) (int, error) {
	v := c.QueryParam(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		return 0, httpio.BadRequest("Invalid value for query parameter %q: %q. Give a whole number from 1 to %d.", name, v, most)
	}
	return n, nil
}
