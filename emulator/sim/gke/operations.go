package gke

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// CancelOperation is best effort, as in GKE: only node-pool upgrades can be cancelled, and only
// while they run. Nodes mid-upgrade finish; nodes not started are left as they are (R-SURGE-9).
func (w *GKE) CancelOperation(project, location, id string) error {
	op, err := w.core.GetOperation(project, location, id)
	if err != nil {
		return err
	}
	if op.Type != api.OpUpgradeNodes {
		return model.FailedPrecondition("Operation %s is of type %s and cannot be cancelled: only node pool upgrade operations (UPGRADE_NODES) support cancellation.", op.ID, op.Type)
	}
	if op.Status == api.OpStatusDone {
		return model.FailedPrecondition("Operation %s is already done and cannot be cancelled.", op.ID)
	}
	c := w.st.Clusters[op.ClusterKey()]
	if c == nil {
		return model.NotFound("projects/%s/locations/%s/clusters/%s", op.Project, op.Location, op.Cluster)
	}
	p := c.Pool(op.Pool)
	if p == nil || p.Upgrade == nil || p.Upgrade.Op != op.ID {
		return model.FailedPrecondition("Operation %s has no upgrade in progress to cancel.", op.ID)
	}
	return w.upgrade.CancelUpgrade(c, p)
}
