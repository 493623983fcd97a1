package core

import (
	"sort"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// SortedNodeNames are the names of c's nodes, sorted.
func SortedNodeNames(c *model.Cluster) []string {
	names := make([]string, 0, len(c.Nodes))
	for name := range c.Nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// RenderK8sNode renders one node as a Kubernetes Node, with the labels GKE puts on nodes and,
// in annotations, what its pods request.
func (w *Core) RenderK8sNode(c *model.Cluster, n *model.Node) *corev1.Node {
	return w.nodeSnapshot(c, n).RenderNode()
}

// K8sNodeLabelsAndTaints are the labels and taints of RenderK8sNode's Node, without the rest.
func (w *Core) K8sNodeLabelsAndTaints(c *model.Cluster, n *model.Node) (map[string]string, []corev1.Taint) {
	return w.nodeSnapshot(c, n).LabelsAndTaints()
}

// nodeSnapshot is node n as it is now, with what its rendering needs from its pool and pods
// (kuberender.NodeSnap): the change feed keeps one per change and renders it when a watcher
// reads it.
func (w *Core) nodeSnapshot(c *model.Cluster, n *model.Node) *kuberender.NodeSnap {
	s := &kuberender.NodeSnap{Node: *n, Project: c.Project, ClusterID: c.ID, MaxPods: int64(catalog.DefaultMaxPods), Failed: c.NodeFailed(n.Name)}
	s.Node.Drain = nil // the drain's own state is not part of the object
	if p := c.Pool(n.Pool); p != nil {
		s.PoolLabels, s.PoolTaints, s.MaxPods = p.Labels, p.Taints, p.MaxPodsPerNode
		s.NodeLabels, s.ZoneLabels = p.NodeLabels, p.ZoneLabels
	}
	s.Capacity, s.Alloc = c.NodeCapacity(n), c.NodeAllocatable(n)
	on := w.PodIndex(c).OnNode(n)
	s.Requested, s.Pods = on.Requested, len(on.Pods)
	return s
}
