package core

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// What an imported cluster (clusterimport/import.go) keeps of the real one that a cluster created here derives
// from the catalogue: the capacity and allocatable its nodes reported per machine type (which
// also lets it have machine types the catalogue lacks), the labels GKE put on every node of a
// pool, and what single nodes had of their own. Nodes GKE creates later (an upgrade's surge
// nodes, a scale-up) get the machine type's and the pool's, never a node's own: labels and
// taints put on a node by hand are lost when GKE recreates it, as they are on GKE.

// PoolNodeLabels adds to labels what GKE put on every imported node of pool p: the labels
// they shared, and the ones whose value was each node's zone.
func PoolNodeLabels(p *model.NodePool, zone string, labels map[string]string) {
	for k, v := range p.NodeLabels {
		labels[k] = v
	}
	for _, k := range p.ZoneLabels {
		labels[k] = zone
	}
}

// NodeRecreated is a node whose VM was recreated in place with a new spec (R-SURGE-4): the new
// VM registers a new Node, so what was put on the old one by hand is gone, and the scheduler
// files it with the nodes of its new shape.
func (w *Core) NodeRecreated(c *model.Cluster, n *model.Node) {
	n.Own = nil
	ix, ok := w.PodIndexes[c]
	if !ok || ix.Sched == nil {
		return
	}
	sn := ix.Sched.Nodes[n.Name]
	if sn == nil || sn.Group.Key == groupKey(n) {
		return
	}
	ix.Sched.forget(sn)
	w.updateSchedNode(c, n)
}
