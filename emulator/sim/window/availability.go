package window

import (
	"sort"
	"time"
)

// GKE's availability rule: every rolling 32 days must hold 48 hours of maintenance
// availability, counting only time inside the window (any time, without one) and outside every
// NO_UPGRADES exclusion, in contiguous stretches of at least 4 hours.
const (
	AvailabilityPeriod     = 32 * day
	AvailabilityNeeded     = 48 * time.Hour
	AvailabilityMinStretch = 4 * time.Hour
)

// Counted returns the stretches that count for the rule between from and to: the window's open
// time outside the blocked (NO_UPGRADES) spans, sorted by start, in stretches of at least 4
// hours; and every open stretch, counted or not. A stretch may reach past from and to.
func Counted(ws *Schedule, blocked []Span, from, to time.Time) (counted, open []Span) {
	open = Subtract(ws.Spans(from, to), blocked)
	for _, s := range open {
		if s.Length() >= AvailabilityMinStretch {
			counted = append(counted, s)
		}
	}
	return counted, open
}

// Coverage returns a function giving the time the (sorted, disjoint) stretches cover before x:
// the availability in [a, b) is Coverage(s)(b) - Coverage(s)(a).
func Coverage(stretches []Span) func(x time.Time) time.Duration {
	cum := make([]time.Duration, len(stretches)+1)
	for i, s := range stretches {
		cum[i+1] = cum[i] + s.Length()
	}
	return func(x time.Time) time.Duration {
		i := sort.Search(len(stretches), func(i int) bool { return stretches[i].End.After(x) })
		d := cum[i]
		if i < len(stretches) && stretches[i].Start.Before(x) {
			d += x.Sub(stretches[i].Start)
		}
		return d
	}
}

// WorstAvailability finds, among the rolling periods starting in [first, last], the one with
// the least availability given the window and the blocked (NO_UPGRADES) spans, sorted by
// start; it returns that period's start and its availability.
func WorstAvailability(ws *Schedule, blocked []Span, first, last time.Time) (time.Time, time.Duration) {
	stretches, _ := Counted(ws, blocked, first.Add(-2*day), last.Add(AvailabilityPeriod+2*day))
	return minRolling(stretches, first, last, AvailabilityPeriod)
}

// minRolling returns the start t in [first, last] whose period [t, t+period) overlaps the
// (sorted, disjoint) stretches least, and that overlap. The overlap is piecewise linear in t,
// so its minimum is at a point where t or t+period meets a stretch's edge.
func minRolling(stretches []Span, first, last time.Time, period time.Duration) (time.Time, time.Duration) {
	covered := Coverage(stretches)
	candidates := []time.Time{first, last}
	for _, s := range stretches {
		candidates = append(candidates, s.Start, s.End, s.Start.Add(-period), s.End.Add(-period))
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
