package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// Wall is the wall clock the runner paces emulated time against. It is injected so that the
// simulation itself never reads the wall clock (DESIGN.md "Time").
type Wall interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Saver persists the state (emulator/store implements it).
type Saver interface {
	Save(*State) error
}

// MaxTimeScale bounds the time scale. At it an emulated day passes in 0.86 wall seconds; the
// runner ran an idle 1,000-node cluster's periodic controllers at 440,000 emulated seconds per
// wall second on one core, so at the bound such a cluster costs it under a quarter of a core.
// Faster, the clock falls behind the wall and the runner does nothing but catch up (and time
// arithmetic overflows: 1e12 jumped the clock by decades); clock:advance moves it further.
const MaxTimeScale = 100_000

// ErrStopped is returned by Do after the runner has stopped.
var ErrStopped = errors.New("the simulation has stopped")

// RunnerOptions configure a Runner.
type RunnerOptions struct {
	Wall Wall
	// TimeScale is emulated seconds per wall second; 0 freezes the clock (only Advance moves it).
	TimeScale float64
	Saver     Saver
	// SaveEvery is how often a changed state is saved; 0 saves only when the runner stops.
	SaveEvery time.Duration
	Logger    *slog.Logger
}

// Runner owns a World on one goroutine (DESIGN.md "Concurrency"): HTTP handlers send it
// commands through Do, and between commands it runs the events that fall due as emulated time
// passes at TimeScale.
type Runner struct {
	w    *World
	opts RunnerOptions
	cmds chan func()
	done chan struct{}

	scale      float64
	wallAnchor time.Time
	simAnchor  time.Time
	dirty      bool
	lastSave   time.Time
}

// NewRunner wraps w. Call Run to start it.
func NewRunner(w *World, opts RunnerOptions) *Runner {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Runner{w: w, opts: opts, cmds: make(chan func()), done: make(chan struct{}), scale: opts.TimeScale}
	r.reanchor()
	r.lastSave = opts.Wall.Now()
	return r
}

// Run processes commands and due events until ctx is done, then saves the state once more.
func (r *Runner) Run(ctx context.Context) error {
	defer close(r.done)
	for {
		r.catchUp()
		r.maybeSave(false)
		var wake <-chan time.Time
		if d, ok := r.untilWake(); ok {
			wake = r.opts.Wall.After(d)
		}
		select {
		case cmd := <-r.cmds:
			r.catchUp()
			cmd()
			r.dirty = true
		case <-wake:
		case <-ctx.Done():
			return r.maybeSave(true)
		}
	}
}

// Do runs fn on the simulation goroutine and returns its error. fn sees a consistent model
// and may change it; it must not keep references to the model after it returns.
func (r *Runner) Do(ctx context.Context, fn func(w *World) error) error {
	res := make(chan error, 1)
	cmd := func() {
		defer func() {
			if p := recover(); p != nil {
				r.opts.Logger.Error("simulation command panicked", "panic", p, "stack", string(debug.Stack()))
				res <- fmt.Errorf("internal error in the simulation: %v", p)
			}
		}()
		res <- fn(r.w)
	}
	select {
	case r.cmds <- cmd:
		return <-res
	case <-ctx.Done():
		return ctx.Err()
	case <-r.done:
		return ErrStopped
	}
}

// Advance runs every event due within d of emulated time, in order, and moves the clock by d.
func (r *Runner) Advance(ctx context.Context, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("cannot advance the clock by a negative duration %s", d)
	}
	return r.Do(ctx, func(w *World) error {
		w.RunUntil(w.Now().Add(d))
		r.reanchor()
		return nil
	})
}

// SetTimeScale changes how fast emulated time passes; 0 freezes it.
func (r *Runner) SetTimeScale(ctx context.Context, scale float64) error {
	if !(scale >= 0 && scale <= MaxTimeScale) {
		return fmt.Errorf("time scale must be 0 (frozen) or positive and at most %d emulated seconds per wall second, got %g", MaxTimeScale, scale)
	}
	return r.Do(ctx, func(w *World) error {
		r.scale = scale
		r.reanchor()
		return nil
	})
}

// TimeScale reads the current time scale; call it only from inside Do.
func (r *Runner) TimeScale() float64 { return r.scale }

func (r *Runner) reanchor() {
	r.wallAnchor = r.opts.Wall.Now()
	r.simAnchor = r.w.Now()
}

// catchUp moves emulated time to where the wall clock says it should be.
func (r *Runner) catchUp() {
	if r.scale <= 0 {
		return
	}
	elapsed := r.opts.Wall.Now().Sub(r.wallAnchor)
	target := r.simAnchor.Add(time.Duration(float64(elapsed) * r.scale))
	if target.After(r.w.Now()) && r.w.RunUntil(target) > 0 {
		r.dirty = true
	}
}

// untilWake is the wall time until the runner has something to do without a command: the
// next event falling due, or a pending save.
func (r *Runner) untilWake() (time.Duration, bool) {
	var d time.Duration
	ok := false
	if next, has := r.w.NextEventAt(); has && r.scale > 0 {
		d = time.Duration(float64(next.Sub(r.w.Now())) / r.scale)
		ok = true
	}
	if r.dirty && r.opts.Saver != nil && r.opts.SaveEvery > 0 {
		s := r.lastSave.Add(r.opts.SaveEvery).Sub(r.opts.Wall.Now())
		if !ok || s < d {
			d, ok = s, true
		}
	}
	return max(d, 0), ok
}

func (r *Runner) maybeSave(final bool) error {
	if r.opts.Saver == nil || !r.dirty && !final {
		return nil
	}
	now := r.opts.Wall.Now()
	if !final && (r.opts.SaveEvery <= 0 || now.Sub(r.lastSave) < r.opts.SaveEvery) {
		return nil
	}
	r.lastSave = now
	r.dirty = false
	if err := r.opts.Saver.Save(r.w.State()); err != nil {
		r.opts.Logger.Error("saving the simulation state failed", "error", err)
		return fmt.Errorf("save state: %w", err)
	}
	return nil
}
