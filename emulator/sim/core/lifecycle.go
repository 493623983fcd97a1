package core

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// poolNodesChanged lets the controllers that wait on a pool's nodes take their next step,
// then finishes the cluster's operations whose work is done.
func (w *Core) poolNodesChanged(c *model.Cluster, pool string) {
	if p := c.Pool(pool); p != nil {
		for _, h := range w.engine.Hooks.PoolNodesChanged {
			h(c, p)
		}
	}
	w.CheckOperations(c)
}
