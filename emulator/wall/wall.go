// Package wall is the real wall clock that paces the emulator's virtual clock. Only the
// emulator's entry points use it; the simulation gets it injected (sim.Wall).
package wall

import "time"

// System is the operating system's clock.
type System struct{}

func (System) Now() time.Time                         { return time.Now() }
func (System) After(d time.Duration) <-chan time.Time { return time.After(d) }
