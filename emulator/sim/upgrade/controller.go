// Package upgrade runs node-pool upgrades: surge (R-SURGE-*), blue-green and autoscaled
// blue-green (R-BG-*, R-ABG-*), short-lived (R-SL-*), their control (cancel, resume, rollback,
// complete), the maintenance policy's gate on when they may run, and the control plane's own
// upgrade.
package upgrade

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Upgrades is the controller; the root package makes one per simulation and wires it in.
type Upgrades struct {
	st          *model.State
	engine      *engine.Engine
	core        *core.Core
	maintenance *maintenance.Maintenance
	// blue holds each blue-green upgrade's sorted blue nodes (upgrade_bluegreen.go), rebuilt on demand.
	blue map[*model.NodePool]*BlueList
	// changes caches DescribeSpecChange for the pairs of specs upgrades are under way between:
	// an upgrade reports it at every step.
	changes map[[2]model.NodeSpec]string
	// detail is reportUpgrade's buffer.
	detail []byte
}

// describeChange is DescribeSpecChange(from, to), from the cache.
func (w *Upgrades) describeChange(from, to model.NodeSpec) string {
	key := [2]model.NodeSpec{from, to}
	s, ok := w.changes[key]
	if !ok {
		if w.changes == nil || len(w.changes) >= 64 {
			w.changes = map[[2]model.NodeSpec]string{}
		}
		s = DescribeSpecChange(from, to)
		w.changes[key] = s
	}
	return s
}

// New makes the controller of st.
func New(st *model.State, e *engine.Engine, c *core.Core, maintenance *maintenance.Maintenance) *Upgrades {
	return &Upgrades{st: st, engine: e, core: c, maintenance: maintenance}
}
