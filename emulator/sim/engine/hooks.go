package engine

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// NodeChange says what happened to a node.
type NodeChange int

const (
	// nodeStateChanged: the node moved to another NodeState (setNodeState).
	NodeStateChanged NodeChange = iota
	// nodeCordonChanged: it was marked unschedulable while its state stayed.
	NodeCordonChanged
	// nodeForgotten: its VM is gone and it left the cluster.
	NodeForgotten
)

// PodChange says what happened to a pod.
type PodChange int

const (
	// podStarted: the pod runs and is ready.
	PodStarted PodChange = iota
	// podTerminating: its graceful termination began.
	PodTerminating
	// podRemoved: it is gone from the cluster.
	PodRemoved
)

// Hooks are the controllers' callbacks, run in registration order.
type Hooks struct {
	// ClusterCreated: a cluster was accepted (its control plane is coming up).
	ClusterCreated []func(c *model.Cluster)
	// PoolsChanged: the cluster's pools, or their autoscaling, changed, or its control plane
	// came up.
	PoolsChanged []func(c *model.Cluster)
	// NodeChanged: a node's state, cordon or presence changed.
	NodeChanged []func(c *model.Cluster, n *model.Node, what NodeChange)
	// NodeReady: a node booted and joined (after NodeChanged).
	NodeReady []func(c *model.Cluster, n *model.Node)
	// NodeDrained: a node's drain finished; the first hook that returns true takes the node
	// over (an upgrade that recreates it), otherwise the node is deleted.
	NodeDrained []func(c *model.Cluster, n *model.Node) bool
	// NodeDeleted: a node's VM is gone (before it is forgotten).
	NodeDeleted []func(c *model.Cluster, n *model.Node)
	// PoolNodesChanged: one of a pool's nodes became ready or went away; the pool's
	// controller takes its next step.
	PoolNodesChanged []func(c *model.Cluster, p *model.NodePool)
	// PodChanged: a pod started, began terminating, or was removed.
	PodChanged []func(c *model.Cluster, p *model.Pod, what PodChange)
	// EntryLogged: the newest entry of the event log is about cluster c (its change feed shows
	// it as a Kubernetes Event: log.At(log.Len()-1) writes it out); one listener.
	EntryLogged func(c *model.Cluster, log *model.EventLog)
}

func (w *Engine) EmitClusterCreated(c *model.Cluster) {
	for _, h := range w.Hooks.ClusterCreated {
		h(c)
	}
}

func (w *Engine) EmitPoolsChanged(c *model.Cluster) {
	for _, h := range w.Hooks.PoolsChanged {
		h(c)
	}
}

func (w *Engine) EmitNodeChanged(c *model.Cluster, n *model.Node, what NodeChange) {
	for _, h := range w.Hooks.NodeChanged {
		h(c, n, what)
	}
}

func (w *Engine) EmitNodeReady(c *model.Cluster, n *model.Node) {
	for _, h := range w.Hooks.NodeReady {
		h(c, n)
	}
}

// EmitNodeDrained says whether a hook took the node over.
func (w *Engine) EmitNodeDrained(c *model.Cluster, n *model.Node) bool {
	for _, h := range w.Hooks.NodeDrained {
		if h(c, n) {
			return true
		}
	}
	return false
}

func (w *Engine) EmitNodeDeleted(c *model.Cluster, n *model.Node) {
	for _, h := range w.Hooks.NodeDeleted {
		h(c, n)
	}
}

func (w *Engine) EmitPodChanged(c *model.Cluster, p *model.Pod, what PodChange) {
	for _, h := range w.Hooks.PodChanged {
		h(c, p, what)
	}
}
