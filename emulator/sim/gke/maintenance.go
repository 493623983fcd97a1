package gke

import (
	"encoding/json"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// SetMaintenancePolicy replaces a cluster's maintenance policy (clusters.setMaintenancePolicy).
// An empty policy clears it. A resourceVersion other than the current one is a stale read and
// is rejected, as GKE's optimistic concurrency does.
func (w *GKE) SetMaintenancePolicy(project, location, name string, req *api.SetMaintenancePolicyRequest) (*model.Operation, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	if req == nil || req.MaintenancePolicy == nil {
		return nil, model.InvalidArgument("Required field \"maintenancePolicy\" is missing. Send {\"maintenancePolicy\": {\"window\": {...}, \"resourceVersion\": \"...\"}}; an empty maintenancePolicy clears the policy.")
	}
	in := req.MaintenancePolicy
	if rv := in.ResourceVersion; rv != "" && rv != c.PolicyVersion {
		return nil, model.Aborted("The maintenance policy was changed since it was read: maintenancePolicy.resourceVersion %q is stale, the current resourceVersion is %q. Get the cluster again and send its maintenancePolicy.resourceVersion with the new policy.",
			rv, c.PolicyVersion)
	}
	p, err := w.maintenance.BuildMaintenancePolicy(c, in, "maintenancePolicy")
	if err != nil {
		return nil, err
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	w.applyMaintenancePolicy(c, p)
	op := w.metadataUpdate(c, "", "maintenance policy of %s set: %s (resourceVersion %s)", c.Name, maintenance.DescribePolicy(p), c.PolicyVersion)
	// A new policy may let waiting automatic upgrades run sooner (or later).
	w.autoupgrade.WakeAutoMaintenance(c, w.st.Now.Add(core.MetadataOpDuration+core.OpStartDelay))
	return op, nil
}

// initMaintenancePolicy applies the maintenancePolicy of a cluster being created.
func (w *GKE) initMaintenancePolicy(c *model.Cluster, in *api.MaintenancePolicy) error {
	if in == nil {
		return nil
	}
	p, err := w.maintenance.BuildMaintenancePolicy(c, in, "cluster.maintenancePolicy")
	if err != nil {
		return err
	}
	w.applyMaintenancePolicy(c, p)
	return nil
}

// applyMaintenancePolicy stores a validated policy and gives it a new resourceVersion: a hash
// of the previous version and the new policy.
func (w *GKE) applyMaintenancePolicy(c *model.Cluster, p *model.MaintenancePolicy) {
	if p.Empty() {
		p = nil
	}
	c.MaintenancePolicy = p
	b, _ := json.Marshal(p)
	c.PolicyVersion = model.Digest(append([]byte(c.PolicyVersion), b...), 16)
	w.upgrade.MaintenancePolicyChanged(c)
}
