// Package benchfloor reports a simulation benchmark's physical floor beside its time: what
// its events would cost if handling one did nothing, measured in the benchmark's own run. It
// reads the wall clock, so it lives outside the simulation (emulator/sim reads none).
package benchfloor

import (
	"slices"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/eventq"
)

// PushPopCost measures what a push and a pop cost on this machine now: the median of five
// rounds of n each on an eventq.FloorQueue. A simulation's floor is that cost times its
// events: each event is pushed once and popped once, and nothing the simulation does between
// can be cheaper than nothing. The benchmarks report their floor so measured in their own
// run (Floor), as the machine's speed moves from day to day.
func PushPopCost(n int) time.Duration {
	f := eventq.NewFloorQueue()
	var rounds [5]time.Duration
	for r := range rounds {
		start := time.Now()
		for i := 0; i < n; i++ {
			f.PushPop(i)
		}
		rounds[r] = time.Since(start)
	}
	slices.Sort(rounds[:])
	return rounds[len(rounds)/2] / time.Duration(n)
}

// floorRound is how many pushes and pops a round of PushPopCost takes (about 30 ms).
const floorRound = 100000

// Floor is a benchmark's floor in the making: the cost of a push and a pop measured before
// the benchmark's loop, measured again after it by Report.
type Floor struct {
	before time.Duration
}

// StartFloor measures the cost of a push and a pop before a benchmark's loop (call it before
// b.ResetTimer, or with the timer stopped).
func StartFloor() *Floor { return &Floor{before: PushPopCost(floorRound)} }

// Report reports the physical floor of a benchmark's run of events events per op: each pushed
// on the event queue and popped once, with nothing done in between, at the cost of a push and
// a pop measured in this run, before and after its loop (the mean of both: the machine's speed
// drifts during a long run). It reports the events, that cost (pushpop-ns), the floor in
// milliseconds (floor-ms) and how many times the floor the run took per op (x-floor). The
// machine's speed moves from day to day, and the wall time with it; the ratio moves much
// less. Call it after the loop.
func (f *Floor) Report(b *testing.B, events int) {
	b.StopTimer()
	elapsed := b.Elapsed() / time.Duration(max(b.N, 1))
	cost := (f.before + PushPopCost(floorRound)) / 2
	floor := time.Duration(events) * cost
	b.ReportMetric(float64(events), "events/op")
	b.ReportMetric(float64(cost.Nanoseconds()), "pushpop-ns")
	b.ReportMetric(float64(floor)/float64(time.Millisecond), "floor-ms")
	if floor > 0 {
		b.ReportMetric(float64(elapsed)/float64(floor), "x-floor")
	}
}
