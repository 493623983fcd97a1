package maintenance

import (
	"fmt"
	"sort"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/window"
)

// The maintenance evaluator: may an upgrade of kind K run on a cluster at emulated time T, and
// when is the next time it may? R-MW-1: automatic maintenance that respects the policy runs only
// while the maintenance window is open (any time, without a window) and no active exclusion
// blocks it; exclusions win over windows. R-EX-2: if any active exclusion blocks an upgrade it
// is postponed; expired exclusions block nothing. R-EX-1: what each scope blocks.
//
// Other controllers ask through MaintenanceAllows, NextAllowed and MaintenanceAllowedUntil
// (surge upgrades pausing when the window closes, R-MW-3; manual node-recreating changes waiting
// for a window, R-MW-5). Maintenance that the policy does not govern (R-MW-4: node auto-repair,
// mandatory upgrades of versions at end of support) does not ask.

// UpgradeKinds lists every kind, control plane first, as R-EX-1's table does.
var UpgradeKinds = []model.UpgradeKind{model.ControlPlaneMinor, model.ControlPlanePatch, model.ControlPlaneDisruption, model.NodeMinor, model.NodePatch, model.NodeDisruption}

// MaintenanceHorizon bounds how far ahead NextAllowed looks.
const MaintenanceHorizon = 2 * 365 * model.Day

// ScopeBlocks says whether an exclusion of scope blocks kind (R-EX-1's table): NO_UPGRADES (the
// default) blocks everything; NO_MINOR_UPGRADES blocks minor upgrades only;
// NO_MINOR_OR_NODE_UPGRADES blocks minor upgrades and every node upgrade, leaving control-plane
// patches and control-plane VM disruption.
func ScopeBlocks(scope string, k model.UpgradeKind) bool {
	switch scope {
	case api.ScopeNoMinorUpgrades:
		return k == model.ControlPlaneMinor || k == model.NodeMinor
	case api.ScopeNoMinorOrNodeUpgrades:
		return k == model.ControlPlaneMinor || k.IsNode()
	}
	return true
}

// NodeUpgradeKind classifies a node-recreating change from one node spec to another: a minor
// or patch version change, else a change that only recreates the VMs (machine type, disk,
// image: R-UPG-1).
func NodeUpgradeKind(from, to model.NodeSpec) model.UpgradeKind {
	a, okA := catalog.ParseVersion(from.Version)
	b, okB := catalog.ParseVersion(to.Version)
	switch {
	case okA && okB && a.Minor != b.Minor:
		return model.NodeMinor
	case from.Version != to.Version:
		return model.NodePatch
	}
	return model.NodeDisruption
}

// windowCache is a cluster's compiled window, valid for one policy version.
type windowCache struct {
	version string
	ws      *window.Schedule
}

// WindowOf returns the cluster's compiled window, compiling it when the policy changed.
func (w *Maintenance) WindowOf(c *model.Cluster) *window.Schedule {
	if w.maint == nil {
		w.maint = map[string]*windowCache{}
	}
	mc := w.maint[c.Key()]
	if mc == nil || mc.version != c.PolicyVersion {
		mc = &windowCache{version: c.PolicyVersion, ws: NewWindowSchedule(c.MaintenancePolicy)}
		w.maint[c.Key()] = mc
	}
	return mc.ws
}

// BlockingExclusions returns the names of the exclusions active at t that block kind, and when
// the last of them ends.
func (w *Maintenance) BlockingExclusions(c *model.Cluster, kind model.UpgradeKind, t time.Time) ([]string, time.Time) {
	p := c.MaintenancePolicy
	var names []string
	var until time.Time
	for _, name := range p.ExclusionNames() {
		e := p.Exclusions[name]
		end := w.ExclusionEnd(c, e)
		if t.Before(e.Start) || !t.Before(end) || !ScopeBlocks(e.Scope, kind) {
			continue
		}
		names = append(names, name)
		if end.After(until) {
			until = end
		}
	}
	return names, until
}

// MaintenanceAllows says whether maintenance of kind may run on c at t under its maintenance
// policy (R-MW-1, R-EX-1, R-EX-2), and if not, why.
func (w *Maintenance) MaintenanceAllows(c *model.Cluster, kind model.UpgradeKind, t time.Time) (bool, string) {
	if names, until := w.BlockingExclusions(c, kind, t); len(names) > 0 {
		what := "maintenance exclusion %s blocks %s until %s"
		if len(names) > 1 {
			what = "maintenance exclusions %s block %s until %s"
		}
		return false, fmt.Sprintf(what, model.QuoteList(names), kind.Describe(), until.Format(time.RFC3339))
	}
	s, ok := w.WindowOf(c).NextOpen(t, t.Add(MaintenanceHorizon))
	switch {
	case !ok:
		return false, "the maintenance window does not open again"
	case s.Start.After(t):
		return false, "outside the maintenance window, which next opens at " + s.Start.Format(time.RFC3339)
	}
	return true, ""
}

// NextAllowed returns the first time at or after from at which maintenance of kind may run on
// c, or the zero time if there is none within two years.
func (w *Maintenance) NextAllowed(c *model.Cluster, kind model.UpgradeKind, from time.Time) time.Time {
	horizon := from.Add(MaintenanceHorizon)
	ws := w.WindowOf(c)
	t := from
	for i := 0; i < 1000 && !t.After(horizon); i++ {
		if names, until := w.BlockingExclusions(c, kind, t); len(names) > 0 {
			t = until
			continue
		}
		s, ok := ws.NextOpen(t, horizon)
		if !ok {
			return time.Time{}
		}
		if s.Start.After(t) {
			t = s.Start
			continue
		}
		return t
	}
	return time.Time{}
}

// MaintenanceAllowedUntil returns when the stretch in which maintenance of kind may run,
// containing t, ends: the window closes or a blocking exclusion begins. ok is false when it
// may not run at t; end is zero when nothing ends the stretch within two years.
func (w *Maintenance) MaintenanceAllowedUntil(c *model.Cluster, kind model.UpgradeKind, t time.Time) (end time.Time, ok bool) {
	if allowed, _ := w.MaintenanceAllows(c, kind, t); !allowed {
		return time.Time{}, false
	}
	if ws := w.WindowOf(c); !ws.Always() {
		s, _ := ws.NextOpen(t, t.Add(MaintenanceHorizon))
		end = s.End
	}
	p := c.MaintenancePolicy
	for _, name := range p.ExclusionNames() {
		e := p.Exclusions[name]
		if e.Start.After(t) && ScopeBlocks(e.Scope, kind) && (end.IsZero() || e.Start.Before(end)) {
			end = e.Start
		}
	}
	return end, true
}

// OpenWindows returns the next n stretches, from `from` on, in which maintenance may run at
// all: the window's open time outside NO_UPGRADES exclusions. A stretch open at `from` starts
// there; one still open at the horizon has a zero end.
func (w *Maintenance) OpenWindows(c *model.Cluster, from time.Time, n int) []window.Span {
	horizon := from.Add(MaintenanceHorizon)
	p := c.MaintenancePolicy
	var blocked []window.Span
	for _, name := range p.ExclusionNames() {
		if e := p.Exclusions[name]; e.Scope == api.ScopeNoUpgrades {
			blocked = append(blocked, window.Span{Start: e.Start, End: w.ExclusionEnd(c, e)})
		}
	}
	sort.Slice(blocked, func(i, j int) bool { return blocked[i].Start.Before(blocked[j].Start) })
	out := window.Subtract(w.WindowOf(c).OpenStretches(from, horizon), blocked)
	if k := len(out); k > 0 && !out[k-1].End.Before(horizon) {
		out[k-1].End = time.Time{}
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}
