package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// Upgrade control and a live view of an upgrade, shaped like gcloud's
// `container node-pools rollback|complete-upgrade` (upgrade-status has no gcloud twin).

// poolFlags are the flags that name a node pool: --cluster and the location.
type poolFlags struct {
	where
	cluster string
}

func (f *poolFlags) register(cmd *cobra.Command) {
	f.flags(cmd.Flags(), "")
	cmd.Flags().StringVar(&f.cluster, "cluster", "", "the node pool's cluster")
	cmd.MarkFlagRequired("cluster")
}

// paths returns the location's API path and the node pool's.
func (f *poolFlags) paths(g *globals, pool string) (string, string, error) {
	loc, err := f.get()
	if err != nil {
		return "", "", err
	}
	base, err := g.projectPath(loc)
	if err != nil {
		return "", "", err
	}
	return base, base + "/clusters/" + f.cluster + "/nodePools/" + pool, nil
}

func newRollbackCmd(g *globals) *cobra.Command {
	var f poolFlags
	var respectPDB, async bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "rollback NAME",
		Short: "Roll back a cancelled or failed node pool upgrade",
		Long: `Roll back a node pool upgrade that was cancelled or failed (nodePools.rollback).

Surge: the nodes already upgraded go back to the previous configuration; nodes never upgraded
are not touched; a finished upgrade cannot be rolled back.
Blue-green: the blue pool is uncordoned and the green pool drained and deleted, from whatever
phase the upgrade paused in; cancel a running upgrade first. Autoscaled blue-green upgrades
cannot be rolled back.

Drains ignore PodDisruptionBudgets unless --respect-pdb is given (GKE's default).

More: https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-surge-9
      https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-bg-7`,
		Example: `  gkesim container operations cancel OPERATION --location us-central1
  gkesim container node-pools rollback pool-a --cluster demo --location us-central1 --respect-pdb`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			base, pool, err := f.paths(g, args[0])
			if err != nil {
				return err
			}
			var op api.Operation
			if err := g.client().call("POST", pool+":rollback", nil, &api.RollbackNodePoolUpgradeRequest{RespectPdb: respectPDB}, &op); err != nil {
				return err
			}
			fmt.Fprintf(g.out, "Rolling back node pool %s: operation %s.\n", args[0], op.Name)
			if async {
				return nil
			}
			return g.waitOperation(cmd.Context(), base, op.Name, timeout, true)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&respectPDB, "respect-pdb", false, "drain nodes respecting PodDisruptionBudgets")
	cmd.Flags().BoolVar(&async, "async", false, "return at once instead of waiting for the rollback")
	cmd.Flags().DurationVar(&timeout, "timeout", 20*time.Minute, "give up waiting after this much wall time")
	return cmd
}

func newCompleteUpgradeCmd(g *globals) *cobra.Command {
	var f poolFlags
	cmd := &cobra.Command{
		Use:   "complete-upgrade NAME",
		Short: "Skip the rest of a blue-green upgrade's soak and delete the blue pool now",
		Long: `Complete a blue-green upgrade in its NODE_POOL_SOAKING phase (nodePools.completeUpgrade): the rest
of the soak is skipped and the blue pool's deletion starts at once. Other phases and
strategies are refused. More: https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-bg-7`,
		Example: `  gkesim container node-pools complete-upgrade pool-a --cluster demo --location us-central1`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			_, pool, err := f.paths(g, args[0])
			if err != nil {
				return err
			}
			if err := g.client().call("POST", pool+":completeUpgrade", nil, &api.CompleteNodePoolUpgradeRequest{}, nil); err != nil {
				return err
			}
			fmt.Fprintf(g.out, "Completing the upgrade of node pool %s: the soak is over and the blue pool is being deleted.\n", args[0])
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

// waitOperation polls an operation until it is done, printing its detail as it changes when
// progress is set.
func (g *globals) waitOperation(ctx context.Context, base, name string, timeout time.Duration, progress bool) error {
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		var op api.Operation
		if err := g.client().call("GET", base+"/operations/"+name, nil, nil, &op); err != nil {
			return err
		}
		if progress && op.Detail != "" && op.Detail != last {
			fmt.Fprintln(g.out, op.Detail)
			last = op.Detail
		}
		if op.Status == api.OpStatusDone {
			if op.StatusMessage != "" {
				return fmt.Errorf("operation %s failed: %s", op.Name, op.StatusMessage)
			}
			fmt.Fprintf(g.out, "Operation %s (%s) is done.\n", op.Name, op.OperationType)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("operation %s is still %s after %s (%s)", op.Name, op.Status, timeout, op.Detail)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// upgradeStatus is where a node pool's upgrade is (the --format json/yaml shape).
type upgradeStatus struct {
	NodePool   string `json:"nodePool"`
	Cluster    string `json:"cluster"`
	Location   string `json:"location"`
	Strategy   string `json:"strategy"`
	Settings   string `json:"settings"`
	InProgress bool   `json:"inProgress"`
	// Paused: a cancelled blue-green upgrade waiting to be resumed or rolled back (R-BG-7).
	Paused                bool   `json:"paused"`
	Phase                 string `json:"phase,omitempty"`
	Zone                  string `json:"zone,omitempty"`
	TargetVersion         string `json:"targetVersion,omitempty"`
	Operation             string `json:"operation,omitempty"`
	StartTime             string `json:"startTime,omitempty"`
	ETA                   string `json:"eta,omitempty"`
	Detail                string `json:"detail,omitempty"`
	NodesDone             int64  `json:"nodesDone"`
	NodesTotal            int64  `json:"nodesTotal"`
	BluePoolDeletionStart string `json:"bluePoolDeletionStartTime,omitempty"`
	Now                   string `json:"now"`
	// LastUpgrade is the pool's last finished upgrade, when none runs.
	LastUpgrade *finishedUpgrade `json:"lastUpgrade,omitempty"`
	// Zones counts the pool's Ready nodes per zone and version.
	Zones map[string]map[string]int `json:"zones"`
}

// finishedUpgrade is an UPGRADE_NODES operation that is done.
type finishedUpgrade struct {
	Operation string `json:"operation"`
	StartTime string `json:"startTime"`
	EndTime   string `json:"endTime"`
	// Detail says what was done: nodes upgraded and how long, or that it was cancelled.
	Detail string `json:"detail,omitempty"`
	Error  string `json:"error,omitempty"`
}

var (
	waitRE    = regexp.MustCompile(`(waiting for a maintenance window|paused outside the maintenance window) \(until [^)]+\)`)
	etaRE     = regexp.MustCompile(`; ETA (\S+)$`)
	versionRE = regexp.MustCompile(`version (\S+) -> ([^\s,;)]+)`)
)

// fetchUpgradeStatus reads a pool, its UPGRADE_NODES operations and its nodes.
func (g *globals) fetchUpgradeStatus(f *poolFlags, name string) (*upgradeStatus, error) {
	base, poolPath, err := f.paths(g, name)
	if err != nil {
		return nil, err
	}
	c := g.client()
	var p api.NodePool
	if err := c.call("GET", poolPath, nil, nil, &p); err != nil {
		return nil, err
	}
	var ops api.ListOperationsResponse
	if err := c.call("GET", base+"/operations", nil, nil, &ops); err != nil {
		return nil, err
	}
	var clock api.Clock
	if err := c.call("GET", "/emulator/v1/clock", nil, nil, &clock); err != nil {
		return nil, err
	}
	loc, _ := f.get()
	var nodes corev1.NodeList
	k8s := "/k8s/projects/" + g.project + "/locations/" + loc + "/clusters/" + f.cluster + "/api/v1/nodes"
	if err := c.call("GET", k8s, url.Values{"labelSelector": {"cloud.google.com/gke-nodepool=" + name}}, nil, &nodes); err != nil {
		return nil, err
	}
	st := &upgradeStatus{NodePool: name, Cluster: f.cluster, Location: loc, Strategy: api.StrategySurge, Now: toSeconds(clock.Now), Zones: map[string]map[string]int{}}
	if us := p.UpgradeSettings; us != nil {
		if us.Strategy != "" {
			st.Strategy = us.Strategy
		}
		st.Settings = describeSettings(us)
	}
	var running, last *api.Operation
	for _, op := range ops.Operations {
		if op.OperationType == api.OpUpgradeNodes && strings.HasSuffix(op.TargetLink, "/clusters/"+f.cluster+"/nodePools/"+name) {
			last = op
			if op.Status != api.OpStatusDone {
				running = op
			}
		}
	}
	var info *api.BlueGreenInfo
	if p.UpdateInfo != nil {
		info = p.UpdateInfo.BlueGreenInfo
	}
	st.InProgress, st.Paused = running != nil, info != nil && running == nil
	if last != nil && running == nil && !st.Paused {
		st.LastUpgrade = &finishedUpgrade{Operation: last.Name, StartTime: toSeconds(last.StartTime), EndTime: toSeconds(last.EndTime),
			Detail: last.Detail, Error: last.StatusMessage}
		if last.Error != nil && last.Error.Message != "" {
			st.LastUpgrade.Error = last.Error.Message
		}
	}
	op := running
	if st.Paused {
		op = last
	}
	if info != nil {
		st.Phase, st.TargetVersion, st.BluePoolDeletionStart = info.Phase, info.GreenPoolVersion, info.BluePoolDeletionStartTime
	}
	if op != nil {
		st.Operation, st.StartTime, st.Detail = op.Name, op.StartTime, op.Detail
		if m := etaRE.FindStringSubmatch(op.Detail); m != nil && running != nil {
			st.ETA = m[1]
		}
		if m := versionRE.FindStringSubmatch(op.Detail); m != nil && st.TargetVersion == "" {
			st.TargetVersion = m[2]
		}
		if op.Progress != nil {
			for _, m := range op.Progress.Metrics {
				switch {
				case m.Name == "nodes done" && m.IntValue != nil:
					st.NodesDone = int64(*m.IntValue)
				case m.Name == "nodes total" && m.IntValue != nil:
					st.NodesTotal = int64(*m.IntValue)
				case m.Name == "zone" && m.StringValue != "done":
					st.Zone = m.StringValue
				}
			}
		}
	}
	// Columns are versions; with nodes of several machine types (a machine-type change) they
	// are version and machine type.
	machines := map[string]bool{}
	for _, n := range nodes.Items {
		if nodeReady(&n) {
			machines[n.Labels["node.kubernetes.io/instance-type"]] = true
		}
	}
	for _, n := range nodes.Items {
		if !nodeReady(&n) {
			continue
		}
		zone := n.Labels["topology.kubernetes.io/zone"]
		if st.Zones[zone] == nil {
			st.Zones[zone] = map[string]int{}
		}
		key := strings.TrimPrefix(n.Status.NodeInfo.KubeletVersion, "v")
		if len(machines) > 1 {
			key += " " + n.Labels["node.kubernetes.io/instance-type"]
		}
		st.Zones[zone][key]++
	}
	return st, nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// describeSettings spells a pool's upgrade settings in a line.
func describeSettings(us *api.UpgradeSettings) string {
	switch us.Strategy {
	case api.StrategyShortLived:
		return "nodes keep running until interrupted; new nodes get the new configuration"
	case api.StrategyBlueGreen:
		bg := us.BlueGreenSettings
		switch {
		case bg == nil:
			return "standard rollout"
		case bg.AutoscaledRolloutPolicy != nil:
			return "autoscaled rollout, wait for drain " + bg.AutoscaledRolloutPolicy.WaitForDrainDuration
		}
		batch := "1 node"
		soak := ""
		if sp := bg.StandardRolloutPolicy; sp != nil {
			switch {
			case sp.BatchPercentage != nil:
				batch = fmt.Sprintf("%g%% of the pool", *sp.BatchPercentage*100)
			case sp.BatchNodeCount != nil:
				batch = fmt.Sprintf("%d nodes", *sp.BatchNodeCount)
			}
			soak = sp.BatchSoakDuration
		}
		return fmt.Sprintf("standard rollout, batches of %s, batch soak %s, node pool soak %s", batch, soak, bg.NodePoolSoakDuration)
	}
	return fmt.Sprintf("maxSurge %d, maxUnavailable %d", us.MaxSurge, us.MaxUnavailable)
}

// render writes the status for people: a summary, then the Ready nodes per zone and version.
func (st *upgradeStatus) render(w io.Writer) {
	state := "no upgrade in progress"
	switch {
	case st.InProgress && strings.HasPrefix(st.Detail, "Cancelling"):
		state = "cancelling: nodes mid-upgrade finish, no new node starts"
	case st.InProgress && waitRE.MatchString(st.Detail):
		state = "upgrade " + waitRE.FindString(st.Detail)
	case st.InProgress:
		state = "upgrade in progress"
	case st.Paused:
		state = "upgrade paused (cancelled): resume it by updating the pool to the same version, or roll it back"
	}
	fmt.Fprintf(w, "Node pool %s (cluster %s, %s) at %s: %s\n", st.NodePool, st.Cluster, st.Location, st.Now, state)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "  %-22s %s\n", k+":", v)
		}
	}
	line("strategy", strings.TrimSpace(st.Strategy+" ("+st.Settings+")"))
	line("phase", st.Phase)
	line("zone", st.Zone)
	line("target version", st.TargetVersion)
	if st.Operation != "" {
		line("operation", fmt.Sprintf("%s (started %s)", st.Operation, toSeconds(st.StartTime)))
	}
	if st.NodesTotal > 0 {
		line("nodes done", fmt.Sprintf("%d/%d", st.NodesDone, st.NodesTotal))
	}
	eta := st.ETA
	if t, err := time.Parse(time.RFC3339, st.ETA); err == nil {
		if now, err := time.Parse(time.RFC3339, st.Now); err == nil && t.After(now) {
			eta += fmt.Sprintf(" (in %s of emulated time)", t.Sub(now).Round(time.Second))
		}
	}
	line("ETA", eta)
	line("blue pool deletion", st.BluePoolDeletionStart)
	if lu := st.LastUpgrade; lu != nil {
		line("last upgrade", fmt.Sprintf("%s, %s to %s", lu.Operation, lu.StartTime, lu.EndTime))
		line("  what it did", lu.Detail)
		line("  error", lu.Error)
	}
	var zones []string
	versions := map[string]bool{}
	for z, vs := range st.Zones {
		zones = append(zones, z)
		for v := range vs {
			versions[v] = true
		}
	}
	sort.Strings(zones)
	var vs []string
	for v := range versions {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ZONE\t"+strings.Join(append(vs, "READY NODES"), "\t"))
	for _, z := range zones {
		row := []string{z}
		total := 0
		for _, v := range vs {
			row = append(row, fmt.Sprint(st.Zones[z][v]))
			total += st.Zones[z][v]
		}
		fmt.Fprintln(tw, strings.Join(append(row, fmt.Sprint(total)), "\t"))
	}
	tw.Flush()
}

func newUpgradeStatusCmd(g *globals) *cobra.Command {
	var f poolFlags
	var watch, next bool
	var timeout, interval time.Duration
	cmd := &cobra.Command{
		Use:   "upgrade-status NAME",
		Short: "Show a node pool's upgrade: strategy, phase, nodes per zone and version, ETA (--watch to follow it)",
		Long: `Show where a node pool's upgrade is: its strategy and settings, the blue-green phase or the
surge zone, nodes done of total, the ETA (emulated time) and, per zone, the Ready nodes on each
version; when none runs, the last finished upgrade and what it did. With --watch it prints the
status again whenever it changes, until no upgrade operation of the pool runs (done, cancelled,
failed), --timeout passes or Ctrl-C. Started when no upgrade runs, --watch shows the last one
and returns; with --next (or for a pool never upgraded) it waits for the next to begin (start
it just before terraform apply).`,
		Example: `  gkesim container node-pools upgrade-status pool-a --cluster demo --location us-central1 --watch`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			deadline := time.Now().Add(timeout)
			last, seen, waitSaid := "", false, false
			first, before := true, "" // before: the last finished upgrade when the watch began
			for {
				st, err := g.fetchUpgradeStatus(&f, args[0])
				if err != nil {
					return err
				}
				var out strings.Builder
				if g.format == "json" || g.format == "yaml" {
					pg := *g
					pg.out = &out
					if err := pg.print(st); err != nil {
						return err
					}
				} else {
					st.render(&out)
				}
				// The clock moves between reads; print again only when something else did.
				keyed := *st
				keyed.Now = ""
				b, _ := json.Marshal(&keyed)
				key := string(b)
				if key != last {
					if last != "" && g.format == "" {
						fmt.Fprintln(g.out)
					}
					fmt.Fprint(g.out, out.String())
					last = key
				}
				if !watch || st.Paused || (!st.InProgress && seen) {
					return nil
				}
				if first {
					if st.LastUpgrade != nil {
						before = st.LastUpgrade.Operation
					}
					first = false
				}
				// Nothing runs: show the last finished upgrade, unless told to wait for the
				// next; an upgrade that began and ended between two reads is the next.
				if !st.InProgress && st.LastUpgrade != nil && (!next || st.LastUpgrade.Operation != before) {
					return nil
				}
				if !st.InProgress && !waitSaid {
					fmt.Fprintln(g.out, "Waiting for an upgrade of node pool "+args[0]+" to start (Ctrl-C to stop)...")
					waitSaid = true
				}
				seen = seen || st.InProgress
				if time.Now().After(deadline) {
					if !st.InProgress {
						return fmt.Errorf("no upgrade of node pool %s started within %s", args[0], timeout)
					}
					return fmt.Errorf("the upgrade of node pool %s is still in progress after %s (%s)", args[0], timeout, st.Detail)
				}
				select {
				case <-ctx.Done():
					if errors.Is(ctx.Err(), context.Canceled) {
						return nil // Ctrl-C: the upgrade goes on
					}
					return ctx.Err()
				case <-time.After(interval):
				}
			}
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "refresh until the upgrade ends")
	cmd.Flags().BoolVar(&next, "next", false, "with --watch, wait for the next upgrade to start even when one has finished before")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Minute, "with --watch, give up after this much wall time")
	cmd.Flags().DurationVar(&interval, "interval", time.Second, "with --watch, how often to refresh (wall time)")
	return cmd
}

// toSeconds shortens an RFC 3339 time with fractional seconds to whole seconds, for reading.
func toSeconds(s string) string {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC().Truncate(time.Second).Format(time.RFC3339)
	}
	return s
}
