// Package loadbalancers is what GKE builds in Compute Engine for LoadBalancer Services: the
// Services themselves (cluster IPs, node ports, endpoints), the load balancers of each kind
// (target pool, backend service with instance groups or GCE_VM_IP NEGs, subsetting), their
// backends and health checks, the users' own Compute objects that GKE's instance groups may
// join, and the read-only Compute API that shows them (R-LB-*).
package loadbalancers

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// LoadBalancers is the controller; the root package makes one per simulation and wires it in.
type LoadBalancers struct {
	st     *model.State
	engine *engine.Engine
	core   *core.Core
	// Svcs holds each cluster's derived Service index (services_index.go), rebuilt on demand.
	Svcs map[*model.Cluster]*SvcIndex
}

// New makes the controller of st.
func New(st *model.State, e *engine.Engine, c *core.Core) *LoadBalancers {
	return &LoadBalancers{st: st, engine: e, core: c}
}
