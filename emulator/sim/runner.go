package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Wall is the wall clock the runner paces emulated time against. It is injected so that the
// simulation itself never reads the wall clock: only emulated time moves it, so a seed replays.
type Wall interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Journal makes what the runner accepts durable before it is acknowledged (emulator/store
// implements it). The runner appends every command it runs, in the order it runs them, with the
// emulated time it ran at; a caller is answered only once the journal holds the commands and
// the emulated time its answer shows.
type Journal interface {
	// Append adds a command and returns its sequence number; it does not wait for the disk.
	Append(at time.Time, data []byte) uint64
	// Wait blocks until every command up to seq is durable and the journal holds an emulated
	// time of at least at.
	Wait(ctx context.Context, seq uint64, at time.Time) error
	// Checkpoint saves st whole, standing for every command appended so far; false when the
	// previous checkpoint is still being written. The error is an earlier checkpoint's.
	Checkpoint(st *model.State, timeScale float64) (bool, error)
	// SinceCheckpoint is the journal bytes appended since the last checkpoint.
	SinceCheckpoint() int64
}

// MaxTimeScale bounds the time scale. At it an emulated day passes in 0.86 wall seconds; the
// runner ran an idle 1,000-node cluster's periodic controllers at 440,000 emulated seconds per
// wall second on one core, so at the bound such a cluster costs it under a quarter of a core.
// Faster, the clock falls behind the wall and the runner does nothing but catch up (and time
// arithmetic overflows: 1e12 jumped the clock by decades); clock:advance moves it further.
const MaxTimeScale = 100_000

// ErrStopped is returned by Do after the runner has stopped.
var ErrStopped = errors.New("the simulation has stopped")

// NotDurableError says the journal could not make a change or the clock durable: the change
// may be lost on a crash, so it is not acknowledged.
type NotDurableError struct{ Err error }

func (e *NotDurableError) Error() string {
	return "the emulator could not save its state, so it cannot acknowledge this request: " + e.Err.Error()
}
func (e *NotDurableError) Unwrap() error { return e.Err }

// Checkpoint policy defaults: a checkpoint bounds both the journal and the simulation work a
// restart replays.
const (
	DefaultCheckpointBytes  = 32 << 20
	DefaultCheckpointEvents = 200_000
	DefaultCheckpointEvery  = 10 * time.Minute
)

// RunnerOptions configure a Runner.
type RunnerOptions struct {
	Wall Wall
	// TimeScale is emulated seconds per wall second; 0 freezes the clock (only Advance moves it).
	TimeScale float64
	// Journal, if set, makes every command durable before it is answered.
	Journal Journal
	// A checkpoint is taken when the journal has grown CheckpointBytes, or CheckpointEvents
	// events have run, or CheckpointEvery of wall time has passed with anything run, since the
	// last one; and when the runner stops. Zero values take the defaults.
	CheckpointBytes  int64
	CheckpointEvents int
	CheckpointEvery  time.Duration
	Logger           *slog.Logger
}

// Runner owns a World on one goroutine (single writer): HTTP handlers send it commands through
// Do, and between commands it runs the events that fall due as emulated time passes at
// TimeScale.
type Runner struct {
	w    *World
	opts RunnerOptions
	cmds chan *command
	done chan struct{}

	scale      float64
	wallAnchor time.Time
	simAnchor  time.Time

	// Checkpoint bookkeeping (only with a Journal); noFinal skips the checkpoint at stop.
	noFinal        atomic.Bool
	lastSeq        uint64
	changed        bool
	eventsSince    int
	lastCheckpoint time.Time

	// gen counts the changes a reader could see: it moves after every command but a Read and
	// after every catch-up that ran an event (rendered objects do not depend on the clock
	// alone). What a Read rendered at generation g is still what it would render while
	// Generation() returns g, so a server may answer a repeated read from bytes it kept.
	gen atomic.Uint64
}

// command is a function to run on the simulation goroutine; rec, if set, is journaled.
type command struct {
	ctx context.Context
	fn  func(ctx context.Context) error
	rec *Command
	// read marks a command that changes nothing a reader could see (Read).
	read bool
	res  chan result
	gen  uint64 // the result's generation, for Read
}

type result struct {
	err error
	// seq is the last journal record the result depends on, at the emulated time it shows.
	seq uint64
	at  time.Time
	// gen is the generation the command saw (Read) or left.
	gen uint64
}

// Command is a journaled input of the simulation: an HTTP request the emulator accepted, or a
// clock call made from Go (tests and library mode).
type Command struct {
	Kind      string        `json:"kind"`
	Request   *Request      `json:"request,omitempty"`
	Duration  time.Duration `json:"duration,omitempty"`
	TimeScale float64       `json:"timeScale,omitempty"`
}

// Command kinds.
const (
	CommandRequest   = "request"
	CommandAdvance   = "advance"
	CommandTimeScale = "timeScale"
)

// Request is an HTTP request as the journal keeps it: enough to serve it again.
type Request struct {
	Method      string `json:"method"`
	URI         string `json:"uri"`
	ContentType string `json:"contentType,omitempty"`
	// UserAgent is kept for what the request writes with it: the Kubernetes API names the
	// field manager of a write without a fieldManager parameter after the client's agent.
	UserAgent string `json:"userAgent,omitempty"`
	Body      []byte `json:"body,omitempty"`
}

// inRunnerKey marks a context whose holder runs on the simulation goroutine: Do calls made with
// it run at once, in the caller's critical section.
type inRunnerKey struct{}

// InRunner says whether ctx belongs to code that already runs on the simulation goroutine (a
// journaled request, or one being replayed): middleware that acts once per request from outside
// (fault injection, authentication) lets it through.
func InRunner(ctx context.Context) bool { return ctx.Value(inRunnerKey{}) != nil }

func (r *Runner) inline(ctx context.Context) bool { return ctx.Value(inRunnerKey{}) == r }

// NewRunner wraps w. Call Run to start it.
func NewRunner(w *World, opts RunnerOptions) *Runner {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.CheckpointBytes == 0 {
		opts.CheckpointBytes = DefaultCheckpointBytes
	}
	if opts.CheckpointEvents == 0 {
		opts.CheckpointEvents = DefaultCheckpointEvents
	}
	if opts.CheckpointEvery == 0 {
		opts.CheckpointEvery = DefaultCheckpointEvery
	}
	r := &Runner{w: w, opts: opts, cmds: make(chan *command), done: make(chan struct{}), scale: opts.TimeScale}
	r.gen.Store(1)
	r.reanchor()
	r.lastCheckpoint = opts.Wall.Now()
	return r
}

// Run processes commands and due events until ctx is done, then takes a last checkpoint.
func (r *Runner) Run(ctx context.Context) error {
	defer close(r.done)
	for {
		r.catchUp()
		r.maybeCheckpoint(false)
		var wake <-chan time.Time
		if d, ok := r.untilWake(); ok {
			wake = r.opts.Wall.After(d)
		}
		select {
		case cmd := <-r.cmds:
			r.catchUp()
			cmd.res <- r.run(cmd)
		case <-wake:
		case <-ctx.Done():
			if r.noFinal.Load() {
				return nil
			}
			return r.maybeCheckpoint(true)
		}
	}
}

// run executes a command on the simulation goroutine and journals it. A journaled command is
// appended even when it fails or panics: replaying it must do the same again.
func (r *Runner) run(cmd *command) (res result) {
	at := r.w.engine.Now()
	ctx := context.WithValue(cmd.ctx, inRunnerKey{}, r)
	defer func() {
		if p := recover(); p != nil {
			r.opts.Logger.Error("simulation command panicked", "panic", p, "stack", string(debug.Stack()))
			res.err = fmt.Errorf("internal error in the simulation: %v", p)
		}
		r.w.core.Publish() // what the command changed, as its answer shows it
		if cmd.rec != nil {
			r.record(at, cmd.rec)
		}
		if !cmd.read {
			r.gen.Add(1)
		}
		res.seq, res.at, res.gen = r.lastSeq, r.w.engine.Now(), r.gen.Load()
	}()
	return result{err: cmd.fn(ctx)}
}

func (r *Runner) record(at time.Time, c *Command) {
	r.changed = true
	r.eventsSince++
	if r.opts.Journal == nil {
		return
	}
	data, err := encodeCommand(c)
	if err != nil {
		panic(fmt.Sprintf("sim: encode journal command: %v", err))
	}
	r.lastSeq = r.opts.Journal.Append(at, data)
}

// Do runs fn on the simulation goroutine and returns its error. fn sees a consistent model
// and may change it; it must not keep references to the model after it returns. With a
// Journal, Do returns only once what fn saw is durable. Called with a context from inside the
// runner (InRunner), it runs fn at once.
func (r *Runner) Do(ctx context.Context, fn func(w *World) error) error {
	if r.inline(ctx) {
		return fn(r.w)
	}
	return r.submit(ctx, &command{ctx: ctx, fn: func(context.Context) error { return fn(r.w) }})
}

// DoRecorded runs fn on the simulation goroutine like Do and journals c with the emulated time
// it ran at, so that a restart replays it. fn gets a context under which Do runs at once (it is
// already on the simulation goroutine). Called from inside the runner, it just runs fn.
func (r *Runner) DoRecorded(ctx context.Context, c *Command, fn func(ctx context.Context) error) error {
	if r.inline(ctx) {
		return fn(ctx)
	}
	return r.submit(ctx, &command{ctx: ctx, fn: fn, rec: c})
}

// Read runs fn on the simulation goroutine like Do, for a caller that only reads the world
// (lazily built indexes aside): it returns the generation fn saw, which stays current until
// the next change a reader could see. Called from inside the runner, it runs fn at once and
// returns generation 0, which is never current: what fn saw may still change before the
// command it runs in ends.
func (r *Runner) Read(ctx context.Context, fn func(w *World) error) (uint64, error) {
	if r.inline(ctx) {
		return 0, fn(r.w)
	}
	cmd := &command{ctx: ctx, fn: func(context.Context) error { return fn(r.w) }, read: true}
	err := r.submit(ctx, cmd)
	return cmd.gen, err
}

// SetFeedFollowed tells the world who follows its clusters' change feeds (World.SetFeedFollowed);
// safe before or after Run starts.
func (r *Runner) SetFeedFollowed(followed func(cluster string) bool) {
	r.w.core.SetFeedFollowed(followed)
}

// Generation is the current generation (see Read). It is safe to call from any goroutine.
func (r *Runner) Generation() uint64 { return r.gen.Load() }

func (r *Runner) submit(ctx context.Context, cmd *command) error {
	cmd.res = make(chan result, 1)
	select {
	case r.cmds <- cmd:
	case <-ctx.Done():
		return ctx.Err()
	case <-r.done:
		return ErrStopped
	}
	res := <-cmd.res
	cmd.gen = res.gen
	if j := r.opts.Journal; j != nil {
		if err := j.Wait(ctx, res.seq, res.at); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &NotDurableError{Err: err}
		}
	}
	return res.err
}

// Replay applies one journal record to a runner that is not running yet: the events due by its
// time, then the command (nil data: a clock mark, nothing more). Requests are served again by
// serve, with a context under which Do runs at once.
func (r *Runner) Replay(at time.Time, data []byte, serve func(ctx context.Context, req *Request) error) error {
	r.gen.Add(1)
	r.w.RunUntil(at)
	if data == nil {
		return nil
	}
	c, err := decodeCommand(data)
	if err != nil {
		return err
	}
	ctx := context.WithValue(context.Background(), inRunnerKey{}, r)
	switch c.Kind {
	case CommandRequest:
		if c.Request == nil {
			return errors.New("journal command has no request")
		}
		r.replayServe(ctx, serve, c.Request)
		r.w.core.Publish()
	case CommandAdvance:
		r.w.RunUntil(r.w.engine.Now().Add(c.Duration))
	case CommandTimeScale:
		r.scale = c.TimeScale
	default:
		return fmt.Errorf("unknown journal command kind %q", c.Kind)
	}
	return nil
}

// replayServe serves a request again as it was served the first time, panics included.
func (r *Runner) replayServe(ctx context.Context, serve func(ctx context.Context, req *Request) error, req *Request) {
	defer func() {
		if p := recover(); p != nil {
			r.opts.Logger.Warn("replayed request panicked, as it did when it was first served", "panic", p, "method", req.Method, "uri", req.URI)
		}
	}()
	_ = serve(ctx, req)
}

// SkipFinalCheckpoint makes Run stop without its last checkpoint, as a crash would: a restart
// then replays the journal.
func (r *Runner) SkipFinalCheckpoint() { r.noFinal.Store(true) }

// Attach starts journaling to j (after a replay) with the runner's time scale set to scale.
func (r *Runner) Attach(j Journal, scale float64) {
	r.opts.Journal = j
	r.scale = scale
	r.reanchor()
	r.lastCheckpoint = r.opts.Wall.Now()
}

// TimeScaleNow is the time scale (outside Run, e.g. after a replay).
func (r *Runner) TimeScaleNow() float64 { return r.scale }

// Advance runs every event due within d of emulated time, in order, and moves the clock by d.
func (r *Runner) Advance(ctx context.Context, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("cannot advance the clock by a negative duration %s", d)
	}
	return r.DoRecorded(ctx, &Command{Kind: CommandAdvance, Duration: d}, func(context.Context) error {
		r.eventsSince += r.w.RunUntil(r.w.engine.Now().Add(d))
		r.reanchor()
		return nil
	})
}

// SetTimeScale changes how fast emulated time passes; 0 freezes it.
func (r *Runner) SetTimeScale(ctx context.Context, scale float64) error {
	if !(scale >= 0 && scale <= MaxTimeScale) {
		return fmt.Errorf("time scale must be 0 (frozen) or positive and at most %d emulated seconds per wall second, got %g", MaxTimeScale, scale)
	}
	return r.DoRecorded(ctx, &Command{Kind: CommandTimeScale, TimeScale: scale}, func(context.Context) error {
		r.scale = scale
		r.reanchor()
		return nil
	})
}

// TimeScale reads the current time scale; call it only from inside Do.
func (r *Runner) TimeScale() float64 { return r.scale }

func (r *Runner) reanchor() {
	r.wallAnchor = r.opts.Wall.Now()
	r.simAnchor = r.w.engine.Now()
}

// catchUp moves emulated time to where the wall clock says it should be, running every event
// due by then, including the ones due right now (a frozen clock too): a command always sees
// the world with nothing overdue, so a replay that runs the events due by each command's time
// meets the same world.
func (r *Runner) catchUp() {
	target := r.w.engine.Now()
	if r.scale > 0 {
		elapsed := r.opts.Wall.Now().Sub(r.wallAnchor)
		if t := r.simAnchor.Add(time.Duration(float64(elapsed) * r.scale)); t.After(target) {
			target = t
		}
	}
	if n := r.w.RunUntil(target); n > 0 {
		r.eventsSince += n
		r.changed = true
		r.gen.Add(1)
	}
}

// untilWake is the wall time until the runner has something to do without a command: the
// next event falling due, or a checkpoint the wall-time rule asks for.
func (r *Runner) untilWake() (time.Duration, bool) {
	var d time.Duration
	ok := false
	if next, has := r.w.engine.NextEventAt(); has && r.scale > 0 {
		d, ok = time.Duration(float64(next.Sub(r.w.engine.Now()))/r.scale), true
	}
	if r.opts.Journal != nil && r.changed {
		if c := r.lastCheckpoint.Add(r.opts.CheckpointEvery).Sub(r.opts.Wall.Now()); !ok || c < d {
			d, ok = c, true
		}
	}
	return max(d, 0), ok
}

// maybeCheckpoint takes a checkpoint when the policy says so (always when final and anything
// changed since the last one).
func (r *Runner) maybeCheckpoint(final bool) error {
	j := r.opts.Journal
	if j == nil || !r.changed {
		return nil
	}
	if !final && r.eventsSince < r.opts.CheckpointEvents && j.SinceCheckpoint() < r.opts.CheckpointBytes &&
		r.opts.Wall.Now().Sub(r.lastCheckpoint) < r.opts.CheckpointEvery {
		return nil
	}
	started, err := j.Checkpoint(r.w.State(), r.scale)
	if err != nil {
		r.opts.Logger.Error("writing a checkpoint failed; the journal still holds every change", "error", err)
	}
	if started {
		r.changed, r.eventsSince, r.lastCheckpoint = false, 0, r.opts.Wall.Now()
	}
	// A final checkpoint that cannot start (the previous one is still being written) loses
	// nothing: the journal holds every change since that one.
	return nil
}
