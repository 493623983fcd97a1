package upgrade

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Node-recreating changes (R-UPG-1) and the strategies that carry them out. Version, machine
// attribute and image changes use the pool's strategy: surge (this file), blue-green or
// autoscaled blue-green (upgrade_bluegreen.go), short-lived for flex-start pools (upgrade_shortlived.go);
// R-UPG-2/3. Cancel, resume, rollback and complete are in upgrade_control.go.

// Strategies of an Upgrade (autoscaled blue-green is a flavour of BLUE_GREEN in the API).
const (
	StrategySurge        = api.StrategySurge
	StrategyBlueGreen    = api.StrategyBlueGreen
	StrategyAutoscaledBG = "AUTOSCALED_BLUE_GREEN"
	strategyShortLived   = api.StrategyShortLived
)

// MaxUpgradeConcurrency caps the nodes upgraded at once in a zone (R-SURGE-2) and the blue
// nodes drained at once by autoscaled blue-green (R-ABG-3).
const MaxUpgradeConcurrency = 20

// StrategyFor picks the strategy of a pool's node-recreating change (R-UPG-2/3).
func StrategyFor(p *model.NodePool) string {
	us := p.UpgradeSettings
	switch {
	case p.ShortLived:
		return strategyShortLived
	case us.Strategy == api.StrategyBlueGreen && us.BlueGreenSettings != nil && us.BlueGreenSettings.AutoscaledRolloutPolicy != nil:
		return StrategyAutoscaledBG
	case us.Strategy == api.StrategyBlueGreen:
		return StrategyBlueGreen
	}
	return StrategySurge
}

// strategyForChange is the strategy that replaces p's nodes for a change from one spec to
// another: blue-green covers version, machine type, disk and image changes; a change of the
// other node-recreating settings alone goes through surge with the pool's surge settings on a
// blue-green pool too (R-UPG-2).
func strategyForChange(p *model.NodePool, from, to model.NodeSpec) string {
	s := StrategyFor(p)
	if s == StrategyBlueGreen || s == StrategyAutoscaledBG {
		from.Settings, to.Settings = "", ""
		if from == to {
			return StrategySurge
		}
	}
	return s
}

// planUpgrade records a node-recreating change on p and returns the operation that runs it.
func (w *Upgrades) planUpgrade(c *model.Cluster, p *model.NodePool, target model.NodeSpec) *model.Operation {
	op := w.core.StartOperation(api.OpUpgradeNodes, c, p.Name, true)
	maxSurge, maxUnavailable := model.SurgeLimits(p.UpgradeSettings) // R-SURGE-11: never 0 and 0
	u := &model.Upgrade{
		Op: op.ID, Strategy: strategyForChange(p, p.Spec, target), From: p.Spec, Target: target, StartTime: w.st.Now,
		MaxSurge: maxSurge, MaxUnavailable: maxUnavailable, Drain: core.SurgeDrain,
		Zones: append([]string(nil), p.Locations...),
	}
	if u.Strategy == StrategyBlueGreen || u.Strategy == StrategyAutoscaledBG {
		u.BG = newBlueGreen(p, u.Strategy)
	}
	p.Upgrade = u
	p.Status = model.PoolReconciling
	op.Detail = fmt.Sprintf("Upgrading node pool %s: %s (%s)", p.Name, DescribeSpecChange(p.Spec, target), StrategyName(u.Strategy))
	return op
}

// PlanAutoUpgrade is planUpgrade for GKE's own node auto-upgrades: on Autopilot their drains
// leave extended-duration pods alone for 7 days (R-EXT-1); on Standard they do not (R-EXT-2).
func (w *Upgrades) PlanAutoUpgrade(c *model.Cluster, p *model.NodePool, target model.NodeSpec) *model.Operation {
	op := w.planUpgrade(c, p, target)
	p.Upgrade.Auto = true
	p.Upgrade.Drain.ProtectExtended = c.Autopilot
	p.Upgrade.Policy = maintenance.NodeUpgradeKind(p.Spec, target) // R-MW-1, R-MW-3
	return op
}

// PlanManualUpgrade is planUpgrade for a user's change. A version upgrade runs now, whatever
// the maintenance policy; a change that only recreates the VMs respects it (R-MW-5).
func (w *Upgrades) PlanManualUpgrade(c *model.Cluster, p *model.NodePool, target model.NodeSpec) *model.Operation {
	op := w.planUpgrade(c, p, target)
	if kind := maintenance.NodeUpgradeKind(p.Spec, target); kind == model.NodeDisruption {
		p.Upgrade.Policy = kind
	}
	return op
}

func StrategyName(s string) string {
	switch s {
	case StrategyBlueGreen:
		return "blue-green"
	case StrategyAutoscaledBG:
		return "autoscaled blue-green"
	case strategyShortLived:
		return "short-lived"
	}
	return "surge"
}

// DescribeSpecChange says what a node-recreating change changes, for details and the log.
func DescribeSpecChange(from, to model.NodeSpec) string {
	var parts []string
	add := func(what string, a, b any) {
		if a != b {
			parts = append(parts, fmt.Sprintf("%s %v -> %v", what, a, b))
		}
	}
	add("version", from.Version, to.Version)
	add("machine type", from.MachineType, to.MachineType)
	add("image type", from.ImageType, to.ImageType)
	add("disk type", from.DiskType, to.DiskType)
	add("disk size", from.DiskSizeGb, to.DiskSizeGb)
	if from.Settings != to.Settings {
		parts = append(parts, "node settings that need new VMs (gVNIC, image streaming, kubelet or Linux configuration, Confidential nodes)")
	}
	if len(parts) == 0 {
		return "the same node configuration"
	}
	return strings.Join(parts, ", ")
}

// BeginUpgrade starts the upgrade of p when its operation starts.
func (w *Upgrades) BeginUpgrade(c *model.Cluster, p *model.NodePool) {
	u := p.Upgrade
	if u.Policy != "" && !u.Resumed {
		// R-MW-5: nothing starts until the maintenance policy allows it.
		u.Deferred = true
		if !w.upgradeWindowOpen(c, p) {
			if op := w.st.Operations[u.Op]; op != nil {
				w.reportUpgrade(c, p, op)
			}
			return
		}
		u.Deferred = false
	}
	if u.Resumed {
		u.Resumed = false
		w.engine.Record("UpgradeResumed", c, p.Name, "", u.Op, "%s upgrade of %s resumed in phase %s", StrategyName(u.Strategy), p.Name, u.BG.Phase)
		w.StepUpgrade(c, p)
		return
	}
	u.Total = 0
	for _, n := range c.Nodes {
		if n.Pool == p.Name && n.Spec != u.Target && n.State != model.NodeDeleting {
			u.Total++
		}
	}
	what := "upgrade"
	if u.Rollback {
		what = "rollback"
	}
	switch u.Strategy {
	case StrategySurge:
		w.engine.Record("UpgradeStarted", c, p.Name, "", u.Op, "surge %s of %s started: %d nodes, %s, maxSurge=%d maxUnavailable=%d, zones %v",
			what, p.Name, u.Total, DescribeSpecChange(u.From, u.Target), u.MaxSurge, u.MaxUnavailable, u.Zones)
	case strategyShortLived:
		w.beginShortLived(c, p)
		return
	default:
		w.engine.Record("UpgradeStarted", c, p.Name, "", u.Op, "%s %s of %s started: %d blue nodes, %s",
			StrategyName(u.Strategy), what, p.Name, u.Total, DescribeSpecChange(u.From, u.Target))
	}
	w.StepUpgrade(c, p)
}

// StepUpgrade takes every step the upgrade can take now; node and timer events call it again.
func (w *Upgrades) StepUpgrade(c *model.Cluster, p *model.NodePool) {
	u := p.Upgrade
	if u == nil || u.Paused {
		return
	}
	op := w.st.Operations[u.Op]
	if op == nil || op.Status != api.OpStatusRunning {
		return
	}
	if u.Deferred {
		w.BeginUpgrade(c, p)
		return
	}
	switch u.Strategy {
	case StrategySurge:
		w.stepSurge(c, p, op)
	case StrategyBlueGreen, StrategyAutoscaledBG:
		w.stepBlueGreen(c, p, op)
	}
}

// stepSurge advances a surge upgrade zone by zone (R-SURGE-2) and finishes it.
func (w *Upgrades) stepSurge(c *model.Cluster, p *model.NodePool, op *model.Operation) {
	u := p.Upgrade
	open := w.upgradeWindowOpen(c, p)
	for u.Zone < len(u.Zones) {
		g := p.Group(u.Zones[u.Zone])
		if g == nil || w.stepZone(c, p, g, open) {
			u.Zone++
			u.ZoneSize = 0
			continue
		}
		break
	}
	w.reportUpgrade(c, p, op)
	if u.Zone >= len(u.Zones) || (u.Stopping && !w.upgradeInFlight(c, p)) {
		w.finishUpgrade(c, p)
	}
}

// stepZone advances a surge upgrade in one zone; it reports whether the zone is finished.
//
// R-SURGE-1..4: at most min(maxSurge+maxUnavailable, 20, nodes in the zone) nodes change at
// once. A surge slot creates a node with the new spec, waits until it is ready (not for Spot
// nodes, R-SURGE-7), then cordons, drains and deletes an old node; it is taken from the moment
// the new VM is requested until the old VM is gone, so that a zone of N nodes never has more
// than N + maxSurge VMs in any state (R-SURGE-2a). An unavailable slot cordons and drains an
// old node and recreates it in place; it is free again once the node is ready. Without capacity for a surge node the
// upgrade of a node does not start; it waits (R-SURGE-6). Outside the maintenance window
// (open false) nodes mid-upgrade finish and no new one starts (R-MW-3).
func (w *Upgrades) stepZone(c *model.Cluster, p *model.NodePool, g *model.InstanceGroup, open bool) bool {
	u := p.Upgrade
	z := w.surgeView(c, p, g)
	var readySurge []*model.Node
	pendingSurge, surgeUsed, unavailUsed, replacing := 0, 0, 0, 0
	live := z.inflight[:0]
	for _, n := range z.inflight {
		if n.Gone {
			continue
		}
		switch n.UpgradeRole {
		case model.RoleSurge:
			surgeUsed++
			if n.State == model.NodeReady || (p.Spec.Spot && n.State == model.NodeProvisioning) {
				readySurge = append(readySurge, n)
			} else {
				pendingSurge++
			}
		case model.RoleReplaced:
			// R-SURGE-2a: the surge slot is held until the old VM is gone, deleting included.
			replacing++
			surgeUsed++
		case model.RoleRecreate:
			unavailUsed++
		default:
			continue // done
		}
		live = append(live, n)
	}
	clear(z.inflight[len(live):]) // the nodes filtered out, so that the view does not keep them
	z.inflight = live
	if u.ZoneSize == 0 {
		u.ZoneSize = z.oldCount
	}
	for _, s := range readySurge {
		s.UpgradeRole = model.RoleNone
		o := z.takeOld(u, false)
		if o == nil {
			continue
		}
		o.UpgradeRole = model.RoleReplaced
		z.inflight = append(z.inflight, o)
		w.core.RetireNode(c, o, u.Drain, "replaced by surge node "+s.Name)
	}
	if !u.Stopping && open {
		limit := min(u.MaxSurge+u.MaxUnavailable, MaxUpgradeConcurrency, max(u.ZoneSize, 1))
		surgeSlots := min(u.MaxSurge, limit)
		unavailSlots := min(u.MaxUnavailable, limit-surgeSlots)
		// Old nodes not yet spoken for by a surge node still booting.
		free := z.oldCount - pendingSurge
		created := 0
		for surgeUsed < surgeSlots && free > 0 {
			if !w.core.ReserveCapacity(c, p, g.Zone, u.Target, 1) {
				w.core.WaitForCapacity(c, p, g.Zone, "surge node")
				break
			}
			n := w.core.AddNode(c, p, g, u.Target)
			n.UpgradeRole = model.RoleSurge
			z.inflight = append(z.inflight, n)
			surgeUsed++
			free--
			created++
		}
		if created > 0 && p.Spec.Spot {
			// R-SURGE-7: pair the new Spot surge nodes with old nodes now, not once they are ready.
			w.timerAt(c, p, w.st.Now)
		}
		for unavailUsed < unavailSlots && free > 0 {
			o := z.takeOld(u, true)
			o.UpgradeRole = model.RoleRecreate
			z.inflight = append(z.inflight, o)
			w.core.RetireNode(c, o, u.Drain, "recreating with the new configuration (maxUnavailable)")
			unavailUsed++
			free--
		}
	}
	return z.oldCount == 0 && surgeUsed == 0 && unavailUsed == 0 && replacing == 0
}

// surgeZone is a surge upgrade's view of one zone's nodes, kept current as they change so that
// a step costs what changed, not the size of the zone: the nodes still to upgrade, in group
// order, and the nodes mid-upgrade (surge, replaced or recreated), in the order they got their
// role. It is derived (rebuilt from the nodes whenever in doubt) and never saved.
type surgeZone struct {
	u *model.Upgrade
	// seen: the group's nodes before this index have been looked at.
	seen int
	// old holds the nodes still to upgrade, oldest first; oldCount how many of them still are.
	old      []*model.Node
	oldCount int
	inflight []*model.Node
	// dirty: something other than this upgrade changed a node still to upgrade (a repair, a
	// cordon by hand): the view is rebuilt before the next step.
	dirty bool
}

// stillOld says whether n has yet to be upgraded by u.
func stillOld(n *model.Node, u *model.Upgrade) bool {
	return n.UpgradeRole == model.RoleNone && n.Spec != u.Target && n.State != model.NodeDeleting && n.State != model.NodeDraining
}

// surgeView returns the surge upgrade's view of group g, built or brought up to date.
func (w *Upgrades) surgeView(c *model.Cluster, p *model.NodePool, g *model.InstanceGroup) *surgeZone {
	ix := w.core.GroupIndex(c, g)
	u := p.Upgrade
	z, _ := ix.View.(*surgeZone)
	if z == nil || z.u != u || z.dirty {
		z = &surgeZone{u: u}
		for _, n := range ix.Nodes {
			switch {
			case stillOld(n, u):
				z.old = append(z.old, n)
			case n.UpgradeRole == model.RoleSurge || n.UpgradeRole == model.RoleReplaced || n.UpgradeRole == model.RoleRecreate:
				z.inflight = append(z.inflight, n)
			}
		}
		z.oldCount, z.seen = len(z.old), len(ix.Nodes)
		ix.View = z
		return z
	}
	// Nodes that joined the group since: the upgrade's own surge nodes are in inflight already;
	// any other that needs upgrading is still to do.
	for _, n := range ix.Nodes[z.seen:] {
		if stillOld(n, u) {
			z.old = append(z.old, n)
			z.oldCount++
		}
	}
	z.seen = len(ix.Nodes)
	return z
}

// NodeRemovedAt keeps the count of nodes seen in group order when one of them leaves.
func (z *surgeZone) NodeRemovedAt(i int) {
	if i < z.seen {
		z.seen--
	}
}

// takeOld takes the next node to upgrade: the first in group order, or the last (fromEnd).
func (z *surgeZone) takeOld(u *model.Upgrade, fromEnd bool) *model.Node {
	for len(z.old) > 0 {
		var n *model.Node
		// The slot taken is cleared: the view outlives the upgrade (it stays the group's until
		// another is built), and must not keep the nodes it has let go of.
		if last := len(z.old) - 1; fromEnd {
			n, z.old[last], z.old = z.old[last], nil, z.old[:last]
		} else {
			n, z.old[0], z.old = z.old[0], nil, z.old[1:]
		}
		if stillOld(n, u) {
			z.oldCount--
			return n
		}
	}
	return nil
}

// SurgeNodeChanged marks a zone's surge view for a rebuild when a node still to upgrade changes
// for a reason of its own (the upgrade gives its nodes a role before it touches them).
func (w *Upgrades) SurgeNodeChanged(c *model.Cluster, n *model.Node, what engine.NodeChange) {
	p := c.Pool(n.Pool)
	if p == nil || p.Upgrade == nil || n.UpgradeRole != model.RoleNone || n.Spec == p.Upgrade.Target {
		return
	}
	if g := w.core.GroupOf(c, n); g != nil {
		if ix, ok := w.core.Groups[g]; ok {
			if z, _ := ix.View.(*surgeZone); z != nil {
				z.dirty = true
			}
		}
	}
}

// upgradeInFlight says whether any node of p is mid-upgrade.
func (w *Upgrades) upgradeInFlight(c *model.Cluster, p *model.NodePool) bool {
	for _, g := range p.Groups {
		for _, name := range g.Nodes {
			switch c.Nodes[name].UpgradeRole {
			case model.RoleSurge, model.RoleReplaced, model.RoleRecreate, model.RoleBlue:
				return true
			}
		}
	}
	return false
}

// OnUpgradeNodeDrained handles a drained node that an upgrade keeps (a blue node) or
// recreates in place (maxUnavailable); it reports whether it did.
func (w *Upgrades) OnUpgradeNodeDrained(c *model.Cluster, n *model.Node) bool {
	p := c.Pool(n.Pool)
	if p == nil || p.Upgrade == nil {
		return false
	}
	switch n.UpgradeRole {
	case model.RoleBlue:
		n.UpgradeRole = model.RoleDrained
		w.core.SetNodeState(c, n, model.NodeCordoned)
		p.Upgrade.Done++
		w.StepUpgrade(c, p)
		return true
	case model.RoleRecreate:
		w.core.NodeGone(c, n.Name) // its DaemonSet pods go with the old VM
		w.core.SetNodeState(c, n, model.NodeProvisioning)
		n.Spec = p.Upgrade.Target
		n.CreateTime = w.st.Now
		w.core.NodeRecreated(c, n)
		w.engine.RecordNodeLine("NodeRecreating", c, n.Pool, n.Name, p.Upgrade.Op, "recreating node ", " with ", w.describeChange(p.Upgrade.From, n.Spec))
		// Recreating in place deletes the old VM before the new one boots (R-SURGE-4).
		recreate := w.engine.Jitter(core.NodeDeleteBase, core.NodeDeleteSpread) + w.engine.Jitter(core.NodeBootBase, core.NodeBootSpread)
		w.engine.Schedule(recreate, model.Event{Kind: core.EvNodeReady, Cluster: c.Key(), Node: n.Name})
		return true
	}
	return false
}

// CountUpgraded notes a node that finished upgrading.
func (w *Upgrades) CountUpgraded(c *model.Cluster, n *model.Node) {
	p := c.Pool(n.Pool)
	if p == nil || p.Upgrade == nil {
		return
	}
	switch n.UpgradeRole {
	case model.RoleReplaced:
		if n.State == model.NodeDeleting { // deleted
			p.Upgrade.Done++
		}
	case model.RoleRecreate:
		if n.State == model.NodeReady {
			p.Upgrade.Done++
			n.UpgradeRole = model.RoleNone
		}
	}
}

// reportUpgrade refreshes the operation's progress metrics and detail.
func (w *Upgrades) reportUpgrade(c *model.Cluster, p *model.NodePool, op *model.Operation) {
	u := p.Upgrade
	where := "done"
	if u.BG != nil {
		where = u.BG.Phase
	} else if u.Zone < len(u.Zones) {
		where = u.Zones[u.Zone]
	}
	key := "zone"
	if u.BG != nil {
		key = "phase"
	}
	// At every step of the upgrade: written out without boxing (core.SetMetrics) or formatting.
	op.Metrics = append(op.Metrics[:0], model.Metric{Name: "nodes done", Int: int64(u.Done), IsInt: true},
		model.Metric{Name: "nodes total", Int: int64(u.Total), IsInt: true}, model.Metric{Name: key, Str: where})
	// The detail is written into a buffer kept between steps, and becomes a string only when
	// it differs from the one the operation has (most steps finish no node).
	b := w.detail[:0]
	if u.Stopping {
		b = append(b, "Cancelling the upgrade of node pool "...)
	} else {
		b = append(b, "Upgrading node pool "...)
	}
	b = append(append(append(b, p.Name...), " ("...), w.describeChange(u.From, u.Target)...)
	b = append(append(append(b, ", "...), StrategyName(u.Strategy)...), "): "...)
	b = append(strconv.AppendInt(b, int64(u.Done), 10), " of "...)
	b = append(strconv.AppendInt(b, int64(u.Total), 10), " nodes done; "...)
	if u.Stopping {
		b = append(b, "nodes mid-upgrade finish, no new node starts"...)
	} else {
		b = append(b, where...)
		if wait := DescribeWait(u); wait != "" {
			b = append(append(b, "; "...), wait...)
		} else if eta := w.UpgradeETA(c, p); !eta.IsZero() {
			b = eta.AppendFormat(append(b, "; ETA "...), time.RFC3339)
		}
	}
	if string(b) != op.Detail {
		op.Detail = string(b)
	}
	w.detail = b
}

// finishUpgrade ends an upgrade: done (the pool takes the target spec) or stopped by a cancel.
func (w *Upgrades) finishUpgrade(c *model.Cluster, p *model.NodePool) {
	u := p.Upgrade
	op := w.st.Operations[u.Op]
	p.Status = model.PoolRunning
	delete(w.blue, p) // a blue-green upgrade's list of blue nodes, deleted ones included
	if u.Stopping {
		p.Upgrade = nil
		p.LastUpgrade = &model.UpgradeRecord{Strategy: u.Strategy, From: u.From, Target: u.Target, Cancelled: true}
		if u.Rollback {
			p.LastUpgrade = nil // a cancelled rollback leaves nothing further to roll back
		}
		w.engine.Record("UpgradeStopped", c, p.Name, "", u.Op, "%s of %s stopped: %d of %d nodes on %s", StrategyName(u.Strategy), p.Name, u.Done, u.Total,
			DescribeSpecChange(u.From, u.Target))
		w.finishUpgradeOp(op, core.CodeCancelled, fmt.Sprintf("Cancelled the upgrade of node pool %s (%s, %s): %d of %d nodes upgraded; the others keep their configuration",
			p.Name, DescribeSpecChange(u.From, u.Target), StrategyName(u.Strategy), u.Done, u.Total))
		return
	}
	p.Upgrade = nil
	p.Spec = u.Target
	p.LastUpgrade = &model.UpgradeRecord{Strategy: u.Strategy, From: u.From, Target: u.Target}
	what := "upgrade"
	if u.Rollback {
		what = "rollback"
		p.LastUpgrade = nil
	}
	took := w.st.Now.Sub(u.StartTime).Round(time.Second)
	w.engine.Record("UpgradeDone", c, p.Name, "", u.Op, "%s %s of %s done: %d nodes, %s, in %s", StrategyName(u.Strategy), what, p.Name, u.Total,
		DescribeSpecChange(u.From, u.Target), took)
	w.finishUpgradeOp(op, 0, fmt.Sprintf("Node pool %s %s done (%s, %s): %d of %d nodes, in %s",
		p.Name, what, DescribeSpecChange(u.From, u.Target), StrategyName(u.Strategy), u.Done, u.Total, took))
}

// finishUpgradeOp finishes an upgrade's operation (if it still exists) with a summary of what
// it did in place of the progress it showed while running.
func (w *Upgrades) finishUpgradeOp(op *model.Operation, code int32, summary string) {
	if op == nil {
		return
	}
	message := ""
	if code == core.CodeCancelled {
		message = "Operation was cancelled."
	}
	w.core.FinishOperation(op, code, message)
	op.Detail = summary
}

// UpgradeETA estimates when an upgrade will be done from the pace so far (surge) or the
// phases and soaks left (blue-green). It is zero when there is nothing to go on yet.
func (w *Upgrades) UpgradeETA(c *model.Cluster, p *model.NodePool) time.Time {
	u := p.Upgrade
	if u.BG != nil {
		return w.blueGreenETA(c, p)
	}
	elapsed := w.st.Now.Sub(u.StartTime)
	if u.Done == 0 || elapsed <= 0 {
		return time.Time{}
	}
	left := u.Total - u.Done
	return w.st.Now.Add(time.Duration(float64(elapsed) / float64(u.Done) * float64(left))).Truncate(time.Second)
}
