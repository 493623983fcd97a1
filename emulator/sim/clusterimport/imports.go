// Package clusterimport recreates a real cluster in the simulation from a snapshot of it (the
// cluster's GKE JSON and its Kubernetes objects as kubectl lists them): ReadSnapshot reads and
// checks the documents, ImportSnapshot builds the cluster whole and lets it join the world, and
// its summary says what was imported, estimated or left out. It uses the GKE surface's
// validation and the controllers' constructors; nothing calls it but the root package's facade.
package clusterimport

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/autoupgrade"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/gke"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/workloads"
)

// Imports imports snapshots into a State.
type Imports struct {
	st            *model.State
	engine        *engine.Engine
	core          *core.Core
	maintenance   *maintenance.Maintenance
	loadbalancers *loadbalancers.LoadBalancers
	autoupgrade   *autoupgrade.AutoUpgrades
	gke           *gke.GKE
	workloads     *workloads.Workloads
}

// New makes the importer of snapshots into st.
func New(st *model.State, e *engine.Engine, c *core.Core, m *maintenance.Maintenance, lb *loadbalancers.LoadBalancers,
	au *autoupgrade.AutoUpgrades, g *gke.GKE, wl *workloads.Workloads) *Imports {
	return &Imports{st: st, engine: e, core: c, maintenance: m, loadbalancers: lb, autoupgrade: au, gke: g, workloads: wl}
}
