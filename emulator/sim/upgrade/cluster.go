package upgrade

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// UpgradeMaster starts a control-plane upgrade. GKE upgrades one minor at a time, never
// downgrades a minor, and keeps nodes within two minors of the control plane.
func (w *Upgrades) UpgradeMaster(c *model.Cluster, requested string) (*model.Operation, error) {
	vt := catalog.VersionsAt(w.st.Now)
	target, ok := catalog.Resolve(requested, vt.ValidFor(c.ReleaseChannel), vt.DefaultFor(c.ReleaseChannel))
	if !ok {
		return nil, core.UnsupportedVersion("update.desiredMasterVersion", "Master", requested, c.ReleaseChannel, vt.ValidFor(c.ReleaseChannel))
	}
	cur, _ := catalog.ParseVersion(c.MasterVersion)
	switch {
	case target.Minor < cur.Minor:
		return nil, model.FailedPrecondition("Control plane minor version downgrade from %s to %s is not supported; only patch versions within minor %s can be downgraded.",
			c.MasterVersion, target, cur.MinorString())
	case target.Minor > cur.Minor+1:
		return nil, model.FailedPrecondition("Control plane can only be upgraded one minor version at a time: %s -> %s skips a minor. Upgrade to 1.%d first.",
			c.MasterVersion, target, cur.Minor+1)
	}
	for _, p := range c.Pools {
		if pv, _ := catalog.ParseVersion(p.Spec.Version); target.Minor-pv.Minor > 2 {
			return nil, model.FailedPrecondition("Node pool %s runs %s; nodes may be at most two minor versions older than the control plane, so upgrade the node pool before upgrading the control plane to %s.",
				p.Name, p.Spec.Version, target)
		}
	}
	c.MasterTarget = target.String()
	w.core.TouchCluster(c)
	op := w.core.StartOperation(api.OpUpgradeMaster, c, "", true)
	w.engine.Record("ControlPlaneUpgrading", c, "", "", op.ID, "upgrading control plane of %s from %s to %s", c.Name, c.MasterVersion, target)
	return op, nil
}
