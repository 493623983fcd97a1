package serveconfig

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
)

func TestLoad(t *testing.T) {
	defaults := Config{Listen: emulator.DefaultListen, TimeScale: emulator.DefaultTimeScale, Seed: 1, LogLevel: slog.LevelInfo}
	with := func(change func(*Config)) Config {
		c := defaults
		change(&c)
		return c
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want Config
		// wantErr lists texts the error must contain (want is then ignored).
		wantErr []string
	}{
		{name: "defaults", want: defaults},
		{name: "every flag",
			args: []string{"--listen", "0.0.0.0:9000", "--addr-file", "/tmp/a", "--time-scale", "0", "--seed", "7",
				"--start-time", "2026-11-02T10:00:00Z", "--data-dir", "/var/gkesim", "--log-level", "debug",
				"--auth-token", "s3cret", "--advertise-url", "https://gkesim.example.com"},
			want: Config{Listen: "0.0.0.0:9000", AddrFile: "/tmp/a", TimeScale: 0, TimeScaleGiven: true, Seed: 7,
				Start: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC), DataDir: "/var/gkesim", LogLevel: slog.LevelDebug,
				AuthToken: "s3cret", AdvertiseURL: "https://gkesim.example.com"}},
		{name: "every variable",
			env: map[string]string{"GKESIM_LISTEN": ":8790", "GKESIM_ADDR_FILE": "addr", "GKESIM_TIME_SCALE": "60",
				"GKESIM_SEED": "42", "GKESIM_START_TIME": "2027-01-01T00:00:00+01:00", "GKESIM_DATA_DIR": "state", "GKESIM_LOG_LEVEL": "warn",
				"GKESIM_AUTH_TOKEN": "from-env", "GKESIM_ADVERTISE_URL": "http://10.0.0.5:8790"},
			want: Config{Listen: ":8790", AddrFile: "addr", TimeScale: 60, TimeScaleGiven: true, Seed: 42,
				Start: time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC), DataDir: "state", LogLevel: slog.LevelWarn,
				AuthToken: "from-env", AdvertiseURL: "http://10.0.0.5:8790"}},
		{name: "a flag wins over its variable",
			args: []string{"--listen", "127.0.0.1:0", "--seed", "3"},
			env:  map[string]string{"GKESIM_LISTEN": "0.0.0.0:8790", "GKESIM_SEED": "9", "GKESIM_LOG_LEVEL": "error"},
			want: with(func(c *Config) { c.Listen, c.Seed, c.LogLevel = "127.0.0.1:0", 3, slog.LevelError })},
		{name: "an empty variable is not set",
			env:  map[string]string{"GKESIM_TIME_SCALE": "", "GKESIM_LISTEN": ""},
			want: defaults},
		{name: "time scale given as its default still counts as given",
			args: []string{"--time-scale", "1000"},
			want: with(func(c *Config) { c.TimeScaleGiven = true })},
		{name: "hidden checkpoint flags",
			args: []string{"--checkpoint-bytes", "4096", "--checkpoint-events", "10"},
			want: with(func(c *Config) { c.CheckpointBytes, c.CheckpointEvents = 4096, 10 })},
		{name: "negative time scale", args: []string{"--time-scale", "-1"},
			wantErr: []string{`--time-scale "-1": must be 0 (a frozen clock) or a positive number`}},
		{name: "infinite time scale from the environment", env: map[string]string{"GKESIM_TIME_SCALE": "+Inf"},
			wantErr: []string{`GKESIM_TIME_SCALE="+Inf" (--time-scale): must be 0`}},
		{name: "time scale above the maximum", args: []string{"--time-scale", "1e6"},
			wantErr: []string{`--time-scale "1e+06": must be 0 (a frozen clock) or a positive number of emulated seconds per wall second, at most 100000`}},
		{name: "the token flag wins over GKESIM_AUTH_TOKEN", args: []string{"--auth-token", "flag"}, env: map[string]string{"GKESIM_AUTH_TOKEN": "env"},
			want: with(func(c *Config) { c.AuthToken = "flag" })},
		{name: "advertise URL without a scheme", env: map[string]string{"GKESIM_ADVERTISE_URL": "gkesim:8790"},
			wantErr: []string{`GKESIM_ADVERTISE_URL="gkesim:8790" (--advertise-url): give the emulator's base URL as clients reach it`}},
		{name: "time scale variable not a number", env: map[string]string{"GKESIM_TIME_SCALE": "fast"},
			wantErr: []string{`GKESIM_TIME_SCALE="fast" (--time-scale): not a number`}},
		{name: "seed variable out of range", env: map[string]string{"GKESIM_SEED": "-1"},
			wantErr: []string{`GKESIM_SEED="-1" (--seed): not a number`}},
		{name: "seed flag not a number", args: []string{"--seed", "x"},
			wantErr: []string{`invalid argument "x" for "--seed"`}},
		{name: "start time not RFC 3339", args: []string{"--start-time", "2026-11-02"},
			wantErr: []string{`--start-time "2026-11-02": use RFC 3339, e.g. 2026-11-02T10:00:00Z`}},
		{name: "start time before the epoch's first day", args: []string{"--start-time", "1970-01-01T00:00:00Z"},
			wantErr: []string{`--start-time "1970-01-01T00:00:00Z": start the emulated clock between 1970-01-02T00:00:00Z and 2200-01-01T00:00:00Z`}},
		{name: "start time past 2200", args: []string{"--start-time", "2262-01-01T00:00:00Z"},
			wantErr: []string{`--start-time "2262-01-01T00:00:00Z": start the emulated clock between 1970-01-02T00:00:00Z and 2200-01-01T00:00:00Z`}},
		{name: "listen without a port", env: map[string]string{"GKESIM_LISTEN": "0.0.0.0"},
			wantErr: []string{`GKESIM_LISTEN="0.0.0.0" (--listen): use HOST:PORT`}},
		{name: "listen port out of range", args: []string{"--listen", "127.0.0.1:70000"},
			wantErr: []string{`--listen "127.0.0.1:70000": port "70000" is not a number from 0 to 65535`}},
		{name: "log level", args: []string{"--log-level", "loud"},
			wantErr: []string{`--log-level "loud": use debug, info, warn or error`}},
		{name: "every bad value is reported at once",
			args:    []string{"--log-level", "loud"},
			env:     map[string]string{"GKESIM_TIME_SCALE": "-5", "GKESIM_START_TIME": "tomorrow"},
			wantErr: []string{"--log-level", "GKESIM_TIME_SCALE=", "GKESIM_START_TIME="}},
		{name: "unknown flag", args: []string{"--port", "8790"},
			wantErr: []string{"unknown flag: --port"}},
		{name: "arguments", args: []string{"now"},
			wantErr: []string{`serve takes no arguments, got ["now"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(tt.args, func(k string) string { return tt.env[k] })
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Load(%q) = %+v, want an error containing %q", tt.args, got, tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Load(%q) error:\n%v\nwant it to contain %q", tt.args, err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Load(%q): %v", tt.args, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Load(%q)\n got %+v\nwant %+v", tt.args, got, tt.want)
			}
		})
	}
}

// Every flag but the hidden checkpoint ones and the command-line-only repair has a variable,
// and its help says which.
func TestEveryFlagHasItsVariable(t *testing.T) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	Register(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || commandLineOnly[f.Name] {
			return
		}
		name := EnvName(f.Name)
		want := "GKESIM_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if name != want {
			t.Errorf("--%s: variable %q, want %q", f.Name, name, want)
		}
		if !strings.Contains(f.Usage, "env "+want) {
			t.Errorf("--%s: help %q does not name %s", f.Name, f.Usage, want)
		}
	})
}

// The journal repair is asked for on the command line, for a data directory, and has no variable.
func TestTruncateDamagedJournalNeedsADataDir(t *testing.T) {
	c, err := Load([]string{"--data-dir", "/var/gkesim", "--truncate-damaged-journal"}, func(string) string { return "" })
	if err != nil || !c.TruncateDamagedJournal {
		t.Fatalf("Load = %+v, %v; want the repair asked for", c, err)
	}
	if _, err := Load([]string{"--truncate-damaged-journal"}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "give the data directory") {
		t.Fatalf("Load without --data-dir = %v, want an error asking for it", err)
	}
	if c, _ := Load([]string{"--data-dir", "d"}, func(k string) string { return map[string]string{"GKESIM_TRUNCATE_DAMAGED_JOURNAL": "true"}[k] }); c.TruncateDamagedJournal {
		t.Fatal("the repair was taken from the environment")
	}
}
