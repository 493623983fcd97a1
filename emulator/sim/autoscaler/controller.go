// Package autoscaler is the cluster autoscaler: its passes over the autoscaled pools, scale-up
// for pods that fit nowhere (priorities, compute classes, location policy) and scale-down of
// unneeded nodes, each decided on a snapshot of the cluster it can change and throw away
// (R-CA-*).
package autoscaler

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/workloads"
)

// Autoscaler is the controller; the root package makes one per simulation and wires it in.
type Autoscaler struct {
	st        *model.State
	engine    *engine.Engine
	core      *core.Core
	workloads *workloads.Workloads
}

// New makes the controller of st.
func New(st *model.State, e *engine.Engine, c *core.Core, wl *workloads.Workloads) *Autoscaler {
	return &Autoscaler{st: st, engine: e, core: c, workloads: wl}
}
