// Command gkesim runs the GKE emulator (gkesim serve) and talks to a running one: the virtual
// clock, the event log and gcloud-shaped container commands.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Set by the release build.
var version = "dev"

// image is "true" in the container image's build (.goreleaser.yml, kos): the image's entrypoint
// is the bare binary, so there gkesim without arguments runs `serve`, listening on every
// interface of the container (GKESIM_LISTEN or --listen say otherwise).
var image = ""

func main() {
	cmd := newRootCmd(os.Stdout, os.Stderr)
	if image == "true" && len(os.Args) == 1 {
		cmd.SetArgs([]string{"serve"})
	}
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "ERROR:", err)
		os.Exit(1)
	}
}

// globals are the flags every client subcommand shares.
type globals struct {
	endpoint string
	// token is the emulator's auth token (--auth-token, env GKESIM_AUTH_TOKEN), "" for none.
	token   string
	project string
	format  string
	out     io.Writer
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func newRootCmd(out, errOut io.Writer) *cobra.Command {
	g := &globals{out: out}
	root := &cobra.Command{
		Use:           "gkesim",
		Short:         "GKE emulator: serve it, move its clock, watch what it does",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(out)
	root.SetErr(errOut)
	pf := root.PersistentFlags()
	pf.StringVar(&g.endpoint, "endpoint", envOr("GKESIM_ENDPOINT", "http://127.0.0.1:8790"), "emulator address (env GKESIM_ENDPOINT)")
	pf.StringVar(&g.token, "auth-token", "", "the emulator's auth token, sent as Authorization: Bearer (default: env GKESIM_AUTH_TOKEN)")
	pf.StringVar(&g.project, "project", envOr("GKESIM_PROJECT", os.Getenv("CLOUDSDK_CORE_PROJECT")), "project (env GKESIM_PROJECT)")
	pf.StringVar(&g.format, "format", "", "output format: table (lists), yaml (describe), or json")
	root.PersistentPreRun = func(*cobra.Command, []string) {
		if g.token == "" {
			g.token = os.Getenv("GKESIM_AUTH_TOKEN")
		}
	}
	root.AddCommand(newServeCmd(out, errOut), newWaitCmd(g), newClockCmd(g), newEventsCmd(g), newContainerCmd(g), newImportCmd(g), newRehearseCmd(g), newForecastCmd(g))
	return root
}
