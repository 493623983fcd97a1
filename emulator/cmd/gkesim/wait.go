package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// waitPoll is how often `gkesim wait` asks; the emulator starts in milliseconds.
const waitPoll = 100 * time.Millisecond

// waitOptions say what `gkesim wait` waits for.
type waitOptions struct {
	timeout  time.Duration
	addrFile string // read the endpoint from this file (written by serve --addr-file)
	pid      int    // fail at once when this process (the emulator) is gone
}

func newWaitCmd(g *globals) *cobra.Command {
	var o waitOptions
	cmd := &cobra.Command{
		Use:   "wait",
		Short: "Wait until the emulator answers, then print its address",
		Long: `Wait until the emulator at --endpoint (env GKESIM_ENDPOINT), or at the address serve wrote to
--addr-file, answers its health check, and print its address. It fails after --timeout, or at
once when the process --pid names exits first, saying what to do.`,
		Example: `  bin/gkesim serve --listen 127.0.0.1:0 --addr-file "$tmp/addr" >"$tmp/gkesim.log" 2>&1 &
  export GKESIM_ENDPOINT=$(bin/gkesim wait --addr-file "$tmp/addr" --pid $! --timeout 30s)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			endpoint, err := waitReady(cmd.Context(), g, o)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(g.out, endpoint)
			return err
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.timeout, "timeout", 30*time.Second, "give up after this long")
	f.StringVar(&o.addrFile, "addr-file", "", "read the address from `FILE`, as gkesim serve --addr-file writes it, instead of --endpoint")
	f.IntVar(&o.pid, "pid", 0, "the emulator's process id: fail as soon as it has exited (not on Windows)")
	return cmd
}

// waitReady polls until the emulator answers /healthz with 200 and returns its endpoint.
func waitReady(ctx context.Context, g *globals, o waitOptions) (string, error) {
	deadline := time.Now().Add(o.timeout)
	endpoint := ""
	if o.addrFile == "" {
		endpoint = strings.TrimRight(g.endpoint, "/")
	}
	var last error
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		if o.pid != 0 && !processRunning(o.pid) {
			return "", fmt.Errorf("the emulator (pid %d) exited before it answered: its output says why", o.pid)
		}
		if o.addrFile != "" {
			b, err := os.ReadFile(o.addrFile)
			if err == nil {
				endpoint = strings.TrimRight(strings.TrimSpace(string(b)), "/")
			}
		}
		if endpoint != "" {
			err := ping(g, endpoint)
			if err == nil {
				return endpoint, nil
			}
			var ue *unreachableError
			if !errors.As(err, &ue) {
				return "", fmt.Errorf("the emulator at %s answers, but: %w", endpoint, err)
			}
			last = err
		}
		if time.Now().After(deadline) {
			return "", waitTimeout(o, endpoint, last)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-tick.C:
		}
	}
}

// ping asks the emulator's health check, bounding the attempt so that a server that accepts
// but never answers does not hold the wait past its timeout.
func ping(g *globals, endpoint string) error {
	c := g.client()
	c.base = endpoint
	hc := *c.http
	hc.Timeout = 2 * time.Second
	c.http = &hc
	return c.call(http.MethodGet, "/healthz", nil, nil, nil)
}

func waitTimeout(o waitOptions, endpoint string, last error) error {
	if endpoint == "" {
		return fmt.Errorf("no address in %s after %s: start the emulator with `gkesim serve --addr-file %s` (if it is running, its output says why it has not listened)", o.addrFile, o.timeout, o.addrFile)
	}
	why := ""
	var ue *url.Error
	switch {
	case errors.Is(last, syscall.ECONNREFUSED):
		why = " (connection refused)"
	case errors.As(last, &ue):
		why = " (" + ue.Err.Error() + ")"
	}
	return fmt.Errorf("the emulator at %s did not answer within %s%s: start it with `gkesim serve`, or set --endpoint or GKESIM_ENDPOINT to where it listens", endpoint, o.timeout, why)
}
