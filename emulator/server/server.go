// Package server is the emulator's HTTP front: Echo routes that decode a request, call the
// simulation through its runner, and encode the answer. Every Echo import of the project lives
// in this package, so that moving to Echo v5 is a change to one package.
package server

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Server serves the GKE v1 (and v1beta1) REST API, the Kubernetes-shaped API of each cluster,
// the read-only Compute view and the emulator's own control API.
type Server struct {
	e      *echo.Echo
	runner *sim.Runner
	log    *slog.Logger
	faults apiFaults
}

// New builds the server around a running simulation.
func New(runner *sim.Runner, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{e: echo.New(), runner: runner, log: log}
	s.e.HideBanner = true
	s.e.HidePort = true
	s.e.HTTPErrorHandler = s.errorHandler
	s.e.Use(s.logRequests, s.injectFaults, s.journalRequests)
	s.routes()
	return s
}

// SyncFaults takes the faults that act on requests from the simulation (a resumed state may
// carry some).
func (s *Server) SyncFaults(ctx context.Context) error {
	return s.runner.Do(ctx, func(w *sim.World) error {
		s.faults.set(w.Faults())
		return nil
	})
}

// ServeHTTP makes the server an http.Handler (tests mount it on httptest servers).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.e.ServeHTTP(w, r) }

func (s *Server) routes() {
	for _, v := range []string{"/v1", "/v1beta1"} {
		s.gkeRoutes(s.e.Group(v))
	}
	s.k8sRoutes(s.e.Group("/k8s/projects/:project/locations/:location/clusters/:cluster"))
	s.computeRoutes(s.e.Group("/compute/v1/projects/:project"))
	s.emulatorRoutes()
	s.maintenanceRoutes()
	s.serviceUsageRoutes()
	s.faultRoutes()
	s.consoleRoutes()
}

func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		s.log.Debug("request", "method", c.Request().Method, "path", c.Request().URL.Path,
			"status", c.Response().Status, "duration", time.Since(start))
		return nil
	}
}

// do runs fn on the simulation and writes its result as JSON.
func (s *Server) do(c echo.Context, fn func(w *sim.World) (any, error)) error {
	var out any
	err := s.runner.Do(c.Request().Context(), func(w *sim.World) error {
		var err error
		out, err = fn(w)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// baseURL is the scheme and host the client reached us on, for self links.
func baseURL(c echo.Context) string {
	scheme := "http"
	if c.Request().TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + c.Request().Host
}

// links builds the self-link bases for a request under GKE API version v ("v1" or "v1beta1").
func links(c echo.Context) sim.Links {
	v := "v1"
	if strings.HasPrefix(c.Request().URL.Path, "/v1beta1/") {
		v = "v1beta1"
	}
	base := baseURL(c)
	return sim.Links{ContainerBase: base + "/" + v + "/", ComputeBase: base + "/compute/v1/"}
}

// k8sEndpoint is a cluster's Kubernetes-shaped API address, host and path without a scheme,
// as GKE's endpoint field is a bare address.
func k8sEndpoint(c echo.Context, cl *sim.Cluster) string {
	return c.Request().Host + "/k8s/" + cl.Key()
}

// splitVerb splits "name:verb" (GKE's custom methods) into its parts.
func splitVerb(s string) (name, verb string) {
	name, verb, _ = strings.Cut(s, ":")
	return name, verb
}
