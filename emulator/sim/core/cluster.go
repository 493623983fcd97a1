package core

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// TouchCluster gives cluster c a new etag after a change.
func (w *Core) TouchCluster(c *model.Cluster) { c.Etag = w.engine.RandHex(16) }
