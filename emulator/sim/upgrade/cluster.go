package upgrade

import (
	"net/http"
	"time"

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

// masterUpgradeRunning is the control-plane upgrade running on c, if any.
func (w *Upgrades) masterUpgradeRunning(c *model.Cluster) *model.Operation {
	for _, id := range c.OpenOps {
		if op := w.st.Operations[id]; op != nil && op.Type == api.OpUpgradeMaster && op.Status == api.OpStatusRunning {
			return op
		}
	}
	return nil
}

// KubeAPIUnavailable is why cluster c's Kubernetes API cannot serve a request now, or nil when
// it can (R-MW-6). A zonal cluster's control plane is a single replica: while it is upgraded
// (from the moment its UPGRADE_MASTER operation runs until it is done) the API server answers
// nothing, reads included, with the 503 a client meets when the API server is down. A
// regional cluster's three replicas are upgraded one at a time, and it keeps serving. The
// nodes and their pods keep running either way, and the GKE API keeps answering.
func (w *Upgrades) KubeAPIUnavailable(c *model.Cluster) *model.Error {
	if !c.Zonal() {
		return nil
	}
	op := w.masterUpgradeRunning(c)
	if op == nil {
		return nil
	}
	return model.KubeError(http.StatusServiceUnavailable, "ServiceUnavailable",
		"the server is currently unable to handle the request: the control plane of zonal cluster %s is being upgraded to %s (operation %s), "+
			"and a zonal cluster has a single control-plane replica, so its Kubernetes API is unavailable until the upgrade is done; running pods are not affected "+
			"(see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-mw-6)",
		c.Name, c.MasterTarget, op.ID)
}

// ControlPlaneDown logs that a zonal cluster's Kubernetes API went down as the upgrade of its
// control plane began (R-MW-6); ControlPlaneUp that it came back. Both are no-ops for a
// regional cluster.
func (w *Upgrades) ControlPlaneDown(c *model.Cluster, op *model.Operation) {
	if c.Zonal() {
		w.engine.Record("KubernetesAPIUnavailable", c, "", "", op.ID,
			"Kubernetes API of zonal cluster %s unavailable: its single control-plane replica is being upgraded from %s to %s; requests get 503 until it is done, running pods are not affected",
			c.Name, c.MasterVersion, c.MasterTarget)
	}
}

// ControlPlaneUp: see ControlPlaneDown.
func (w *Upgrades) ControlPlaneUp(c *model.Cluster, op *model.Operation) {
	if c.Zonal() {
		w.engine.Record("KubernetesAPIAvailable", c, "", "", op.ID,
			"Kubernetes API of zonal cluster %s available again: its control plane runs %s (down for %s)",
			c.Name, c.MasterVersion, w.st.Now.Sub(op.StartTime.Add(core.OpStartDelay)).Round(time.Second))
	}
}
