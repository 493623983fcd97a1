// Package emulator assembles the gkesim emulator: the simulation, its runner, the store and the
// HTTP server. It runs as the `gkesim serve` command and, in library mode, inside tests.
package emulator

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
	"github.com/gkesim/terraform-provider-gkesim/emulator/wall"
)

// DefaultTimeScale makes a node pool come up in about a tenth of a wall second and a default
// blue-green upgrade (one hour of node-pool soak) finish in a few seconds.
const DefaultTimeScale = 1000

// DefaultListen is where `gkesim serve` listens unless told otherwise.
const DefaultListen = "127.0.0.1:8790"

// Options configure an emulator.
type Options struct {
	// TimeScale is emulated seconds per wall second; 0 freezes the clock.
	TimeScale float64
	// Seed makes names, ids, addresses and jitter reproducible.
	Seed uint64
	// Start is the emulated time the clock starts at (default: now, to the second).
	Start time.Time
	// Store keeps the state; nil keeps it in memory. A store that holds a state resumes it.
	Store store.Store
	// SaveEvery is how often a changed state is saved (default 2s; only with a Store).
	SaveEvery time.Duration
	Logger    *slog.Logger
	// AdvertiseURL and AuthToken: see server.Options.
	AdvertiseURL string
	AuthToken    string
	// ReadTimeout bounds reading one request, body included (default DefaultReadTimeout): a
	// body that trickles in is cut off.
	ReadTimeout time.Duration
}

// DefaultReadTimeout lets the largest request body (8 MB) arrive over a 1.2 Mbit/s link.
const DefaultReadTimeout = time.Minute

// Emulator is a running emulator.
type Emulator struct {
	Runner  *sim.Runner
	handler http.Handler
	cancel  context.CancelFunc
	done    chan error
	srv     *http.Server
	ln      net.Listener
	once    sync.Once
	// stopRequests cancels the context of requests in flight.
	stopRequests context.CancelFunc
	// Resumed says the state was loaded from the store rather than started empty.
	Resumed     bool
	readTimeout time.Duration
	tls         *tls.Config
}

// New creates and starts the simulation. Serve or Listen makes it reachable.
func New(opts Options) (*Emulator, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if !(opts.TimeScale >= 0 && opts.TimeScale <= sim.MaxTimeScale) {
		return nil, fmt.Errorf("time scale %g: must be 0 (frozen) or positive, at most %d", opts.TimeScale, sim.MaxTimeScale)
	}
	if opts.AdvertiseURL != "" {
		if _, err := server.ParseAdvertiseURL(opts.AdvertiseURL); err != nil {
			return nil, err
		}
	}
	tlsConfig, caPEM, err := kubectlTLS(opts)
	if err != nil {
		return nil, err
	}
	if opts.Start.IsZero() {
		opts.Start = time.Now()
	}
	if opts.SaveEvery == 0 {
		opts.SaveEvery = 2 * time.Second
	}
	e := &Emulator{done: make(chan error, 1)}
	var w *sim.World
	if opts.Store != nil {
		st, err := opts.Store.Load()
		if err != nil {
			return nil, fmt.Errorf("load saved state: %w", err)
		}
		if st != nil {
			if w, err = sim.Restore(st); err != nil {
				return nil, err
			}
			e.Resumed = true
		}
	}
	if w == nil {
		w = sim.New(sim.Options{Seed: opts.Seed, Start: opts.Start})
	}
	ropts := sim.RunnerOptions{Wall: wall.System{}, TimeScale: opts.TimeScale, Logger: opts.Logger}
	if opts.Store != nil {
		ropts.Saver, ropts.SaveEvery = opts.Store, opts.SaveEvery
	}
	e.Runner = sim.NewRunner(w, ropts)
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() { e.done <- e.Runner.Run(ctx) }()
	srv, err := server.New(e.Runner, server.Options{Logger: opts.Logger, AdvertiseURL: opts.AdvertiseURL, AuthToken: opts.AuthToken,
		ClusterCACertificate: caPEM})
	if err != nil {
		e.Close()
		return nil, err
	}
	e.handler = srv
	e.tls = tlsConfig
	e.readTimeout = opts.ReadTimeout
	if e.readTimeout == 0 {
		e.readTimeout = DefaultReadTimeout
	}
	return e, nil
}

// Handler serves the emulator's HTTP API.
func (e *Emulator) Handler() http.Handler { return e.handler }

// Listen starts serving on addr (e.g. "127.0.0.1:0") and returns the base URL.
func (e *Emulator) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listen on %s: %w", addr, err)
	}
	e.ln = ln
	// Requests (event streams above all) see this context end when Close begins.
	base, stop := context.WithCancel(context.Background())
	e.stopRequests = stop
	e.srv = &http.Server{Handler: e.handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: e.readTimeout,
		BaseContext: func(net.Listener) context.Context { return base }}
	if e.tls != nil {
		ln = withTLS(ln, e.tls)
	}
	go func() {
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("serve", "error", err)
		}
	}()
	return "http://" + e.ln.Addr().String(), nil
}

// Close stops serving (letting requests in flight finish), stops the simulation and saves the
// state a last time.
func (e *Emulator) Close() error {
	var err error
	e.once.Do(func() {
		if e.srv != nil {
			e.stopRequests()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if serr := e.srv.Shutdown(ctx); serr != nil {
				e.srv.Close()
			}
		}
		e.cancel()
		err = <-e.done
	})
	return err
}
