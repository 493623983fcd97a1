// Package server is the emulator's HTTP front: Echo routes that decode a request, call the
// simulation through its runner, and encode the answer. It serves the GKE API, Compute, the
// emulator's own control API and the web console itself, and mounts the clusters' Kubernetes
// API, which is the package emulator/server/k8s. What both write alike (JSON answers, the
// request's base URL, the errors of refused requests) is in emulator/server/internal/httpio.
// Every Echo import of the project lives in this package and the ones under it, so that moving
// to Echo v5 is a change to this tree alone.
package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/k8s"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Server serves the GKE v1 (and v1beta1) REST API, the Kubernetes-shaped API of each cluster,
// the read-only Compute view and the emulator's own control API.
type Server struct {
	e      *echo.Echo
	runner *sim.Runner
	log    *slog.Logger
	faults apiFaults
	// token is the bearer token requests need ("" for none); advertise is --advertise-url.
	token     string
	advertise *url.URL
	// advertiseBase is advertise as the base URL of links.
	advertiseBase string
	crossOrigin   *http.CrossOriginProtection
	caPEM         []byte
	// inspect, when set (by tests), sees every answer on the simulation goroutine, before the
	// answer leaves it.
	inspect func(w *sim.World, out any)
	// kube is the clusters' Kubernetes API (emulator/server/k8s).
	kube *k8s.Server
	// reads keeps the bytes of repeated GKE reads (readcache.go).
	reads readCache
	// storage is the store's health, nil without one (in memory).
	storage Storage
	// followers counts the event log's followers (events_follow.go).
	followers followerLimit
	// forecasts holds a token per forecast running (forecast.go).
	forecasts chan struct{}
}

// Storage is what the server asks of the store that makes its changes durable (emulator/store
// implements it).
type Storage interface {
	// WriteError says why changes cannot be made durable now, nil while they can.
	WriteError() error
	// ForRead marks the context of a request that only reads: while writes fail, its answer
	// is given from memory instead of being refused.
	ForRead(ctx context.Context) context.Context
}

// New builds the server around a running simulation.
func New(runner *sim.Runner, opts Options) (*Server, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{e: echo.New(), runner: runner, log: log, token: opts.AuthToken, crossOrigin: http.NewCrossOriginProtection(),
		caPEM: opts.ClusterCACertificate, storage: opts.Storage, followers: followerLimit{max: opts.MaxEventFollowers}}
	s.kube = k8s.New(runner, k8s.Options{MaxWatchesPerCluster: opts.MaxWatchesPerCluster, Inspect: func(w *sim.World, out any) {
		if s.inspect != nil { // set by tests after New
			s.inspect(w, out)
		}
	}})
	if opts.AdvertiseURL != "" {
		u, err := ParseAdvertiseURL(opts.AdvertiseURL)
		if err != nil {
			return nil, err
		}
		s.advertise, s.advertiseBase = u, strings.TrimRight(u.String(), "/")
	}
	s.e.HideBanner = true
	s.e.HidePort = true
	s.e.HTTPErrorHandler = s.errorHandler
	// Every request passes the console (its files and redirects), then the checks, in this
	// order. Requests refused by the guard, authentication or an injected fault never reach the
	// journal; a replayed request (sim.InRunner) passes all three, as it did the first time.
	// The chain is built once, its last link calling the handler the router chose: Echo would
	// build the chain of the middlewares it is given anew for every request. (So a middleware
	// Use-d after New would not run: add links here.)
	chain := serveConsole(s.logRequests(s.guard(s.authenticate(s.injectFaults(s.journalRequests(s.kube.FollowFeed(routedHandler)))))))
	s.e.Use(func(echo.HandlerFunc) echo.HandlerFunc { return chain })
	s.routes()
	// A cluster's change feed records only while someone follows it (see sim.World.FollowFeed).
	runner.SetFeedFollowed(s.kube.Followed)
	return s, nil
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
// A repeated GKE read the cache holds is answered ahead of Echo (serveCachedRead).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.serveCachedRead(w, r) {
		return
	}
	s.e.ServeHTTP(w, r)
}

func (s *Server) routes() {
	for _, v := range []string{"/v1", "/v1beta1"} {
		s.gkeRoutes(s.e.Group(v))
	}
	s.kube.Routes(s.e.Group("/k8s/projects/:project/locations/:location/clusters/:cluster"))
	s.computeRoutes(s.e.Group("/compute/v1/projects/:project"))
	s.emulatorRoutes()
	s.maintenanceRoutes()
	s.serviceUsageRoutes()
	s.faultRoutes()
	s.consoleRoutes()
	s.importRoutes()
	s.forecastRoutes()
}

// routedHandler calls the handler the router chose for the request (its 404 or 405 handler
// when none takes it), the last link of the request chain.
func routedHandler(c echo.Context) error { return c.Handler()(c) }

func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		logged, start := s.logStart()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		if logged {
			s.logRequest(c.Request(), c.Response().Status, start)
		}
		return nil
	}
}

// logStart says whether requests are logged and, when they are, when this one started: the
// clock and the log's arguments would cost on every request.
func (s *Server) logStart() (bool, time.Time) {
	if !s.log.Enabled(context.Background(), slog.LevelDebug) {
		return false, time.Time{}
	}
	return true, time.Now()
}

// logRequest logs a request answered with status, started at start.
func (s *Server) logRequest(r *http.Request, status int, start time.Time) {
	s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", status, "duration", time.Since(start))
}

// do runs fn on the simulation and writes its result as JSON.
func (s *Server) do(c echo.Context, fn func(w *sim.World) (any, error)) error {
	var out any
	err := s.runner.Do(c.Request().Context(), func(w *sim.World) error {
		var err error
		if out, err = fn(w); err == nil && s.inspect != nil {
			s.inspect(w, out)
		}
		return err
	})
	if err != nil {
		return err
	}
	return httpio.WriteJSON(c, http.StatusOK, out)
}

// links builds the self-link bases for a request under GKE API version v ("v1" or "v1beta1").
func links(c echo.Context) sim.Links {
	v := "v1"
	if strings.HasPrefix(c.Request().URL.Path, "/v1beta1/") {
		v = "v1beta1"
	}
	base := httpio.BaseURL(c)
	return sim.Links{ContainerBase: base + "/" + v + "/", ComputeBase: base + "/compute/v1/"}
}

// k8sEndpoint is a cluster's Kubernetes-shaped API address, host and path without a scheme,
// as GKE's endpoint field is a bare address.
func k8sEndpoint(c echo.Context, cl *sim.Cluster) string {
	_, addr, _ := strings.Cut(httpio.BaseURL(c), "://")
	return addr + "/k8s/" + cl.Key()
}

// splitVerb splits "name:verb" (GKE's custom methods) into its parts.
func splitVerb(s string) (name, verb string) {
	name, verb, _ = strings.Cut(s, ":")
	return name, verb
}
