package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	neturl "net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/cmd/gkesim/internal/serveconfig"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
)

// exposureWarning is the warning for an emulator that listens beyond loopback (base is the
// address it listens on) without an auth token, or "".
func exposureWarning(base, token string) string {
	if token != "" {
		return ""
	}
	if u, err := neturl.Parse(base); err == nil {
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return ""
		}
	}
	return fmt.Sprintf("WARNING: gkesim listens on %s, beyond this machine, without an auth token: anyone who can reach it can create, "+
		"change and delete clusters. Set --auth-token (or GKESIM_AUTH_TOKEN), or listen on 127.0.0.1.", base)
}

// imageListen is where the container image's gkesim listens by default: every interface of the
// container, since clients reach it through a published port.
const imageListen = "0.0.0.0:8790"

func newServeCmd(out, errOut io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the emulator",
		Long: `Run the emulator: the GKE v1 REST API (and v1beta1) under /v1, each cluster's Kubernetes-shaped
API under /k8s/..., a read-only Compute view under /compute/v1, the emulator's clock and
event log under /emulator/v1, and a web console under /ui/ (open it in a browser). It stops
cleanly on SIGINT or SIGTERM.

Once it listens it prints its address, among others in a line GKESIM_ENDPOINT=URL (for
scripts: sed -n 's/^GKESIM_ENDPOINT=//p'), and writes it to --addr-file if given. Every flag
can come from an environment variable instead (GKESIM_ and the flag's name: GKESIM_LISTEN,
GKESIM_TIME_SCALE, ...); a flag given on the command line wins.`,
		Args: cobra.NoArgs,
	}
	flags := serveconfig.Register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		cfg, err := flags.Resolve(serveEnv(os.Getenv))
		if err != nil {
			return err
		}
		return serve(cmd, cfg, out, errOut)
	}
	return cmd
}

// serveEnv is the environment serve reads; in the container image, GKESIM_LISTEN defaults to
// every interface.
func serveEnv(getenv func(string) string) func(string) string {
	if image != "true" {
		return getenv
	}
	return func(k string) string {
		if v := getenv(k); v != "" || k != "GKESIM_LISTEN" {
			return v
		}
		return imageListen
	}
}

func serve(cmd *cobra.Command, cfg serveconfig.Config, out, errOut io.Writer) error {
	// SIGINT and SIGTERM stop the emulator cleanly from the start: a script that stops it as
	// soon as it reads the readiness line must not kill it half-way.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: cfg.LogLevel}))
	opts := emulator.Options{TimeScale: cfg.TimeScale, Seed: cfg.Seed, Start: cfg.Start, Logger: log,
		AuthToken: cfg.AuthToken, AdvertiseURL: cfg.AdvertiseURL,
		// A resumed state keeps the time scale it was saved with, unless told otherwise.
		ResumeTimeScale: !cfg.TimeScaleGiven,
		CheckpointBytes: cfg.CheckpointBytes, CheckpointEvents: cfg.CheckpointEvents}
	// A file left by an earlier run must not send `gkesim wait` to an address nobody serves.
	if cfg.AddrFile != "" {
		if err := os.Remove(cfg.AddrFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--addr-file %s: %w", cfg.AddrFile, err)
		}
	}
	if cfg.DataDir != "" {
		d, err := store.NewDir(cfg.DataDir)
		if err != nil {
			return err
		}
		d.SetTruncateDamagedJournal(cfg.TruncateDamagedJournal)
		opts.Store = d
	}
	e, err := emulator.New(opts)
	if err != nil {
		return err
	}
	url, err := e.Listen(cfg.Listen)
	if err != nil {
		e.Close()
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot listen on %s: the address is in use (another gkesim serve?); stop what listens there, or use --listen 127.0.0.1:0 for a free port and --addr-file FILE to learn it", cfg.Listen)
		}
		return fmt.Errorf("cannot listen on %s: %w", cfg.Listen, err)
	}
	// Clients on this host reach a listener on every interface through loopback.
	endpoint, where := clientURL(url)
	state := "in memory"
	if cfg.DataDir != "" {
		state = "in " + cfg.DataDir
		if e.Resumed {
			state += fmt.Sprintf(" (resumed, %d journal records replayed)", e.Replayed)
		}
	}
	timeScale := e.TimeScale()
	clock := fmt.Sprintf("%gx", timeScale)
	if timeScale == 0 {
		clock = "frozen (POST /emulator/v1/clock:advance moves it)"
	}
	fmt.Fprintf(out, "gkesim %s serving on %s%s\n  GKE API:  %s/v1/projects/PROJECT/locations/LOCATION/clusters\n  console:  %s/ui/\n  clock:    %s, seed %d, state %s\n",
		version, url, where, endpoint, endpoint, clock, e.Seed, state)
	if cfg.AuthToken != "" {
		fmt.Fprintln(out, "  auth:     every request but /healthz needs Authorization: Bearer <token> (clients read GKESIM_AUTH_TOKEN);\n"+
			"            TLS on the same port for kubectl (get-credentials writes the emulator's CA)")
	}
	fmt.Fprintf(out, "GKESIM_ENDPOINT=%s\n", endpoint)
	// The address file last: whoever waits for it finds the lines above printed.
	if cfg.AddrFile != "" {
		if err := writeAddrFile(cfg.AddrFile, endpoint); err != nil {
			e.Close()
			return err
		}
		defer os.Remove(cfg.AddrFile)
	}
	if w := exposureWarning(url, cfg.AuthToken); w != "" {
		fmt.Fprintln(errOut, w)
	}
	<-ctx.Done()
	fmt.Fprintln(out, "gkesim: shutting down")
	return e.Close()
}

// clientURL is the URL clients on this host use for a listener at url: the same, or for a
// listener on every interface (0.0.0.0 or [::]), loopback at its port. where says which.
func clientURL(url string) (endpoint, where string) {
	u, err := neturl.Parse(url)
	if err != nil {
		return url, ""
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsUnspecified() {
		return url, ""
	}
	return "http://" + net.JoinHostPort("127.0.0.1", u.Port()), " (every interface)"
}

// writeAddrFile writes url to path whole or not at all (a reader polling for the file never
// sees half an address).
func writeAddrFile(path, url string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gkesim-addr-*")
	if err != nil {
		return fmt.Errorf("--addr-file %s: %w", path, err)
	}
	_, err = tmp.WriteString(url + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("--addr-file %s: %w", path, err)
	}
	return nil
}
