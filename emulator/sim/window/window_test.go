package window

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

func TestDailyWindowSpans(t *testing.T) {
	ws, err := Daily("03:30", 4*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	got := ws.Spans(t0, t0.Add(3*day))
	if len(got) != 3 || !got[0].Start.Equal(t0.Add(3*time.Hour+30*time.Minute)) || got[2].Length() != 4*time.Hour {
		t.Fatalf("3 days of a daily 03:30 4h window: %v", got)
	}
	if s, ok := ws.NextOpen(t0.Add(8*time.Hour), t0.Add(10*day)); !ok || !s.Start.Equal(t0.Add(day+3*time.Hour+30*time.Minute)) {
		t.Fatalf("next opening after 08:00: %v %v", s, ok)
	}
}

// A weekend window (an RRULE, evaluated in UTC) merges occurrences that touch.
func TestRecurringWindowSpans(t *testing.T) {
	start := time.Date(2026, 11, 7, 0, 0, 0, 0, time.UTC) // a Saturday
	ws, err := Recurring("FREQ=WEEKLY;BYDAY=SA,SU", start, start.Add(day))
	if err != nil {
		t.Fatal(err)
	}
	got := ws.Spans(t0, t0.Add(14*day))
	if len(got) != 2 || got[0].Length() != 2*day || !got[0].Start.Equal(start) {
		t.Fatalf("two weekends: %v", got)
	}
}

func TestRRULEErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "empty",
		"FREQ=HOURLY":              "FREQ=HOURLY is not supported",
		"FREQ=WEEKLY;BYDAY=XX":     "not a valid RFC 5545 RRULE",
		"DTSTART:20260101T000000Z": "the recurrence is an RRULE only",
		"FREQ=DAILY\nFREQ=WEEKLY":  "the recurrence is an RRULE only",
	} {
		if _, err := CompileRRULE(in, t0); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CompileRRULE(%q) = %v, want an error with %q", in, err, want)
		}
	}
}

func TestSubtract(t *testing.T) {
	h := func(x int) time.Time { return t0.Add(time.Duration(x) * time.Hour) }
	got := Subtract([]Span{{h(0), h(10)}, {h(20), h(30)}}, []Span{{h(2), h(4)}, {h(8), h(22)}})
	want := []Span{{h(0), h(2)}, {h(4), h(8)}, {h(22), h(30)}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// Availability counts only stretches of 4 hours or more: a daily 4h window gives 32 x 4h =
// 128h in any 32 days; a daily 3h window gives none; a 30-day block leaves 2 days = 8h.
func TestWorstAvailability(t *testing.T) {
	four, _ := Daily("00:00", 4*time.Hour)
	if _, got := WorstAvailability(four, nil, t0, t0.Add(30*day)); got != 128*time.Hour {
		t.Fatalf("daily 4h: %s, want 128h", got)
	}
	three, _ := Daily("00:00", 3*time.Hour)
	if _, got := WorstAvailability(three, nil, t0, t0.Add(30*day)); got != 0 {
		t.Fatalf("daily 3h: %s, want 0 (stretches under 4h do not count)", got)
	}
	block := []Span{{t0, t0.Add(30 * day)}}
	if start, got := WorstAvailability(four, block, t0, t0.Add(30*day)); got != 8*time.Hour || !start.Equal(t0) {
		t.Fatalf("30 days blocked: %s from %s, want 8h from the start", got, start)
	}
	if _, got := WorstAvailability(&Schedule{}, nil, t0, t0.Add(30*day)); got != AvailabilityPeriod {
		t.Fatalf("no window: %s, want the whole period", got)
	}
}

// R-EX-4a's counting: a daily 4 h window cut by a 2-hour block leaves 2 h that do not count;
// the coverage function adds up what counts over any range, in part stretches too.
func TestCountedAndCoverage(t *testing.T) {
	ws, err := Daily("00:00", 4*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	blocked := []Span{{t0.Add(day), t0.Add(day + 2*time.Hour)}}
	counted, open := Counted(ws, blocked, t0, t0.Add(3*day))
	if len(open) != 3 || len(counted) != 2 || open[1].Length() != 2*time.Hour {
		t.Fatalf("open %v, counted %v: want 3 stretches, the cut one (2h) not counted", open, counted)
	}
	covered := Coverage(counted)
	for _, c := range []struct {
		from, to time.Time
		want     time.Duration
	}{
		{t0, t0.Add(3 * day), 8 * time.Hour},
		{t0.Add(time.Hour), t0.Add(day), 3 * time.Hour},
		{t0.Add(day), t0.Add(2*day + time.Hour), time.Hour},
	} {
		if got := covered(c.to) - covered(c.from); got != c.want {
			t.Errorf("counted availability from %s to %s: %s, want %s", c.from, c.to, got, c.want)
		}
	}
}
