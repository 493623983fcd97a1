// Package rehearse rehearses a node-pool upgrade of a real cluster: it imports a snapshot of
// the cluster (sim.ReadSnapshot) into a fresh simulation on a virtual clock, runs the upgrade
// there as GKE would, and reads from the event log what it did: how long it took per zone or
// batch, which PodDisruptionBudgets held which drains and for how long, which pods were forced
// out, which waited for a node, how many extra VMs it took, when a maintenance window paused it,
// and what the load balancers' backends went through. Compare runs the same upgrade under
// several strategies.
package rehearse

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
)

// Options say what to rehearse.
type Options struct {
	// Project and Location place the cluster (default: the snapshot's).
	Project, Location string
	// Pool is the node pool to upgrade.
	Pool string
	// Version is the version to upgrade to (default: the control plane's).
	Version string
	// Strategy replaces the pool's upgrade settings (zero: the pool's own).
	Strategy Strategy
	// Automatic rehearses the upgrade as GKE's node auto-upgrade, which respects the
	// maintenance policy (it waits for a window and pauses when one closes); a manual
	// upgrade does not.
	Automatic bool
	// Seed makes the rehearsal reproducible (jitter, names).
	Seed uint64
	// Settle is how long the imported cluster runs before the upgrade is asked for (default
	// one minute: its pods start, its load balancers sync).
	Settle time.Duration
	// Limit bounds the emulated time the upgrade may take (default 60 days).
	Limit time.Duration
	// KeepLog keeps the rehearsal's event log in the report (Report.Log).
	KeepLog bool
	// Context, when set, stops the rehearsal with its error once it is done (a forecast whose
	// client went away).
	Context context.Context
	// Update is the whole change to make to the pool (a forecast's planned settings: version,
	// machine type, image, disk, upgrade settings), instead of Version and Strategy alone. Not
	// with Automatic, which changes only the version.
	Update *api.UpdateNodePoolRequest
	// Size (nodes per zone) and Autoscaling are a forecast's other changes, one at a time and
	// instead of an upgrade: they recreate no node, but add or drain some.
	Size        *int32
	Autoscaling *api.NodePoolAutoscaling
}

// errNoRecreate says a change recreates none of the pool's nodes.
type errNoRecreate struct{ msg string }

func (e *errNoRecreate) Error() string { return e.msg }

// Strategy is a way to upgrade the pool's nodes.
type Strategy struct {
	// Name is how the user gave it ("" for the pool's own settings).
	Name string
	// Settings are the upgrade settings it stands for (nil: the pool's own).
	Settings *api.UpgradeSettings
}

// ParseStrategy reads a strategy:
//
//	pool                                the pool's own upgrade settings
//	surge[:MAXSURGE/MAXUNAVAILABLE]     surge, 1/0 by default
//	blue-green[:BATCH][,soak=D][,pool-soak=D]
//	                                    BATCH is a node count or a percentage (25%); default 1
//	autoscaled-blue-green[:wait=D]      autoscaled blue-green (the pool needs autoscaling)
func ParseStrategy(s string) (Strategy, error) {
	s = strings.TrimSpace(s)
	kind, params, _ := strings.Cut(s, ":")
	bad := func(format string, args ...any) (Strategy, error) {
		return Strategy{}, fmt.Errorf("strategy %q: %s; strategies are pool, surge[:MAXSURGE/MAXUNAVAILABLE], blue-green[:BATCH[%%]][,soak=DURATION][,pool-soak=DURATION], autoscaled-blue-green[:wait=DURATION]",
			s, fmt.Sprintf(format, args...))
	}
	switch kind {
	case "", "pool":
		if params != "" {
			return bad("pool takes no parameters")
		}
		return Strategy{Name: "pool"}, nil
	case "surge":
		us := &api.UpgradeSettings{Strategy: api.StrategySurge, MaxSurge: 1}
		if params != "" {
			a, b, ok := strings.Cut(params, "/")
			ms, err1 := strconv.Atoi(a)
			mu, err2 := strconv.Atoi(b)
			if !ok || err1 != nil || err2 != nil || ms < 0 || mu < 0 || ms+mu == 0 {
				return bad("give maxSurge/maxUnavailable as two numbers, not both 0, e.g. surge:3/0")
			}
			us.MaxSurge, us.MaxUnavailable = int32(ms), int32(mu)
		}
		return Strategy{Name: fmt.Sprintf("surge %d/%d", us.MaxSurge, us.MaxUnavailable), Settings: us}, nil
	case "blue-green":
		sp := &api.StandardRolloutPolicy{}
		bg := &api.BlueGreenSettings{StandardRolloutPolicy: sp}
		name := "blue-green"
		for i, part := range strings.Split(params, ",") {
			if part == "" {
				continue
			}
			key, val, isKV := strings.Cut(part, "=")
			switch {
			case i == 0 && !isKV && strings.HasSuffix(part, "%"):
				pct, err := strconv.ParseFloat(strings.TrimSuffix(part, "%"), 64)
				if err != nil || pct < 0 || pct > 100 {
					return bad("a batch percentage is 0%% to 100%%")
				}
				f := pct / 100
				sp.BatchPercentage = &f
				name += " " + part + " batches"
			case i == 0 && !isKV:
				n, err := strconv.Atoi(part)
				if err != nil || n < 0 {
					return bad("a batch is a node count or a percentage, e.g. blue-green:2 or blue-green:25%%")
				}
				c := int32(n)
				sp.BatchNodeCount = &c
				name += fmt.Sprintf(" %d-node batches", n)
			case key == "soak" || key == "pool-soak":
				d, err := time.ParseDuration(val)
				if err != nil || d < 0 {
					return bad("%s is a duration such as 10m", key)
				}
				if key == "soak" {
					sp.BatchSoakDuration = api.FormatDuration(d)
					name += ", batch soak " + d.String()
				} else {
					bg.NodePoolSoakDuration = api.FormatDuration(d)
					name += ", pool soak " + d.String()
				}
			default:
				return bad("unknown parameter %q", part)
			}
		}
		return Strategy{Name: name, Settings: &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: bg}}, nil
	case "autoscaled-blue-green":
		ap := &api.AutoscaledRolloutPolicy{}
		name := "autoscaled blue-green"
		if params != "" {
			key, val, _ := strings.Cut(params, "=")
			d, err := time.ParseDuration(val)
			if key != "wait" || err != nil || d < 0 {
				return bad("give the wait for the drain as wait=DURATION, e.g. wait=1h")
			}
			ap.WaitForDrainDuration = api.FormatDuration(d)
			name += ", wait " + d.String()
		}
		return Strategy{Name: name, Settings: &api.UpgradeSettings{Strategy: api.StrategyBlueGreen,
			BlueGreenSettings: &api.BlueGreenSettings{AutoscaledRolloutPolicy: ap}}}, nil
	}
	return bad("unknown kind %q", kind)
}

// describeSettings says what upgrade settings do, in a few words.
func describeSettings(us api.UpgradeSettings) string {
	switch {
	case us.Strategy == api.StrategyShortLived:
		return "short-lived"
	case us.Strategy != api.StrategyBlueGreen:
		return fmt.Sprintf("surge, maxSurge %d, maxUnavailable %d", us.MaxSurge, us.MaxUnavailable)
	}
	bg := us.BlueGreenSettings
	if bg == nil {
		return "blue-green"
	}
	if ap := bg.AutoscaledRolloutPolicy; ap != nil {
		return "autoscaled blue-green, wait for drain " + ap.WaitForDrainDuration
	}
	s := "blue-green"
	if sp := bg.StandardRolloutPolicy; sp != nil {
		switch {
		case sp.BatchPercentage != nil:
			s += fmt.Sprintf(", batches of %g%%", *sp.BatchPercentage*100)
		case sp.BatchNodeCount != nil:
			s += fmt.Sprintf(", batches of %d nodes", *sp.BatchNodeCount)
		}
		s += ", batch soak " + sp.BatchSoakDuration
	}
	return s + ", node pool soak " + bg.NodePoolSoakDuration
}

// shortSettings names upgrade settings in a few characters (a column head).
func shortSettings(us api.UpgradeSettings) string {
	switch {
	case us.Strategy == api.StrategyShortLived:
		return "short-lived"
	case us.Strategy != api.StrategyBlueGreen:
		return fmt.Sprintf("surge %d/%d", us.MaxSurge, us.MaxUnavailable)
	case us.BlueGreenSettings != nil && us.BlueGreenSettings.AutoscaledRolloutPolicy != nil:
		return "autoscaled blue-green"
	}
	return "blue-green"
}

const (
	defaultSettle = time.Minute
	defaultLimit  = 60 * 24 * time.Hour
	// step is how much emulated time runs between two reads of the event log.
	step = 10 * time.Minute
	// after is how long the rehearsal watches once the upgrade is done: replacement pods find
	// nodes, load balancers sync.
	after = 10 * time.Minute
)

// Run rehearses one upgrade of the snapshot's cluster.
func Run(snap *sim.Snapshot, o Options) (*Report, error) {
	if o.Settle == 0 {
		o.Settle = defaultSettle
	}
	w := sim.New(sim.Options{Seed: o.Seed, Start: snap.Time()})
	w.SetFeedFollowed(func(string) bool { return false }) // no client watches a rehearsal
	project := o.Project
	if project == "" && snap.Project() == "" {
		project = "rehearsal"
	}
	sum, err := w.ImportSnapshot(project, o.Location, snap)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(sum.Cluster, "/") // projects/P/locations/L/clusters/C
	project, location, name := parts[1], parts[3], parts[5]
	c := w.Cluster(project, location, name)
	if _, err := poolOf(c, o.Pool); err != nil {
		return nil, err
	}
	w.RunUntil(w.Now().Add(o.Settle))
	return upgradeIn(w, c, o, &Report{SnapshotTime: snap.Time(), Import: sum})
}

// Forecast runs one upgrade of a node pool of a running emulator's cluster on fork, a copy of
// the simulation taken at the instant of the forecast (sim.World.Fork): what the same change
// would do if it were asked for now, in the same words as a rehearsal. Seed is unused: the copy
// goes on with the world's own random sequence, so that the forecast is what the live world
// would do.
func Forecast(fork *sim.World, project, location, cluster string, o Options) (*Report, error) {
	if (o.Size != nil || o.Autoscaling != nil) && (o.Update != nil || o.Automatic || (o.Size != nil && o.Autoscaling != nil)) {
		return nil, errors.New("forecast one change at a time: an update of the pool (version, node settings, upgrade settings), its size, or its autoscaling")
	}
	if o.Automatic && o.Update != nil {
		// GKE's auto-upgrade moves to update.nodeVersion with the given upgrade settings; it
		// changes nothing else.
		u := *o.Update
		if u.MachineType != "" || u.ImageType != "" || u.DiskType != "" || u.DiskSizeGb != 0 || len(u.Locations) > 0 || u.Labels != nil || u.Taints != nil {
			return nil, errors.New("an automatic upgrade changes the version only: leave the machine type, image, disk and other settings out, or forecast a manual change")
		}
		o.Version, o.Update = u.NodeVersion, nil
		if u.UpgradeSettings != nil {
			o.Strategy = Strategy{Name: shortSettings(*u.UpgradeSettings), Settings: u.UpgradeSettings}
		}
	}
	c := fork.Cluster(project, location, cluster)
	if c == nil {
		return nil, fmt.Errorf("there is no cluster %s in %s of project %s", cluster, location, project)
	}
	fork.SetFeedFollowed(func(string) bool { return false }) // no client watches a forecast
	if _, err := poolOf(c, o.Pool); err != nil {
		return nil, err
	}
	if o.Size != nil || o.Autoscaling != nil {
		return resizeIn(fork, c, o, &Report{SnapshotTime: fork.Now(), Forecast: true})
	}
	r, err := upgradeIn(fork, c, o, &Report{SnapshotTime: fork.Now(), Forecast: true})
	var none *errNoRecreate
	if errors.As(err, &none) {
		// A forecast of a change that replaces no node is an answer, not an error.
		p := c.Pool(o.Pool)
		return &Report{Cluster: c.Name, Location: c.Location, Pool: p.Name, Control: c.MasterVersion, SnapshotTime: fork.Now(), Forecast: true,
			Requested: fork.Now(), Settings: p.UpgradeSettings.Clone(), Finished: true, Reasons: []string{none.msg}}, nil
	}
	return r, err
}

// poolOf is cluster c's node pool of that name, or an error naming the pools there are.
func poolOf(c *sim.Cluster, name string) (*sim.NodePool, error) {
	if p := c.Pool(name); p != nil {
		return p, nil
	}
	var names []string
	for _, x := range c.Pools {
		names = append(names, x.Name)
	}
	return nil, fmt.Errorf("cluster %s has no node pool %q (its pools: %s)", c.Name, name, strings.Join(names, ", "))
}

// upgradeIn asks for the upgrade of o.Pool in cluster c of world w, runs the clock until it is
// done (or o.Limit), and fills r from the event log.
func upgradeIn(w *sim.World, c *sim.Cluster, o Options, r *Report) (*Report, error) {
	project, location, name := c.Project, c.Location, c.Name
	p := c.Pool(o.Pool)
	r.Cluster, r.Location, r.Pool, r.Control, r.Automatic, r.Seed, r.Requested = name, location, p.Name, c.MasterVersion, o.Automatic, o.Seed, w.Now()
	nodes, versions := poolNodes(c, p)
	r.From = versions
	version := o.Version
	if version == "" && o.Update == nil {
		version = "-"
	}
	req := &api.UpdateNodePoolRequest{NodeVersion: version, UpgradeSettings: o.Strategy.Settings}
	if o.Update != nil {
		u := *o.Update
		if u.NodeVersion == "" {
			u.NodeVersion = version
		}
		if u.UpgradeSettings == nil {
			u.UpgradeSettings = o.Strategy.Settings
		}
		req = &u
	}
	before := p.Spec
	seq := w.Stats().LastEventSeq
	var op *sim.Operation
	var err error
	switch {
	case o.Automatic && o.Update != nil:
		return nil, errors.New("an automatic upgrade changes the version only: leave the other settings out, or forecast a manual change")
	case o.Automatic:
		op, err = w.StartNodeAutoUpgrade(project, location, name, p.Name, version, o.Strategy.Settings)
	default:
		op, err = w.UpdateNodePool(project, location, name, p.Name, req)
	}
	shown := version
	if version == "-" {
		shown = c.MasterVersion + " (the control plane's)"
	}
	if err != nil {
		if version == "" {
			return nil, fmt.Errorf("the change of node pool %s cannot start: %w", p.Name, err)
		}
		return nil, fmt.Errorf("the upgrade of node pool %s to %s cannot start: %w", p.Name, shown, hint(err, c.MasterVersion))
	}
	if p.Upgrade == nil {
		if o.Update != nil && version == "" {
			return nil, &errNoRecreate{fmt.Sprintf("the change recreates none of node pool %s's nodes: it changes nothing that only a new VM can take", p.Name)}
		}
		return nil, &errNoRecreate{fmt.Sprintf("updating node pool %s to %s changes none of its nodes: they run that version already", p.Name, shown)}
	}
	r.RecreatesNodes = true
	r.Reasons = recreateReasons(before, p.Upgrade.Target)
	r.To = p.Upgrade.Target.Version
	r.Settings = p.UpgradeSettings.Clone()
	r.Strategy, r.Label = describeSettings(r.Settings), o.Strategy.Name
	if o.Strategy.Settings == nil {
		r.Strategy += " (the pool's own settings)"
		r.Label = "pool: " + shortSettings(r.Settings)
	}
	return watch(w, c, p, o, r, nodes, seq, op, func() bool { return op.Status == api.OpStatusDone && p.Upgrade == nil }, after)
}

// watch runs the clock until done says the change is over (or o.Limit), reading the event log
// into r as it goes, then settle longer, and finishes the report.
func watch(w *sim.World, c *sim.Cluster, p *sim.NodePool, o Options, r *Report, nodes map[string]string, seq int64, op *sim.Operation,
	done func() bool, settle time.Duration) (*Report, error) {
	if o.Limit == 0 {
		o.Limit = defaultLimit
	}
	price := 0.0
	if mt, ok := catalog.LookupMachineType(p.Spec.MachineType); ok {
		price = mt.PricePerHour
	}
	if sh := c.MachineShapes[p.Spec.MachineType]; sh != nil {
		price = sh.PricePerHour
	}
	rd := newReader(r, p.Name, nodes, price, p.Spec.Spot || p.Spec.Preemptible)
	read := func() error {
		evs, next := w.Events(sim.EventFilter{AfterSeq: seq})
		if len(evs) > 0 && evs[0].Seq != seq+1 {
			return fmt.Errorf("the rehearsal lost events %d to %d: the event log holds fewer than one step makes", seq+1, evs[0].Seq-1)
		}
		if o.KeepLog {
			r.Log = append(r.Log, evs...)
		}
		for _, ae := range evs {
			e, err := parseEvent(ae)
			if err != nil {
				return err
			}
			if err := rd.read(e); err != nil {
				return err
			}
		}
		r.Events += len(evs)
		seq = next
		return nil
	}
	// run moves the clock to until a step at a time, reading the log after each step.
	run := func(until time.Time, more func() bool) error {
		for more() && w.Now().Before(until) {
			if o.Context != nil && o.Context.Err() != nil {
				return o.Context.Err()
			}
			w.RunUntil(minTime(w.Now().Add(step), until))
			if err := read(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := run(r.Requested.Add(o.Limit), func() bool { return !done() }); err != nil {
		return nil, err
	}
	if op.Status == api.OpStatusDone && op.ErrorCode != 0 {
		return nil, fmt.Errorf("the change of node pool %s failed: %s", p.Name, op.StatusMessage)
	}
	if err := run(w.Now().Add(settle), func() bool { return true }); err != nil {
		return nil, err
	}
	end := w.Now()
	if r.Finished {
		r.DurationSeconds = seconds(r.Done.Sub(r.Started))
	} else if !r.Started.IsZero() {
		r.DurationSeconds = seconds(end.Sub(r.Started))
	}
	rd.finish(end, leftPending(w, c, end))
	return r, nil
}

// hint adds what to do to an upgrade that cannot start.
func hint(err error, master string) error {
	if strings.Contains(err.Error(), "unsupported") || strings.Contains(err.Error(), "newer than the control plane") {
		return fmt.Errorf("%w (leave the version out to rehearse the upgrade to the control plane's version %s: the rehearsal does not depend on the build number)", err, master)
	}
	return err
}

// leftPending lists the pods waiting for a node at the end, with the scheduler's reason.
func leftPending(w *sim.World, c *sim.Cluster, end time.Time) []*PendingPod {
	var out []*PendingPod
	for _, p := range w.ListPods(c, sim.ListOptions{Phase: string(corev1.PodPending)}).Items {
		if p.Spec.NodeName != "" {
			continue
		}
		pp := &PendingPod{Pod: p.Namespace + "/" + p.Name, Since: p.CreationTimestamp.UTC(), DurationSeconds: seconds(end.Sub(p.CreationTimestamp.Time))}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled {
				pp.Reason = cond.Message
			}
		}
		out = append(out, pp)
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Compare rehearses the same upgrade under each strategy, each in a world of its own (in
// parallel), and returns the reports in the strategies' order.
func Compare(snap *sim.Snapshot, o Options, strategies []Strategy) ([]*Report, error) {
	out := make([]*Report, len(strategies))
	errs := make([]error, len(strategies))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, s := range strategies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			oi := o
			oi.Strategy = s
			out[i], errs[i] = Run(snap, oi)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			name := strategies[i].Name
			if name == "" {
				name = "pool"
			}
			return nil, fmt.Errorf("strategy %s: %w", name, err)
		}
	}
	return out, nil
}

// recreateReasons says what of a pool's node settings the change replaces, and so why its
// nodes are recreated.
func recreateReasons(from, to sim.NodeSpec) []string {
	var out []string
	for _, f := range []struct{ what, from, to string }{
		{"version", from.Version, to.Version},
		{"machine type", from.MachineType, to.MachineType},
		{"image type", from.ImageType, to.ImageType},
		{"disk type", from.DiskType, to.DiskType},
		{"disk size (GB)", strconv.Itoa(int(from.DiskSizeGb)), strconv.Itoa(int(to.DiskSizeGb))},
	} {
		if f.from != f.to {
			out = append(out, fmt.Sprintf("%s %s -> %s", f.what, f.from, f.to))
		}
	}
	if from.Settings != to.Settings {
		out = append(out, "node settings only a new VM takes (kubelet or Linux configuration, gVNIC, image streaming, Confidential nodes)")
	}
	return out
}

// resizeIn changes the size or the autoscaling of o.Pool in cluster c of world w and reads what
// follows: nodes added, or drained and deleted, pods that wait for a node. Its duration runs
// from the request to the end of the operation; a change of autoscaling is then watched for an
// hour, the time the autoscaler takes to act on it (a node is removed after 10 minutes
// unneeded).
func resizeIn(w *sim.World, c *sim.Cluster, o Options, r *Report) (*Report, error) {
	p := c.Pool(o.Pool)
	r.Cluster, r.Location, r.Pool, r.Control, r.Requested, r.Started = c.Name, c.Location, p.Name, c.MasterVersion, w.Now(), w.Now()
	r.Settings = p.UpgradeSettings.Clone()
	nodes, _ := poolNodes(c, p)
	r.From, r.To = []string{p.Spec.Version}, p.Spec.Version
	seq := w.Stats().LastEventSeq
	var op *sim.Operation
	var err error
	settle := after
	if o.Size != nil {
		r.Strategy = fmt.Sprintf("resize to %d nodes per zone", *o.Size)
		r.Reasons = []string{fmt.Sprintf("the change recreates no node: it resizes node pool %s to %d nodes per zone (it has %d nodes now)", p.Name, *o.Size, len(nodes))}
		op, err = w.SetNodePoolSize(c.Project, c.Location, c.Name, p.Name, &api.SetNodePoolSizeRequest{NodeCount: *o.Size})
	} else {
		a := o.Autoscaling
		r.Strategy = fmt.Sprintf("autoscaling enabled %v, %d to %d nodes per zone (total %d to %d)", a.Enabled, a.MinNodeCount, a.MaxNodeCount, a.TotalMinNodeCount, a.TotalMaxNodeCount)
		r.Reasons = []string{"the change recreates no node: it changes node pool " + p.Name + "'s autoscaling, and the autoscaler adds or removes nodes by it"}
		op, err = w.SetNodePoolAutoscaling(c.Project, c.Location, c.Name, p.Name, &api.SetNodePoolAutoscalingRequest{Autoscaling: a})
		settle = time.Hour
	}
	if err != nil {
		return nil, fmt.Errorf("the change of node pool %s cannot start: %w", p.Name, err)
	}
	r.Label = r.Strategy
	rep, err := watch(w, c, p, o, r, nodes, seq, op, func() bool { return op.Status == api.OpStatusDone }, settle)
	if err != nil {
		return nil, err
	}
	if op.Status == api.OpStatusDone {
		rep.Finished, rep.Done = true, op.EndTime
		rep.DurationSeconds = seconds(op.EndTime.Sub(rep.Started))
	}
	return rep, nil
}

// poolNodes are pool p's nodes that are not being deleted, by name with their zone, and the
// versions they run, in order.
func poolNodes(c *sim.Cluster, p *sim.NodePool) (map[string]string, []string) {
	nodes := map[string]string{}
	seen := map[string]bool{}
	var versions []string
	for _, n := range c.Nodes {
		if n.Pool == p.Name && n.State != sim.NodeDeleting {
			nodes[n.Name] = n.Zone
			if !seen[n.Spec.Version] {
				seen[n.Spec.Version] = true
				versions = append(versions, n.Spec.Version)
			}
		}
	}
	sort.Strings(versions)
	return nodes, versions
}
