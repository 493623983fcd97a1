package sim

// How the controllers hear about nodes and pods.
//
// The core (nodes.go, pods.go) changes nodes and pods and says what happened through the hooks
// below; it never calls a controller by name. Each controller registers what it must hear in
// wireControllers, the one place that shows who reacts to what and in which order. The order
// matters: the scheduler's view must be current before a load balancer re-reads a node, and an
// upgrade counts a node as upgraded before the pool takes its next step.

// nodeChange says what happened to a node.
type nodeChange int

const (
	// nodeStateChanged: the node moved to another NodeState (setNodeState).
	nodeStateChanged nodeChange = iota
	// nodeCordonChanged: it was marked unschedulable while its state stayed.
	nodeCordonChanged
	// nodeForgotten: its VM is gone and it left the cluster.
	nodeForgotten
)

// podChange says what happened to a pod.
type podChange int

const (
	// podStarted: the pod runs and is ready.
	podStarted podChange = iota
	// podTerminating: its graceful termination began.
	podTerminating
	// podRemoved: it is gone from the cluster.
	podRemoved
)

// hooks are the controllers' callbacks, run in registration order.
type hooks struct {
	// clusterCreated: a cluster was accepted (its control plane is coming up).
	clusterCreated []func(c *Cluster)
	// poolsChanged: the cluster's pools, or their autoscaling, changed, or its control plane
	// came up.
	poolsChanged []func(c *Cluster)
	// nodeChanged: a node's state, cordon or presence changed.
	nodeChanged []func(c *Cluster, n *Node, what nodeChange)
	// nodeReady: a node booted and joined (after nodeChanged).
	nodeReady []func(c *Cluster, n *Node)
	// nodeDrained: a node's drain finished; the first hook that returns true takes the node
	// over (an upgrade that recreates it), otherwise the node is deleted.
	nodeDrained []func(c *Cluster, n *Node) bool
	// nodeDeleted: a node's VM is gone (before it is forgotten).
	nodeDeleted []func(c *Cluster, n *Node)
	// poolNodesChanged: one of a pool's nodes became ready or went away; the pool's
	// controller takes its next step.
	poolNodesChanged []func(c *Cluster, p *NodePool)
	// podChanged: a pod started, began terminating, or was removed.
	podChanged []func(c *Cluster, p *Pod, what podChange)
	// entryLogged: an entry about cluster c joined the event log (its change feed shows it as
	// a Kubernetes Event); one listener.
	entryLogged func(c *Cluster, e *LogEntry)
}

// wireControllers registers every controller's hooks, in the order they run.
func (w *World) wireControllers() {
	h := &w.hooks
	// The event log's entries reach the cluster's change feed (Kubernetes Events).
	h.entryLogged = w.recordChange
	// Automatic maintenance follows the cluster's release channel from its creation; the
	// autoscaler runs its passes while any pool is autoscaled.
	h.clusterCreated = append(h.clusterCreated, w.startAutoMaintenance)
	h.poolsChanged = append(h.poolsChanged, w.ensureAutoscaler)
	// The scheduler's view of the nodes first: every controller after it may schedule.
	h.nodeChanged = append(h.nodeChanged,
		func(c *Cluster, n *Node, _ nodeChange) { w.schedNodeChanged(c, n) },
		func(c *Cluster, n *Node, what nodeChange) {
			if what != nodeCordonChanged { // load balancers follow node states, not cordons
				w.lbNodeChanged(c, n)
			}
		},
		func(c *Cluster, n *Node, what nodeChange) {
			if what == nodeForgotten { // a VM that is gone leaves users' instance groups
				w.userGroupsNodeGone(c, n)
			}
		},
		// A surge upgrade's view of its zone notes nodes changed by anything but itself.
		w.surgeNodeChanged,
		// The API's view of the node (its resourceVersion, the watches) last: it shows what
		// the controllers made of the change.
		func(c *Cluster, n *Node, _ nodeChange) { w.touchNode(c, n) })
	// Upgrades count their progress and take over the nodes they recreate.
	h.nodeReady = append(h.nodeReady, w.countUpgraded)
	h.nodeDrained = append(h.nodeDrained, w.onUpgradeNodeDrained)
	h.nodeDeleted = append(h.nodeDeleted, w.countUpgraded)
	// A pool under upgrade belongs to its upgrade; otherwise the pool's size controller keeps
	// each instance group at its target. Then operations waiting on the nodes may finish.
	h.poolNodesChanged = append(h.poolNodesChanged,
		func(c *Cluster, p *NodePool) {
			if p.Upgrade != nil {
				w.stepUpgrade(c, p)
			} else {
				w.reconcilePool(c, p)
			}
		})
	// A Deployment counts its pods; Services (and their load balancers) follow their endpoints.
	h.podChanged = append(h.podChanged,
		func(c *Cluster, p *Pod, what podChange) {
			if what == podStarted {
				// Readiness matters to a Deployment only while it rolls out a new template, and to a
				// StatefulSet's stand-in that creates its pods in order.
				if d := c.Deployments[p.Namespace+"/"+p.Owner]; p.OwnerKind != OwnerDeployment || d == nil || (len(d.Templates) < 2 && !orderedPods(d)) {
					return
				}
			}
			w.ownerChanged(c, p)
		},
		func(c *Cluster, p *Pod, _ podChange) { w.svcPodChanged(c, p) })
}

func (w *World) emitClusterCreated(c *Cluster) {
	for _, h := range w.hooks.clusterCreated {
		h(c)
	}
}

func (w *World) emitPoolsChanged(c *Cluster) {
	for _, h := range w.hooks.poolsChanged {
		h(c)
	}
}

func (w *World) emitNodeChanged(c *Cluster, n *Node, what nodeChange) {
	for _, h := range w.hooks.nodeChanged {
		h(c, n, what)
	}
}

func (w *World) emitNodeReady(c *Cluster, n *Node) {
	for _, h := range w.hooks.nodeReady {
		h(c, n)
	}
}

// emitNodeDrained says whether a hook took the node over.
func (w *World) emitNodeDrained(c *Cluster, n *Node) bool {
	for _, h := range w.hooks.nodeDrained {
		if h(c, n) {
			return true
		}
	}
	return false
}

func (w *World) emitNodeDeleted(c *Cluster, n *Node) {
	for _, h := range w.hooks.nodeDeleted {
		h(c, n)
	}
}

func (w *World) emitPodChanged(c *Cluster, p *Pod, what podChange) {
	for _, h := range w.hooks.podChanged {
		h(c, p, what)
	}
}

// poolNodesChanged lets the controllers that wait on a pool's nodes take their next step,
// then finishes the cluster's operations whose work is done.
func (w *World) poolNodesChanged(c *Cluster, pool string) {
	if p := c.Pool(pool); p != nil {
		for _, h := range w.hooks.poolNodesChanged {
			h(c, p)
		}
	}
	w.checkOperations(c)
}
