// Package engine is the simulation's kernel: the emulated clock and the queue of timed events,
// the registry of what runs each kind of event, the seeded random source, the event log, and
// the hook lists through which the core announces what happened to the controllers that
// listen. It knows the model's types and nothing of what the controllers do.
package engine

import (
	"fmt"
	"math/rand/v2"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Engine runs a State's clock, queue, random source and log. Like the rest of the simulation
// it is not safe for concurrent use: one goroutine owns it.
type Engine struct {
	st       *model.State
	pcg      *rand.PCG
	handlers map[string]func(model.Event)
	// logWaiters is closed when the event log grows.
	logWaiters chan struct{}
	// Rng is the seeded random source every random choice of the simulation draws from.
	Rng *rand.Rand
	// Hooks are the controllers' callbacks on what the core does (lifecycle.go).
	Hooks Hooks
}

// New makes the engine of st, its random source seeded from st.Seed (or, for a restored
// state, at the position st.Rand saved).
func New(st *model.State) (*Engine, error) {
	e := &Engine{st: st, pcg: rand.NewPCG(st.Seed, st.Seed^0x9e3779b97f4a7c15), handlers: map[string]func(model.Event){},
		logWaiters: make(chan struct{})}
	if len(st.Rand) > 0 {
		if err := e.pcg.UnmarshalBinary(st.Rand); err != nil {
			return nil, fmt.Errorf("restore random state: %w", err)
		}
	}
	e.Rng = rand.New(e.pcg)
	return e, nil
}

// SaveRand writes the random source's position into the state, for a store to save.
func (w *Engine) SaveRand() {
	if b, err := w.pcg.MarshalBinary(); err == nil {
		w.st.Rand = b
	}
}

// Handles says whether an event kind has a handler.
func (w *Engine) Handles(kind string) bool {
	_, ok := w.handlers[kind]
	return ok
}
