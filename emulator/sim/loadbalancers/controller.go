// Package loadbalancers is what GKE builds in Compute Engine for LoadBalancer Services: the
// Services themselves (cluster IPs, node ports, endpoints), the load balancers of each kind
// (target pool, backend service with instance groups or GCE_VM_IP NEGs, subsetting), their
// backends and health checks, the rule that a VM serves in one load-balanced instance group
// only (R-LB-5, with the users' own groups), and the path of a packet (R-LB-7). Package compute
// shows all of it through the Compute API (R-LB-*).
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
	Svcs map[*model.Cluster]*ServiceIndex
}

// New makes the controller of st.
func New(st *model.State, e *engine.Engine, c *core.Core) *LoadBalancers {
	return &LoadBalancers{st: st, engine: e, core: c}
}
