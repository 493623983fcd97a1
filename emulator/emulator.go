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
	"runtime/debug"
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
	// Store keeps the state durably (nil: in memory, lost when the emulator stops). A store that
	// holds a state resumes it; the emulator opens the store and closes it when it stops.
	Store *store.Store
	// ResumeTimeScale keeps the time scale saved with a resumed state instead of TimeScale.
	ResumeTimeScale bool
	// Checkpoint policy (see sim.RunnerOptions); zero values take the defaults.
	CheckpointBytes  int64
	CheckpointEvents int
	CheckpointEvery  time.Duration
	// Wall is the wall clock emulated time is paced against (default: the system's); tests pass
	// a wall.Fake.
	Wall   sim.Wall
	Logger *slog.Logger
	// AdvertiseURL and AuthToken: see server.Options.
	AdvertiseURL string
	AuthToken    string
	// ReadTimeout bounds reading one request, body included (default DefaultReadTimeout): a
	// body that trickles in is cut off.
	ReadTimeout time.Duration
	// WatchHistory is how many changes each cluster keeps for watches (default
	// sim.DefaultWatchHistory); MaxWatchesPerCluster how many watches a cluster serves at once
	// (default server.DefaultMaxWatchesPerCluster).
	WatchHistory         int
	MaxWatchesPerCluster int
	// MaxEventFollowers bounds the event log's followers at once (default
	// server.DefaultMaxEventFollowers).
	MaxEventFollowers int
}

// DefaultReadTimeout lets the largest request body (8 MB) arrive over a 1.2 Mbit/s link.
const DefaultReadTimeout = time.Minute

// Emulator is a running emulator.
type Emulator struct {
	Runner  *sim.Runner
	handler *server.Server
	store   *store.Store
	cancel  context.CancelFunc
	done    chan error
	srv     *http.Server
	ln      net.Listener
	once    sync.Once
	// stopRequests cancels the context of requests in flight.
	stopRequests context.CancelFunc
	// Resumed says the state was loaded from the store rather than started empty.
	Resumed bool
	// Replayed is how many journal records a resumed state replayed.
	Replayed int
	// Seed is the seed the simulation runs with: a resumed state's own, else Options.Seed.
	Seed        uint64
	readTimeout time.Duration
	tls         *tls.Config
}

// New creates and starts the simulation, resuming what the store holds. Serve or Listen makes
// it reachable.
func New(opts Options) (*Emulator, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if !(opts.TimeScale >= 0 && opts.TimeScale <= sim.MaxTimeScale) {
		return nil, fmt.Errorf("time scale %g: must be 0 (frozen) or positive, at most %d", opts.TimeScale, sim.MaxTimeScale)
	}
	if !opts.Start.IsZero() {
		if err := sim.CheckStart(opts.Start); err != nil {
			return nil, fmt.Errorf("start %s: %w", opts.Start.Format(time.RFC3339), err)
		}
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
	if opts.Wall == nil {
		opts.Wall = wall.System{}
	}
	if opts.Start.IsZero() {
		opts.Start = opts.Wall.Now()
	}
	e := &Emulator{done: make(chan error, 1), store: opts.Store, Seed: opts.Seed}
	var saved *store.Saved
	var w *sim.World
	if opts.Store != nil {
		opts.Store.SetLogger(opts.Logger)
		if saved, err = opts.Store.Open(); err != nil {
			return nil, fmt.Errorf("load saved state: %w", err)
		}
		for _, n := range saved.Notes {
			opts.Logger.Warn("saved state repaired", "what", n)
		}
		if saved.State != nil {
			if w, err = sim.Restore(saved.State); err != nil {
				opts.Store.Close()
				return nil, fmt.Errorf("load saved state: %s: %w", saved.Snapshot, err)
			}
			e.Resumed = true
			e.Seed = saved.State.Seed
		}
	}
	if w == nil {
		w = sim.New(sim.Options{Seed: opts.Seed, Start: opts.Start})
		if opts.Store != nil {
			if err := opts.Store.Begin(w.State(), opts.TimeScale); err != nil {
				opts.Store.Close()
				return nil, err
			}
		}
	}
	w.SetWatchHistory(opts.WatchHistory)
	ropts := sim.RunnerOptions{Wall: opts.Wall, TimeScale: opts.TimeScale, Logger: opts.Logger,
		CheckpointBytes: opts.CheckpointBytes, CheckpointEvents: opts.CheckpointEvents, CheckpointEvery: opts.CheckpointEvery}
	if saved != nil && saved.HasTimeScale {
		ropts.TimeScale = saved.TimeScale
	}
	e.Runner = sim.NewRunner(w, ropts)
	sopts := server.Options{Logger: opts.Logger, AdvertiseURL: opts.AdvertiseURL, AuthToken: opts.AuthToken,
		ClusterCACertificate: caPEM, MaxWatchesPerCluster: opts.MaxWatchesPerCluster, MaxEventFollowers: opts.MaxEventFollowers}
	if opts.Store != nil {
		sopts.Storage = opts.Store
	}
	srv, err := server.New(e.Runner, sopts)
	if err != nil {
		if opts.Store != nil {
			opts.Store.Close()
		}
		return nil, err
	}
	e.handler = srv
	e.tls = tlsConfig
	e.readTimeout = opts.ReadTimeout
	if e.readTimeout == 0 {
		e.readTimeout = DefaultReadTimeout
	}
	if saved != nil {
		for _, rec := range saved.Records {
			if err := e.Runner.Replay(rec.At, rec.Data, e.handler.Replay); err != nil {
				opts.Store.Close()
				return nil, fmt.Errorf("load saved state: replay journal record %d: %w", rec.Seq, err)
			}
		}
		e.Replayed = len(saved.Records)
		scale := opts.TimeScale
		if opts.ResumeTimeScale && e.Resumed {
			scale = e.Runner.TimeScaleNow() // saved with the snapshot, then as the journal changed it
		}
		e.Runner.Attach(opts.Store, scale)
		if saved.Outdated {
			// A snapshot of the current format first: records in the new encoding then never
			// follow a snapshot whose format promises the old one.
			if _, err := opts.Store.Checkpoint(w.State(), scale); err != nil {
				opts.Store.Close()
				return nil, fmt.Errorf("save the state in the current format: %w", err)
			}
		}
	}
	if e.Resumed && podCount(w.State()) >= handBackPods {
		// Reading the saved state took several times the memory the state holds (the file,
		// the decoder's work, each pod's own copies until sim.Restore shared them). Hand it
		// back to the system now rather than over the minutes Go's scavenger takes: resumed,
		// the emulator holds what one that made the same state does (BenchmarkServeMemory's
		// restart-rss-MiB).
		debug.FreeOSMemory()
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() { e.done <- e.Runner.Run(ctx) }()
	// A resumed state may carry faults already.
	if err := e.handler.SyncFaults(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// handBackPods is how many pods a resumed state holds at least for the emulator to hand the
// memory reading it took back to the system at once (a full collection, which pauses the
// process's other work a moment): below, that memory is little, and Go's scavenger returns it
// soon enough.
const handBackPods = 10000

// podCount is how many pods a state holds.
func podCount(st *sim.State) int {
	n := 0
	for _, c := range st.Clusters {
		n += len(c.Pods)
	}
	return n
}

// Handler serves the emulator's HTTP API without a listener (tests and benchmarks).
func (e *Emulator) Handler() http.Handler { return e.handler }

// TimeScale is the emulator's time scale now.
func (e *Emulator) TimeScale() float64 {
	var scale float64
	_ = e.Runner.Do(context.Background(), func(*sim.World) error {
		scale = e.Runner.TimeScale()
		return nil
	})
	return scale
}

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
		BaseContext: func(net.Listener) context.Context { return base }, ConnContext: server.ConnContext}
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

// Abandon stops the emulator as a crash would, without a last checkpoint: a restart replays the
// journal. Tests and benchmarks of the store use it.
func (e *Emulator) Abandon() error {
	e.Runner.SkipFinalCheckpoint()
	return e.Close()
}

// Close stops serving (letting requests in flight finish), stops the simulation, takes a last
// checkpoint and closes the store.
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
		if e.store != nil {
			err = errors.Join(err, e.store.Close())
		}
	})
	return err
}
