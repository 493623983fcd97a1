package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/rehearse"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// `gkesim rehearse upgrade`: run a node-pool upgrade of a cluster on a virtual clock, in a
// simulation of its own, and report what it did.

func newRehearseCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rehearse",
		Short: "Rehearse operations on a copy of a cluster, on a virtual clock, and report what they did",
	}
	cmd.AddCommand(newRehearseUpgradeCmd(g))
	return cmd
}

// compareDefault are the strategies --compare tries when none is given.
var compareDefault = []string{"pool", "surge:3/0", "surge:0/2", "blue-green:25%"}

// rehearseFlags are the flags of rehearse upgrade.
type rehearseFlags struct {
	files                  snapshotFiles
	cluster, pool, version string
	strategies             []string
	compare, automatic     bool
	output                 string
	seed                   uint64
	limit                  time.Duration
	where                  where
}

func newRehearseUpgradeCmd(g *globals) *cobra.Command {
	f := &rehearseFlags{}
	cmd := &cobra.Command{
		Use:   "upgrade --node-pool NP (--cluster C --location L | --cluster-json FILE --objects-json FILE)",
		Short: "Rehearse a node-pool upgrade and report how long it takes, what holds it and what it costs",
		Long: `Rehearse the upgrade of a node pool on a copy of its cluster, in a simulation of its own on a
virtual clock: the cluster in a running emulator (--cluster, imported with gkesim import or
created there), or a snapshot of a real one (--cluster-json and --objects-json, as gkesim import
reads them). Nothing changes in the emulator. The report gives the duration per zone or batch,
every drain with the PodDisruptionBudget that held it and for how long, the pods forced out at
the one-hour limit (or with their grace period capped at 60 minutes when a blue pool is
deleted), the pods left Pending, the peak of extra VMs and the VM-hours, the pauses of a
maintenance window (with --automatic, as GKE's auto-upgrade respects it), and the backends the
load balancers lost and gained.

Strategies (--strategy, repeat with --compare):
  pool                                 the pool's own upgrade settings (the default)
  surge[:MAXSURGE/MAXUNAVAILABLE]      surge, 1/0 unless given
  blue-green[:BATCH][,soak=D][,pool-soak=D]
                                       blue-green; BATCH is a node count or a percentage (25%)
  autoscaled-blue-green[:wait=D]       autoscaled blue-green (the pool must be autoscaled)`,
		Example: `  gkesim rehearse upgrade --cluster shop --location europe-west1 --node-pool default-pool
  gkesim rehearse upgrade --cluster-json cluster.json --objects-json objects.json --node-pool default-pool --automatic
  gkesim rehearse upgrade --cluster shop --location europe-west1 --node-pool default-pool \
      --compare --strategy surge:1/0 --strategy surge:3/0 --strategy blue-green:25% --format html --output report.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.pool == "" {
				return errors.New("no node pool: pass --node-pool")
			}
			names := f.strategies
			if f.compare && len(names) == 0 {
				names = compareDefault
			}
			if !f.compare && len(names) > 1 {
				return errors.New("several --strategy values need --compare, which rehearses the upgrade under each of them")
			}
			var strategies []rehearse.Strategy
			for _, n := range names {
				s, err := rehearse.ParseStrategy(n)
				if err != nil {
					return err
				}
				strategies = append(strategies, s)
			}
			snap, err := f.snapshot(g)
			if err != nil {
				return err
			}
			o := rehearse.Options{Pool: f.pool, Version: f.version, Automatic: f.automatic, Seed: f.seed, Limit: f.limit}
			if loc, err := f.where.get(); err == nil {
				o.Location = loc
			}
			if g.project != "" {
				o.Project = g.project
			}
			var reports []*rehearse.Report
			if f.compare {
				if reports, err = rehearse.Compare(snap, o, strategies); err != nil {
					return err
				}
			} else {
				if len(strategies) == 1 {
					o.Strategy = strategies[0]
				}
				r, err := rehearse.Run(snap, o)
				if err != nil {
					return err
				}
				reports = []*rehearse.Report{r}
			}
			return g.writeReportsTo(f.output, f.compare, reports)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.cluster, "cluster", "", "the cluster in the running emulator to rehearse on")
	f.where.flags(fl, "")
	fl.StringVar(&f.files.cluster, "cluster-json", "", "a snapshot's cluster, as `gcloud container clusters describe --format json` prints it")
	fl.StringArrayVar(&f.files.objects, "objects-json", nil, "a snapshot's objects, as `kubectl get ... -A -o json` prints them (repeatable)")
	fl.StringVar(&f.files.snapshotTime, "snapshot-time", "", "when the snapshot was taken, RFC 3339 (default: the newest time in it)")
	fl.StringVar(&f.pool, "node-pool", "", "the node pool to upgrade")
	fl.StringVar(&f.version, "version", "", "the version to upgrade to (default: the control plane's)")
	fl.StringArrayVar(&f.strategies, "strategy", nil, "the upgrade strategy (default: the pool's own; see above)")
	fl.BoolVar(&f.compare, "compare", false, "rehearse under each --strategy (default: "+strings.Join(compareDefault, ", ")+") and compare")
	fl.BoolVar(&f.automatic, "automatic", false, "rehearse GKE's auto-upgrade, which waits for the maintenance window and pauses when it closes")
	fl.StringVar(&f.output, "output", "", "write the report to this file")
	fl.Uint64Var(&f.seed, "seed", 1, "the simulation's seed (the same seed gives the same rehearsal)")
	fl.DurationVar(&f.limit, "limit", 60*24*time.Hour, "the longest emulated time the upgrade may take")
	cmd.PreRunE = func(*cobra.Command, []string) error {
		if f.files.given() == (f.cluster != "") {
			return errors.New("rehearse on a cluster of the running emulator (--cluster with --location) or on a snapshot (--cluster-json and --objects-json), one of the two")
		}
		return nil
	}
	return cmd
}

// snapshot reads the snapshot to rehearse on: the files, or the cluster as the running
// emulator serves it (its GKE JSON and its objects, as gcloud and kubectl would print them, at
// the emulator's current time).
func (f *rehearseFlags) snapshot(g *globals) (*sim.Snapshot, error) {
	var req *api.ImportClusterRequest
	var err error
	if f.files.given() {
		req, err = f.files.request()
	} else {
		loc, lerr := f.where.get()
		if lerr != nil {
			return nil, lerr
		}
		req, err = exportCluster(g, f.cluster, loc)
	}
	if err != nil {
		return nil, err
	}
	return sim.ReadSnapshot(req)
}

// writeReportsTo writes the reports in the --format asked for, to the file output (saying so)
// or, without one, to the command's output.
func (g *globals) writeReportsTo(output string, compare bool, reports []*rehearse.Report) error {
	out := g.out
	if output != "" {
		file, err := os.Create(output)
		if err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	if err := writeReports(out, g.format, compare, reports); err != nil {
		return err
	}
	if output != "" {
		fmt.Fprintf(g.out, "wrote %s\n", output)
	}
	return nil
}

// writeReports writes the reports in a format.
func writeReports(out io.Writer, format string, compare bool, reports []*rehearse.Report) error {
	switch format {
	case "", "text":
		if compare {
			if err := rehearse.WriteComparison(out, reports); err != nil {
				return err
			}
		}
		for i, r := range reports {
			if i > 0 || compare {
				fmt.Fprintln(out)
			}
			if err := r.WriteText(out); err != nil {
				return err
			}
		}
		return nil
	case "json":
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if compare {
			return enc.Encode(reports)
		}
		return enc.Encode(reports[0])
	case "html":
		return rehearse.WriteHTML(out, reports...)
	}
	return fmt.Errorf("unknown --format %q: text, json or html", format)
}

// exportCluster reads a cluster of the running emulator as gcloud and kubectl would print it.
func exportCluster(g *globals, cluster, location string) (*api.ImportClusterRequest, error) {
	if g.project == "" {
		return nil, errors.New("no project: pass --project or set GKESIM_PROJECT")
	}
	c := g.client()
	get := func(path string) ([]byte, error) {
		req, err := http.NewRequest("GET", c.base+path, nil)
		if err != nil {
			return nil, err
		}
		c.authorize(req)
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, c.unreachable(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 300 {
			var eb api.ErrorBody
			if json.Unmarshal(b, &eb) == nil && eb.Error != nil {
				return nil, fmt.Errorf("(%s) %s", eb.Error.Status, eb.Error.Message)
			}
			return nil, fmt.Errorf("GET %s: HTTP %d: %s", path, resp.StatusCode, strings.TrimSpace(string(b)))
		}
		return b, nil
	}
	var clock api.Clock
	if err := c.call("GET", "/emulator/v1/clock", nil, nil, &clock); err != nil {
		return nil, err
	}
	key := "projects/" + g.project + "/locations/" + location + "/clusters/" + cluster
	cj, err := get("/v1/" + key)
	if err != nil {
		return nil, err
	}
	var docs [][]byte
	for _, p := range []string{"/api/v1/nodes", "/api/v1/pods", "/apis/apps/v1/deployments", "/apis/apps/v1/replicasets",
		"/apis/apps/v1/statefulsets", "/apis/apps/v1/daemonsets", "/apis/policy/v1/poddisruptionbudgets", "/api/v1/services", "/api/v1/namespaces"} {
		b, err := get("/k8s/" + key + p)
		if err != nil {
			return nil, err
		}
		docs = append(docs, b)
	}
	objects, err := compactObjects(docs)
	if err != nil {
		return nil, err
	}
	now, err := time.Parse(time.RFC3339Nano, clock.Now)
	if err != nil {
		return nil, err
	}
	return &api.ImportClusterRequest{Cluster: cj, Objects: objects, SnapshotTime: now.UTC().Truncate(time.Second).Format(time.RFC3339)}, nil
}
