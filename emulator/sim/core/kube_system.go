package core

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// startDaemonPods puts GKE's DaemonSet pods (catalog.SystemDaemonSets) on a node that just became ready.
func (w *Core) startDaemonPods(c *model.Cluster, n *model.Node) {
	if c.OwnDaemonSets() {
		w.Workloads.StartOwnDaemonPods(c, n) // an imported cluster runs its own (package workloads)
		return
	}
	if c.Autopilot {
		return
	}
	for _, ds := range catalog.SystemDaemonSets {
		name := ds.Name + "-" + w.RandSafe(5)
		if ds.Name == "kube-proxy" {
			name = "kube-proxy-" + n.Name // a static pod, named after its node
		}
		w.AddPod(c, &model.Pod{Namespace: "kube-system", Name: name, OwnerKind: model.OwnerDaemonSet, Owner: ds.Name, Node: n.Name, Labels: catalog.SystemDaemonSetLabels[ds.Name]})
	}
}
