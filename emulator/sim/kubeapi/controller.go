// Package kubeapi is each emulated cluster's Kubernetes API: create, read, update and delete of
// the simulated kinds (pods, Deployments, budgets, namespaces, Services through the load
// balancers' controller), the stored kinds kept as the API server keeps them, and the API
// server's validation and defaults.
package kubeapi

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/workloads"
)

// API is the controller; the root package makes one per simulation and wires it in.
type API struct {
	st            *model.State
	engine        *engine.Engine
	core          *core.Core
	loadbalancers *loadbalancers.LoadBalancers
	workloads     *workloads.Workloads
	// warnings are what admission warned the current request of (see TakeWarnings).
	warnings []string
}

// New makes the controller of st.
func New(st *model.State, e *engine.Engine, c *core.Core, loadbalancers *loadbalancers.LoadBalancers, wl *workloads.Workloads) *API {
	return &API{st: st, engine: e, core: c, loadbalancers: loadbalancers, workloads: wl}
}
