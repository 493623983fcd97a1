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
		var key string
		if ds.Name == "kube-proxy" {
			key = "kube-system/kube-proxy-" + n.Name // a static pod, named after its node
			// The draw a generated name takes, as it always was: the random sequence, and so
			// every name after it, stays what saved states and traces expect.
			w.engine.AppendRandSafe(nil)
		} else {
			key = w.engine.NewPodKey(c, "kube-system", ds.Name, "-")
		}
		p := model.KeyedPod(key)
		p.OwnerKind, p.Owner, p.Node, p.Labels = model.OwnerDaemonSet, ds.Name, n.Name, catalog.SystemDaemonSetLabels[ds.Name]
		w.AddPod(c, p)
	}
}
