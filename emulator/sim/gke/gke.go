// Package gke is the GKE v1 surface of the simulation: creating, updating and deleting
// clusters and node pools (with the API's validation and GKE's defaults), setting maintenance
// policies, cancelling operations, the work each operation's type does while it runs
// (operation_work.go), and rendering clusters and node pools as the API returns them. It starts what the
// other parts carry out (upgrades, the autoscaler, load balancers, a cluster's Kubernetes
// objects) by calling them; none of them calls it: an operation's work reaches the core
// through the core's OpWork, wired by the root package.
package gke

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/autoupgrade"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kubeapi"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/workloads"
)

// GKE serves the GKE API's requests on a State.
type GKE struct {
	st            *model.State
	engine        *engine.Engine
	core          *core.Core
	maintenance   *maintenance.Maintenance
	loadbalancers *loadbalancers.LoadBalancers
	kubeapi       *kubeapi.API
	upgrade       *upgrade.Upgrades
	autoupgrade   *autoupgrade.AutoUpgrades
	workloads     *workloads.Workloads
}

// New makes the GKE surface of st over the parts it starts.
func New(st *model.State, e *engine.Engine, c *core.Core, m *maintenance.Maintenance, lb *loadbalancers.LoadBalancers,
	k *kubeapi.API, u *upgrade.Upgrades, au *autoupgrade.AutoUpgrades, wl *workloads.Workloads) *GKE {
	return &GKE{st: st, engine: e, core: c, maintenance: m, loadbalancers: lb, kubeapi: k, upgrade: u, autoupgrade: au, workloads: wl}
}
