package gke

import (
	"slices"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// What each kind of operation does once it starts, when its work is complete, and what it
// leaves behind. Node-level work (boot, drain, delete) and upgrades live in core/nodes.go and
// upgrade/upgrade.go; this file only sequences them per operation type.

const (
	evOpCheck           = "operation.check"
	evControlPlaneReady = "cluster.controlPlaneReady"
	evMasterUpgraded    = "cluster.masterUpgraded"
	evClusterTeardown   = "cluster.teardown"

	controlPlaneZonal    = 180 * time.Second
	controlPlaneRegional = 300 * time.Second
	controlPlaneSpread   = 60 * time.Second
	masterUpgradeZonal   = 360 * time.Second
	masterUpgradeRegion  = 720 * time.Second
	teardownBase         = 120 * time.Second
)

func (w *GKE) RegisterWorkHandlers() {
	w.engine.On(evOpCheck, func(ev model.Event) {
		if c := w.st.Clusters[ev.Cluster]; c != nil {
			w.core.CheckOperations(c)
		}
	})
	w.engine.On(evControlPlaneReady, w.onControlPlaneReady)
	w.engine.On(evMasterUpgraded, w.onMasterUpgraded)
	w.engine.On(evClusterTeardown, w.onClusterTeardown)
}

// minDuration is the least time an operation takes, even when it has nothing to wait for.
func minDuration(typ string) time.Duration {
	switch typ {
	case api.OpSetNodePoolManagement, api.OpUpdateCluster, api.OpSetNodePoolSize, api.OpUpgradeNodes:
		return core.MetadataOpDuration
	}
	return 0
}

// BeginWork starts what op does.
func (w *GKE) BeginWork(c *model.Cluster, op *model.Operation) {
	if d := minDuration(op.Type); d > 0 {
		w.engine.Schedule(d, model.Event{Kind: evOpCheck, Cluster: c.Key(), Op: op.ID})
	}
	p := c.Pool(op.Pool)
	switch op.Type {
	case api.OpCreateCluster:
		base := controlPlaneZonal
		if !c.Zonal() {
			base = controlPlaneRegional
		}
		core.SetMetrics(op, "CLUSTER_CONFIGURING", 1, "CLUSTER_CONFIGURING_TOTAL", 1,
			"CLUSTER_DEPLOYING", 0, "CLUSTER_DEPLOYING_TOTAL", 1,
			"CLUSTER_HEALTHCHECKING", 0, "CLUSTER_HEALTHCHECKING_TOTAL", 1)
		op.Detail = "Creating control plane"
		w.engine.Schedule(w.engine.Jitter(base, controlPlaneSpread), model.Event{Kind: evControlPlaneReady, Cluster: c.Key(), Op: op.ID})
	case api.OpDeleteCluster:
		c.Status = model.ClusterStopping
		for _, pool := range c.Pools {
			pool.Status = model.PoolStopping
		}
		for _, name := range core.SortedNodeNames(c) {
			w.core.DeleteNode(c, c.Nodes[name], "cluster deleted")
		}
		w.engine.Schedule(w.engine.Jitter(teardownBase, controlPlaneSpread), model.Event{Kind: evClusterTeardown, Cluster: c.Key(), Op: op.ID})
	case api.OpCreateNodePool, api.OpSetNodePoolSize:
		if p != nil {
			w.core.ReconcilePool(c, p)
		}
	case api.OpDeleteNodePool:
		if p != nil {
			p.Status = model.PoolStopping
			for _, g := range p.Groups {
				for _, n := range w.core.LiveNodes(c, g) {
					w.core.RetireNode(c, n, core.PoolDeletionDrain, "node pool deleted")
				}
			}
		}
	case api.OpUpdateCluster:
		for _, pool := range c.Pools {
			w.core.ReconcilePool(c, pool)
		}
	case api.OpUpgradeMaster:
		c.Status = model.ClusterReconciling
		base := masterUpgradeZonal
		if !c.Zonal() {
			base = masterUpgradeRegion
		}
		op.Detail = "Upgrading control plane"
		w.upgrade.ControlPlaneDown(c, op)
		w.engine.Schedule(w.engine.Jitter(base, controlPlaneSpread), model.Event{Kind: evMasterUpgraded, Cluster: c.Key(), Op: op.ID})
	case api.OpUpgradeNodes:
		switch {
		case p == nil:
		case p.Upgrade != nil && p.Upgrade.Op == op.ID:
			w.upgrade.BeginUpgrade(c, p)
		case p.Upgrade == nil:
			// No node is recreated (labels, taints, locations), but zones the pool gained need
			// their nodes and zones it left must lose theirs.
			w.core.ReconcilePool(c, p)
		}
	}
}

// WorkDone says whether op's work is complete.
func (w *GKE) WorkDone(c *model.Cluster, op *model.Operation) bool {
	if w.st.Now.Before(op.StartTime.Add(core.OpStartDelay + minDuration(op.Type))) {
		return false
	}
	p := c.Pool(op.Pool)
	switch op.Type {
	case api.OpCreateCluster:
		if c.Status != model.ClusterProvisioning || !c.ControlPlaneReady {
			return false
		}
		for _, pool := range c.Pools {
			if !w.core.PoolSettled(c, pool) {
				return false
			}
		}
		return true
	case api.OpCreateNodePool, api.OpSetNodePoolSize:
		return p == nil || w.core.PoolSettled(c, p)
	case api.OpDeleteNodePool:
		if p == nil {
			return true
		}
		for _, g := range p.Groups {
			if len(g.Nodes) > 0 {
				return false
			}
		}
		return true
	case api.OpUpdateCluster:
		for _, pool := range c.Pools {
			if !w.core.PoolSettled(c, pool) {
				return false
			}
		}
		return true
	case api.OpUpgradeNodes:
		// An upgrade finishes its own operation; without one (labels, taints, locations) the
		// operation is done once the pool has settled.
		if p != nil && p.Upgrade != nil && p.Upgrade.Op == op.ID {
			return false
		}
		return p == nil || w.core.PoolSettled(c, p)
	case api.OpSetNodePoolManagement:
		return true
	}
	// DELETE_CLUSTER and UPGRADE_MASTER finish on their own events.
	return false
}

// CompleteWork settles statuses and finishes op.
func (w *GKE) CompleteWork(c *model.Cluster, op *model.Operation) {
	p := c.Pool(op.Pool)
	switch op.Type {
	case api.OpCreateCluster:
		for _, pool := range c.Pools {
			pool.Status = model.PoolRunning
		}
		c.Status = model.ClusterRunning
		core.SetMetrics(op, "CLUSTER_CONFIGURING", 1, "CLUSTER_CONFIGURING_TOTAL", 1,
			"CLUSTER_DEPLOYING", 1, "CLUSTER_DEPLOYING_TOTAL", 1,
			"CLUSTER_HEALTHCHECKING", 1, "CLUSTER_HEALTHCHECKING_TOTAL", 1)
		op.Detail = ""
		w.engine.Record("ClusterRunning", c, "", "", op.ID, "cluster %s is running (%d nodes, control plane %s)", c.Name, len(c.Nodes), c.MasterVersion)
	case api.OpCreateNodePool, api.OpSetNodePoolSize, api.OpUpgradeNodes, api.OpSetNodePoolManagement:
		if p != nil && p.Upgrade == nil && p.Status != model.PoolStopping {
			w.dropEmptyGroups(p)
			p.Status = model.PoolRunning
		}
	case api.OpDeleteNodePool:
		if p != nil {
			w.removePool(c, p)
		}
	case api.OpUpdateCluster:
		for _, pool := range c.Pools {
			w.dropEmptyGroups(pool)
		}
		c.Status = model.ClusterRunning
	}
	w.core.FinishOperation(op, 0, "")
}

func (w *GKE) onControlPlaneReady(ev model.Event) {
	c := w.st.Clusters[ev.Cluster]
	op := w.st.Operations[ev.Op]
	if c == nil || op == nil || op.Status != api.OpStatusRunning {
		return
	}
	c.ControlPlaneReady = true
	w.core.NewFeed(c)
	w.initKubernetes(c)
	w.engine.Record("ControlPlaneReady", c, "", "", op.ID, "control plane of %s is up (version %s); creating nodes", c.Name, c.MasterVersion)
	op.Detail = "Creating nodes"
	core.SetMetrics(op, "CLUSTER_CONFIGURING", 1, "CLUSTER_CONFIGURING_TOTAL", 1,
		"CLUSTER_DEPLOYING", 1, "CLUSTER_DEPLOYING_TOTAL", 1,
		"CLUSTER_HEALTHCHECKING", 0, "CLUSTER_HEALTHCHECKING_TOTAL", 1)
	for _, p := range c.Pools {
		w.core.ReconcilePool(c, p)
	}
	w.engine.EmitPoolsChanged(c)
	w.core.CheckOperations(c)
}

func (w *GKE) onMasterUpgraded(ev model.Event) {
	c := w.st.Clusters[ev.Cluster]
	op := w.st.Operations[ev.Op]
	if c == nil || op == nil || op.Status != api.OpStatusRunning {
		return
	}
	from := c.MasterVersion
	c.MasterVersion = c.MasterTarget
	c.MasterTarget = ""
	c.Status = model.ClusterRunning
	op.Detail = ""
	w.engine.Record("ControlPlaneUpgraded", c, "", "", op.ID, "control plane of %s upgraded from %s to %s", c.Name, from, c.MasterVersion)
	w.core.FinishOperation(op, 0, "")
	w.upgrade.ControlPlaneUp(c, op)
}

func (w *GKE) onClusterTeardown(ev model.Event) {
	c := w.st.Clusters[ev.Cluster]
	op := w.st.Operations[ev.Op]
	if c == nil || op == nil {
		return
	}
	if len(c.Nodes) > 0 {
		// Wait for the last VMs to go.
		w.engine.Schedule(10*time.Second, ev)
		return
	}
	for _, p := range c.Pools {
		w.dropIndexes(p)
	}
	delete(w.core.PodIndexes, c)
	delete(w.loadbalancers.Svcs, c)
	w.core.DropFeed(c)
	for _, b := range c.PDBs {
		delete(w.core.PDBCount, b)
	}
	for _, p := range c.Pods {
		p.MarkRemoved() // the pods left in it (on no node) leave with it
	}
	delete(w.st.Clusters, c.Key())
	w.engine.Record("ClusterDeleted", c, "", "", op.ID, "cluster %s deleted", c.Name)
	w.core.FinishOperation(op, 0, "")
}

// removePool forgets a node pool whose nodes are gone.
func (w *GKE) removePool(c *model.Cluster, p *model.NodePool) {
	w.dropIndexes(p)
	for i, x := range c.Pools {
		if x == p {
			c.Pools = slices.Delete(c.Pools, i, i+1)
			break
		}
	}
	w.engine.Record("NodePoolDeleted", c, p.Name, "", "", "node pool %s deleted", p.Name)
}

func (w *GKE) dropIndexes(p *model.NodePool) {
	for _, g := range p.Groups {
		delete(w.core.Groups, g)
	}
}
