// Package serveconfig reads what `gkesim serve` runs with from its flags and the environment,
// and checks it, in one place that tests call directly (Load) and the command shares
// (Register + Resolve).
//
// Every flag has an environment variable, GKESIM_ and the flag's name in capitals with
// underscores (--time-scale: GKESIM_TIME_SCALE); a flag on the command line wins over its
// variable. Variables are what a container or a CI service (which cannot pass arguments) sets.
// A new flag is one line in Register and, if it has a variable, one entry in envNames.
package serveconfig

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Config is what `gkesim serve` runs with, checked.
type Config struct {
	// Listen is the address to listen on; port 0 picks a free port.
	Listen string
	// AddrFile, when not empty, is the file the emulator writes its base URL to once it listens
	// (and removes when it stops), for scripts to read.
	AddrFile string
	// TimeScale is emulated seconds per wall second; 0 freezes the clock.
	TimeScale float64
	// TimeScaleGiven says the time scale came from the flag or the environment: a resumed state
	// keeps the one it was saved with otherwise.
	TimeScaleGiven bool
	// Seed makes names, ids, addresses and jitter reproducible.
	Seed uint64
	// Start is the emulated time to start at; zero means now.
	Start time.Time
	// DataDir keeps the state across restarts; empty means in memory.
	DataDir string
	// TruncateDamagedJournal lets the store cut the last journal segment where it is damaged
	// even though intact, acknowledged records follow (they are dropped; a copy is kept).
	TruncateDamagedJournal bool
	// LogLevel is the lowest level logged.
	LogLevel slog.Level
	// AuthToken, when not empty, is required as Authorization: Bearer on every route but
	// /healthz.
	AuthToken string
	// AdvertiseURL is the base URL clients reach the emulator at (behind a proxy); links are
	// built from it. Empty: the listener's.
	AdvertiseURL string
	// Checkpoint policy (hidden flags, for tests of the store); zero takes the defaults.
	CheckpointBytes  int64
	CheckpointEvents int
}

// envNames maps a flag to the environment variable that sets it when the flag is not given.
var envNames = map[string]string{
	"listen":     "GKESIM_LISTEN",
	"addr-file":  "GKESIM_ADDR_FILE",
	"time-scale": "GKESIM_TIME_SCALE",
	"seed":       "GKESIM_SEED",
	"start-time": "GKESIM_START_TIME",
	"data-dir":   "GKESIM_DATA_DIR",
	"log-level":  "GKESIM_LOG_LEVEL",
	// Clients (the provider, the gkesim CLI) read GKESIM_AUTH_TOKEN too: one variable gives
	// both sides the token.
	"auth-token":    "GKESIM_AUTH_TOKEN",
	"advertise-url": "GKESIM_ADVERTISE_URL",
}

// commandLineOnly are the flags without a variable: a repair that loses acknowledged records
// is asked for once, on the command line, never left set in an environment for the next damage.
var commandLineOnly = map[string]bool{"truncate-damaged-journal": true}

// EnvName is the environment variable of a flag ("" if it has none).
func EnvName(flag string) string { return envNames[flag] }

// Flags are serve's flags, bound to a flag set; Resolve reads them.
type Flags struct {
	fs                                             *pflag.FlagSet
	listen, addrFile, startTime, dataDir, logLevel string
	authToken, advertiseURL                        string
	timeScale                                      float64
	seed                                           uint64
	checkpointBytes                                int64
	checkpointEvents                               int
	truncateDamaged                                bool
	// fromEnv holds the flags Resolve filled from the environment.
	fromEnv map[string]bool
}

// Register defines serve's flags on fs.
func Register(fs *pflag.FlagSet) *Flags {
	f := &Flags{fs: fs}
	fs.StringVar(&f.listen, "listen", emulator.DefaultListen, "address to listen on; port 0 picks a free port, 0.0.0.0 listens on every interface (env GKESIM_LISTEN)")
	fs.StringVar(&f.addrFile, "addr-file", "", "once listening, write the base URL to `FILE` (removed on exit), for scripts and gkesim wait (env GKESIM_ADDR_FILE)")
	fs.Float64Var(&f.timeScale, "time-scale", emulator.DefaultTimeScale, "emulated seconds per wall second; 0 freezes the clock (env GKESIM_TIME_SCALE)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed for names, ids, addresses and timing jitter (env GKESIM_SEED)")
	fs.StringVar(&f.startTime, "start-time", "", "emulated time to start at, RFC 3339 (default: now; env GKESIM_START_TIME)")
	fs.StringVar(&f.dataDir, "data-dir", "", "keep the state in `DIR` across restarts, every acknowledged change on disk (default: in memory; env GKESIM_DATA_DIR)")
	fs.BoolVar(&f.truncateDamaged, "truncate-damaged-journal", false, "start even though the journal is damaged in the middle of its last segment: cut it there, dropping the acknowledged records after the damage (a copy of the cut bytes is kept in the data directory)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error (env GKESIM_LOG_LEVEL)")
	fs.StringVar(&f.authToken, "auth-token", "", "require Authorization: Bearer TOKEN on every route but /healthz (env GKESIM_AUTH_TOKEN)")
	fs.StringVar(&f.advertiseURL, "advertise-url", "", "base URL clients reach the emulator at, behind a proxy: links (selfLink, cluster endpoints) are built from it (env GKESIM_ADVERTISE_URL)")
	fs.Int64Var(&f.checkpointBytes, "checkpoint-bytes", 0, "take a checkpoint after this many journal bytes (default 32 MiB)")
	fs.IntVar(&f.checkpointEvents, "checkpoint-events", 0, "take a checkpoint after this many simulation events (default 200000)")
	_ = fs.MarkHidden("checkpoint-bytes")
	_ = fs.MarkHidden("checkpoint-events")
	return f
}

// Load parses serve's arguments (without the command name) and reads the environment through
// getenv (os.Getenv, or a map's lookup in tests).
func Load(args []string, getenv func(string) string) (Config, error) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(discard{})
	f := Register(fs)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("serve takes no arguments, got %q", fs.Args())
	}
	return f.Resolve(getenv)
}

// Resolve fills the flags not given on the command line from the environment and checks every
// value. Errors name the flag or the variable, the value, and what to write instead.
func (f *Flags) Resolve(getenv func(string) string) (Config, error) {
	var errs []error
	f.fromEnv = map[string]bool{}
	f.fs.VisitAll(func(fl *pflag.Flag) {
		name := envNames[fl.Name]
		if name == "" || fl.Changed {
			return
		}
		if v := getenv(name); v != "" {
			if err := f.fs.Set(fl.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q (--%s): %s", name, v, fl.Name, cause(err)))
			}
			f.fromEnv[fl.Name] = true
		}
	})
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	c := Config{Listen: f.listen, AddrFile: f.addrFile, TimeScale: f.timeScale, Seed: f.seed, DataDir: f.dataDir,
		AuthToken: f.authToken, AdvertiseURL: f.advertiseURL,
		TimeScaleGiven: f.fs.Changed("time-scale"), CheckpointBytes: f.checkpointBytes, CheckpointEvents: f.checkpointEvents,
		TruncateDamagedJournal: f.truncateDamaged}
	if f.truncateDamaged && f.dataDir == "" {
		errs = append(errs, errors.New("--truncate-damaged-journal repairs the journal of a --data-dir: give the data directory too"))
	}
	if err := checkListen(f.listen); err != nil {
		errs = append(errs, f.invalid("listen", f.listen, err.Error()))
	}
	if !(f.timeScale >= 0 && f.timeScale <= sim.MaxTimeScale) {
		errs = append(errs, f.invalid("time-scale", strconv.FormatFloat(f.timeScale, 'g', -1, 64),
			fmt.Sprintf("must be 0 (a frozen clock) or a positive number of emulated seconds per wall second, at most %d (gkesim clock advance jumps further)", sim.MaxTimeScale)))
	}
	if f.advertiseURL != "" {
		if _, err := server.ParseAdvertiseURL(f.advertiseURL); err != nil {
			errs = append(errs, f.invalid("advertise-url", f.advertiseURL, "give the emulator's base URL as clients reach it, e.g. https://gkesim.example.com or http://10.0.0.5:8790"))
		}
	}
	if f.startTime != "" {
		t, err := time.Parse(time.RFC3339, f.startTime)
		if err != nil {
			errs = append(errs, f.invalid("start-time", f.startTime, "use RFC 3339, e.g. 2026-11-02T10:00:00Z"))
		} else if err := sim.CheckStart(t); err != nil {
			errs = append(errs, f.invalid("start-time", f.startTime, err.Error()))
		}
		c.Start = t.UTC() // the emulated clock keeps UTC
	}
	if err := c.LogLevel.UnmarshalText([]byte(f.logLevel)); err != nil {
		errs = append(errs, f.invalid("log-level", f.logLevel, "use debug, info, warn or error"))
	}
	if f.checkpointBytes < 0 || f.checkpointEvents < 0 {
		errs = append(errs, errors.New("--checkpoint-bytes and --checkpoint-events must not be negative"))
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

// invalid names where a bad value came from: the flag, or the variable when the flag was
// filled from it.
func (f *Flags) invalid(flag, value, why string) error {
	if f.fromEnv[flag] {
		return fmt.Errorf("%s=%q (--%s): %s", envNames[flag], value, flag, why)
	}
	return fmt.Errorf("--%s %q: %s", flag, value, why)
}

// checkListen accepts host:port with a numeric port (host may be empty: every interface).
func checkListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("use HOST:PORT, e.g. 127.0.0.1:8790, 127.0.0.1:0 for a free port, or 0.0.0.0:8790 for every interface")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	if strings.ContainsAny(host, " /") {
		return fmt.Errorf("host %q is not an address or a host name", host)
	}
	return nil
}

// cause says why a value did not parse, without pflag's restatement of the flag and value.
func cause(err error) string {
	var ne *strconv.NumError
	switch {
	case errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange):
		return "out of range"
	case errors.As(err, &ne):
		return "not a number"
	}
	return err.Error()
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
