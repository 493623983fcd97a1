// Package compute is the simulation's Compute Engine API: the resources GKE creates for its
// load balancers and node pools as Compute shows them, read-only (forwarding rules, backend
// services, target pools, NEGs, health checks, firewalls, instance groups and their managers),
// and the users' own Compute objects (unmanaged instance groups, backend services) with their
// operations, which GKE's load balancers must live beside (R-LB-5). It reads and asks the load
// balancers; they never call it.
package compute

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Compute serves the Compute API over a State.
type Compute struct {
	st            *model.State
	engine        *engine.Engine
	core          *core.Core
	loadbalancers *loadbalancers.LoadBalancers
}

// New makes the Compute API of st.
func New(st *model.State, e *engine.Engine, c *core.Core, lb *loadbalancers.LoadBalancers) *Compute {
	return &Compute{st: st, engine: e, core: c, loadbalancers: lb}
}
