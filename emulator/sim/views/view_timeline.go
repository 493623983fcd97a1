package views

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
)

// An operation's timeline, read back from the event log: a row per node of its pool (or of its
// cluster, for cluster operations) with the node's states over the operation's span of emulated
// time; the blue-green phases, batches, soaks and waits, or a surge upgrade's zones, as bands;
// cancel, pause, resume, rollback and completion as marks; a drain a PodDisruptionBudget holds
// up as a held span, and its forced end at the timeout (R-SURGE-3, R-ABG-3) as a mark.

// DefaultTimelineNodes and MaxTimelineNodes bound the rows of a timeline.
const (
	DefaultTimelineNodes = 10000
	MaxTimelineNodes     = 30000
)

// Node roles on a timeline.
const (
	TimelineOld = "old"
	TimelineNew = "new"
)

// Extra timeline span states beside the console node states.
const (
	spanDrained = "drained"
	spanHeld    = "held"
)

// operationMarks are the log entries that mark a moment of an operation on its timeline.
var operationMarks = map[string]bool{
	"UpgradeStarted": true, "UpgradeCancelled": true, "UpgradePaused": true, "UpgradeWaiting": true,
	"UpgradeResumed": true, "UpgradeRollback": true, "UpgradeCompleted": true, "UpgradeForced": true,
	"UpgradeStopped": true, "UpgradeDone": true, "ScaleUp": true, "WaitingForCapacity": true,
	"OperationDone": true, "OperationFailed": true, "ControlPlaneReady": true, "ControlPlaneUpgraded": true,
	"ClusterRunning": true, "NodePoolResizing": true,
}

// nodeMarks are the log entries that mark a moment of a node.
var nodeMarks = map[string]bool{"ScaleDown": true, "NodeRepairing": true, "NodeRepaired": true, "NodeInterrupted": true}

// timelineRow is a node's row while it is being built.
type timelineRow struct {
	out   *api.TimelineNode
	state string
	since float64
	first float64
	gone  bool
	// blocked: a PodDisruptionBudget has held up the current drain.
	blocked bool
}

func (r *timelineRow) move(state string, at float64) {
	if r.gone || state == r.state {
		return
	}
	if r.state != "" && at >= r.since {
		r.out.Spans = append(r.out.Spans, &api.TimelineSpan{State: r.state, From: r.since, To: at})
	}
	r.state, r.since = state, at
}

func (r *timelineRow) mark(kind string, at float64, msg string) {
	r.out.Marks = append(r.out.Marks, &api.TimelineMark{Kind: kind, At: at, Message: msg})
}

// timelineBuilder gathers an operation's rows, bands and marks.
type timelineBuilder struct {
	start time.Time
	out   *api.OperationTimeline
	rows  map[string]*timelineRow
	order []*timelineRow
	// open bands by kind (phase, batch, soak).
	open map[string]*api.TimelineBand
}

func (b *timelineBuilder) at(t time.Time) float64 { return t.Sub(b.start).Seconds() }

func (b *timelineBuilder) row(name, zone string, at float64, created bool) *timelineRow {
	r := b.rows[name]
	if r == nil {
		role := TimelineNew
		if !created {
			role = TimelineOld
		}
		r = &timelineRow{out: &api.TimelineNode{Name: name, Zone: zone, Role: role, Spans: []*api.TimelineSpan{}}, first: at}
		if !created {
			// It was there before its first event: serving since the operation began.
			r.state, r.since = api.NodeStateReady, 0
		}
		b.rows[name] = r
		b.order = append(b.order, r)
	}
	if r.out.Zone == "" {
		r.out.Zone = zone
	}
	return r
}

func (b *timelineBuilder) openBand(kind, label string, at float64) {
	b.closeBand(kind, at)
	band := &api.TimelineBand{Kind: kind, Label: label, From: at, To: -1}
	b.open[kind] = band
	b.out.Bands = append(b.out.Bands, band)
}

func (b *timelineBuilder) closeBand(kind string, at float64) {
	if band := b.open[kind]; band != nil {
		band.To = max(at, band.From)
		delete(b.open, kind)
	}
}

// OperationTimeline builds the timeline of an operation from the event log. maxNodes bounds
// the rows (0: DefaultTimelineNodes).
func (w *Views) OperationTimeline(project, location, id string, maxNodes int) (*api.OperationTimeline, error) {
	op := w.st.Operations[id]
	if op == nil || op.Project != project || (location != "-" && op.Location != location) {
		return nil, model.NotFound("Operation %q not found in projects/%s/locations/%s.", id, project, location)
	}
	if maxNodes <= 0 {
		maxNodes = DefaultTimelineNodes
	}
	end := w.st.Now
	if !op.EndTime.IsZero() {
		end = op.EndTime
	}
	b := &timelineBuilder{start: op.StartTime, rows: map[string]*timelineRow{}, open: map[string]*api.TimelineBand{},
		out: &api.OperationTimeline{Now: w.st.Now.Format(time.RFC3339), Operation: operationSummary(op), Cluster: op.ClusterKey(),
			Start: op.StartTime.Format(time.RFC3339), End: end.Format(time.RFC3339),
			Bands: []*api.TimelineBand{}, Marks: []*api.TimelineMark{}, Nodes: []*api.TimelineNode{}}}
	c := w.st.Clusters[op.ClusterKey()]
	zoneOf := func(node string) string {
		if c != nil {
			if n := c.Nodes[node]; n != nil {
				return n.Zone
			}
		}
		return ""
	}
	autoscaled := false
	entries := &w.st.Log
	first := sort.Search(entries.Len(), func(i int) bool { return !entries.TimeAt(i).Before(op.StartTime) })
	for i := first; i < entries.Len() && !entries.TimeAt(i).After(end); i++ {
		if e := entries.Peek(i); e.Cluster != b.out.Cluster || (op.Pool != "" && e.Pool != op.Pool) {
			continue
		}
		e := entries.At(i)
		at := b.at(e.Time)
		if e.Node == "" {
			if e.Type == "BlueGreenPhase" && strings.HasPrefix(e.Message, model.PhaseWaitingToDrain) {
				autoscaled = true
			}
			b.operationEntry(&e, at, id)
			continue
		}
		b.nodeEntry(&e, at, zoneOf(e.Node))
	}
	endAt := b.at(end)
	for kind := range b.open {
		b.closeBand(kind, endAt)
	}
	if c != nil && op.Pool != "" {
		b.untouchedNodes(c, c.Pool(op.Pool), op.StartTime)
	}
	b.zonesOfGoneNodes(entries, first)
	b.finishRows(endAt, maxNodes)
	b.strategy(c, op, autoscaled)
	if len(b.out.Bands) == 0 && op.Type == api.OpUpgradeNodes {
		b.zoneBands()
	}
	return b.out, nil
}

// operationEntry reads a pool-level entry: a blue-green phase, batch or soak opens or closes a
// band; upgrade control and progress entries are marks.
func (b *timelineBuilder) operationEntry(e *model.LogEntry, at float64, id string) {
	switch e.Type {
	case "BlueGreenPhase":
		phase, _, _ := strings.Cut(e.Message, ":")
		b.closeBand("batch", at)
		b.closeBand("soak", at)
		b.openBand("phase", phase, at)
		if phase == model.PhaseWaitingToDrain {
			b.openBand("wait", "waiting to drain the blue pool", at)
		} else {
			b.closeBand("wait", at)
		}
		return
	case "BlueGreenBatch":
		switch {
		case strings.HasPrefix(e.Message, upgrade.LogBatchDraining):
			b.closeBand("soak", at)
			num, _, _ := strings.Cut(strings.TrimPrefix(e.Message, upgrade.LogBatchDraining), ":")
			b.openBand("batch", "batch "+num, at)
		case strings.HasPrefix(e.Message, upgrade.LogBatchSoaking):
			num, _, _ := strings.Cut(strings.TrimPrefix(e.Message, upgrade.LogBatchSoaking), " ")
			b.closeBand("batch", at)
			b.openBand("soak", "batch "+num+" soak", at)
		case strings.HasPrefix(e.Message, upgrade.LogBatchDrained):
			b.closeBand("batch", at)
		}
		return
	case "BlueGreenSoak":
		if strings.HasPrefix(e.Message, upgrade.LogPoolSoaking) {
			b.openBand("soak", "node pool soak", at)
			return
		}
	}
	if operationMarks[e.Type] || e.Type == "BlueGreenSoak" || (e.Op == id && e.Type != "OperationRunning" && e.Type != "OperationPending") {
		b.out.Marks = append(b.out.Marks, &api.TimelineMark{Kind: e.Type, At: at, Message: e.Message})
	}
}

// nodeEntry moves a node's row by a node-level entry.
func (b *timelineBuilder) nodeEntry(e *model.LogEntry, at float64, zone string) {
	switch e.Type {
	case "NodeCreating":
		r := b.row(e.Node, zoneFromMessage(e.Message, zone), at, true)
		r.move(api.NodeStateCreating, at)
	case "NodeRecreating":
		b.row(e.Node, zone, at, false).move(api.NodeStateCreating, at)
	case "NodeReady", "NodeUncordoned":
		b.row(e.Node, zone, at, false).move(api.NodeStateReady, at)
	case "NodeCordoned":
		r := b.row(e.Node, zone, at, false)
		if r.state == api.NodeStateReady || r.state == api.NodeStateCreating {
			r.move(api.NodeStateCordoned, at)
		}
	case "NodeDraining":
		r := b.row(e.Node, zone, at, false)
		r.blocked = false
		r.move(api.NodeStateDraining, at)
	case "EvictionBlocked":
		r := b.row(e.Node, zone, at, false)
		if !r.blocked {
			r.blocked = true
			r.mark("EvictionBlocked", at, e.Message)
		}
		if r.state == api.NodeStateDraining {
			r.move(spanHeld, at)
		}
	case "PodDeleted":
		if r := b.rows[e.Node]; r != nil && strings.Contains(e.Message, core.PDBTimeoutReached) {
			if r.state == spanHeld {
				r.mark("DrainForced", at, e.Message)
				r.move(api.NodeStateDraining, at)
			}
		}
	case "NodeDrained":
		b.row(e.Node, zone, at, false).move(spanDrained, at)
	case "NodeDeleting":
		b.row(e.Node, zone, at, false).move(api.NodeStateDeleting, at)
	case "NodeDeleted":
		r := b.row(e.Node, zone, at, false)
		r.move("", at)
		r.gone = true
	case "NodeFailed":
		b.row(e.Node, zone, at, false).move(api.NodeStateFailed, at)
	default:
		if nodeMarks[e.Type] {
			b.row(e.Node, zone, at, false).mark(e.Type, at, e.Message)
		}
	}
}

// zoneFromMessage reads the zone of a node being created ("creating node N in ZONE (...)"):
// a node deleted since is no longer in the model to ask.
func zoneFromMessage(msg, fallback string) string {
	if _, rest, ok := strings.Cut(msg, " in "); ok {
		if zone, _, ok := strings.Cut(rest, " "); ok {
			return zone
		}
	}
	return fallback
}

// zonesOfGoneNodes finds the zones of rows whose nodes are gone from the model (old nodes the
// operation deleted) in their creation entries, among the log's first `before` entries.
func (b *timelineBuilder) zonesOfGoneNodes(log *model.EventLog, before int) {
	missing := map[string]*timelineRow{}
	for _, r := range b.order {
		if r.out.Zone == "" {
			missing[r.out.Name] = r
		}
	}
	for i := before - 1; i >= 0 && len(missing) > 0; i-- {
		e := log.Peek(i)
		if r := missing[e.Node]; r != nil && e.Type == "NodeCreating" && e.Cluster == b.out.Cluster {
			r.out.Zone = zoneFromMessage(log.At(i).Message, "")
			delete(missing, e.Node)
		}
	}
}

// untouchedNodes adds the pool's nodes that were there when the operation began and that it
// has not touched (yet): a cancelled surge upgrade leaves some (R-SURGE-9).
func (b *timelineBuilder) untouchedNodes(c *model.Cluster, p *model.NodePool, start time.Time) {
	if p == nil {
		return
	}
	for _, g := range p.Groups {
		for _, name := range g.Nodes {
			n := c.Nodes[name]
			if n == nil || b.rows[name] != nil || n.CreateTime.After(start) {
				continue
			}
			r := b.row(name, n.Zone, 0, false)
			r.move(ConsoleState(c, n), 0)
		}
	}
}

// finishRows closes every row at the end and keeps at most maxNodes, by zone, old before new,
// then by first activity.
func (b *timelineBuilder) finishRows(endAt float64, maxNodes int) {
	for _, r := range b.order {
		r.move("", endAt)
	}
	sort.SliceStable(b.order, func(i, j int) bool {
		x, y := b.order[i], b.order[j]
		if x.out.Zone != y.out.Zone {
			return x.out.Zone < y.out.Zone
		}
		if x.out.Role != y.out.Role {
			return x.out.Role == TimelineOld
		}
		if x.first != y.first {
			return x.first < y.first
		}
		return x.out.Name < y.out.Name
	})
	for _, r := range b.order {
		if len(b.out.Nodes) >= maxNodes {
			b.out.NodesOmitted++
			continue
		}
		b.out.Nodes = append(b.out.Nodes, r.out)
	}
}

// strategy names the upgrade strategy: the live upgrade's, else what the log shows.
func (b *timelineBuilder) strategy(c *model.Cluster, op *model.Operation, autoscaled bool) {
	if op.Type != api.OpUpgradeNodes {
		return
	}
	if c != nil {
		if p := c.Pool(op.Pool); p != nil && p.Upgrade != nil && p.Upgrade.Op == op.ID {
			b.out.Strategy = p.Upgrade.Strategy
			return
		}
	}
	switch {
	case autoscaled:
		b.out.Strategy = upgrade.StrategyAutoscaledBG
	case len(b.out.Bands) > 0:
		b.out.Strategy = upgrade.StrategyBlueGreen
	default:
		b.out.Strategy = upgrade.StrategySurge
	}
}

// zoneBands gives a surge upgrade a band per zone, from the first node that zone touched to the
// last (zones go one at a time, R-SURGE-2).
func (b *timelineBuilder) zoneBands() {
	type span struct{ from, to float64 }
	zones := map[string]*span{}
	var order []string
	for _, n := range b.out.Nodes {
		for _, s := range n.Spans {
			if n.Role == TimelineOld && s.State == api.NodeStateReady && s.From == 0 {
				continue // serving, untouched so far
			}
			z := zones[n.Zone]
			if z == nil {
				z = &span{s.From, s.To}
				zones[n.Zone] = z
				order = append(order, n.Zone)
			}
			z.from, z.to = min(z.from, s.From), max(z.to, s.To)
		}
	}
	sort.Slice(order, func(i, j int) bool { return zones[order[i]].from < zones[order[j]].from })
	for i, zone := range order {
		z := zones[zone]
		b.out.Bands = append(b.out.Bands, &api.TimelineBand{Kind: "zone", Label: "zone " + strconv.Itoa(i+1) + ": " + zone, From: z.from, To: z.to})
	}
}
