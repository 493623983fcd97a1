package sim

import (
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
)

// The log keeps its newest Capacity entries, in order, across wrap-around and a JSON round
// trip, and Events continues after a seq in it.
func TestEventLogRing(t *testing.T) {
	w := New(Options{Seed: 1, Start: testStart})
	w.st.Log.Capacity = 5
	for i := range 12 {
		w.engine.Record("Test", nil, "", "", "", "entry %d", i)
	}
	check := func(w *World, what string) {
		t.Helper()
		evs, next := w.engine.Events(engine.EventFilter{})
		if len(evs) != 5 || evs[0].Seq != 8 || evs[4].Seq != 12 || evs[0].Message != "entry 7" || next != 12 {
			t.Fatalf("%s: %d entries, first %v, next %d; want entries 8..12", what, len(evs), evs[0], next)
		}
		if evs, _ := w.engine.Events(engine.EventFilter{AfterSeq: 10}); len(evs) != 2 || evs[0].Seq != 11 {
			t.Fatalf("%s: after 10: %v", what, evs)
		}
	}
	check(w, "live")
	r := restoredCopy(t, w)
	check(r, "restored")
	r.engine.Record("Test", nil, "", "", "", "entry 12")
	if evs, _ := r.engine.Events(engine.EventFilter{}); len(evs) != 5 || evs[4].Seq != 13 || evs[0].Seq != 9 {
		t.Fatalf("after one more: %v .. %v", evs[0], evs[4])
	}
}
