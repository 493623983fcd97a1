package sim

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kubeapi"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/workloads"
)

// How the controllers hear about nodes and pods.
//
// The core (core/nodes.go, core/pods.go) changes nodes and pods and says what happened through the hooks
// below; it never calls a controller by name. Each controller registers what it must hear in
// wireControllers, the one place that shows who reacts to what and in which order. The order
// matters: the scheduler's view must be current before a load balancer re-reads a node, and an
// upgrade counts a node as upgraded before the pool takes its next step.

// wireControllers registers every controller's hooks, in the order they run.
func (w *World) wireControllers() {
	h := &w.engine.Hooks
	// The change feeds render Services, stored kinds, ReplicaSets and GKE's DaemonSets as their
	// owners do.
	w.core.FeedRender = core.FeedRenderers{
		Service: func(c *model.Cluster, s *model.Service) runtime.Object { return w.loadbalancers.RenderService(c, s) },
		Stored:  kubeapi.RenderStored,
		ReplicaSet: func(c *model.Cluster, d *model.Deployment, rs *model.ReplicaSet) runtime.Object {
			return w.workloads.RenderReplicaSet(c, d, rs)
		},
		DaemonSet: func(c *model.Cluster, ds *catalog.GKEDaemonSet, st *model.DaemonSetState) runtime.Object {
			return w.workloads.RenderDaemonSet(c, ds, st)
		},
	}
	// The workload controllers' steps inside the core's: an imported cluster's own DaemonSet
	// pods on a node that became ready, and the statuses they derive before a publish.
	w.core.Workloads = core.WorkloadSteps{StartOwnDaemonPods: w.workloads.StartOwnDaemonPods, SyncStatus: w.workloads.SyncStatus}
	// The pods the autoscaler's scale-down evaluation looks at one by one, counted per node as
	// they bind and leave (autoscaler/scaledown_summary.go).
	w.core.FlagPod = w.autoscaler.MayKeepNode
	// An operation's work is its type's (gke/operation_work.go).
	w.core.OpWork = core.OpWork{Begin: w.gke.BeginWork, Done: w.gke.WorkDone, Complete: w.gke.CompleteWork}
	// The event log's entries reach the cluster's change feed (Kubernetes Events).
	h.EntryLogged = w.core.RecordChange
	// Automatic maintenance follows the cluster's release channel from its creation; the
	// autoscaler runs its passes while any pool is autoscaled.
	h.ClusterCreated = append(h.ClusterCreated, w.autoupgrade.StartAutoMaintenance)
	h.PoolsChanged = append(h.PoolsChanged, w.autoscaler.EnsureAutoscaler)
	// The scheduler's view of the nodes first: every controller after it may schedule.
	h.NodeChanged = append(h.NodeChanged,
		func(c *model.Cluster, n *model.Node, _ engine.NodeChange) { w.core.SchedNodeChanged(c, n) },
		func(c *model.Cluster, n *model.Node, what engine.NodeChange) {
			if what != engine.NodeCordonChanged { // load balancers follow node states, not cordons
				w.loadbalancers.LBNodeChanged(c, n)
			}
		},
		func(c *model.Cluster, n *model.Node, what engine.NodeChange) {
			if what == engine.NodeForgotten { // a VM that is gone leaves users' instance groups
				w.compute.UserGroupsNodeGone(c, n)
			}
		},
		// A surge upgrade's view of its zone notes nodes changed by anything but itself.
		w.upgrade.SurgeNodeChanged,
		// The API's view of the node (its resourceVersion, the watches) last: it shows what
		// the controllers made of the change.
		func(c *model.Cluster, n *model.Node, _ engine.NodeChange) { w.core.TouchNode(c, n) })
	// Upgrades count their progress and take over the nodes they recreate.
	h.NodeReady = append(h.NodeReady, w.upgrade.CountUpgraded)
	h.NodeDrained = append(h.NodeDrained, w.upgrade.OnUpgradeNodeDrained)
	h.NodeDeleted = append(h.NodeDeleted, w.upgrade.CountUpgraded)
	// A pool under upgrade belongs to its upgrade; otherwise the pool's size controller keeps
	// each instance group at its target. Then operations waiting on the nodes may finish.
	h.PoolNodesChanged = append(h.PoolNodesChanged,
		func(c *model.Cluster, p *model.NodePool) {
			if p.Upgrade != nil {
				w.upgrade.StepUpgrade(c, p)
			} else {
				w.core.ReconcilePool(c, p)
			}
		})
	// A Deployment counts its pods; Services (and their load balancers) follow their endpoints.
	h.PodChanged = append(h.PodChanged,
		func(c *model.Cluster, p *model.Pod, what engine.PodChange) {
			if what == engine.PodStarted {
				// Readiness matters to a Deployment only while it rolls out a new template, and to a
				// StatefulSet's stand-in that creates its pods in order.
				if d := c.Deployments[p.OwnerKey()]; p.OwnerKind != model.OwnerDeployment || d == nil || (len(d.Templates) < 2 && !workloads.OrderedPods(d)) {
					return
				}
			}
			w.workloads.OwnerChanged(c, p)
		},
		func(c *model.Cluster, p *model.Pod, _ engine.PodChange) { w.loadbalancers.ServicePodChanged(c, p) })
}
