package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// Where a maintenance window is open, and GKE's availability rule (R-EX-4, R-EX-4a). The
// recurrence of a recurring window is an RFC 5545 RRULE evaluated in UTC (R-MW-2) by
// github.com/teambition/rrule-go.

// The availability rule: every rolling 32 days must hold 48 hours of maintenance availability,
// counting only contiguous open stretches of at least 4 hours.
const (
	availabilityPeriod     = 32 * day
	availabilityNeeded     = 48 * time.Hour
	availabilityMinStretch = 4 * time.Hour
	// availabilityHorizon bounds how far ahead the rule is checked.
	availabilityHorizon = 3 * 365 * day
	// windowSlab is how much of a window's future is computed at once and cached.
	windowSlab = 64 * day
)

// availabilityMessage is GKE's own text for a policy that breaks the rule.
const availabilityMessage = "maintenance policy would go longer than 32d without 48h maintenance availability"

// span is a half-open interval of emulated time [start, end).
type span struct{ start, end time.Time }

func (s span) length() time.Duration { return s.end.Sub(s.start) }

// windowSchedule answers where a policy's window is open. Without a window it is always open.
type windowSchedule struct {
	daily   bool
	dailyAt time.Duration // offset of the daily window from midnight UTC
	rule    *rrule.RRule
	length  time.Duration // of one occurrence
	// The merged occurrences over [slabFrom, slabTo), computed once for many questions.
	slabFrom, slabTo time.Time
	slab             []span
}

// compileRecurrence checks a recurring window's RRULE and builds it, starting at the window's
// start (its DTSTART), in UTC.
func compileRecurrence(r *RecurringWindow, field string) (*rrule.RRule, error) {
	s := r.Recurrence
	if s == "" {
		return nil, invalidArgument("Required field %q is missing: give an RFC 5545 RRULE such as \"FREQ=WEEKLY;BYDAY=SA,SU\".", field)
	}
	if strings.ContainsAny(s, "\r\n") || strings.Contains(strings.ToUpper(s), "DTSTART") {
		return nil, invalidField(field, fmt.Sprintf("%q", s), "The recurrence is an RRULE only (e.g. \"FREQ=WEEKLY;BYDAY=SA,SU\"); the window's startTime is its start")
	}
	opt, err := rrule.StrToROption(s)
	if err != nil {
		return nil, invalidField(field, fmt.Sprintf("%q", s), "Not a valid RFC 5545 RRULE (%v); e.g. \"FREQ=DAILY\" or \"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR\"", err)
	}
	switch opt.Freq {
	case rrule.HOURLY, rrule.MINUTELY, rrule.SECONDLY:
		return nil, invalidField(field, fmt.Sprintf("%q", s), "FREQ=%s is not supported for maintenance windows: use DAILY, WEEKLY, MONTHLY or YEARLY", opt.Freq)
	}
	opt.Dtstart = r.Start
	rule, err := rrule.NewRRule(*opt)
	if err != nil {
		return nil, invalidField(field, fmt.Sprintf("%q", s), "Not a valid RFC 5545 RRULE: %v", err)
	}
	return rule, nil
}

// newWindowSchedule compiles a policy's window; p has been validated.
func newWindowSchedule(p *MaintenancePolicy) *windowSchedule {
	ws := &windowSchedule{}
	switch {
	case p == nil:
	case p.Daily != nil:
		t, _ := time.Parse("15:04", p.Daily.StartTime)
		ws.daily, ws.dailyAt, ws.length = true, time.Duration(t.Hour())*time.Hour+time.Duration(t.Minute())*time.Minute, dailyWindowLength
	case p.Recurring != nil:
		ws.rule, _ = compileRecurrence(p.Recurring, "")
		ws.length = p.Recurring.End.Sub(p.Recurring.Start)
	}
	return ws
}

func (ws *windowSchedule) always() bool { return !ws.daily && ws.rule == nil }

// spans returns the window's open stretches (overlapping occurrences merged) that overlap
// [from, to), unclipped; a stretch may be cut where the computed range ends.
func (ws *windowSchedule) spans(from, to time.Time) []span {
	if ws.always() {
		return []span{{from, to}}
	}
	if ws.slabTo.IsZero() || from.Before(ws.slabFrom) || to.After(ws.slabTo) {
		ws.slabFrom = from.Add(-7 * day)
		ws.slabTo = to
		if ws.slabTo.Before(from.Add(windowSlab)) {
			ws.slabTo = from.Add(windowSlab)
		}
		ws.slab = ws.occurrences(ws.slabFrom, ws.slabTo)
	}
	i := sort.Search(len(ws.slab), func(i int) bool { return ws.slab[i].end.After(from) })
	var out []span
	for ; i < len(ws.slab) && ws.slab[i].start.Before(to); i++ {
		out = append(out, ws.slab[i])
	}
	return out
}

// occurrences computes the merged occurrences that overlap [from, to).
func (ws *windowSchedule) occurrences(from, to time.Time) []span {
	var raw []span
	if ws.daily {
		d := from.Add(-ws.length).Truncate(day)
		for ; d.Before(to); d = d.Add(day) {
			s := d.Add(ws.dailyAt)
			raw = append(raw, span{s, s.Add(ws.length)})
		}
	} else {
		for _, s := range ws.rule.Between(from.Add(-ws.length), to, true) {
			raw = append(raw, span{s, s.Add(ws.length)})
		}
	}
	var out []span
	for _, s := range raw {
		if !s.end.After(from) || !s.start.Before(to) {
			continue
		}
		if n := len(out); n > 0 && !s.start.After(out[n-1].end) {
			if s.end.After(out[n-1].end) {
				out[n-1].end = s.end
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// subtract removes the blocked intervals from the open ones; both are sorted by start.
func subtract(open, blocked []span) []span {
	var out []span
	for _, o := range open {
		cur := []span{o}
		for _, b := range blocked {
			var next []span
			for _, c := range cur {
				if !b.start.Before(c.end) || !b.end.After(c.start) {
					next = append(next, c)
					continue
				}
				if b.start.After(c.start) {
					next = append(next, span{c.start, b.start})
				}
				if b.end.Before(c.end) {
					next = append(next, span{b.end, c.end})
				}
			}
			cur = next
		}
		out = append(out, cur...)
	}
	return out
}

// checkAvailability applies R-EX-4a from now on: time inside the window (any time without
// one) and outside every NO_UPGRADES exclusion is available; only contiguous stretches of at
// least 4 hours count; every rolling 32-day period must hold 48 hours of them.
func checkAvailability(p *MaintenancePolicy, now time.Time) error {
	start, got := worstAvailability(p, now)
	if got >= availabilityNeeded {
		return nil
	}
	return invalidArgument("%s: the 32 days from %s have %s of maintenance availability (time inside the maintenance window and outside NO_UPGRADES exclusions, in stretches of at least 4h; R-EX-4a). Widen or add to the window, or shorten the NO_UPGRADES exclusions.",
		availabilityMessage, start.Format(time.RFC3339), formatHours(got))
}

// worstAvailability finds the rolling 32-day period from now on with the least availability
// and returns its start and its availability.
func worstAvailability(p *MaintenancePolicy, now time.Time) (time.Time, time.Duration) {
	h1 := now.Add(2 * availabilityPeriod)
	var blocked []span
	for _, name := range p.exclusionNames() {
		e := p.Exclusions[name]
		if e.Scope != api.ScopeNoUpgrades || !e.End.After(now) {
			continue
		}
		blocked = append(blocked, span{e.Start, e.End})
		if t := e.End.Add(availabilityPeriod); t.After(h1) {
			h1 = t
		}
	}
	if r := p.Recurring; r != nil && r.Start.Add(availabilityPeriod).After(h1) {
		h1 = r.Start.Add(availabilityPeriod)
	}
	if limit := now.Add(availabilityHorizon); h1.After(limit) {
		h1 = limit
	}
	sort.Slice(blocked, func(i, j int) bool { return blocked[i].start.Before(blocked[j].start) })
	ws := newWindowSchedule(p)
	var stretches []span
	for _, s := range subtract(ws.spans(now.Add(-2*day), h1.Add(2*day)), blocked) {
		if s.length() >= availabilityMinStretch {
			stretches = append(stretches, s)
		}
	}
	last := h1.Add(-availabilityPeriod)
	return minRollingAvailability(stretches, now, last, availabilityPeriod)
}

// minRollingAvailability returns the start t in [first, last] whose period [t, t+period)
// overlaps the (sorted, disjoint) stretches least, and that overlap. The overlap is piecewise
// linear in t, so its minimum is at a point where t or t+period meets a stretch's edge.
func minRollingAvailability(stretches []span, first, last time.Time, period time.Duration) (time.Time, time.Duration) {
	covered := coverage(stretches)
	candidates := []time.Time{first, last}
	for _, s := range stretches {
		candidates = append(candidates, s.start, s.end, s.start.Add(-period), s.end.Add(-period))
	}
	bestT, best := first, time.Duration(-1)
	for _, t := range candidates {
		if t.Before(first) || t.After(last) {
			continue
		}
		if got := covered(t.Add(period)) - covered(t); best < 0 || got < best || (got == best && t.Before(bestT)) {
			bestT, best = t, got
		}
	}
	return bestT, best
}

// coverage returns a function giving the time the (sorted, disjoint) stretches cover before x.
func coverage(stretches []span) func(x time.Time) time.Duration {
	cum := make([]time.Duration, len(stretches)+1)
	for i, s := range stretches {
		cum[i+1] = cum[i] + s.length()
	}
	return func(x time.Time) time.Duration {
		i := sort.Search(len(stretches), func(i int) bool { return stretches[i].end.After(x) })
		d := cum[i]
		if i < len(stretches) && stretches[i].start.Before(x) {
			d += x.Sub(stretches[i].start)
		}
		return d
	}
}

func formatHours(d time.Duration) string {
	return fmt.Sprintf("%gh", d.Round(time.Minute).Hours())
}
