package wall

import (
	"sync"
	"time"
)

// Fake is a wall clock that moves only when told to, and whose timers fire when it passes
// their time (tests of the runner's wake-ups and checkpoints, the way terraform-provider-time
// tests its rotations with a fake clock).
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	timers  []fakeTimer
	changed chan struct{}
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

// NewFake returns a fake clock reading start.
func NewFake(start time.Time) *Fake { return &Fake{now: start, changed: make(chan struct{})} }

// Now reads the fake clock.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After returns a channel that receives the time once the clock has moved d past now.
func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- f.now
		return ch
	}
	f.timers = append(f.timers, fakeTimer{at: f.now.Add(d), ch: ch})
	f.notify()
	return ch
}

// Advance moves the clock by d and fires every timer that falls due.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	kept := f.timers[:0]
	for _, t := range f.timers {
		if t.at.After(f.now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- f.now
	}
	f.timers = kept
	f.notify()
}

// Timers is how many timers are waiting.
func (f *Fake) Timers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// WaitForTimers blocks until at least n timers are waiting or the deadline (wall time)
// passes, and says whether they are: a test uses it to know that a goroutine has gone to sleep
// on the clock before moving it.
func (f *Fake) WaitForTimers(n int, deadline time.Duration) bool {
	limit := time.After(deadline)
	for {
		f.mu.Lock()
		if len(f.timers) >= n {
			f.mu.Unlock()
			return true
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-limit:
			return false
		}
	}
}

func (f *Fake) notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}
