package sim

import (
	"encoding/binary"
	"net"
	"sort"
	"time"
)

// Node life: provisioning -> ready -> (cordoned -> draining ->) deleting -> gone. Each step takes
// emulated time and lands in the event log.

const (
	evNodeReady   = "node.ready"
	evNodeDrained = "node.drained"
	evNodeDeleted = "node.deleted"

	nodeBootBase     = 60 * time.Second
	nodeBootSpread   = 30 * time.Second
	nodeDeleteBase   = 30 * time.Second
	nodeDeleteSpread = 30 * time.Second
)

// groupIndex counts a group's nodes by state and holds them in the group's order, so that the
// controllers that walk a group (a surge upgrade's zone, on every node event) skip a lookup by
// name per node; it is derived, never persisted.
type groupIndex struct {
	byState map[NodeState]int
	nodes   []*Node
	// surge is a surge upgrade's view of the group (upgrade.go), when one runs.
	surge *surgeZone
	// joins counts the nodes that joined the group since the index was built.
	joins int
}

func (w *World) registerNodeHandlers() {
	w.on(evNodeReady, w.onNodeReady)
	w.on(evNodeDrained, w.onNodeDrained)
	w.on(evNodeDeleted, w.onNodeDeleted)
}

// index returns the derived counts of group g, building them on first use (after a restore).
func (w *World) index(c *Cluster, g *InstanceGroup) *groupIndex {
	if w.groups == nil {
		w.groups = map[*InstanceGroup]*groupIndex{}
	}
	ix, ok := w.groups[g]
	if !ok {
		ix = &groupIndex{byState: map[NodeState]int{}, nodes: make([]*Node, 0, len(g.Nodes))}
		for _, name := range g.Nodes {
			if n := c.Nodes[name]; n != nil {
				ix.byState[n.State]++
				ix.nodes = append(ix.nodes, n)
			}
		}
		w.groups[g] = ix
	}
	return ix
}

// allocateIP gives a new node the next address of its cluster's node range.
func (w *World) allocateIP(c *Cluster) string {
	c.NextNodeIP++
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, c.NodeIPBase+1+c.NextNodeIP)
	return ip.String()
}

// addNode creates a VM in group g with the given spec; it becomes ready after boot time.
func (w *World) addNode(c *Cluster, p *NodePool, g *InstanceGroup, spec NodeSpec) *Node {
	var name string
	for {
		name = nodeName(c.Name, p.Name, g.Hash, w.randAlnum(4))
		if _, taken := c.Nodes[name]; !taken {
			break
		}
	}
	n := &Node{
		Name: name, Pool: p.Name, Zone: g.Zone, Group: g.Name, Spec: spec, State: NodeProvisioning,
		CreateTime: w.st.Now, InternalIP: w.allocateIP(c),
	}
	ix := w.index(c, g) // built before the node joins, so it is counted once
	c.Nodes[name] = n
	g.Nodes = append(g.Nodes, name)
	ix.byState[NodeProvisioning]++
	ix.nodes = append(ix.nodes, n)
	ix.joins++
	w.updateSchedNode(c, n) // in the scheduler's view from the start, as a rebuild has it (not schedulable yet)
	w.schedule(w.jitter(nodeBootBase, nodeBootSpread), Event{Kind: evNodeReady, Cluster: c.Key(), Node: name})
	w.record("NodeCreating", c, p.Name, name, "", "creating node %s in %s (%s, %s)", name, g.Zone, spec.MachineType, spec.Version)
	return n
}

// setNodeState moves a node to a new state, keeping its group's counts.
func (w *World) setNodeState(c *Cluster, n *Node, s NodeState) {
	if n.State == s {
		return
	}
	if g := w.groupOf(c, n); g != nil {
		ix := w.index(c, g)
		ix.byState[n.State]--
		ix.byState[s]++
	}
	n.State = s
	w.emitNodeChanged(c, n, nodeStateChanged)
}

func (w *World) groupOf(c *Cluster, n *Node) *InstanceGroup {
	p := c.Pool(n.Pool)
	if p == nil {
		return nil
	}
	for _, g := range p.Groups {
		if g.Name == n.Group {
			return g
		}
	}
	return nil
}

// nodeEvent resolves an event's cluster and node; either may be gone (deleted meanwhile).
func (w *World) nodeEvent(ev Event) (*Cluster, *Node) {
	c := w.st.Clusters[ev.Cluster]
	if c == nil {
		return nil, nil
	}
	return c, c.Nodes[ev.Node]
}

func (w *World) onNodeReady(ev Event) {
	c, n := w.nodeEvent(ev)
	if n == nil || n.State != NodeProvisioning {
		return
	}
	n.Unschedulable = false
	w.setNodeState(c, n, NodeReady)
	n.ReadyTime = w.st.Now
	w.startDaemonPods(c, n)
	w.record("NodeReady", c, n.Pool, n.Name, "", "node %s is ready (kubelet %s)", n.Name, kubeletVersion(n.Spec.Version))
	w.emitNodeReady(c, n)
	w.poolNodesChanged(c, n.Pool)
}

// retireNode takes a node out of service: cordon, drain by the caller's policy, then delete
// (or, for an in-place recreation, recreate). why names the caller's reason for the event log.
func (w *World) retireNode(c *Cluster, n *Node, policy DrainPolicy, why string) {
	if n.State == NodeDeleting || n.State == NodeDraining {
		return
	}
	if n.State == NodeProvisioning {
		// Not yet registered: nothing to drain.
		w.deleteNode(c, n, why)
		return
	}
	w.startDrain(c, n, policy, why)
}

func (w *World) cordon(c *Cluster, n *Node, why string) {
	if n.Unschedulable {
		return
	}
	n.Unschedulable = true
	if n.State == NodeReady {
		w.setNodeState(c, n, NodeCordoned)
	} else {
		w.emitNodeChanged(c, n, nodeCordonChanged)
	}
	w.record("NodeCordoned", c, n.Pool, n.Name, "", "cordoned node %s: %s", n.Name, why)
}

func (w *World) onNodeDrained(ev Event) {
	c, n := w.nodeEvent(ev)
	if n == nil || n.State != NodeDraining {
		return
	}
	w.record("NodeDrained", c, n.Pool, n.Name, "", "node %s drained", n.Name)
	if w.emitNodeDrained(c, n) {
		return
	}
	w.deleteNode(c, n, "drained")
}

// deleteNode deletes the VM; it is gone after the delete time.
func (w *World) deleteNode(c *Cluster, n *Node, why string) {
	if n.State == NodeDeleting {
		return
	}
	w.setNodeState(c, n, NodeDeleting)
	n.Unschedulable = true
	w.record("NodeDeleting", c, n.Pool, n.Name, "", "deleting node %s: %s", n.Name, why)
	w.schedule(w.jitter(nodeDeleteBase, nodeDeleteSpread), Event{Kind: evNodeDeleted, Cluster: c.Key(), Node: n.Name})
}

func (w *World) onNodeDeleted(ev Event) {
	c, n := w.nodeEvent(ev)
	if n == nil || n.State != NodeDeleting {
		return
	}
	w.emitNodeDeleted(c, n)
	w.nodeGone(c, n.Name)
	w.forgetNode(c, n)
	w.record("NodeDeleted", c, n.Pool, n.Name, "", "node %s deleted", n.Name)
	w.poolNodesChanged(c, n.Pool)
}

// forgetNode removes a node from its group and the cluster.
func (w *World) forgetNode(c *Cluster, n *Node) {
	if g := w.groupOf(c, n); g != nil {
		ix := w.index(c, g)
		ix.byState[n.State]--
		for i, name := range g.Nodes {
			if name == n.Name {
				g.Nodes = append(g.Nodes[:i], g.Nodes[i+1:]...)
				break
			}
		}
		for i, x := range ix.nodes {
			if x == n {
				ix.nodes = append(ix.nodes[:i], ix.nodes[i+1:]...)
				if ix.surge != nil && i < ix.surge.seen {
					ix.surge.seen--
				}
				break
			}
		}
	}
	delete(c.Nodes, n.Name)
	n.gone = true
	w.emitNodeChanged(c, n, nodeForgotten)
}

// reconcilePool brings each instance group to its target size: it adds nodes with the pool's
// spec or retires the surplus (nodes still provisioning first, then the newest).
func (w *World) reconcilePool(c *Cluster, p *NodePool) {
	if p.Status == PoolStopping || c.Status == ClusterStopping {
		return
	}
	for _, g := range p.Groups {
		ix := w.index(c, g)
		live := len(g.Nodes) - ix.byState[NodeDraining] - ix.byState[NodeDeleting]
		for i := live; i < g.TargetSize; i++ {
			if !w.reserveCapacity(c, p, g.Zone, p.Spec, 1) {
				w.waitForCapacity(c, p, g.Zone, "nodes")
				break
			}
			w.addNode(c, p, g, p.Spec)
		}
		if live <= g.TargetSize {
			continue
		}
		// Only a shrinking group pays for listing its nodes.
		nodes := w.liveNodes(c, g)
		sort.SliceStable(nodes, func(i, j int) bool {
			pi, pj := nodes[i].State == NodeProvisioning, nodes[j].State == NodeProvisioning
			if pi != pj {
				return pi
			}
			return nodes[i].CreateTime.After(nodes[j].CreateTime)
		})
		for _, n := range nodes[:live-g.TargetSize] {
			w.retireNode(c, n, surgeDrain, "node pool resized")
		}
	}
}

// liveNodes are a group's nodes that are not on their way out.
func (w *World) liveNodes(c *Cluster, g *InstanceGroup) []*Node {
	out := make([]*Node, 0, len(g.Nodes))
	for _, name := range g.Nodes {
		n := c.Nodes[name]
		if n != nil && n.State != NodeDeleting && n.State != NodeDraining {
			out = append(out, n)
		}
	}
	return out
}

// poolSettled says every group is at its target size with every node ready.
func (w *World) poolSettled(c *Cluster, p *NodePool) bool {
	for _, g := range p.Groups {
		ix := w.index(c, g)
		if ix.byState[NodeProvisioning] > 0 || ix.byState[NodeDraining] > 0 || ix.byState[NodeDeleting] > 0 {
			return false
		}
		if len(g.Nodes) != g.TargetSize {
			return false
		}
	}
	return true
}

// kubeletVersion is the Kubernetes version a GKE version runs: 1.X.Y-gke.N -> v1.X.Y-gke.N.
func kubeletVersion(v string) string { return "v" + v }
