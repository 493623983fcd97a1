package views

import (
	"fmt"
	"sort"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/window"
)

// The maintenance calendar of a cluster (the web console's maintenance view): the window's
// occurrences and the exclusions over the next days, the availability GKE counts for its
// 48-hours-in-32-days rule (R-EX-4a) day by day, when each kind of upgrade may next run (the
// evaluator behind maintenanceSchedule, R-MW-1, R-EX-1/2), and the automatic upgrades that ran
// or waited, with their reasons.

// Bounds of the calendar.
const (
	DefaultCalendarDays = 60
	MaxCalendarDays     = 400
	// maxAutoUpgradeEntries is how many automatic-upgrade entries the calendar lists.
	maxAutoUpgradeEntries = 200
)

// autoUpgradeLog are the log entries of automatic upgrades the calendar lists.
var autoUpgradeLog = map[string]bool{"AutoUpgradeRollout": true, "AutoUpgradeStarted": true, "AutoUpgradeWaiting": true, "AutoUpgradeFailed": true}

// MaintenanceCalendar is the calendar of a cluster for the next days (0: DefaultCalendarDays).
func (w *Views) MaintenanceCalendar(project, location, name string, days int) (*api.MaintenanceCalendar, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	if days <= 0 {
		days = DefaultCalendarDays
	}
	now := w.st.Now
	to := now.Add(time.Duration(days) * model.Day)
	out := &api.MaintenanceCalendar{Now: now.Format(time.RFC3339), From: now.Format(time.RFC3339), To: to.Format(time.RFC3339),
		Occurrences: []*api.ScheduleWindow{}, Exclusions: []*api.CalendarExclusion{}, Available: []*api.CalendarStretch{},
		Rolling: []*api.RollingAvailability{}, RequiredHours: window.AvailabilityNeeded.Hours(), AutoUpgrades: []*api.AutoUpgradeEntry{}}
	p := c.MaintenancePolicy
	ws := w.maintenance.WindowOf(c)
	if !ws.Always() {
		out.Window = describeWindow(p)
		for _, s := range ws.Spans(now, to) {
			out.Occurrences = append(out.Occurrences, &api.ScheduleWindow{StartTime: core.MaxTime(s.Start, now).Format(time.RFC3339), EndTime: core.MinTime(s.End, to).Format(time.RFC3339)})
		}
	}
	var blocked []window.Span
	for _, name := range p.ExclusionNames() {
		e := p.Exclusions[name]
		end := w.maintenance.ExclusionEnd(c, e)
		if e.Scope == api.ScopeNoUpgrades {
			blocked = append(blocked, window.Span{Start: e.Start, End: end})
		}
		if !end.After(now) {
			continue
		}
		ce := &api.CalendarExclusion{Name: name, Scope: e.Scope, StartTime: e.Start.Format(time.RFC3339), EndTime: end.Format(time.RFC3339),
			UntilEndOfSupport: e.UntilEndOfSupport, Blocks: []string{}}
		for _, k := range maintenance.UpgradeKinds {
			if maintenance.ScopeBlocks(e.Scope, k) {
				ce.Blocks = append(ce.Blocks, string(k))
			}
		}
		out.Exclusions = append(out.Exclusions, ce)
	}
	sort.Slice(blocked, func(i, j int) bool { return blocked[i].Start.Before(blocked[j].Start) })
	// R-EX-4a: available time is in the window and outside NO_UPGRADES exclusions; stretches of
	// at least 4 hours count. The rolling periods of the last days reach 32 days past `to`.
	counted, open := window.Counted(ws, blocked, now.Add(-2*model.Day), to.Add(window.AvailabilityPeriod+2*model.Day))
	for _, s := range open {
		if s.End.After(now) && s.Start.Before(to) {
			out.Available = append(out.Available, &api.CalendarStretch{StartTime: core.MaxTime(s.Start, now).Format(time.RFC3339),
				EndTime: core.MinTime(s.End, to).Format(time.RFC3339), Counted: s.Length() >= window.AvailabilityMinStretch})
		}
	}
	covered := window.Coverage(counted)
	for d := 0; d < days; d++ {
		start := now.Add(time.Duration(d) * model.Day)
		got := covered(start.Add(window.AvailabilityPeriod)) - covered(start)
		out.Rolling = append(out.Rolling, &api.RollingAvailability{Start: start.Format(time.RFC3339), Hours: got.Round(time.Minute).Hours()})
	}
	worst, hours := window.WorstAvailability(ws, blocked, now, to)
	out.WorstStart, out.WorstHours = worst.Format(time.RFC3339), hours.Round(time.Minute).Hours()
	if out.Schedule, err = w.MaintenanceSchedule(project, location, name, 5); err != nil {
		return nil, err
	}
	out.AutoUpgrades = w.autoUpgradeEntries(c)
	if am := c.AutoMaintenance; am != nil {
		out.Waiting = am.Waiting
	}
	return out, nil
}

// describeWindow says when a policy's window is open.
func describeWindow(p *model.MaintenancePolicy) string {
	if p.Daily != nil {
		return fmt.Sprintf("daily at %s UTC for %s", p.Daily.StartTime, model.ShortDuration(maintenance.DailyWindowLength))
	}
	r := p.Recurring
	return fmt.Sprintf("%s, from %s UTC for %s", r.Recurrence, r.Start.Format("15:04"), model.ShortDuration(r.End.Sub(r.Start)))
}

// autoUpgradeEntries lists the cluster's automatic upgrades that started (from its history)
// and the log's entries about them (targets reaching the cluster, upgrades waiting or failing,
// the reason each started), oldest first, at most maxAutoUpgradeEntries.
func (w *Views) autoUpgradeEntries(c *model.Cluster) []*api.AutoUpgradeEntry {
	started := map[string]*model.AutoUpgradeRecord{}
	if am := c.AutoMaintenance; am != nil {
		for i := range am.History {
			started[am.History[i].Op] = &am.History[i]
		}
	}
	key := c.Key()
	entries := &w.st.Log
	var out []*api.AutoUpgradeEntry
	for i := entries.Len() - 1; i >= 0 && len(out) < maxAutoUpgradeEntries; i-- {
		if e := entries.Peek(i); e.Cluster != key || !autoUpgradeLog[e.Type] {
			continue
		}
		e := entries.At(i)
		ae := &api.AutoUpgradeEntry{Time: e.Time.Format(time.RFC3339), Type: e.Type, NodePool: e.Pool, Operation: e.Op, Message: e.Message}
		if r := started[e.Op]; r != nil && e.Op != "" {
			ae.Kind, ae.From, ae.To = string(r.Kind), r.From, r.To
			delete(started, e.Op)
		}
		out = append(out, ae)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	// Upgrades whose log entries have been trimmed from the log.
	for op, r := range started {
		out = append(out, &api.AutoUpgradeEntry{Time: r.Start.Format(time.RFC3339), Type: "AutoUpgradeStarted", NodePool: r.Pool,
			Operation: op, Kind: string(r.Kind), From: r.From, To: r.To, Message: fmt.Sprintf("automatic %s from %s to %s", r.Kind, r.From, r.To)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	if len(out) > maxAutoUpgradeEntries {
		out = out[len(out)-maxAutoUpgradeEntries:]
	}
	if out == nil {
		out = []*api.AutoUpgradeEntry{}
	}
	return out
}
