package server

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/rehearse"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Forecasts (not GKE): POST .../nodePools/NP:forecast with an api.ForecastRequest answers what
// the change would do if it were asked for now. The simulation's state is encoded on its
// goroutine at one instant (sim.World.Copy); the copy is restored from it (a restore without
// the disk) and the change runs in it on the request's goroutine, so the live simulation does
// not change and waits only for the encoding: the request is a read, not journaled. At most maxForecasts run at once; beyond, 429.

const forecastPath = "/emulator/v1/projects/:project/locations/:location/clusters/:cluster/nodePools/:pool"

// maxForecasts bounds the forecasts running at once: each runs a copy of the simulation on a
// core of its own.
const maxForecasts = 2

// isForecast says whether r asks for a forecast: a POST that changes nothing.
func isForecast(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/emulator/v1/projects/") && strings.HasSuffix(r.URL.Path, ":forecast")
}

func (s *Server) forecastRoutes() {
	s.forecasts = make(chan struct{}, maxForecasts)
	s.e.POST(forecastPath, s.forecast)
}

func (s *Server) forecast(c echo.Context) error {
	pool, verb := splitVerb(c.Param("pool"))
	if verb != "forecast" {
		return httpio.NotFoundf("Method %q is not supported on node pools under /emulator/v1; supported: forecast.", verb)
	}
	var req api.ForecastRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	select {
	case s.forecasts <- struct{}{}:
		defer func() { <-s.forecasts }()
	default:
		c.Response().Header().Set("Retry-After", "2")
		return &sim.Error{HTTPCode: http.StatusTooManyRequests, Status: "RESOURCE_EXHAUSTED", Reason: "rateLimitExceeded",
			Message: "Too many forecasts at once: the emulator runs at most 2 at a time. Send it again in a few seconds."}
	}
	project, location, cluster := c.Param("project"), c.Param("location"), c.Param("cluster")
	var copied *sim.Copied
	if _, err := s.runner.Read(c.Request().Context(), func(w *sim.World) error {
		if _, err := w.GetCluster(project, location, cluster); err != nil {
			return err
		}
		var err error
		copied, err = w.Copy() // the live simulation waits for this encoding only
		return err
	}); err != nil {
		return err
	}
	fork, err := copied.World()
	if err != nil {
		return err
	}
	r, err := rehearse.Forecast(fork, project, location, cluster, rehearse.Options{Pool: pool, Automatic: req.Automatic, Update: req.Update,
		Size: req.NodeCount, Autoscaling: req.Autoscaling, Context: c.Request().Context()})
	if err != nil {
		if c.Request().Context().Err() != nil {
			return err // the client went away: nothing to answer
		}
		if fork.Cluster(project, location, cluster).Pool(pool) == nil {
			return httpio.NotFoundf("%s", err.Error())
		}
		if e, ok := sim.AsError(err); ok {
			return e
		}
		return httpio.BadRequest("%s", err.Error())
	}
	return httpio.WriteJSON(c, http.StatusOK, r)
}
