package maintenance

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Maintenance policies: a cluster's one maintenance window and its exclusions (R-MW-2,
// R-EX-1..4), set with clusters.setMaintenancePolicy (or at creation) and validated against
// GKE's limits. The evaluator that answers "may this upgrade run now?" is in
// maintenance_eval.go, the windows and the availability rule in maintenance_window.go, the
// automatic upgrades the policy governs in autoupgrade/channel_upgrades.go.

// Limits of maintenance policies (GKE's maintenance docs, "Limitations"; R-EX-4).
const (
	maxExclusions           = 20
	maxNoUpgradesExclusions = 3
	maxNoUpgradesLength     = 30 * model.Day
	maxScopedExclusionAhead = 180 * model.Day
	DailyWindowLength       = 4 * time.Hour
	// dailyWindowDuration is how GKE reports the length of a daily window.
	dailyWindowDuration = "PT4H0M0S"
)

func DescribePolicy(p *model.MaintenancePolicy) string {
	if p.Empty() {
		return "cleared"
	}
	var parts []string
	switch {
	case p.Daily != nil:
		parts = append(parts, "daily window at "+p.Daily.StartTime+" UTC")
	case p.Recurring != nil:
		parts = append(parts, fmt.Sprintf("window %s-%s recurring %s", p.Recurring.Start.Format(time.RFC3339),
			p.Recurring.End.Format(time.RFC3339), p.Recurring.Recurrence))
	default:
		parts = append(parts, "no window")
	}
	for _, n := range p.ExclusionNames() {
		e := p.Exclusions[n]
		end := e.End.Format(time.RFC3339)
		if e.UntilEndOfSupport {
			end = "end of support"
		}
		parts = append(parts, fmt.Sprintf("exclusion %s %s %s-%s", n, e.Scope, e.Start.Format(time.RFC3339), end))
	}
	return strings.Join(parts, ", ")
}

var dailyStartRE = regexp.MustCompile(`^(\d{1,2}):(\d{2})$`)

// BuildMaintenancePolicy validates a policy from a request (field is its path in the request)
// against the cluster and the current emulated time, and builds the model of it.
func (w *Maintenance) BuildMaintenancePolicy(c *model.Cluster, in *api.MaintenancePolicy, field string) (*model.MaintenancePolicy, error) {
	p := &model.MaintenancePolicy{}
	win := in.Window
	if win == nil {
		return p, nil
	}
	wf := field + ".window"
	if win.DailyMaintenanceWindow != nil && win.RecurringWindow != nil {
		return nil, model.InvalidArgument("Invalid value for field %q: both dailyMaintenanceWindow and recurringWindow are set. A cluster has one maintenance window: set exactly one of them (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-mw-2).", wf)
	}
	if d := win.DailyMaintenanceWindow; d != nil {
		start, err := parseDailyStart(d.StartTime, wf+".dailyMaintenanceWindow.startTime")
		if err != nil {
			return nil, err
		}
		p.Daily = &model.DailyWindow{StartTime: start}
	}
	if r := win.RecurringWindow; r != nil {
		rw, err := parseRecurringWindow(r, wf+".recurringWindow")
		if err != nil {
			return nil, err
		}
		p.Recurring = rw
	}
	if err := w.buildExclusions(c, p, win.MaintenanceExclusions, wf+".maintenanceExclusions"); err != nil {
		return nil, err
	}
	// R-EX-4 / R-EX-4a: every rolling 32 days keep 48 hours of maintenance availability.
	if err := CheckAvailability(p, w.st.Now); err != nil {
		return nil, err
	}
	return p, nil
}

// parseDailyStart checks a daily window's "HH:MM" start (GMT) and normalises it ("3:00" is
// "03:00").
func parseDailyStart(s, field string) (string, error) {
	m := dailyStartRE.FindStringSubmatch(s)
	if m == nil {
		return "", model.InvalidField(field, fmt.Sprintf("%q", s), "A daily maintenance window starts at a time of day in the format HH:MM (RFC 3339, UTC), e.g. \"03:00\"")
	}
	h, _ := strconv.Atoi(m[1])
	mm, _ := strconv.Atoi(m[2])
	if h > 23 || mm > 59 {
		return "", model.InvalidField(field, fmt.Sprintf("%q", s), "Hours must be 00-23 and minutes 00-59")
	}
	return fmt.Sprintf("%02d:%02d", h, mm), nil
}

// parseTimestamp parses a google.protobuf.Timestamp (RFC 3339) and returns it in UTC.
func parseTimestamp(s, field string) (time.Time, error) {
	if s == "" {
		return time.Time{}, model.InvalidArgument("Required field %q is missing: give an RFC 3339 time such as \"2026-12-15T00:00:00Z\".", field)
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, model.InvalidField(field, fmt.Sprintf("%q", s), "Times are RFC 3339, e.g. \"2026-12-15T00:00:00Z\" or \"2026-12-14T19:00:00-05:00\"")
	}
	return t.UTC(), nil
}

func parseRecurringWindow(r *api.RecurringTimeWindow, field string) (*model.RecurringWindow, error) {
	if r.Window == nil {
		return nil, model.InvalidArgument("Required field %q is missing: a recurring window needs {\"startTime\", \"endTime\"} giving its first occurrence.", field+".window")
	}
	start, err := parseTimestamp(r.Window.StartTime, field+".window.startTime")
	if err != nil {
		return nil, err
	}
	end, err := parseTimestamp(r.Window.EndTime, field+".window.endTime")
	if err != nil {
		return nil, err
	}
	if !end.After(start) {
		return nil, model.InvalidField(field+".window.endTime", fmt.Sprintf("%q", r.Window.EndTime), "The end time of a maintenance window must be after its start time %s", start.Format(time.RFC3339))
	}
	rw := &model.RecurringWindow{Start: start, End: end, Recurrence: strings.TrimSpace(r.Recurrence)}
	if err := CompileRecurrence(rw, field+".recurrence"); err != nil {
		return nil, err
	}
	return rw, nil
}

// buildExclusions validates the exclusions of a policy (R-EX-4) and adds them to p.
func (w *Maintenance) buildExclusions(c *model.Cluster, p *model.MaintenancePolicy, in map[string]*api.TimeWindow, field string) error {
	if len(in) == 0 {
		return nil
	}
	if len(in) > maxExclusions {
		return model.InvalidField(field, fmt.Sprintf("%d exclusions", len(in)), "A cluster has at most %d maintenance exclusions (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4); remove expired ones", maxExclusions)
	}
	now := w.st.Now
	old := c.MaintenancePolicy
	names := make([]string, 0, len(in))
	for n := range in {
		names = append(names, n)
	}
	sort.Strings(names)
	p.Exclusions = map[string]*model.Exclusion{}
	noUpgrades := 0
	for _, name := range names {
		tw := in[name]
		f := fmt.Sprintf("%s[%q]", field, name)
		if strings.TrimSpace(name) == "" {
			return model.InvalidArgument("Invalid value for field %q: an exclusion needs a name (the map key).", field)
		}
		if tw == nil {
			return model.InvalidArgument("Invalid value for field %q: null. Give the exclusion a startTime and an endTime.", f)
		}
		e := &model.Exclusion{Scope: api.ScopeNoUpgrades, Created: now}
		var err error
		if e.Start, err = parseTimestamp(tw.StartTime, f+".startTime"); err != nil {
			return err
		}
		if o := tw.MaintenanceExclusionOptions; o != nil {
			e.HasOptions = true
			if err := model.ValidateEnum(f+".maintenanceExclusionOptions.scope", o.Scope, api.ScopeNoUpgrades, api.ScopeNoMinorUpgrades, api.ScopeNoMinorOrNodeUpgrades); err != nil {
				return err
			}
			if o.Scope != "" {
				e.Scope = o.Scope
			}
			if err := model.ValidateEnum(f+".maintenanceExclusionOptions.endTimeBehavior", o.EndTimeBehavior, api.EndTimeBehaviorUnspecified, api.EndTimeUntilEndOfSupport); err != nil {
				return err
			}
			e.UntilEndOfSupport = o.EndTimeBehavior == api.EndTimeUntilEndOfSupport
		}
		switch {
		case e.UntilEndOfSupport && tw.EndTime != "":
			return model.InvalidArgument("Invalid value for field %q: both endTime and endTimeBehavior UNTIL_END_OF_SUPPORT are set. A maintenance exclusion has exactly one of them.", f)
		case !e.UntilEndOfSupport && tw.EndTime == "":
			return model.InvalidArgument("Required field %q is missing: a maintenance exclusion has exactly one of endTime and maintenanceExclusionOptions.endTimeBehavior UNTIL_END_OF_SUPPORT.", f+".endTime")
		case !e.UntilEndOfSupport:
			if e.End, err = parseTimestamp(tw.EndTime, f+".endTime"); err != nil {
				return err
			}
			if !e.End.After(e.Start) {
				return model.InvalidField(f+".endTime", fmt.Sprintf("%q", tw.EndTime), "The end time of a maintenance exclusion must be after its start time %s", e.Start.Format(time.RFC3339))
			}
		}
		oldE := old.Exclusion(name)
		if oldE != nil && oldE.Start.Equal(e.Start) {
			e.Created = oldE.Created
		}
		unchanged := oldE != nil && oldE.Start.Equal(e.Start) && oldE.End.Equal(e.End) &&
			oldE.Scope == e.Scope && oldE.UntilEndOfSupport == e.UntilEndOfSupport
		if err := w.checkExclusion(c, e, unchanged, f); err != nil {
			return err
		}
		if e.Scope == api.ScopeNoUpgrades {
			noUpgrades++
		}
		p.Exclusions[name] = e
	}
	if noUpgrades > maxNoUpgradesExclusions {
		return model.InvalidField(field, fmt.Sprintf("%d exclusions with scope NO_UPGRADES", noUpgrades),
			"A cluster has at most %d maintenance exclusions with scope NO_UPGRADES (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4); use NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES for the others", maxNoUpgradesExclusions)
	}
	return nil
}

// checkExclusion applies the per-exclusion limits of R-EX-4: scopes other than NO_UPGRADES need
// a release channel; NO_UPGRADES lasts at most 30 days; the other scopes end at most 180 days
// after the exclusion was created and not after the end of support of the cluster's minor.
// An exclusion sent again unchanged is not held again to the rules that depend on when it was
// set.
func (w *Maintenance) checkExclusion(c *model.Cluster, e *model.Exclusion, unchanged bool, field string) error {
	if e.Scope == api.ScopeNoUpgrades {
		if e.UntilEndOfSupport {
			return model.InvalidArgument("Invalid value for field %q: endTimeBehavior UNTIL_END_OF_SUPPORT needs scope NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES; a NO_UPGRADES exclusion lasts at most 30 days and needs an endTime.", field+".maintenanceExclusionOptions.endTimeBehavior")
		}
		if d := e.End.Sub(e.Start); d > maxNoUpgradesLength {
			return model.InvalidField(field+".endTime", e.End.Format(time.RFC3339),
				"A maintenance exclusion with scope NO_UPGRADES lasts at most 30 days (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4); this one lasts %s from %s", model.DaysDuration(d), e.Start.Format(time.RFC3339))
		}
		return nil
	}
	if c.ReleaseChannel == "" || c.ReleaseChannel == api.ChannelUnspecified {
		return model.InvalidField(field+".maintenanceExclusionOptions.scope", e.Scope,
			"Maintenance exclusion scopes other than NO_UPGRADES are only available to clusters enrolled in a release channel (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4); cluster %s has none. Enroll it (RAPID, REGULAR, STABLE or EXTENDED) or use scope NO_UPGRADES", c.Name)
	}
	if e.UntilEndOfSupport || unchanged {
		return nil
	}
	if limit := e.Created.Add(maxScopedExclusionAhead); e.End.After(limit) {
		return model.InvalidField(field+".endTime", e.End.Format(time.RFC3339),
			"A maintenance exclusion with scope %s ends at most 180 days after it is created, at or before %s (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4). For longer, use endTimeBehavior UNTIL_END_OF_SUPPORT", e.Scope, limit.Format(time.RFC3339))
	}
	minor, eos := w.EndOfSupport(c)
	if e.End.After(eos) {
		return model.InvalidField(field+".endTime", e.End.Format(time.RFC3339),
			"A maintenance exclusion may not extend past the end of support of the cluster's minor version %s on %s (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4): end it at or before %s, or use endTimeBehavior UNTIL_END_OF_SUPPORT", minor, eos.Format(time.RFC3339), eos.Format(time.RFC3339))
	}
	return nil
}

// EndOfSupport is the end of support of the cluster's control-plane minor in its channel:
// extended support for EXTENDED, standard support otherwise.
func (w *Maintenance) EndOfSupport(c *model.Cluster) (string, time.Time) {
	v, _ := catalog.ParseVersion(c.MasterVersion)
	_, _, end := catalog.ChannelDelays(c.ReleaseChannel)
	return v.MinorString(), end(catalog.ScheduleOf(v.Minor))
}

// RenderMaintenancePolicy renders a cluster's policy as GKE does: times in UTC, a daily
// window's duration, an exclusion's options only when they were given (scope NO_UPGRADES
// omitted), UNTIL_END_OF_SUPPORT exclusions with their current end.
func (w *Maintenance) RenderMaintenancePolicy(c *model.Cluster) *api.MaintenancePolicy {
	out := &api.MaintenancePolicy{ResourceVersion: c.PolicyVersion}
	p := c.MaintenancePolicy
	if p.Empty() {
		return out
	}
	win := &api.MaintenanceWindow{}
	if p.Daily != nil {
		win.DailyMaintenanceWindow = &api.DailyMaintenanceWindow{StartTime: p.Daily.StartTime, Duration: dailyWindowDuration}
	}
	if r := p.Recurring; r != nil {
		win.RecurringWindow = &api.RecurringTimeWindow{Recurrence: r.Recurrence,
			Window: &api.TimeWindow{StartTime: r.Start.Format(time.RFC3339), EndTime: r.End.Format(time.RFC3339)}}
	}
	for _, name := range p.ExclusionNames() {
		e := p.Exclusions[name]
		tw := &api.TimeWindow{StartTime: e.Start.Format(time.RFC3339), EndTime: w.ExclusionEnd(c, e).Format(time.RFC3339)}
		if e.HasOptions || e.Scope != api.ScopeNoUpgrades || e.UntilEndOfSupport {
			o := &api.MaintenanceExclusionOptions{}
			if e.Scope != api.ScopeNoUpgrades {
				o.Scope = e.Scope
			}
			if e.UntilEndOfSupport {
				o.EndTimeBehavior = api.EndTimeUntilEndOfSupport
			}
			tw.MaintenanceExclusionOptions = o
		}
		if win.MaintenanceExclusions == nil {
			win.MaintenanceExclusions = map[string]*api.TimeWindow{}
		}
		win.MaintenanceExclusions[name] = tw
	}
	out.Window = win
	return out
}

// ExclusionEnd is when an exclusion ends: its end time, or the end of support of the
// cluster's current minor for UNTIL_END_OF_SUPPORT.
func (w *Maintenance) ExclusionEnd(c *model.Cluster, e *model.Exclusion) time.Time {
	if e.UntilEndOfSupport {
		_, eos := w.EndOfSupport(c)
		return eos
	}
	return e.End
}
