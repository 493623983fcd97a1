package upgrade

import (
	"slices"
	"sort"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Blue-green upgrades (R-BG-1..8) and autoscaled blue-green upgrades (R-ABG-1..6).
//
// Standard: create a green instance group per zone with the new config, as large as the blue
// one (R-BG-1); cordon the blue nodes; drain them in batches of batchNodeCount or
// batchPercentage (rounded down, at least 1; 0 skips the drain, R-BG-3) with batchSoakDuration
// after each batch; soak the pool for nodePoolSoakDuration; delete the blue pool: pods deleted
// (PDBs ignored, grace capped at 60 minutes), then the blue nodes (R-BG-5). The soaks are
// capped together (R-BG-4): soak time is counted as it elapses, and once the batch soaks and
// the pool soak so far add up to 7 days, the rest of the soak is skipped, the remaining batches
// drain without soaking, and blue deletion begins as soon as they are drained.
//
// Autoscaled: the green groups start empty and the cluster autoscaler grows them for the
// evicted pods (R-ABG-4); blue is cordoned, then GKE waits waitForDrainDuration (default 3
// days) while the autoscaler removes underutilised blue nodes (R-ABG-2); then the remaining
// blue nodes drain, up to 20 at a time, honouring PDBs for an hour and grace for 24 hours; no
// soak (R-ABG-3); blue deleted.

// How the log says a batch drain and a soak begin and end (BlueGreenBatch, BlueGreenSoak);
// the operation timeline draws its bands from them.
const (
	LogBatchDraining = "draining batch "
	LogBatchDrained  = "batch "
	LogBatchSoaking  = "soaking batch "
	LogPoolSoaking   = "soaking the node pool for "
)

const (
	evUpgradeTimer = "upgrade.timer"
	// cordonTime is how long cordoning the blue pool takes.
	cordonTime = 30 * time.Second
)

func (w *Upgrades) RegisterBlueGreenHandlers() {
	w.engine.On(evUpgradeTimer, func(ev model.Event) {
		if c := w.st.Clusters[ev.Cluster]; c != nil {
			if p := c.Pool(ev.Pool); p != nil {
				w.StepUpgrade(c, p)
			}
		}
	})
}

func newBlueGreen(p *model.NodePool, strategy string) *model.BlueGreen {
	bg := &model.BlueGreen{Phase: model.PhaseCreatingGreen, Autoscaled: strategy == StrategyAutoscaledBG}
	for _, g := range p.Groups {
		bg.Blue = append(bg.Blue, g.Name)
	}
	s := p.UpgradeSettings.BlueGreenSettings
	if s == nil {
		s = &api.BlueGreenSettings{}
	}
	if bg.Autoscaled {
		bg.WaitForDrain, _ = api.ParseDuration(s.AutoscaledRolloutPolicy.WaitForDrainDuration)
		return bg
	}
	bg.PoolSoak, _ = api.ParseDuration(s.NodePoolSoakDuration)
	if sp := s.StandardRolloutPolicy; sp != nil {
		bg.BatchSoak, _ = api.ParseDuration(sp.BatchSoakDuration)
		// The batch size is resolved against the blue pool when the drain phase starts.
		if sp.BatchNodeCount != nil {
			bg.BatchSize = int(*sp.BatchNodeCount)
		} else if sp.BatchPercentage != nil {
			bg.BatchSize = -1
		}
	}
	return bg
}

// BlueNodes lists the live blue nodes of p, by zone then name.
func (w *Upgrades) BlueNodes(c *model.Cluster, p *model.NodePool) []*model.Node {
	v := w.blueView(c, p)
	out := make([]*model.Node, 0, len(v.nodes))
	dead := 0
	for _, n := range v.nodes {
		switch {
		case n.Gone:
			dead++
		case n.State != model.NodeDeleting:
			out = append(out, n)
		}
	}
	if dead > len(v.nodes)/2 {
		v.nodes = append(v.nodes[:0], out...)
	}
	return out
}

// BlueList is a blue-green upgrade's blue nodes sorted once (by zone, then name), kept while
// no node joins a blue group (nodes leaving are skipped as they go); derived, never saved.
type BlueList struct {
	u     *model.Upgrade
	joins int // nodes that had joined the blue groups when the list was built
	nodes []*model.Node
}

func (w *Upgrades) blueView(c *model.Cluster, p *model.NodePool) *BlueList {
	if w.blue == nil {
		w.blue = map[*model.NodePool]*BlueList{}
	}
	joins := 0
	for _, g := range p.Groups {
		if p.Upgrade.BG.IsBlue(g.Name) {
			joins += w.core.GroupIndex(c, g).Joins
		}
	}
	if v := w.blue[p]; v != nil && v.u == p.Upgrade && v.joins == joins {
		return v
	}
	v := &BlueList{u: p.Upgrade, joins: joins}
	for _, g := range p.Groups {
		if !p.Upgrade.BG.IsBlue(g.Name) {
			continue
		}
		for _, name := range g.Nodes {
			v.nodes = append(v.nodes, c.Nodes[name])
		}
	}
	sort.Slice(v.nodes, func(i, j int) bool {
		if v.nodes[i].Zone != v.nodes[j].Zone {
			return v.nodes[i].Zone < v.nodes[j].Zone
		}
		return v.nodes[i].Name < v.nodes[j].Name
	})
	w.blue[p] = v
	return v
}

// timerAt runs the pool's upgrade again at t.
func (w *Upgrades) timerAt(c *model.Cluster, p *model.NodePool, t time.Time) {
	w.engine.Schedule(max(t.Sub(w.st.Now), 0), model.Event{Kind: evUpgradeTimer, Cluster: c.Key(), Pool: p.Name})
}

func (w *Upgrades) enterPhase(c *model.Cluster, p *model.NodePool, phase, format string, args ...any) {
	u := p.Upgrade
	u.BG.Phase = phase
	w.engine.Record("BlueGreenPhase", c, p.Name, "", u.Op, "%s: "+format, append([]any{phase}, args...)...)
}

// stepBlueGreen runs the phases of a blue-green upgrade as far as they can go now.
func (w *Upgrades) stepBlueGreen(c *model.Cluster, p *model.NodePool, op *model.Operation) {
	u := p.Upgrade
	bg := u.BG
	defer func() {
		if p.Upgrade == u {
			w.reportUpgrade(c, p, op)
		}
	}()
	for {
		switch bg.Phase {
		case model.PhaseCreatingGreen:
			if !w.createGreen(c, p) {
				return
			}
			w.enterPhase(c, p, model.PhaseCordoningBlue, "cordoning %d blue nodes", len(w.BlueNodes(c, p)))
		case model.PhaseCordoningBlue:
			if bg.PhaseUntil.IsZero() {
				for _, n := range w.BlueNodes(c, p) {
					w.core.Cordon(c, n, "blue pool of a blue-green upgrade")
				}
				bg.PhaseUntil = w.st.Now.Add(cordonTime)
				w.timerAt(c, p, bg.PhaseUntil)
			}
			if w.st.Now.Before(bg.PhaseUntil) {
				return
			}
			bg.PhaseUntil = time.Time{}
			if bg.Autoscaled {
				bg.PhaseUntil = w.st.Now.Add(bg.WaitForDrain)
				w.enterPhase(c, p, model.PhaseWaitingToDrain, "waiting %s before draining the blue pool; the cluster autoscaler may remove underutilised blue nodes meanwhile, ignoring the minimum", bg.WaitForDrain)
				w.timerAt(c, p, bg.PhaseUntil)
				continue
			}
			blue := len(w.BlueNodes(c, p))
			if bg.BatchSize < 0 { // a percentage: rounded down, at least one node (R-BG-3)
				pct := *p.UpgradeSettings.BlueGreenSettings.StandardRolloutPolicy.BatchPercentage
				bg.BatchSize = int(pct * float64(blue))
				if pct > 0 && bg.BatchSize == 0 {
					bg.BatchSize = 1
				}
			}
			if bg.BatchSize == 0 {
				w.enterPhase(c, p, model.PhaseSoaking, "batch size 0: the drain phase is skipped")
				continue
			}
			w.enterPhase(c, p, model.PhaseDrainingBlue, "draining %d blue nodes in batches of %d, %s soak after each", blue, bg.BatchSize, bg.BatchSoak)
		case model.PhaseWaitingToDrain:
			if len(w.BlueNodes(c, p)) == 0 {
				bg.Deleting = false
				w.enterPhase(c, p, model.PhaseDeletingBlue, "every blue node is gone before the wait ended; deleting the blue pool now")
				continue
			}
			if w.st.Now.Before(bg.PhaseUntil) {
				return
			}
			w.enterPhase(c, p, model.PhaseDrainingBlue, "draining the %d remaining blue nodes, up to %d at a time", len(w.BlueNodes(c, p)), MaxUpgradeConcurrency)
		case model.PhaseDrainingBlue:
			if bg.Autoscaled {
				if !w.drainBlueAutoscaled(c, p) {
					return
				}
				// R-ABG-3: no soak.
				w.enterPhase(c, p, model.PhaseDeletingBlue, "blue pool drained; deleting it (autoscaled blue-green has no soak)")
				continue
			}
			if !w.drainBlueBatches(c, p) {
				return
			}
			w.enterPhase(c, p, model.PhaseSoaking, "all %d batches drained", bg.Batches)
		case model.PhaseSoaking:
			if bg.SoakStart.IsZero() {
				bg.SoakStart = w.st.Now
				soak := w.startSoak(c, p, bg.PoolSoak)
				bg.DeletionStart = bg.PhaseUntil
				if soak > 0 || bg.PoolSoak == 0 { // not skipped by R-BG-4's cap
					w.engine.Record("BlueGreenSoak", c, p.Name, "", u.Op, LogPoolSoaking+"%s; blue pool deletion starts at %s", soak, bg.DeletionStart.Format(time.RFC3339))
				}
			}
			if w.st.Now.Before(bg.PhaseUntil) {
				return
			}
			w.endSoak(c, p)
			w.enterPhase(c, p, model.PhaseDeletingBlue, "deleting the blue pool: pods deleted without eviction, PDBs ignored, grace up to 60 minutes")
		case model.PhaseDeletingBlue:
			if !w.deleteBlue(c, p) {
				return
			}
			w.finishUpgrade(c, p)
			return
		case model.PhaseRollback:
			if !w.rollBackBlueGreen(c, p) {
				return
			}
			w.finishUpgrade(c, p)
			return
		default:
			return
		}
	}
}

// startSoak starts a soak of up to d (a batch soak or the pool soak) and returns its length:
// d, or what is left of the 7 days all soaks may take together (R-BG-4).
func (w *Upgrades) startSoak(c *model.Cluster, p *model.NodePool, d time.Duration) time.Duration {
	bg := p.Upgrade.BG
	soak := min(d, max(model.MaxSoak-bg.Soaked, 0))
	bg.PhaseUntil = w.st.Now.Add(soak)
	if soak > 0 {
		bg.SoakFrom = w.st.Now
		w.timerAt(c, p, bg.PhaseUntil)
	}
	if soak > 0 && soak < d {
		w.engine.Record("BlueGreenSoak", c, p.Name, "", p.Upgrade.Op, "soaks so far %s: this %s soak is cut to %s, ending at %s, when all soaks reach 7 days",
			bg.Soaked, d, soak, bg.PhaseUntil.Format(time.RFC3339))
	}
	return soak
}

// endSoak adds the soak that ran (up to now) to the time soaked so far.
func (w *Upgrades) endSoak(c *model.Cluster, p *model.NodePool) {
	bg := p.Upgrade.BG
	if bg.SoakFrom.IsZero() {
		return
	}
	before := bg.Soaked
	bg.Soaked += core.MinTime(w.st.Now, bg.PhaseUntil).Sub(bg.SoakFrom)
	bg.SoakFrom = time.Time{}
	if before < model.MaxSoak && bg.Soaked >= model.MaxSoak {
		w.engine.Record("BlueGreenSoak", c, p.Name, "", p.Upgrade.Op, "the soaks add up to 7 days: no more soaking; the remaining batches drain without soaking and blue pool deletion begins once they are drained")
	}
}

// createGreen creates the green groups (after checking capacity for all of them, R-BG-1) and
// reports whether their nodes are all ready.
func (w *Upgrades) createGreen(c *model.Cluster, p *model.NodePool) bool {
	u := p.Upgrade
	bg := u.BG
	if len(bg.Green) == 0 {
		var blue []*model.InstanceGroup
		for _, g := range p.Groups {
			if bg.IsBlue(g.Name) {
				blue = append(blue, g)
			}
		}
		for _, g := range blue {
			size := g.TargetSize
			if bg.Autoscaled {
				size = 0 // R-ABG-2: green starts empty; the autoscaler grows it
			}
			if !w.core.ReserveCapacity(c, p, g.Zone, u.Target, size) {
				w.core.WaitForCapacity(c, p, g.Zone, "green pool")
				return false
			}
		}
		for _, g := range blue {
			size := g.TargetSize
			if bg.Autoscaled {
				size = 0
			}
			green := w.core.AddGroup(c, p, g.Zone, size)
			bg.Green = append(bg.Green, green.Name)
			for i := 0; i < size; i++ {
				w.core.AddNode(c, p, green, u.Target)
			}
		}
		w.engine.Record("BlueGreenPhase", c, p.Name, "", u.Op, "%s: created green instance groups %v with %s",
			model.PhaseCreatingGreen, bg.Green, DescribeSpecChange(u.From, u.Target))
	}
	for _, g := range p.Groups {
		if !bg.IsGreen(g.Name) {
			continue
		}
		ix := w.core.GroupIndex(c, g)
		if ix.ByState[model.NodeProvisioning] > 0 || len(g.Nodes) < g.TargetSize {
			return false
		}
	}
	return true
}

// drainBlueBatches drains the blue pool batch by batch with a soak after each; it reports
// whether every blue node is drained.
func (w *Upgrades) drainBlueBatches(c *model.Cluster, p *model.NodePool) bool {
	u := p.Upgrade
	bg := u.BG
	// The next batch, and how many blue nodes are left to drain (none may be draining).
	var batch []*model.Node
	left := 0
	for _, n := range w.blueView(c, p).nodes {
		if n.Gone || n.State == model.NodeDeleting {
			continue
		}
		switch n.UpgradeRole {
		case model.RoleBlue:
			return false
		case model.RoleNone:
			if left < bg.BatchSize {
				batch = append(batch, n)
			}
			left++
		}
	}
	if bg.BatchOpen {
		bg.BatchOpen = false
		bg.Batches++
		w.engine.Record("BlueGreenBatch", c, p.Name, "", u.Op, LogBatchDrained+"%d drained; %d blue nodes left", bg.Batches, left)
		// R-BG-4: every drained batch soaks, the last one too; then the node pool soaks.
		if soak := w.startSoak(c, p, bg.BatchSoak); soak > 0 {
			w.engine.Record("BlueGreenBatch", c, p.Name, "", u.Op, LogBatchSoaking+"%d for %s", bg.Batches, soak)
		}
	}
	if w.st.Now.Before(bg.PhaseUntil) {
		return false
	}
	w.endSoak(c, p)
	if left == 0 {
		return true
	}
	bg.BatchOpen = true
	names := make([]string, len(batch))
	for i, n := range batch {
		names[i] = n.Name
	}
	w.engine.Record("BlueGreenBatch", c, p.Name, "", u.Op, LogBatchDraining+"%d: %v", bg.Batches+1, names)
	for _, n := range batch {
		n.UpgradeRole = model.RoleBlue
		w.core.StartDrain(c, n, core.BlueBatchDrain, "blue-green batch drain")
	}
	return false
}

// drainBlueAutoscaled drains the remaining blue nodes up to 20 at a time and deletes each one
// drained; it reports whether the blue pool is empty.
func (w *Upgrades) drainBlueAutoscaled(c *model.Cluster, p *model.NodePool) bool {
	blue := w.BlueNodes(c, p)
	if len(blue) == 0 {
		return true
	}
	inFlight := 0
	for _, n := range blue {
		if n.State == model.NodeDraining {
			inFlight++
		}
	}
	for _, n := range blue {
		if inFlight >= MaxUpgradeConcurrency {
			break
		}
		if n.State != model.NodeDraining {
			w.core.RetireNode(c, n, core.AutoscaledBlueDrain, "autoscaled blue-green drain of the blue pool")
			inFlight++
		}
	}
	return false
}

// deleteBlue deletes the blue pool (R-BG-5) and reports whether it is gone.
func (w *Upgrades) deleteBlue(c *model.Cluster, p *model.NodePool) bool {
	bg := p.Upgrade.BG
	if !bg.Deleting {
		bg.Deleting = true
		for _, n := range w.BlueNodes(c, p) {
			if n.State == model.NodeDraining { // an unfinished batch drain gives way to deletion
				n.Drain = nil
				w.core.SetNodeState(c, n, model.NodeCordoned)
			}
			n.UpgradeRole = model.RoleNone
			w.core.RetireNode(c, n, core.BlueDeleteDrain, "blue pool deletion")
		}
	}
	for _, g := range p.Groups {
		if bg.IsBlue(g.Name) && len(g.Nodes) > 0 {
			return false
		}
	}
	w.removeGroups(p, bg.Blue)
	return true
}

// removeGroups drops instance groups from a pool.
func (w *Upgrades) removeGroups(p *model.NodePool, names []string) {
	out := p.Groups[:0]
	for _, g := range p.Groups {
		if slices.Contains(names, g.Name) {
			delete(w.core.Groups, g)
			continue
		}
		out = append(out, g)
	}
	p.Groups = out
}

// blueGreenETA estimates the end of a blue-green upgrade from the phases and soaks left.
func (w *Upgrades) blueGreenETA(c *model.Cluster, p *model.NodePool) time.Time {
	bg := p.Upgrade.BG
	const nodeStep = 2 * time.Minute // boot, or drain and delete, of a node
	now := w.st.Now
	batchesLeft := 0
	if bg.BatchSize > 0 {
		left := 0
		for _, n := range w.blueView(c, p).nodes {
			if !n.Gone && n.State != model.NodeDeleting && n.UpgradeRole != model.RoleDrained {
				left++
			}
		}
		batchesLeft = (left + bg.BatchSize - 1) / bg.BatchSize
	}
	drain := time.Duration(batchesLeft) * nodeStep
	switch bg.Phase {
	case model.PhaseCreatingGreen, model.PhaseCordoningBlue:
		if bg.Autoscaled {
			return now.Add(nodeStep + bg.WaitForDrain + nodeStep).Truncate(time.Second)
		}
		return now.Add(nodeStep + drain + bg.SoakAhead(now, batchesLeft) + nodeStep).Truncate(time.Second)
	case model.PhaseWaitingToDrain:
		return bg.PhaseUntil.Add(nodeStep)
	case model.PhaseDrainingBlue:
		if bg.Autoscaled {
			return now.Add(nodeStep)
		}
		return now.Add(drain + bg.SoakAhead(now, batchesLeft) + nodeStep).Truncate(time.Second)
	case model.PhaseSoaking:
		if bg.DeletionStart.IsZero() {
			return now.Add(bg.SoakAhead(now, 0) + nodeStep)
		}
		return bg.DeletionStart.Add(nodeStep)
	}
	return now.Add(nodeStep)
}
