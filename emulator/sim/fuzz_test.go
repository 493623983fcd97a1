package sim

import (
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// A recurring maintenance window's RRULE, as setMaintenancePolicy reads it: the recurrence is
// parsed (never a panic) and, when accepted, the availability rule (R-EX-4a) over its horizon
// and the next openings are computed in bounded time.
func FuzzRecurrence(f *testing.F) {
	now := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, rule string, startOffsetMin uint16, lengthMin uint16) {
		start := now.Add(time.Duration(startOffsetMin) * time.Minute)
		rw := &model.RecurringWindow{Start: start, End: start.Add(time.Duration(lengthMin%(7*24*60)+1) * time.Minute), Recurrence: rule}
		if err := maintenance.CompileRecurrence(rw, "recurrence"); err != nil {
			if _, ok := model.AsError(err); !ok {
				t.Fatalf("compileRecurrence(%q): %v is not a GKE error", rule, err)
			}
			return
		}
		p := &model.MaintenancePolicy{Recurring: rw}
		began := time.Now()
		_ = maintenance.CheckAvailability(p, now)
		ws := maintenance.NewWindowSchedule(p)
		_ = ws.Spans(now, now.Add(64*model.Day))
		if took := time.Since(began); took > 5*time.Second {
			t.Fatalf("RRULE %q: evaluating the window took %s", rule, took)
		}
	})
}
