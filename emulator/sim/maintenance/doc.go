// Package maintenance is GKE's maintenance policy: a cluster's one maintenance window and its
// exclusions, how they are built from the API and checked against GKE's limits (R-MW-2,
// R-EX-1..4), and the evaluator every upgrade asks whether it may run now and when it next
// may (R-MW-1, R-EX-2). It changes nothing but its own compiled windows; who reacts to a new
// policy is wired by the simulation's root package.
package maintenance

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Maintenance evaluates the maintenance policies of a State's clusters.
type Maintenance struct {
	st     *model.State
	engine *engine.Engine
	// maint holds each cluster's compiled maintenance window, rebuilt when its policy changes.
	maint map[string]*windowCache
}

// New makes the evaluator of st's policies.
func New(st *model.State, e *engine.Engine) *Maintenance {
	return &Maintenance{st: st, engine: e}
}
