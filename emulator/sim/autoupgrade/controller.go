// Package autoupgrade is GKE's automatic maintenance of a cluster on a release channel: the
// control plane's and node pools' auto-upgrades when the maintenance policy allows them
// (R-MW-4, R-MW-5), and node auto-repair.
package autoupgrade

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
)

// AutoUpgrades is the controller; the root package makes one per simulation and wires it in.
type AutoUpgrades struct {
	st          *model.State
	engine      *engine.Engine
	core        *core.Core
	maintenance *maintenance.Maintenance
	upgrade     *upgrade.Upgrades
}

// New makes the controller of st.
func New(st *model.State, e *engine.Engine, c *core.Core, maintenance *maintenance.Maintenance, upgrade *upgrade.Upgrades) *AutoUpgrades {
	return &AutoUpgrades{st: st, engine: e, core: c, maintenance: maintenance, upgrade: upgrade}
}
