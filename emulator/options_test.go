package emulator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
)

// An emulator started at a time its clock cannot keep is refused with the range it can
// (sim.CheckStart): a library user gets what gkesim serve's --start-time says.
func TestNewRefusesAStartOutsideTheClocksRange(t *testing.T) {
	for _, start := range []time.Time{time.Unix(0, 0).UTC(), time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)} {
		_, err := emulator.New(emulator.Options{Start: start})
		if err == nil || !strings.Contains(err.Error(), "start the emulated clock between 1970-01-02T00:00:00Z and 2200-01-01T00:00:00Z") {
			t.Errorf("start %v: error %v, want the range the clock keeps", start, err)
		}
	}
	e, err := emulator.New(emulator.Options{Start: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatalf("a start in range: %v", err)
	}
	e.Close()
}
