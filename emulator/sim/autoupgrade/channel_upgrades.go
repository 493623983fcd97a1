package autoupgrade

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Automatic upgrades, governed by the maintenance policy.
//
// A release channel's upgrade target (its default version, catalog/versions.go) changes as emulated
// time passes. Each change is rolled out: it reaches a cluster a few days later (a fixed offset
// per cluster, up to rolloutSpread), and from then on the cluster is due to move to the target:
// the control plane first (a minor upgrade one minor at a time, or a patch upgrade within its
// minor), then each node pool with auto-upgrade on, to the control plane's version. Every step
// runs only when the evaluator allows its kind (R-MW-1, R-EX-1), so a NO_MINOR_UPGRADES
// exclusion lets patches through and holds minors until it expires; a cluster several minors
// behind then catches up one minor a month (R-EX-5). A control plane whose minor reached the end
// of support is upgraded regardless of the policy (R-MW-4). Objects changed by hand after a
// rollout reached the cluster wait for the next rollout.

const (
	evAutoMaintenance = "maintenance.check"
	// autoMaintenancePoll is how often the driver looks again while the cluster is busy.
	autoMaintenancePoll = 5 * time.Minute
	// rolloutSpread is how long a new upgrade target takes to reach every cluster.
	RolloutSpread = 4 * model.Day
	// minorUpgradeInterval spaces automatic minor upgrades of a cluster catching up (R-EX-5).
	minorUpgradeInterval = 30 * model.Day
	// maxUpgradeHistory is how many automatic upgrades a cluster remembers.
	maxUpgradeHistory = 20
)

func (w *AutoUpgrades) RegisterMaintenanceHandlers() {
	w.engine.On(evAutoMaintenance, w.onAutoMaintenance)
	w.engine.On(evAutoRepair, w.onAutoRepair)
}

// StartAutoMaintenance begins automatic maintenance of a new cluster: it runs the channel's
// current target, so nothing is due until the target changes.
func (w *AutoUpgrades) StartAutoMaintenance(c *model.Cluster) {
	c.AutoMaintenance = &model.AutoMaintenance{RolloutTarget: ChannelTarget(c.ReleaseChannel, w.st.Now).String()}
	c.AutoMaintenance.NextRollout = w.rolloutAfter(c, w.st.Now)
	w.WakeAutoMaintenance(c, c.AutoMaintenance.NextRollout)
}

// RolloutOffset is how long after a target change the rollout reaches this cluster.
func RolloutOffset(c *model.Cluster) time.Duration {
	return time.Duration(model.FNV32(c.ID)%uint32(RolloutSpread/time.Hour)) * time.Hour
}

// ChannelTarget is a channel's auto-upgrade target at t (clusters without a channel follow
// the static default, Regular's).
func ChannelTarget(channel string, t time.Time) catalog.Version {
	return catalog.VersionsAt(t).DefaultFor(channel)
}

// nextTargetChange is the first time after t at which the channel's upgrade target changes (the
// version table changes at midnight UTC), or zero if not within 400 days.
func nextTargetChange(channel string, t time.Time) time.Time {
	cur := ChannelTarget(channel, t)
	for d := t.Truncate(model.Day).Add(model.Day); d.Before(t.Add(400 * model.Day)); d = d.Add(model.Day) {
		if ChannelTarget(channel, d) != cur {
			return d
		}
	}
	return time.Time{}
}

// rolloutAfter is when the first target change after t reaches the cluster.
func (w *AutoUpgrades) rolloutAfter(c *model.Cluster, t time.Time) time.Time {
	next := nextTargetChange(c.ReleaseChannel, t)
	if next.IsZero() {
		return next
	}
	return next.Add(RolloutOffset(c))
}

// WakeAutoMaintenance makes the driver look at the cluster at `at` (or earlier, if it already
// means to).
func (w *AutoUpgrades) WakeAutoMaintenance(c *model.Cluster, at time.Time) {
	am := c.AutoMaintenance
	if am == nil || at.IsZero() {
		return
	}
	if at.Before(w.st.Now) {
		at = w.st.Now
	}
	if !am.NextCheck.IsZero() && !at.Before(am.NextCheck) {
		return
	}
	am.NextCheck = at
	w.engine.Schedule(at.Sub(w.st.Now), model.Event{Kind: evAutoMaintenance, Cluster: c.Key()})
}

func (w *AutoUpgrades) onAutoMaintenance(ev model.Event) {
	c := w.st.Clusters[ev.Cluster]
	if c == nil || c.AutoMaintenance == nil || !w.st.Now.Equal(c.AutoMaintenance.NextCheck) {
		return // the cluster is gone, or a later wake-up superseded this one
	}
	am := c.AutoMaintenance
	am.NextCheck = time.Time{}
	now := w.st.Now
	if !am.NextRollout.IsZero() && !now.Before(am.NextRollout) {
		changedAt := now.Add(-RolloutOffset(c))
		if target := ChannelTarget(c.ReleaseChannel, changedAt).String(); target != am.RolloutTarget {
			am.RolloutTarget, am.Due, am.Waiting = target, true, ""
			w.engine.Record("AutoUpgradeRollout", c, "", "", "", "auto-upgrade target %s of release channel %s reached cluster %s (control plane %s)",
				target, c.ReleaseChannel, c.Name, c.MasterVersion)
		}
		am.NextRollout = w.rolloutAfter(c, changedAt)
	}
	next := am.NextRollout
	if am.Due {
		if at := w.autoUpgradeStep(c); !at.IsZero() && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	w.WakeAutoMaintenance(c, next)
}

// autoUpgradeCandidate is one automatic upgrade the cluster is due for.
type autoUpgradeCandidate struct {
	kind model.UpgradeKind
	pool *model.NodePool
	to   catalog.Version
	// notBefore spaces minor upgrades (R-EX-5).
	notBefore time.Time
	// mandatory: the minor the control plane or the pool runs is at its end of support
	// (R-MW-4), which is mandatoryAt (zero when the candidate never becomes mandatory).
	mandatory   bool
	mandatoryAt time.Time
}

// autoUpgradeCandidates lists what the cluster is due for, in the order GKE takes it: the
// control plane (minor, else patch), then the node pools.
func (w *AutoUpgrades) autoUpgradeCandidates(c *model.Cluster) []autoUpgradeCandidate {
	am := c.AutoMaintenance
	now := w.st.Now
	master, _ := catalog.ParseVersion(c.MasterVersion)
	rolled, _ := catalog.ParseVersion(am.RolloutTarget)
	valid := catalog.VersionsAt(now).ValidFor(c.ReleaseChannel)
	var out []autoUpgradeCandidate
	if master.Minor < rolled.Minor {
		// The next minor, no newer than the target that reached the cluster when that is of it.
		if to, ok := newestOfMinor(valid, master.Minor+1, capAt(rolled, master.Minor+1)); ok {
			cand := autoUpgradeCandidate{kind: model.ControlPlaneMinor, to: to}
			if !am.LastMinorUpgrade.IsZero() {
				cand.notBefore = am.LastMinorUpgrade.Add(minorUpgradeInterval)
			}
			_, eos := w.maintenance.EndOfSupport(c)
			cand.mandatory, cand.mandatoryAt = !now.Before(eos), eos
			out = append(out, cand)
		}
	}
	if to, ok := newestOfMinor(valid, master.Minor, capAt(rolled, master.Minor)); ok && to.Compare(master) > 0 {
		out = append(out, autoUpgradeCandidate{kind: model.ControlPlanePatch, to: to})
	}
	for _, p := range c.Pools {
		pv, ok := catalog.ParseVersion(p.Spec.Version)
		if !ok || !p.AutoUpgrade || p.Upgrade != nil || p.Status != model.PoolRunning || pv.Compare(master) >= 0 {
			continue
		}
		kind := model.NodePatch
		if pv.Minor < master.Minor {
			kind = model.NodeMinor
		}
		// Nodes on a minor at its end of support are upgraded whatever the policy (R-MW-4).
		_, _, end := catalog.ChannelDelays(c.ReleaseChannel)
		eos := end(catalog.ScheduleOf(pv.Minor))
		out = append(out, autoUpgradeCandidate{kind: kind, pool: p, to: master, mandatory: !now.Before(eos), mandatoryAt: eos})
	}
	return out
}

// capAt is the rollout target as the newest version an automatic upgrade to minor may take,
// when the target is of that minor; nil otherwise.
func capAt(rolled catalog.Version, minor int) *catalog.Version {
	if rolled.Minor == minor {
		return &rolled
	}
	return nil
}

// newestOfMinor is the newest version of a minor in list, no newer than atMost if given.
func newestOfMinor(list []catalog.Version, minor int, atMost *catalog.Version) (catalog.Version, bool) {
	var best catalog.Version
	found := false
	for _, v := range list {
		if v.Minor != minor || (atMost != nil && v.Compare(*atMost) > 0) {
			continue
		}
		if !found || v.Compare(best) > 0 {
			best, found = v, true
		}
	}
	return best, found
}

// autoUpgradeStep starts the first automatic upgrade the cluster is due for and the policy
// allows now. It returns when to look again (zero: not before the next rollout).
func (w *AutoUpgrades) autoUpgradeStep(c *model.Cluster) time.Time {
	now := w.st.Now
	am := c.AutoMaintenance
	if c.Status != model.ClusterRunning || w.core.CheckClusterFree(c) != nil {
		return now.Add(autoMaintenancePoll)
	}
	cands := w.autoUpgradeCandidates(c)
	if len(cands) == 0 {
		am.Due, am.Waiting = false, ""
		w.engine.Record("AutoUpgradeIdle", c, "", "", "", "cluster %s is on its auto-upgrade target: control plane %s", c.Name, c.MasterVersion)
		return time.Time{}
	}
	var earliest time.Time
	var waiting string
	for _, cand := range cands {
		if !cand.mandatory {
			from := core.MaxTime(now, cand.notBefore)
			if allowed, reason := w.maintenance.MaintenanceAllows(c, cand.kind, from); !allowed || from.After(now) {
				next := w.maintenance.NextAllowed(c, cand.kind, from)
				if m := cand.mandatoryAt; !m.IsZero() && (next.IsZero() || m.Before(next)) {
					next = m // the end of support starts it whatever the policy
				}
				if !next.IsZero() && (earliest.IsZero() || next.Before(earliest)) {
					earliest = next
				}
				if waiting == "" {
					if reason == "" {
						reason = "one minor upgrade a month while catching up, next from " + from.Format(time.RFC3339)
					}
					waiting = string(cand.kind) + " to " + cand.to.String() + " waits: " + reason
				}
				continue
			}
		}
		if w.startAutoUpgrade(c, cand) {
			am.Waiting = ""
			return now.Add(autoMaintenancePoll)
		}
	}
	if waiting != am.Waiting {
		am.Waiting = waiting
		w.engine.Record("AutoUpgradeWaiting", c, "", "", "", "automatic upgrade of %s: %s", c.Name, waiting)
	}
	return earliest
}

// startAutoUpgrade starts one automatic upgrade; it reports whether it started.
func (w *AutoUpgrades) startAutoUpgrade(c *model.Cluster, cand autoUpgradeCandidate) bool {
	am := c.AutoMaintenance
	rec := model.AutoUpgradeRecord{Kind: cand.kind, To: cand.to.String(), Start: w.st.Now}
	var op *model.Operation
	if cand.pool == nil {
		rec.From = c.MasterVersion
		var err error
		if op, err = w.upgrade.UpgradeMaster(c, cand.to.String()); err != nil {
			// The control plane cannot move (e.g. a pool without auto-upgrade is too old):
			// leave the cluster until the next rollout.
			am.Due = false
			w.engine.Record("AutoUpgradeFailed", c, "", "", "", "automatic %s of %s to %s cannot start: %s", cand.kind, c.Name, cand.to, err)
			return false
		}
		if cand.kind == model.ControlPlaneMinor {
			am.LastMinorUpgrade = w.st.Now
		}
	} else {
		p := cand.pool
		rec.Pool, rec.From = p.Name, p.Spec.Version
		target := p.Spec
		target.Version = cand.to.String()
		p.Etag = w.engine.RandHex(16)
		w.core.TouchCluster(c)
		op = w.upgrade.PlanAutoUpgrade(c, p, target)
		if cand.mandatory {
			p.Upgrade.Policy = "" // R-MW-4: not governed by the policy
		}
	}
	rec.Op = op.ID
	why := "allowed by the maintenance policy"
	if cand.mandatory {
		why = "mandatory: minor at end of support, not governed by the maintenance policy"
	}
	w.engine.Record("AutoUpgradeStarted", c, rec.Pool, "", op.ID, "automatic %s of %s from %s to %s (%s)", cand.kind, describeTarget(c, rec.Pool), rec.From, rec.To, why)
	am.History = append(am.History, rec)
	if len(am.History) > maxUpgradeHistory {
		am.History = am.History[len(am.History)-maxUpgradeHistory:]
	}
	return true
}

func describeTarget(c *model.Cluster, pool string) string {
	if pool == "" {
		return "the control plane of " + c.Name
	}
	return "node pool " + pool
}

// ClusterUpgradeInfo answers clusters.fetchClusterUpgradeInfo: the auto-upgrade status and why
// it is paused, the targets, the end of support of the control plane's minor, and the past
// automatic upgrades.
func (w *AutoUpgrades) ClusterUpgradeInfo(project, location, name string) (*api.ClusterUpgradeInfo, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	now := w.st.Now
	master, _ := catalog.ParseVersion(c.MasterVersion)
	valid := catalog.VersionsAt(now).ValidFor(c.ReleaseChannel)
	s := catalog.ScheduleOf(master.Minor)
	out := &api.ClusterUpgradeInfo{
		EndOfStandardSupportTimestamp: s.EndOfStandard.Format(time.RFC3339),
		EndOfExtendedSupportTimestamp: s.EndOfExtended.Format(time.RFC3339),
	}
	// The targets are those of the rollout that reached the cluster (R-EX-5 aside).
	var rolled catalog.Version
	if c.AutoMaintenance != nil {
		rolled, _ = catalog.ParseVersion(c.AutoMaintenance.RolloutTarget)
	}
	if v, ok := newestOfMinor(valid, master.Minor+1, capAt(rolled, master.Minor+1)); ok {
		out.MinorTargetVersion = v.String()
	}
	if v, ok := newestOfMinor(valid, master.Minor, capAt(rolled, master.Minor)); ok && v.Compare(master) > 0 {
		out.PatchTargetVersion = v.String()
	}
	reasons := map[string]bool{}
	p := c.MaintenancePolicy
	for _, name := range p.ExclusionNames() {
		e := p.Exclusions[name]
		if now.Before(e.Start) || !now.Before(w.maintenance.ExclusionEnd(c, e)) {
			continue
		}
		if e.Scope == api.ScopeNoUpgrades {
			reasons["MAINTENANCE_EXCLUSION_NO_UPGRADES"] = true
		} else {
			reasons["MAINTENANCE_EXCLUSION_NO_MINOR_UPGRADES"] = true
		}
	}
	if s, ok := w.maintenance.WindowOf(c).NextOpen(now, now.Add(maintenance.MaintenanceHorizon)); !ok || s.Start.After(now) {
		reasons["MAINTENANCE_WINDOW"] = true
	}
	for _, r := range []string{"MAINTENANCE_WINDOW", "MAINTENANCE_EXCLUSION_NO_UPGRADES", "MAINTENANCE_EXCLUSION_NO_MINOR_UPGRADES"} {
		if reasons[r] {
			out.PausedReason = append(out.PausedReason, r)
		}
	}
	patchOK, _ := w.maintenance.MaintenanceAllows(c, model.ControlPlanePatch, now)
	minorOK, _ := w.maintenance.MaintenanceAllows(c, model.ControlPlaneMinor, now)
	switch {
	case !patchOK:
		out.AutoUpgradeStatus = []string{"UPGRADE_PAUSED"}
	case !minorOK:
		out.AutoUpgradeStatus = []string{"MINOR_UPGRADE_PAUSED"}
	default:
		out.AutoUpgradeStatus = []string{"ACTIVE"}
	}
	if am := c.AutoMaintenance; am != nil {
		for i := len(am.History) - 1; i >= 0; i-- {
			r := am.History[i]
			d := &api.UpgradeDetails{StartTime: r.Start.Format(time.RFC3339), InitialVersion: r.From, TargetVersion: r.To,
				StartType: "AUTOMATIC", State: "RUNNING"}
			if op := w.st.Operations[r.Op]; op != nil && op.Status == api.OpStatusDone {
				d.EndTime = op.EndTime.Format(time.RFC3339)
				switch op.ErrorCode {
				case 0:
					d.State = "SUCCEEDED"
				case core.CodeCancelled:
					d.State = "CANCELED"
				default:
					d.State = "FAILED"
				}
			}
			out.UpgradeDetails = append(out.UpgradeDetails, d)
		}
	}
	return out, nil
}

// VersionSchedule is each release channel's versions at the current emulated time, with the
// channel entry and end of support of each minor (the emulator's /emulator/v1/versions; GKE's
// serverConfig has no support dates).
func (w *AutoUpgrades) VersionSchedule() *api.VersionSchedule {
	now := w.st.Now
	vt := catalog.VersionsAt(now)
	out := &api.VersionSchedule{Now: now.Format(time.RFC3339)}
	for _, ch := range catalog.Channels {
		cv := vt.Channels[ch]
		cs := &api.ChannelVersionSchedule{Channel: ch, ValidVersions: catalog.VersionStrings(cv.Valid)}
		if len(cv.Valid) > 0 {
			cs.DefaultVersion, cs.UpgradeTargetVersion = cv.Default.String(), cv.Default.String()
		}
		if t := nextTargetChange(ch, now); !t.IsZero() {
			cs.NextTargetChange = t.Format(time.RFC3339)
		}
		_, entry, end := catalog.ChannelDelays(ch)
		seen := map[int]bool{}
		for _, v := range cv.Valid {
			if seen[v.Minor] {
				continue
			}
			seen[v.Minor] = true
			s := catalog.ScheduleOf(v.Minor)
			cs.Minors = append(cs.Minors, &api.MinorSupport{Minor: v.MinorString(),
				ChannelEntry: entry(s).Format(time.RFC3339), EndOfSupport: end(s).Format(time.RFC3339),
				EndOfStandardSupport: s.EndOfStandard.Format(time.RFC3339), EndOfExtendedSupport: s.EndOfExtended.Format(time.RFC3339)})
		}
		out.Channels = append(out.Channels, cs)
	}
	return out
}
