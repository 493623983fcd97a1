package upgrade

import (
	"fmt"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Node upgrades that respect the maintenance policy.
//
// R-MW-5: a manual node-recreating change that is not a version upgrade (machine type, image
// type, disk) waits for an open maintenance window with no blocking exclusion before its first
// node is touched. Upgrading the pool to the version it already runs is the documented way to
// apply such a change now: it lifts the wait.
//
// R-MW-3: a surge upgrade that respects the policy (an automatic upgrade, or an R-MW-5 change)
// pauses when the window closes or a blocking exclusion starts: nodes mid-upgrade finish and no
// new node starts until the next open stretch. Blue-green, autoscaled blue-green and short-lived
// upgrades run to completion once begun (R-BG-8).
//
// Manual version upgrades and mandatory upgrades ignore the policy (Policy is empty).

// upgradeWindowOpen says whether p's upgrade may start nodes now. While it may not, it records
// why once and schedules a step for when it may again.
func (w *Upgrades) upgradeWindowOpen(c *model.Cluster, p *model.NodePool) bool {
	u := p.Upgrade
	if u.Policy == "" || c.MaintenancePolicy == nil || (!u.Deferred && u.Strategy != StrategySurge) {
		return true
	}
	now := w.st.Now
	if now.Before(u.OpenUntil) {
		return true
	}
	if end, ok := w.maintenance.MaintenanceAllowedUntil(c, u.Policy, now); ok {
		if end.IsZero() {
			end = now.Add(maintenance.MaintenanceHorizon)
		}
		u.OpenUntil = end
		if !u.WaitingUntil.IsZero() {
			u.WaitingUntil = time.Time{}
			if !u.Deferred {
				w.engine.Record("UpgradeResumed", c, p.Name, "", u.Op, "surge upgrade of %s resumed: maintenance allowed until %s", p.Name, end.Format(time.RFC3339))
			}
		}
		return true
	}
	u.OpenUntil = time.Time{}
	if u.WaitingUntil.After(now) {
		return false
	}
	_, why := w.maintenance.MaintenanceAllows(c, u.Policy, now)
	next := w.maintenance.NextAllowed(c, u.Policy, now)
	when := "no time within two years allows it: change the maintenance policy or cancel the operation"
	if !next.IsZero() {
		when = "waiting until " + next.Format(time.RFC3339)
		u.WaitingUntil = next
		w.engine.Schedule(next.Sub(now), model.Event{Kind: evUpgradeTimer, Cluster: c.Key(), Pool: p.Name, Op: u.Op})
	} else {
		u.WaitingUntil = now.Add(maintenance.MaintenanceHorizon)
	}
	if u.Deferred {
		w.engine.Record("UpgradeWaiting", c, p.Name, "", u.Op, "%s of %s (%s) respects the maintenance policy and has not begun: %s; %s. To apply it now, update the node pool to the version it runs",
			StrategyName(u.Strategy), p.Name, DescribeSpecChange(u.From, u.Target), why, when)
	} else {
		w.engine.Record("UpgradePaused", c, p.Name, "", u.Op, "surge upgrade of %s paused after %d of %d nodes: %s; nodes mid-upgrade finish, %s",
			p.Name, u.Done, u.Total, why, when)
	}
	return false
}

// MaintenancePolicyChanged re-evaluates upgrades waiting on the maintenance policy after it
// changed: a removed exclusion or a new window can let them go now.
func (w *Upgrades) MaintenancePolicyChanged(c *model.Cluster) {
	for _, p := range c.Pools {
		if u := p.Upgrade; u != nil && u.Policy != "" {
			u.OpenUntil, u.WaitingUntil = time.Time{}, time.Time{}
			w.engine.Schedule(0, model.Event{Kind: evUpgradeTimer, Cluster: c.Key(), Pool: p.Name, Op: u.Op})
		}
	}
}

// ApplyNowIfDeferred is the R-MW-5 override: an update of p to the version it already runs,
// with nothing else, while p's node-recreating change waits for a window, starts that change
// now. It reports whether it did; the change's operation carries on.
func (w *Upgrades) ApplyNowIfDeferred(c *model.Cluster, p *model.NodePool, version string, onlyVersion bool) (*model.Operation, bool) {
	u := p.Upgrade
	if u == nil || !u.Deferred || !onlyVersion || version != p.Spec.Version {
		return nil, false
	}
	op := w.st.Operations[u.Op]
	if op == nil {
		return nil, false
	}
	u.Policy, u.Deferred, u.WaitingUntil = "", false, time.Time{}
	w.engine.Record("UpgradeForced", c, p.Name, "", u.Op, "node pool %s upgraded to the version it runs (%s): the waiting %s starts now, outside the maintenance policy",
		p.Name, version, DescribeSpecChange(u.From, u.Target))
	w.BeginUpgrade(c, p)
	return op, true
}

func DescribeWait(u *model.Upgrade) string {
	if u.WaitingUntil.IsZero() {
		return ""
	}
	if u.Deferred {
		return fmt.Sprintf("waiting for a maintenance window (until %s)", u.WaitingUntil.Format(time.RFC3339))
	}
	return fmt.Sprintf("paused outside the maintenance window (until %s)", u.WaitingUntil.Format(time.RFC3339))
}
