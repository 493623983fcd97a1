package autoscaler

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The scale-down evaluation's per-node summary. The core counts, per node, the bound pods
// that MayKeepNode flags (core.NodePods.Flagged, kept as pods bind and leave, rebuilt with the
// index after a restore, never saved). A node none of whose pods is flagged, while no
// PodDisruptionBudget forbids an eviction, cannot be kept by any of its pods: whether it can
// go depends only on room for its pods elsewhere, and one node with room for all of them at
// once settles that without loading them. The pass looks at the pods of the other nodes one
// by one, as before, and at a settled node's pods only when it removes the node.

// MayKeepNode says whether the scale-down evaluation must look at a pod on its own: a pod
// without a controller, a kube-system pod, one with safe-to-evict "false", one that is not a
// Deployment's (its spec is its own or another controller's), one that selects nodes (it
// fits only some), and every pod on Autopilot, where a pod may go depends on the pods
// already there (core.SeparatedFrom). DaemonSet pods are never moved, never flagged.
func (w *Autoscaler) MayKeepNode(c *model.Cluster, p *model.Pod) bool {
	if p.OwnerKind == model.OwnerDaemonSet {
		return false
	}
	if c.Autopilot || p.OwnerKind != model.OwnerDeployment || p.Namespace() == "kube-system" || p.Annotation[core.SafeToEvictAnnotation] == "false" {
		return true
	}
	d := c.Deployments[p.OwnerKey()]
	if d == nil || d.Templates[p.Template] == nil || p.Spec != nil {
		return true
	}
	spec := &d.Templates[p.Template].Spec
	a := spec.Affinity
	return len(spec.NodeSelector) > 0 || a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
}

// noPDBBlocks says whether no PodDisruptionBudget of c forbids any eviction now: a budget
// blocks a pod (core.EvictionBlocker) only when it allows no disruption.
func (w *Autoscaler) noPDBBlocks(c *model.Cluster) bool {
	for _, b := range c.PDBs {
		if w.core.PDBStatus(c, b).DisruptionsAllowed == 0 {
			return false
		}
	}
	return true
}
