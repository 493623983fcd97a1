// Package views answers the web console's aggregate questions in one pass over the model and
// the event log: node counts per pool, zone, version and state; an operation's timeline; the
// autoscaler's and the load balancers' history; the maintenance calendar and schedule. It
// reads and never changes the simulation.
package views

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
)

// Views reads a State for the console.
type Views struct {
	st            *model.State
	engine        *engine.Engine
	core          *core.Core
	maintenance   *maintenance.Maintenance
	loadbalancers *loadbalancers.LoadBalancers
	upgrade       *upgrade.Upgrades
}

// New makes the views of st.
func New(st *model.State, e *engine.Engine, c *core.Core, m *maintenance.Maintenance, lb *loadbalancers.LoadBalancers, u *upgrade.Upgrades) *Views {
	return &Views{st: st, engine: e, core: c, maintenance: m, loadbalancers: lb, upgrade: u}
}
