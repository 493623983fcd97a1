// Package window answers where a maintenance window is open, and how much maintenance
// availability a window leaves once exclusions are taken out. A window is a daily stretch or an
// RFC 5545 RRULE recurrence, always evaluated in UTC (GKE stores and evaluates maintenance times
// in UTC); recurrences are computed by github.com/teambition/rrule-go. The package holds no
// state beyond a schedule's cache and reads no clock.
package window

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

const day = 24 * time.Hour

// slab is how much of a window's future is computed at once and cached.
const slab = 64 * day

// Span is a half-open interval of time [Start, End).
type Span struct{ Start, End time.Time }

// Length is the span's duration.
func (s Span) Length() time.Duration { return s.End.Sub(s.Start) }

// Schedule answers where a window is open. The zero Schedule (no window) is always open.
type Schedule struct {
	daily   bool
	dailyAt time.Duration // offset of the daily window from midnight UTC
	rule    *rrule.RRule
	length  time.Duration // of one occurrence
	// The merged occurrences over [slabFrom, slabTo), computed once for many questions.
	slabFrom, slabTo time.Time
	slab             []Span
}

// Daily is a window of the given length opening every day at start ("HH:MM", UTC).
func Daily(start string, length time.Duration) (*Schedule, error) {
	t, err := time.Parse("15:04", start)
	if err != nil {
		return nil, fmt.Errorf("not a time of day as HH:MM: %q", start)
	}
	return &Schedule{daily: true, dailyAt: time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, length: length}, nil
}

// Recurring is a window from start to end, repeated by an RFC 5545 RRULE (the rule alone:
// start is its DTSTART). Hourly and finer rules are refused, as GKE refuses them.
func Recurring(recurrence string, start, end time.Time) (*Schedule, error) {
	rule, err := CompileRRULE(recurrence, start)
	if err != nil {
		return nil, err
	}
	return &Schedule{rule: rule, length: end.Sub(start)}, nil
}

// CompileRRULE checks a recurrence and builds it from start, in UTC. Its errors say what is
// wrong in words a user can act on.
func CompileRRULE(recurrence string, start time.Time) (*rrule.RRule, error) {
	if recurrence == "" {
		return nil, errors.New(`the recurrence is empty: give an RFC 5545 RRULE such as "FREQ=WEEKLY;BYDAY=SA,SU"`)
	}
	if strings.ContainsAny(recurrence, "\r\n") || strings.Contains(strings.ToUpper(recurrence), "DTSTART") {
		return nil, errors.New(`the recurrence is an RRULE only (e.g. "FREQ=WEEKLY;BYDAY=SA,SU"); the window's startTime is its start`)
	}
	opt, err := rrule.StrToROption(recurrence)
	if err != nil {
		return nil, fmt.Errorf(`not a valid RFC 5545 RRULE (%v); e.g. "FREQ=DAILY" or "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"`, err)
	}
	switch opt.Freq {
	case rrule.HOURLY, rrule.MINUTELY, rrule.SECONDLY:
		return nil, fmt.Errorf("FREQ=%s is not supported for maintenance windows: use DAILY, WEEKLY, MONTHLY or YEARLY", opt.Freq)
	}
	opt.Dtstart = start.UTC()
	rule, err := rrule.NewRRule(*opt)
	if err != nil {
		return nil, fmt.Errorf("not a valid RFC 5545 RRULE: %v", err)
	}
	return rule, nil
}

// Always says the schedule has no window: maintenance may run at any time.
func (ws *Schedule) Always() bool { return ws == nil || !ws.daily && ws.rule == nil }

// Spans returns the window's open stretches (overlapping occurrences merged) that overlap
// [from, to), unclipped; a stretch may be cut where the computed range ends.
func (ws *Schedule) Spans(from, to time.Time) []Span {
	if ws.Always() {
		return []Span{{from, to}}
	}
	if ws.slabTo.IsZero() || from.Before(ws.slabFrom) || to.After(ws.slabTo) {
		ws.slabFrom = from.Add(-7 * day)
		ws.slabTo = to
		if ws.slabTo.Before(from.Add(slab)) {
			ws.slabTo = from.Add(slab)
		}
		ws.slab = ws.occurrences(ws.slabFrom, ws.slabTo)
	}
	i := sort.Search(len(ws.slab), func(i int) bool { return ws.slab[i].End.After(from) })
	var out []Span
	for ; i < len(ws.slab) && ws.slab[i].Start.Before(to); i++ {
		out = append(out, ws.slab[i])
	}
	return out
}

// NextOpen returns the first open stretch that ends after t (it may have begun already),
// looking no further than horizon.
func (ws *Schedule) NextOpen(t, horizon time.Time) (Span, bool) {
	if ws.Always() {
		return Span{t, horizon}, true
	}
	for from := t; from.Before(horizon); from = from.Add(slab) {
		if ss := ws.Spans(from, from.Add(slab)); len(ss) > 0 {
			return ss[0], true
		}
	}
	return Span{}, false
}

// OpenStretches returns the window's open time in [from, to) in chunks the size of the cache,
// each stretch clipped to the range.
func (ws *Schedule) OpenStretches(from, to time.Time) []Span {
	var out []Span
	for chunk := from; chunk.Before(to); chunk = chunk.Add(slab) {
		end := chunk.Add(slab)
		if end.After(to) {
			end = to
		}
		for _, s := range ws.Spans(chunk, end) {
			s = Span{later(s.Start, chunk), earlier(s.End, end)}
			if k := len(out); k > 0 && out[k-1].End.Equal(s.Start) {
				out[k-1].End = s.End
				continue
			}
			out = append(out, s)
		}
	}
	return out
}

// occurrences computes the merged occurrences that overlap [from, to).
func (ws *Schedule) occurrences(from, to time.Time) []Span {
	var raw []Span
	if ws.daily {
		d := from.Add(-ws.length).Truncate(day)
		for ; d.Before(to); d = d.Add(day) {
			s := d.Add(ws.dailyAt)
			raw = append(raw, Span{s, s.Add(ws.length)})
		}
	} else {
		for _, s := range ws.rule.Between(from.Add(-ws.length), to, true) {
			raw = append(raw, Span{s, s.Add(ws.length)})
		}
	}
	var out []Span
	for _, s := range raw {
		if !s.End.After(from) || !s.Start.Before(to) {
			continue
		}
		if n := len(out); n > 0 && !s.Start.After(out[n-1].End) {
			if s.End.After(out[n-1].End) {
				out[n-1].End = s.End
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// Subtract removes the blocked intervals from the open ones; both are sorted by start.
func Subtract(open, blocked []Span) []Span {
	var out []Span
	for _, o := range open {
		cur := []Span{o}
		for _, b := range blocked {
			var next []Span
			for _, c := range cur {
				if !b.Start.Before(c.End) || !b.End.After(c.Start) {
					next = append(next, c)
					continue
				}
				if b.Start.After(c.Start) {
					next = append(next, Span{c.Start, b.Start})
				}
				if b.End.Before(c.End) {
					next = append(next, Span{b.End, c.End})
				}
			}
			cur = next
		}
		out = append(out, cur...)
	}
	return out
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
