package rehearse

import (
	"regexp"
	"sort"
	"strings"
	"time"
)

// reader builds a Report from the event log of a rehearsal, event by event.
type reader struct {
	r    *Report
	pool string
	// zoneOf: node -> zone, for the pool's nodes (imported ones, then created ones).
	zoneOf map[string]string
	// old: the pool's nodes when the upgrade was asked for.
	old map[string]bool

	drains  map[string]*Drain // open drain by node
	holds   map[string]map[string]*Hold
	podHold map[string]*Hold  // pod -> the hold its refused eviction opened
	podPDB  map[string]string // pod -> budget that last refused its eviction
	pending map[string]*PendingPod
	lanes   map[string]*NodeLane
	lbs     map[string]*LBChanges
	zones   map[string]*ZoneReport
	batches map[int]*BatchReport
	pause   *Pause
	vms     int
	vmSince time.Time
	spot    bool
	price   float64
}

func newReader(r *Report, pool string, nodes map[string]string, price float64, spot bool) *reader {
	rd := &reader{r: r, pool: pool, zoneOf: map[string]string{}, old: map[string]bool{}, drains: map[string]*Drain{},
		holds: map[string]map[string]*Hold{}, podHold: map[string]*Hold{}, podPDB: map[string]string{}, pending: map[string]*PendingPod{},
		lanes: map[string]*NodeLane{}, lbs: map[string]*LBChanges{}, zones: map[string]*ZoneReport{}, batches: map[int]*BatchReport{},
		price: price, spot: spot}
	for _, n := range sortedNames(nodes) {
		rd.zoneOf[n] = nodes[n]
		rd.old[n] = true
		rd.lanes[n] = &NodeLane{Node: n, Zone: nodes[n], Spans: []NodeSpan{{State: "ready", From: r.Requested}}}
	}
	rd.vms = len(nodes)
	rd.vmSince = r.Requested
	r.VMs.Before, r.VMs.Peak, r.VMs.PeakAt = rd.vms, rd.vms, r.Requested
	r.VMs.Samples = []VMSample{{At: r.Requested, VMs: rd.vms}}
	return rd
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// span moves a node's lane to a new state.
func (rd *reader) span(node, state string, at time.Time) {
	l := rd.lanes[node]
	if l == nil {
		return
	}
	if n := len(l.Spans); n > 0 && l.Spans[n-1].To.IsZero() {
		if l.Spans[n-1].State == state {
			return
		}
		l.Spans[n-1].To = at
	}
	if state != "" {
		l.Spans = append(l.Spans, NodeSpan{State: state, From: at})
	}
}

// vmChange adds d VMs at a time (while the upgrade runs: what the autoscaler does after it is
// not its cost).
func (rd *reader) vmChange(d int, at time.Time) {
	if !rd.r.Done.IsZero() {
		return
	}
	rd.accrue(at)
	rd.vms += d
	v := &rd.r.VMs
	v.Samples = append(v.Samples, VMSample{At: at, VMs: rd.vms})
	if rd.vms > v.Peak {
		v.Peak, v.PeakAt = rd.vms, at
	}
}

// accrue adds the VM-hours since the last change.
func (rd *reader) accrue(at time.Time) {
	if at.After(rd.vmSince) {
		h := at.Sub(rd.vmSince).Hours()
		rd.r.VMs.VMHours += h * float64(rd.vms)
		if extra := rd.vms - rd.r.VMs.Before; extra > 0 {
			rd.r.VMs.ExtraHours += h * float64(extra)
		}
		rd.vmSince = at
	}
}

var (
	reStartedNodes = regexp.MustCompile(`started: (\d+) (?:blue )?nodes`)
	reDrainKind    = regexp.MustCompile(`^draining node \S+ \((evicting|deleting)`)
)

// read takes one event.
func (rd *reader) read(e event) error {
	r := rd.r
	ofPool := e.NodePool == rd.pool
	switch e.Type {
	case "UpgradeStarted":
		if !ofPool {
			return nil
		}
		r.Started = e.at
		if m := reStartedNodes.FindStringSubmatch(e.Message); m != nil {
			r.Nodes = atoi(m[1])
		}
		if m := reSurgeStarted.FindStringSubmatch(e.Message); m != nil {
			for _, z := range strings.Fields(m[1]) {
				rd.zones[z] = &ZoneReport{Zone: z}
				r.Zones = append(r.Zones, rd.zones[z])
			}
		}
		rd.endPause(e.at)
	case "UpgradeForced":
		rd.endPause(e.at)
	case "UpgradeDone":
		if ofPool {
			r.Done, r.Finished = e.at, true
			rd.closePhase(e.at)
		}
	case "UpgradeWaiting":
		if !ofPool {
			return nil
		}
		m, err := match(reWaiting, e)
		if err != nil {
			return err
		}
		rd.pause = &Pause{From: e.at, Why: m[1], BeforeStart: true, Until: untilOf(m[2])}
		r.Pauses = append(r.Pauses, rd.pause)
	case "UpgradePaused":
		if !ofPool {
			return nil
		}
		m, err := match(rePaused, e)
		if err != nil {
			return err
		}
		rd.pause = &Pause{From: e.at, Why: m[3], Done: atoi(m[1]), Until: untilOf(m[4])}
		r.Pauses = append(r.Pauses, rd.pause)
	case "UpgradeResumed":
		if ofPool {
			rd.endPause(e.at)
		}
	case "BlueGreenPhase":
		if !ofPool {
			return nil
		}
		m, err := match(rePhase, e)
		if err != nil {
			return err
		}
		rd.closePhase(e.at)
		r.Phases = append(r.Phases, &PhaseReport{Phase: m[1], Start: e.at})
	case "BlueGreenBatch":
		if !ofPool {
			return nil
		}
		return rd.batch(e)
	case "NodeCreating":
		if !ofPool {
			return nil
		}
		m, err := match(reNodeCreating, e)
		if err != nil {
			return err
		}
		rd.zoneOf[m[1]] = m[2]
		rd.lanes[m[1]] = &NodeLane{Node: m[1], Zone: m[2], New: true}
		rd.span(m[1], "creating", e.at)
		rd.vmChange(1, e.at)
		rd.zoneActive(m[2], e.at)
	case "NodeReady":
		if ofPool {
			rd.span(e.Node, "ready", e.at)
			rd.zoneActive(rd.zoneOf[e.Node], e.at)
		}
	case "NodeRecreating":
		if ofPool {
			rd.span(e.Node, "recreating", e.at)
		}
	case "NodeCordoned":
		if ofPool {
			rd.span(e.Node, "cordoned", e.at)
			rd.zoneActive(rd.zoneOf[e.Node], e.at)
		}
	case "NodeDraining":
		if !ofPool || !rd.old[e.Node] || !r.Done.IsZero() {
			return nil // only the drains of the upgrade: of the nodes it replaces, while it runs
		}
		m, err := match(reDrainKind, e)
		if err != nil {
			return err
		}
		d := &Drain{Node: e.Node, Zone: rd.zoneOf[e.Node], Start: e.at}
		rd.drains[e.Node] = d
		r.Drains = append(r.Drains, d)
		if m[1] == "evicting" {
			rd.span(e.Node, "draining", e.at)
		} else {
			d.Deleting = true
			rd.span(e.Node, "deleting pods", e.at)
		}
		if z := rd.zones[d.Zone]; z != nil && rd.old[e.Node] {
			z.Nodes++
		}
		rd.zoneActive(d.Zone, e.at)
	case "EvictionBlocked":
		if !ofPool {
			return nil
		}
		m, err := match(reEvictionBlocked, e)
		if err != nil {
			return err
		}
		rd.hold(e.Node, m[1], m[2], e.at)
	case "PodEvicted":
		if e.NodePool == "" || !ofPool {
			return nil // evictions through the API are the user's
		}
		m, err := twoTokens(e, "evicted pod ", " from ", " (grace ", false) // rePodEvicted
		if err != nil {
			return err
		}
		if d := rd.drains[m[2]]; d != nil {
			d.Evicted++
		}
		rd.released(m[1], e.at, "evicted")
	case "PodDeleted":
		if e.NodePool == "" || !ofPool {
			return nil // deletions through the API are the user's
		}
		m, err := match(rePodDeleted, e)
		if err != nil {
			return err
		}
		f := &ForcedPod{Pod: m[1], Node: m[2], At: e.at, Why: ForcedBlueDeletion, PDB: rd.podPDB[m[1]], Grace: m[4], OwnGrace: m[5]}
		switch {
		case m[3] != "":
			f.Why = ForcedPDBTimeout
		case m[5] != "":
			f.Why = ForcedGraceCapped
		}
		rd.forced(f, e.at)
	case "PodKilled":
		if !ofPool {
			return nil
		}
		m, err := match(rePodKilled, e)
		if err != nil {
			return err
		}
		rd.forced(&ForcedPod{Pod: m[1], Node: m[2], At: e.at, Why: ForcedDeadline, PDB: rd.podPDB[m[1]]}, e.at)
	case "NodeDrained":
		if !ofPool {
			return nil
		}
		if d := rd.drains[e.Node]; d != nil {
			d.End, d.Finished = e.at, true
			d.DurationSeconds = seconds(e.at.Sub(d.Start))
			delete(rd.drains, e.Node)
		}
		rd.span(e.Node, "drained", e.at)
	case "NodeDeleting":
		if ofPool {
			rd.span(e.Node, "deleting", e.at)
		}
	case "NodeDeleted":
		if !ofPool {
			return nil
		}
		rd.span(e.Node, "", e.at)
		rd.vmChange(-1, e.at)
		rd.zoneActive(rd.zoneOf[e.Node], e.at)
	case "FailedScheduling":
		m, err := match(reFailedSched, e)
		if err != nil {
			return err
		}
		if p := rd.pending[m[1]]; p != nil {
			p.Reason = m[2]
			return nil
		}
		rd.pending[m[1]] = &PendingPod{Pod: m[1], Since: e.at, Reason: m[2]}
		r.Pending = append(r.Pending, rd.pending[m[1]])
		r.PeakPending = max(r.PeakPending, len(rd.pending))
	case "Scheduled":
		m, err := twoTokens(e, "pod ", " scheduled to ", "", true) // reScheduled
		if err != nil {
			return err
		}
		if p := rd.pending[m[1]]; p != nil {
			p.Until = e.at
			p.DurationSeconds = seconds(e.at.Sub(p.Since))
			delete(rd.pending, m[1])
		}
	case "LoadBalancerBackendsSynced":
		if !r.Done.IsZero() {
			return nil // the upgrade's changes only
		}
		m, err := match(reLBSynced, e)
		if err != nil {
			return err
		}
		lb := rd.lbs[m[1]]
		if lb == nil {
			lb = &LBChanges{Service: m[1]}
			rd.lbs[m[1]] = lb
		}
		lb.Added += atoi(m[2])
		lb.Removed += atoi(m[3])
		lb.Syncs++
	}
	return nil
}

func (rd *reader) endPause(at time.Time) {
	if rd.pause != nil {
		rd.pause.Until = at
		rd.pause = nil
	}
}

func (rd *reader) closePhase(at time.Time) {
	if n := len(rd.r.Phases); n > 0 && rd.r.Phases[n-1].End.IsZero() {
		p := rd.r.Phases[n-1]
		p.End, p.DurationSeconds = at, seconds(at.Sub(p.Start))
	}
}

// zoneActive extends a zone's span of a surge upgrade to a node event in it.
func (rd *reader) zoneActive(zone string, at time.Time) {
	z := rd.zones[zone]
	if z == nil || rd.r.Started.IsZero() || !rd.r.Done.IsZero() {
		return
	}
	if z.Start.IsZero() {
		z.Start = at
	}
	if at.After(z.End) {
		z.End = at
	}
	z.DurationSeconds = seconds(z.End.Sub(z.Start))
}

func (rd *reader) batch(e event) error {
	if m := reBatchDraining.FindStringSubmatch(e.Message); m != nil {
		b := &BatchReport{Batch: atoi(m[1]), Nodes: strings.Fields(m[2]), Start: e.at}
		rd.batches[b.Batch] = b
		rd.r.Batches = append(rd.r.Batches, b)
		return nil
	}
	if m := reBatchDrained.FindStringSubmatch(e.Message); m != nil {
		if b := rd.batches[atoi(m[1])]; b != nil {
			b.Drained, b.DurationSeconds = e.at, seconds(e.at.Sub(b.Start))
		}
		return nil
	}
	if m := reBatchSoaking.FindStringSubmatch(e.Message); m != nil {
		if b := rd.batches[atoi(m[1])]; b != nil {
			b.SoakSeconds = seconds(parseDur(m[2]))
		}
		return nil
	}
	return unreadable(e)
}

// hold notes a budget refusing the eviction of pod on node.
func (rd *reader) hold(node, pod, pdb string, at time.Time) {
	d := rd.drains[node]
	if d == nil {
		return
	}
	if rd.holds[node] == nil {
		rd.holds[node] = map[string]*Hold{}
	}
	h := rd.holds[node][pdb]
	if h == nil || (!h.Until.IsZero() && h.Until.Before(d.Start)) {
		h = &Hold{PDB: pdb, From: at}
		rd.holds[node][pdb] = h
		d.Holds = append(d.Holds, h)
	}
	h.Pods = append(h.Pods, pod)
	rd.podHold[pod] = h
	rd.podPDB[pod] = pdb
}

// released notes a held pod leaving: evicted, or forced out (how).
func (rd *reader) released(pod string, at time.Time, how string) {
	h := rd.podHold[pod]
	if h == nil {
		return
	}
	delete(rd.podHold, pod)
	if at.After(h.Until) || h.Ended == "" {
		h.Until, h.Ended = at, how
		h.DurationSeconds = seconds(at.Sub(h.From))
	}
	h.Forced = h.Forced || how != "evicted"
}

func (rd *reader) forced(f *ForcedPod, at time.Time) {
	rd.r.Forced = append(rd.r.Forced, f)
	if d := rd.drains[f.Node]; d != nil {
		d.Forced++
	}
	rd.released(f.Pod, at, f.Why)
}

// finish closes what is still open at the end of the rehearsal.
func (rd *reader) finish(end time.Time, left []*PendingPod) {
	r := rd.r
	vmEnd := end
	if !r.Done.IsZero() {
		vmEnd = r.Done
	}
	rd.accrue(vmEnd)
	r.VMs.PeakExtra = max(r.VMs.Peak-r.VMs.Before, 0)
	price := rd.price
	if rd.spot {
		price *= 0.3
	}
	r.VMs.ExtraCostUSD = float64(int(r.VMs.ExtraHours*price*100+0.5)) / 100
	if r.Done.IsZero() {
		rd.closePhase(end)
	}
	for _, d := range rd.drains {
		d.End, d.DurationSeconds = end, seconds(end.Sub(d.Start))
	}
	for _, h := range rd.podHold {
		h.Until, h.DurationSeconds, h.Ended = end, seconds(end.Sub(h.From)), "held"
	}
	for _, p := range rd.pending {
		p.DurationSeconds = seconds(end.Sub(p.Since))
	}
	r.LeftPending = left
	for _, l := range rd.lanes {
		if n := len(l.Spans); n > 0 && l.Spans[n-1].To.IsZero() {
			l.Spans[n-1].To = end
		}
		if len(l.Spans) > 0 {
			r.Timeline = append(r.Timeline, l)
		}
	}
	sort.Slice(r.Timeline, func(i, j int) bool {
		a, b := r.Timeline[i], r.Timeline[j]
		if a.Zone != b.Zone {
			return a.Zone < b.Zone
		}
		if a.New != b.New {
			return !a.New
		}
		if !a.Spans[0].From.Equal(b.Spans[0].From) {
			return a.Spans[0].From.Before(b.Spans[0].From)
		}
		return a.Node < b.Node
	})
	pdbs := map[string]*PDBHolds{}
	get := func(name string) *PDBHolds {
		if pdbs[name] == nil {
			pdbs[name] = &PDBHolds{PDB: name}
		}
		return pdbs[name]
	}
	for _, d := range r.Drains {
		for _, h := range d.Holds {
			p := get(h.PDB)
			p.Drains++
			p.TotalSeconds += h.DurationSeconds
			p.LongestSeconds = max(p.LongestSeconds, h.DurationSeconds)
		}
	}
	for _, f := range r.Forced {
		if f.PDB == "" {
			continue
		}
		switch f.Why {
		case ForcedPDBTimeout, ForcedDeadline:
			get(f.PDB).ForcedAtTimeout++
		default:
			get(f.PDB).DeletedWithoutEviction++
		}
	}
	r.PDBs = sortedPDBs(pdbs)
	for _, name := range sortedNames(lbNames(rd.lbs)) {
		r.LoadBalancers = append(r.LoadBalancers, rd.lbs[name])
	}
}

func lbNames(m map[string]*LBChanges) map[string]string {
	out := map[string]string{}
	for k := range m {
		out[k] = k
	}
	return out
}
