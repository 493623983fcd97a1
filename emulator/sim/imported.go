package sim

import (
	"container/heap"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// What an imported cluster (import.go) keeps of the real one that a cluster created here derives
// from the catalogue: the capacity and allocatable its nodes reported per machine type (which
// also lets it have machine types the catalogue lacks), the labels GKE put on every node of a
// pool, and what single nodes had of their own. Nodes GKE creates later (an upgrade's surge
// nodes, a scale-up) get the machine type's and the pool's, never a node's own: labels and
// taints put on a node by hand are lost when GKE recreates it, as they are on GKE.

// poolNodeLabels adds to labels what GKE put on every imported node of pool p: the labels
// they shared, and the ones whose value was each node's zone.
func poolNodeLabels(p *model.NodePool, zone string, labels map[string]string) {
	for k, v := range p.NodeLabels {
		labels[k] = v
	}
	for _, k := range p.ZoneLabels {
		labels[k] = zone
	}
}

// ownLabelsAndTaints adds what node n had of its own.
func ownLabelsAndTaints(n *model.Node, labels map[string]string, taints []corev1.Taint) []corev1.Taint {
	if n.Own == nil {
		return taints
	}
	for k, v := range n.Own.Labels {
		labels[k] = v
	}
	return append(taints, n.Own.Taints...)
}

// nodeRecreated is a node whose VM was recreated in place with a new spec (R-SURGE-4): the new
// VM registers a new Node, so what was put on the old one by hand is gone, and the scheduler
// files it with the nodes of its new shape.
func (w *World) nodeRecreated(c *model.Cluster, n *model.Node) {
	n.Own = nil
	ix, ok := w.k8s[c]
	if !ok || ix.sched == nil {
		return
	}
	sn := ix.sched.nodes[n.Name]
	if sn == nil || sn.group.key == groupKey(n) {
		return
	}
	if sn.idx >= 0 {
		heap.Remove(&sn.group.heap, sn.idx)
	}
	if sn.registered {
		sn.group.registered--
	}
	delete(sn.group.members, n.Name)
	delete(ix.sched.nodes, n.Name)
	w.updateSchedNode(c, n)
}
