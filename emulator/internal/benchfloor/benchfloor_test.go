package benchfloor

import (
	"testing"
	"time"
)

// PushPopCost measures a push and a pop: a cost of a few hundred nanoseconds at most.
func TestPushPopCostIsAPushAndAPop(t *testing.T) {
	if d := PushPopCost(20000); d <= 0 || d > time.Millisecond {
		t.Fatalf("PushPopCost = %v: want a positive cost under a millisecond", d)
	}
}
