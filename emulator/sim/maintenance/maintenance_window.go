package maintenance

import (
	"fmt"
	"sort"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/window"
)

// A cluster's maintenance window and GKE's availability rule (R-EX-4, R-EX-4a), on top of the
// window package, which computes where a daily or RRULE window is open (in UTC, R-MW-2).

// availabilityHorizon bounds how far ahead the availability rule is checked.
const availabilityHorizon = 3 * 365 * model.Day

// AvailabilityMessage is GKE's own text for a policy that breaks the rule.
const AvailabilityMessage = "maintenance policy would go longer than 32d without 48h maintenance availability"

// CompileRecurrence checks a recurring window's RRULE (the field names it in errors).
func CompileRecurrence(r *model.RecurringWindow, field string) error {
	if r.Recurrence == "" {
		return model.InvalidArgument("Required field %q is missing: give an RFC 5545 RRULE such as \"FREQ=WEEKLY;BYDAY=SA,SU\".", field)
	}
	if _, err := window.CompileRRULE(r.Recurrence, r.Start); err != nil {
		return model.InvalidField(field, fmt.Sprintf("%q", r.Recurrence), "%s", model.Capitalized(err.Error()))
	}
	return nil
}

// NewWindowSchedule compiles a policy's window; p has been validated.
func NewWindowSchedule(p *model.MaintenancePolicy) *window.Schedule {
	switch {
	case p == nil:
	case p.Daily != nil:
		ws, _ := window.Daily(p.Daily.StartTime, DailyWindowLength)
		return ws
	case p.Recurring != nil:
		ws, _ := window.Recurring(p.Recurring.Recurrence, p.Recurring.Start, p.Recurring.End)
		return ws
	}
	return &window.Schedule{}
}

// CheckAvailability applies R-EX-4a from now on: time inside the window (any time without
// one) and outside every NO_UPGRADES exclusion is available; only contiguous stretches of at
// least 4 hours count; every rolling 32-day period must hold 48 hours of them.
func CheckAvailability(p *model.MaintenancePolicy, now time.Time) error {
	start, got := worstAvailability(p, now)
	if got >= window.AvailabilityNeeded {
		return nil
	}
	return model.InvalidArgument("%s: the 32 days from %s have %s of maintenance availability (time inside the maintenance window and outside NO_UPGRADES exclusions, in stretches of at least 4h; see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4a). Widen or add to the window, or shorten the NO_UPGRADES exclusions.",
		AvailabilityMessage, start.Format(time.RFC3339), model.HoursDuration(got))
}

// worstAvailability finds the rolling 32-day period from now on with the least availability
// and returns its start and its availability. It looks as far as the exclusions and the
// window's first occurrence reach, plus a period, and no further than the horizon.
func worstAvailability(p *model.MaintenancePolicy, now time.Time) (time.Time, time.Duration) {
	h1 := now.Add(2 * window.AvailabilityPeriod)
	var blocked []window.Span
	for _, name := range p.ExclusionNames() {
		e := p.Exclusions[name]
		if e.Scope != api.ScopeNoUpgrades || !e.End.After(now) {
			continue
		}
		blocked = append(blocked, window.Span{Start: e.Start, End: e.End})
		if t := e.End.Add(window.AvailabilityPeriod); t.After(h1) {
			h1 = t
		}
	}
	if r := p.Recurring; r != nil && r.Start.Add(window.AvailabilityPeriod).After(h1) {
		h1 = r.Start.Add(window.AvailabilityPeriod)
	}
	if limit := now.Add(availabilityHorizon); h1.After(limit) {
		h1 = limit
	}
	sort.Slice(blocked, func(i, j int) bool { return blocked[i].Start.Before(blocked[j].Start) })
	return window.WorstAvailability(NewWindowSchedule(p), blocked, now, h1.Add(-window.AvailabilityPeriod))
}
