package upgrade

import (
	"fmt"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Controlling an upgrade: cancel (operations.cancel), resume (a new update to the same
// target), rollback (nodePools.rollback) and complete (nodePools.completeUpgrade), with the
// per-strategy semantics of R-SURGE-9, R-BG-7 and R-ABG-5.

// CancelUpgrade is the cancel of a running UPGRADE_NODES operation.
func (w *Upgrades) CancelUpgrade(c *model.Cluster, p *model.NodePool) error {
	u := p.Upgrade
	op := w.st.Operations[u.Op]
	switch {
	case u.Deferred:
		// R-MW-5: the change waited for a window and touched no node; it is dropped.
		p.Upgrade = nil
		p.Status = model.PoolRunning
		w.engine.Record("UpgradeCancelled", c, p.Name, "", u.Op, "%s of %s (%s) cancelled before it began; the nodes keep their configuration",
			StrategyName(u.Strategy), p.Name, DescribeSpecChange(u.From, u.Target))
		w.finishUpgradeOp(op, core.CodeCancelled, fmt.Sprintf("Cancelled the upgrade of node pool %s (%s, %s) before it began: no node was changed",
			p.Name, DescribeSpecChange(u.From, u.Target), StrategyName(u.Strategy)))
		return nil
	case u.BG != nil && u.BG.Phase == model.PhaseDeletingBlue:
		return model.FailedPrecondition("The blue-green upgrade of node pool %s is deleting the blue pool, which cannot be paused or cancelled (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-bg-7).", p.Name)
	case u.BG != nil && u.Rollback:
		return model.FailedPrecondition("The rollback of node pool %s cannot be cancelled.", p.Name)
	case u.BG != nil:
		// R-BG-7: the upgrade pauses in its phase; resume or roll back later.
		u.Paused = true
		p.Status = model.PoolRunning
		w.engine.Record("UpgradeCancelled", c, p.Name, "", u.Op, "blue-green upgrade of %s paused in phase %s; resume it (update to the same version) or roll it back", p.Name, u.BG.Phase)
		w.finishUpgradeOp(op, core.CodeCancelled, fmt.Sprintf("Cancelled the upgrade of node pool %s (%s, %s): it is paused; resume it (update to the same version) or roll it back",
			p.Name, DescribeSpecChange(u.From, u.Target), StrategyName(u.Strategy)))
		return nil
	}
	// R-SURGE-9: nodes mid-upgrade finish; nodes not started are left as they are.
	if u.Stopping {
		return nil
	}
	u.Stopping = true
	w.engine.Record("UpgradeCancelled", c, p.Name, "", u.Op, "upgrade of %s cancelled after %d of %d nodes; nodes mid-upgrade will finish", p.Name, u.Done, u.Total)
	w.StepUpgrade(c, p)
	return nil
}

// ResumeUpgrade continues a paused blue-green upgrade in its phase (R-BG-7).
func (w *Upgrades) ResumeUpgrade(c *model.Cluster, p *model.NodePool) *model.Operation {
	u := p.Upgrade
	op := w.core.StartOperation(api.OpUpgradeNodes, c, p.Name, true)
	u.Op, u.Paused, u.Resumed = op.ID, false, true
	if u.BG.Phase == model.PhaseDrainingBlue && !u.BG.BatchOpen {
		// The previous batch had finished draining: the next may start without its soak,
		// whose time so far still counts towards R-BG-4's 7 days.
		w.endSoak(c, p)
		u.BG.PhaseUntil = time.Time{}
	}
	p.Status = model.PoolReconciling
	op.Detail = "Resuming the upgrade of node pool " + p.Name + " in phase " + u.BG.Phase
	return op
}

// RollbackNodePool is nodePools.rollback: it takes a partially upgraded pool back to its
// previous configuration. A successful upgrade cannot be rolled back (R-SURGE-9); nor can an
// autoscaled blue-green one (R-ABG-5).
func (w *Upgrades) RollbackNodePool(project, location, cluster, name string, req *api.RollbackNodePoolUpgradeRequest) (*model.Operation, error) {
	c, p, err := w.core.GetNodePool(project, location, cluster, name)
	if err != nil {
		return nil, err
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	respectPDB := req != nil && req.RespectPdb
	drain := model.DrainPolicy{RespectPDB: respectPDB, PDBTimeout: time.Hour, GraceCap: time.Hour}
	if u := p.Upgrade; u != nil && u.BG != nil {
		if u.BG.Autoscaled {
			return nil, model.FailedPrecondition("Autoscaled blue-green upgrades cannot be rolled back; resume the upgrade of node pool %s instead (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-abg-5).", p.Name)
		}
		// R-BG-7: blue back in service, green drained and deleted, whatever the phase reached.
		op := w.core.StartOperation(api.OpUpgradeNodes, c, p.Name, true)
		from := u.BG.Phase
		u.Op, u.Paused, u.Rollback, u.Drain = op.ID, false, true, drain
		u.From, u.Target = u.Target, u.From
		u.BG.Deleting = false
		p.Status = model.PoolReconciling
		op.Detail = "Rolling back the blue-green upgrade of node pool " + p.Name + " from phase " + from
		w.engine.Record("UpgradeRollback", c, p.Name, "", op.ID, "rolling back the blue-green upgrade of %s from phase %s: blue uncordoned, green drained (respectPdb=%v) and deleted", p.Name, from, respectPDB)
		// Logged as every phase is, so that the log (and the timeline) shows where it went.
		w.enterPhase(c, p, model.PhaseRollback, "from phase %s", from)
		return op, nil
	}
	last := p.LastUpgrade
	if last == nil || !last.Cancelled {
		return nil, model.FailedPrecondition("Node pool %s has no cancelled or failed upgrade to roll back: a successful upgrade cannot be rolled back (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-surge-9). To run an older version, update the node pool's version.", p.Name)
	}
	upgraded := 0
	for _, n := range c.Nodes {
		if n.Pool == p.Name && n.Spec == last.Target && n.Spec != last.From {
			upgraded++
		}
	}
	if upgraded == 0 {
		return nil, model.FailedPrecondition("Node pool %s has no upgraded node to roll back.", p.Name)
	}
	// R-SURGE-9: the upgraded nodes go back to the previous configuration with the surge
	// mechanics; nodes that were never upgraded are not touched.
	op := w.planUpgrade(c, p, last.From)
	u := p.Upgrade
	u.Strategy, u.BG, u.Rollback, u.Drain, u.From = StrategySurge, nil, true, drain, last.Target
	op.Detail = "Rolling back node pool " + p.Name + ": " + DescribeSpecChange(last.Target, last.From)
	w.engine.Record("UpgradeRollback", c, p.Name, "", op.ID, "rolling back %d upgraded nodes of %s to %s (respectPdb=%v)", upgraded, p.Name, last.From.Version, respectPDB)
	return op, nil
}

// rollBackBlueGreen runs a blue-green rollback; it reports whether the green pool is gone.
func (w *Upgrades) rollBackBlueGreen(c *model.Cluster, p *model.NodePool) bool {
	u := p.Upgrade
	bg := u.BG
	if !bg.Deleting {
		bg.Deleting = true
		for _, g := range p.Groups {
			if !bg.IsBlue(g.Name) {
				continue
			}
			for _, name := range g.Nodes {
				n := c.Nodes[name]
				if n.State == model.NodeDraining {
					n.Drain = nil // draining stops
				}
				n.UpgradeRole = model.RoleNone
				w.uncordon(c, n, "blue-green rollback")
			}
		}
		for _, g := range p.Groups {
			if !bg.IsGreen(g.Name) {
				continue
			}
			for _, name := range append([]string(nil), g.Nodes...) {
				n := c.Nodes[name]
				n.UpgradeRole = model.RoleNone
				w.core.RetireNode(c, n, u.Drain, "blue-green rollback: green pool removed")
			}
		}
	}
	for _, g := range p.Groups {
		if bg.IsGreen(g.Name) && len(g.Nodes) > 0 {
			return false
		}
	}
	w.removeGroups(p, bg.Green)
	u.Done = u.Total
	return true
}

// uncordon puts a node back in service.
func (w *Upgrades) uncordon(c *model.Cluster, n *model.Node, why string) {
	if !n.Unschedulable || n.State == model.NodeDeleting || n.State == model.NodeProvisioning {
		return
	}
	n.Unschedulable = false
	w.core.SetNodeState(c, n, model.NodeReady)
	w.engine.Record("NodeUncordoned", c, n.Pool, n.Name, "", "uncordoned node %s: %s", n.Name, why)
}

// CompleteNodePoolUpgrade is nodePools.completeUpgrade: in the soak phase of a blue-green
// upgrade it skips the rest of the soak and starts deleting the blue pool (R-BG-7).
func (w *Upgrades) CompleteNodePoolUpgrade(project, location, cluster, name string) error {
	c, p, err := w.core.GetNodePool(project, location, cluster, name)
	if err != nil {
		return err
	}
	u := p.Upgrade
	if u == nil || u.BG == nil || u.BG.Phase != model.PhaseSoaking {
		phase := "not upgrading"
		if u != nil && u.BG != nil {
			phase = "in phase " + u.BG.Phase
		} else if u != nil {
			phase = "in a " + StrategyName(u.Strategy) + " upgrade"
		}
		return model.FailedPrecondition("completeUpgrade applies only to a blue-green upgrade in its NODE_POOL_SOAKING phase; node pool %s is %s (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-bg-7).", p.Name, phase)
	}
	if u.Paused {
		return model.FailedPrecondition("The blue-green upgrade of node pool %s is paused; resume it before completing it.", p.Name)
	}
	w.engine.Record("UpgradeCompleted", c, p.Name, "", u.Op, "completeUpgrade: skipping the remaining %s of the soak; deleting the blue pool now",
		u.BG.PhaseUntil.Sub(w.st.Now).Round(time.Second))
	u.BG.PhaseUntil, u.BG.DeletionStart = w.st.Now, w.st.Now
	w.StepUpgrade(c, p)
	return nil
}
