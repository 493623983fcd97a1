package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
)

// exposureWarning is the warning for an emulator that listens beyond loopback (base is the
// address it listens on) without an auth token, or "".
func exposureWarning(base, token string) string {
	if token != "" {
		return ""
	}
	if u, err := url.Parse(base); err == nil {
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return ""
		}
	}
	return fmt.Sprintf("WARNING: gkesim listens on %s, beyond this machine, without an auth token: anyone who can reach it can create, "+
		"change and delete clusters. Set --auth-token (or GKESIM_AUTH_TOKEN), or listen on 127.0.0.1.", base)
}

func newServeCmd(out, errOut io.Writer) *cobra.Command {
	var (
		listen, startTime, dataDir, logLevel string
		authToken, advertiseURL              string
		timeScale                            float64
		seed                                 uint64
		checkpointBytes                      int64
		checkpointEvents                     int
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the emulator",
		Long: `Run the emulator: the GKE v1 REST API (and v1beta1) under /v1, each cluster's Kubernetes-shaped
API under /k8s/..., a read-only Compute view under /compute/v1, the emulator's clock and
event log under /emulator/v1, and a web console under /ui/ (open it in a browser). It stops
cleanly on SIGINT or SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return fmt.Errorf("--log-level %q: use debug, info, warn or error", logLevel)
			}
			log := slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: level}))
			if !(timeScale >= 0 && timeScale <= sim.MaxTimeScale) {
				return fmt.Errorf("--time-scale %g: must be 0 (frozen clock) or positive, at most %d emulated seconds per wall second (use `gkesim clock advance` to jump further)", timeScale, sim.MaxTimeScale)
			}
			if authToken == "" {
				authToken = os.Getenv("GKESIM_AUTH_TOKEN")
			}
			opts := emulator.Options{TimeScale: timeScale, Seed: seed, Logger: log, AuthToken: authToken, AdvertiseURL: advertiseURL,
				// A resumed state keeps the time scale it was saved with, unless the flag says otherwise.
				ResumeTimeScale: !cmd.Flags().Changed("time-scale"),
				CheckpointBytes: checkpointBytes, CheckpointEvents: checkpointEvents}
			if startTime != "" {
				t, err := time.Parse(time.RFC3339, startTime)
				if err != nil {
					return fmt.Errorf("--start-time %q: use RFC 3339, e.g. 2026-11-02T10:00:00Z", startTime)
				}
				opts.Start = t
			}
			if dataDir != "" {
				d, err := store.NewDir(dataDir)
				if err != nil {
					return err
				}
				opts.Store = d
			}
			e, err := emulator.New(opts)
			if err != nil {
				return err
			}
			url, err := e.Listen(listen)
			if err != nil {
				e.Close()
				return err
			}
			state := "in memory"
			if dataDir != "" {
				state = "in " + dataDir
				if e.Resumed {
					state += fmt.Sprintf(" (resumed, %d journal records replayed)", e.Replayed)
				}
			}
			timeScale = e.TimeScale()
			clock := fmt.Sprintf("%gx", timeScale)
			if timeScale == 0 {
				clock = "frozen (POST /emulator/v1/clock:advance moves it)"
			}
			fmt.Fprintf(out, "gkesim %s serving on %s\n  GKE API:  %s/v1/projects/PROJECT/locations/LOCATION/clusters\n  console:  %s/ui/\n  clock:    %s, seed %d, state %s\n",
				version, url, url, url, clock, seed, state)
			fmt.Fprintf(out, "  use it:   export GKESIM_ENDPOINT=%s\n", url)
			if authToken != "" {
				fmt.Fprintln(out, "  auth:     every request but /healthz needs Authorization: Bearer <token> (clients read GKESIM_AUTH_TOKEN);\n"+
					"            TLS on the same port for kubectl (get-credentials writes the emulator's CA)")
			}
			if w := exposureWarning(url, authToken); w != "" {
				fmt.Fprintln(errOut, w)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			<-ctx.Done()
			fmt.Fprintln(out, "gkesim: shutting down")
			return e.Close()
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", emulator.DefaultListen, "address to listen on (port 0 picks a free port)")
	f.Float64Var(&timeScale, "time-scale", emulator.DefaultTimeScale, "emulated seconds per wall second; 0 freezes the clock")
	f.Uint64Var(&seed, "seed", 1, "seed for names, ids, addresses and timing jitter")
	f.StringVar(&startTime, "start-time", "", "emulated time to start at, RFC 3339 (default: now)")
	f.StringVar(&dataDir, "data-dir", "", "keep the state in this directory across restarts, every acknowledged change on disk (default: in memory)")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&authToken, "auth-token", "", "require Authorization: Bearer TOKEN on every route but /healthz (default: env GKESIM_AUTH_TOKEN)")
	f.StringVar(&advertiseURL, "advertise-url", "", "base URL clients reach the emulator at, behind a proxy: links (selfLink, cluster endpoints) are built from it")
	// Checkpoint policy, for tests of the store (a checkpoint every few records exercises compaction).
	f.Int64Var(&checkpointBytes, "checkpoint-bytes", 0, "take a checkpoint after this many journal bytes (default 32 MiB)")
	f.IntVar(&checkpointEvents, "checkpoint-events", 0, "take a checkpoint after this many simulation events (default 200000)")
	_ = f.MarkHidden("checkpoint-bytes")
	_ = f.MarkHidden("checkpoint-events")
	return cmd
}
