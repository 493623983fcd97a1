package autoupgrade

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// StartNodeAutoUpgrade starts GKE's automatic upgrade of a node pool to a version now, as
// automatic maintenance starts one once a release channel's rollout reaches the cluster
// (channel_upgrades.go decides when for clusters that follow gkesim's version table; a
// rehearsal of an imported cluster asks for it). Like every automatic upgrade it respects the
// maintenance policy: it waits for an open window and no blocking exclusion before its first
// node, and a surge upgrade pauses when the window closes and resumes in the next one (R-MW-1,
// R-MW-3). settings, when given, replace the pool's upgrade settings first.
func (w *AutoUpgrades) StartNodeAutoUpgrade(project, location, cluster, pool, version string, settings *api.UpgradeSettings) (*model.Operation, error) {
	c, p, err := w.core.GetNodePool(project, location, cluster, pool)
	if err != nil {
		return nil, err
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	v, err := w.core.ResolveNodeVersion(c, version, "nodeVersion", p.AutoUpgrade)
	if err != nil {
		return nil, err
	}
	target := p.Spec
	target.Version = v
	if target == p.Spec {
		return nil, model.FailedPrecondition("Node pool %s already runs %s: an automatic upgrade needs a version it does not run.", p.Name, v)
	}
	if settings != nil {
		us, err := model.NormalizeUpgradeSettings(settings, "upgradeSettings", model.PoolUpgradeContext(c, p))
		if err != nil {
			return nil, err
		}
		p.UpgradeSettings = us
	}
	p.Etag = w.engine.RandHex(16)
	w.core.TouchCluster(c)
	from := p.Spec.Version
	op := w.upgrade.PlanAutoUpgrade(c, p, target)
	kind := p.Upgrade.Policy
	w.engine.Record("AutoUpgradeStarted", c, p.Name, "", op.ID, "automatic %s of node pool %s from %s to %s (asked for now; it respects the maintenance policy)",
		kind, p.Name, from, v)
	if am := c.AutoMaintenance; am != nil {
		am.History = append(am.History, model.AutoUpgradeRecord{Op: op.ID, Kind: kind, Pool: p.Name, From: from, To: v, Start: w.st.Now})
		if len(am.History) > maxUpgradeHistory {
			am.History = am.History[len(am.History)-maxUpgradeHistory:]
		}
	}
	return op, nil
}
