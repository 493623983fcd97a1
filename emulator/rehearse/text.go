package rehearse

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// The report for the terminal.

// clock prints a time of the rehearsal; a day after the upgrade was asked for, with its date.
func clock(t, ref time.Time) string {
	if t.IsZero() {
		return "-"
	}
	if t.Sub(ref) >= 24*time.Hour || t.Day() != ref.Day() {
		return t.UTC().Format("Jan 2 15:04:05")
	}
	return t.UTC().Format("15:04:05")
}

// human prints a duration to the second.
func human(d time.Duration) string {
	d = d.Round(time.Second)
	if d == 0 {
		return "0s"
	}
	return d.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// listOf shows the first few of a list, and how many more.
func listOf(items []string, limit int) string {
	if len(items) <= limit {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:limit], ", ") + fmt.Sprintf(" and %d more", len(items)-limit)
}

// WriteText writes the report for a terminal.
func (r *Report) WriteText(out io.Writer) error {
	var b strings.Builder
	ref := r.Requested
	kind := "Manual"
	if r.Automatic {
		kind = "Automatic (respects the maintenance policy)"
	}
	what, taken := "Rehearsal", "Snapshot taken"
	if r.Forecast {
		what, taken = "Forecast", "Forecast from the cluster as it was at"
	}
	if !r.RecreatesNodes && len(r.Reasons) > 0 {
		fmt.Fprintf(&b, "%s of a change of node pool %s of cluster %s (%s)\n  %s\n", what, r.Pool, r.Cluster, r.Location, strings.Join(r.Reasons, "; "))
		if r.Started.IsZero() { // nothing happens to the nodes
			_, err := io.WriteString(out, b.String())
			return err
		}
		fmt.Fprintf(&b, "  Change: %s\n", r.Strategy)
		fmt.Fprintf(&b, "  %s %s; change asked for at %s\n", taken, r.SnapshotTime.UTC().Format(time.RFC3339), ref.UTC().Format(time.RFC3339))
	} else {
		fmt.Fprintf(&b, "%s of the upgrade of node pool %s of cluster %s (%s)\n", what, r.Pool, r.Cluster, r.Location)
		fmt.Fprintf(&b, "  %s upgrade from %s to %s (control plane %s)\n", kind, strings.Join(r.From, ", "), r.To, r.Control)
		if len(r.Reasons) > 0 {
			fmt.Fprintf(&b, "  Nodes recreated: %s\n", strings.Join(r.Reasons, "; "))
		}
		fmt.Fprintf(&b, "  Strategy: %s\n", r.Strategy)
		fmt.Fprintf(&b, "  %s %s; upgrade asked for at %s\n", taken, r.SnapshotTime.UTC().Format(time.RFC3339), ref.UTC().Format(time.RFC3339))
	}
	switch {
	case !r.RecreatesNodes && r.Finished:
		fmt.Fprintf(&b, "  Done: the operation took %s (%s to %s)\n", human(r.Duration()), clock(r.Started, ref), clock(r.Done, ref))
	case r.Finished:
		fmt.Fprintf(&b, "  Done: %s of %s in %s (%s to %s)\n", plural(r.Nodes, "node", "nodes"), r.Pool, human(r.Duration()), clock(r.Started, ref), clock(r.Done, ref))
	case r.Started.IsZero():
		fmt.Fprintf(&b, "  NOT STARTED within the rehearsal's limit\n")
	default:
		fmt.Fprintf(&b, "  NOT DONE within the rehearsal's limit: it ran %s from %s\n", human(r.Duration()), clock(r.Started, ref))
	}

	if len(r.Pauses) > 0 {
		fmt.Fprintf(&b, "\nMaintenance policy\n")
		for _, p := range r.Pauses {
			what := fmt.Sprintf("paused after %d nodes", p.Done)
			if p.BeforeStart {
				what = "waited to begin"
			}
			until := "until the end of the rehearsal"
			if !p.Until.IsZero() {
				until = fmt.Sprintf("until %s (%s)", clock(p.Until, ref), human(p.Until.Sub(p.From)))
			}
			fmt.Fprintf(&b, "  %s from %s %s: %s\n", what, clock(p.From, ref), until, p.Why)
		}
	}

	if len(r.Zones) > 0 {
		fmt.Fprintf(&b, "\nZones (one at a time)\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, z := range r.Zones {
			fmt.Fprintf(tw, "  %s\t%s - %s\t%s\t%s\n", z.Zone, clock(z.Start, ref), clock(z.End, ref), human(dur(z.DurationSeconds)), plural(z.Nodes, "node", "nodes"))
		}
		tw.Flush()
	}
	if len(r.Phases) > 0 {
		fmt.Fprintf(&b, "\nPhases\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, p := range r.Phases {
			fmt.Fprintf(tw, "  %s\t%s - %s\t%s\n", p.Phase, clock(p.Start, ref), clock(p.End, ref), human(dur(p.DurationSeconds)))
		}
		tw.Flush()
	}
	if len(r.Batches) > 0 {
		fmt.Fprintf(&b, "\nBatches\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, bt := range r.Batches {
			fmt.Fprintf(tw, "  batch %d\t%s\t%s - %s\tdrained in %s\tsoak %s\n", bt.Batch, plural(len(bt.Nodes), "node", "nodes"),
				clock(bt.Start, ref), clock(bt.Drained, ref), human(dur(bt.DurationSeconds)), human(dur(bt.SoakSeconds)))
		}
		tw.Flush()
	}

	held := r.HeldDrains()
	fmt.Fprintf(&b, "\nDrains: %d, %d held by a PodDisruptionBudget\n", len(r.Drains), held)
	drains := append([]*Drain(nil), r.Drains...)
	sort.SliceStable(drains, func(i, j int) bool { return drains[i].DurationSeconds > drains[j].DurationSeconds })
	shown := 0
	for _, d := range drains {
		if len(d.Holds) == 0 && d.Forced == 0 {
			continue
		}
		if shown == 15 {
			fmt.Fprintf(&b, "  ... and %d more held drains (see --format json)\n", held-shown)
			break
		}
		shown++
		what := fmt.Sprintf("%d evicted, %d forced", d.Evicted, d.Forced)
		if d.Deleting {
			what = fmt.Sprintf("%d deleted with the blue pool", d.Forced)
		}
		fmt.Fprintf(&b, "  %s (%s) from %s, %s: %s\n", d.Node, d.Zone, clock(d.Start, ref), human(dur(d.DurationSeconds)), what)
		for _, h := range d.Holds {
			fmt.Fprintf(&b, "    held %s by %s (%s), %s\n", human(dur(h.DurationSeconds)), h.PDB, listOf(shortPods(h.Pods), 3), holdEnd[h.Ended])
		}
	}
	if len(r.PDBs) > 0 {
		fmt.Fprintf(&b, "\nPodDisruptionBudgets that held the upgrade\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, p := range r.PDBs {
			fmt.Fprintf(tw, "  %s\t%s\t%s in all\tlongest %s\t%d forced at the 1 h timeout\n", p.PDB, plural(p.Drains, "drain", "drains"),
				human(dur(p.TotalSeconds)), human(dur(p.LongestSeconds)), p.ForcedAtTimeout)
		}
		tw.Flush()
	}

	fmt.Fprintf(&b, "\nPods forced out: %d\n", len(r.Forced))
	for _, why := range []struct{ key, text string }{
		{ForcedPDBTimeout, "deleted when the 1 h PodDisruptionBudget timeout passed"},
		{ForcedDeadline, "still terminating at the drain's deadline, killed"},
		{ForcedGraceCapped, "deleted with the blue pool, grace period capped at 60 minutes"},
		{ForcedBlueDeletion, "deleted with the blue pool (no eviction, PDBs ignored)"},
	} {
		var pods []string
		for _, f := range r.Forced {
			if f.Why == why.key {
				s := shortPod(f.Pod)
				if f.OwnGrace != "" {
					s += fmt.Sprintf(" (grace %s cut to %s)", f.OwnGrace, f.Grace)
				}
				pods = append(pods, s)
			}
		}
		if len(pods) > 0 {
			fmt.Fprintf(&b, "  %d %s: %s\n", len(pods), why.text, listOf(pods, 6))
		}
	}

	fmt.Fprintf(&b, "\nPods Pending: %d waited for a node, at most %d at once; %d left Pending at the end\n", len(r.Pending), r.PeakPending, len(r.LeftPending))
	pending := append([]*PendingPod(nil), r.Pending...)
	sort.SliceStable(pending, func(i, j int) bool { return pending[i].DurationSeconds > pending[j].DurationSeconds })
	for i, p := range pending {
		if i == 5 {
			break
		}
		fmt.Fprintf(&b, "  %s waited %s: %s\n", shortPod(p.Pod), human(dur(p.DurationSeconds)), p.Reason)
	}
	for i, p := range r.LeftPending {
		if i == 5 {
			fmt.Fprintf(&b, "  ... and %d more left Pending\n", len(r.LeftPending)-5)
			break
		}
		fmt.Fprintf(&b, "  left Pending: %s: %s\n", shortPod(p.Pod), p.Reason)
	}

	v := r.VMs
	fmt.Fprintf(&b, "\nVMs of the pool: %d before, peak %d (+%d extra) at %s; %.1f VM-hours, %.1f extra", v.Before, v.Peak, v.PeakExtra, clock(v.PeakAt, ref), v.VMHours, v.ExtraHours)
	if v.ExtraCostUSD > 0 {
		fmt.Fprintf(&b, " (about $%.2f at list price)", v.ExtraCostUSD)
	}
	b.WriteString("\n")

	if len(r.LoadBalancers) > 0 {
		fmt.Fprintf(&b, "\nLoad balancer backends\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, l := range r.LoadBalancers {
			fmt.Fprintf(tw, "  %s\t%d added\t%d removed\t%s\n", l.Service, l.Added, l.Removed, plural(l.Syncs, "sync", "syncs"))
		}
		tw.Flush()
	}
	if im := r.Import; im != nil && len(im.Approximations)+len(im.NotSimulated)+len(im.Warnings) > 0 {
		fmt.Fprintf(&b, "\nImport: %d approximations, %d kinds of objects not simulated, %d warnings (gkesim import prints them; --format json has them)\n",
			len(im.Approximations), len(im.NotSimulated), len(im.Warnings))
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// holdEnd says how a hold ended.
var holdEnd = map[string]string{
	"evicted":          "then evicted",
	ForcedPDBTimeout:   "then deleted at the 1 h timeout",
	ForcedDeadline:     "then killed at the drain's deadline",
	ForcedBlueDeletion: "then deleted with the blue pool",
	ForcedGraceCapped:  "then deleted with the blue pool",
	"held":             "still held when the rehearsal ended",
}

func shortPods(pods []string) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = shortPod(p)
	}
	return out
}

// WriteComparison writes reports of the same upgrade side by side.
func WriteComparison(out io.Writer, reports []*Report) error {
	if len(reports) == 0 {
		return nil
	}
	r0 := reports[0]
	fmt.Fprintf(out, "Upgrade of node pool %s of cluster %s from %s to %s, under %d strategies\n\n", r0.Pool, r0.Cluster, strings.Join(r0.From, ", "), r0.To, len(reports))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(r *Report) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, r := range reports {
			fmt.Fprintf(tw, "%s\t", cell(r))
		}
		fmt.Fprintln(tw)
	}
	row("", func(r *Report) string { return strategyLabel(r) })
	row("duration", func(r *Report) string {
		if !r.Finished {
			return "not done"
		}
		return human(r.Duration())
	})
	row("nodes", func(r *Report) string { return fmt.Sprint(r.Nodes) })
	row("drains held by a PDB", func(r *Report) string { return fmt.Sprint(r.HeldDrains()) })
	row("longest hold", func(r *Report) string {
		longest := 0.0
		for _, p := range r.PDBs {
			longest = max(longest, p.LongestSeconds)
		}
		return human(dur(longest))
	})
	row("forced at the 1 h timeout", func(r *Report) string { return fmt.Sprint(r.ForcedBy(ForcedPDBTimeout) + r.ForcedBy(ForcedDeadline)) })
	row("deleted with the blue pool", func(r *Report) string {
		return fmt.Sprint(r.ForcedBy(ForcedBlueDeletion) + r.ForcedBy(ForcedGraceCapped))
	})
	row("pods that waited for a node", func(r *Report) string { return fmt.Sprint(len(r.Pending)) })
	row("most Pending at once", func(r *Report) string { return fmt.Sprint(r.PeakPending) })
	row("left Pending", func(r *Report) string { return fmt.Sprint(len(r.LeftPending)) })
	row("peak extra VMs", func(r *Report) string { return fmt.Sprint(r.VMs.PeakExtra) })
	row("extra VM-hours", func(r *Report) string { return fmt.Sprintf("%.1f", r.VMs.ExtraHours) })
	row("extra cost (list price)", func(r *Report) string { return fmt.Sprintf("$%.2f", r.VMs.ExtraCostUSD) })
	row("window pauses", func(r *Report) string { return fmt.Sprint(len(r.Pauses)) })
	row("LB backends added/removed", func(r *Report) string {
		a, d := r.LBTotals()
		return fmt.Sprintf("%d/%d", a, d)
	})
	return tw.Flush()
}

// strategyLabel is a short name of a report's strategy for a column head.
func strategyLabel(r *Report) string {
	if r.Label != "" {
		return r.Label
	}
	return shortSettings(r.Settings)
}
