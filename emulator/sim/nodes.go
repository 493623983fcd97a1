package sim

import (
	"encoding/binary"
	"net"
	"sort"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
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

// groupView is a controller's view of a group's node order, told when the node at position i
// leaves the group.
type groupView interface{ nodeRemovedAt(i int) }

// groupIndex counts a group's nodes by state and holds them in the group's order, so that the
// controllers that walk a group (a surge upgrade's zone, on every node event) skip a lookup by
// name per node; it is derived, never persisted.
type groupIndex struct {
	byState map[model.NodeState]int
	nodes   []*model.Node
	// view is a controller's own view of the group's node order (a surge upgrade's view of its
	// zone, upgrade.go), when one keeps it.
	view groupView
	// joins counts the nodes that joined the group since the index was built.
	joins int
}

func (w *World) registerNodeHandlers() {
	w.engine.On(evNodeReady, w.onNodeReady)
	w.engine.On(evNodeDrained, w.onNodeDrained)
	w.engine.On(evNodeDeleted, w.onNodeDeleted)
}

// index returns the derived counts of group g, building them on first use (after a restore).
func (w *World) index(c *model.Cluster, g *model.InstanceGroup) *groupIndex {
	if w.groups == nil {
		w.groups = map[*model.InstanceGroup]*groupIndex{}
	}
	ix, ok := w.groups[g]
	if !ok {
		ix = &groupIndex{byState: map[model.NodeState]int{}, nodes: make([]*model.Node, 0, len(g.Nodes))}
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
func (w *World) allocateIP(c *model.Cluster) string {
	c.NextNodeIP++
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, c.NodeIPBase+1+c.NextNodeIP)
	return ip.String()
}

// addNode creates a VM in group g with the given spec; it becomes ready after boot time.
func (w *World) addNode(c *model.Cluster, p *model.NodePool, g *model.InstanceGroup, spec model.NodeSpec) *model.Node {
	var name string
	for {
		name = model.NodeName(c.Name, p.Name, g.Hash, w.engine.RandAlnum(4))
		if _, taken := c.Nodes[name]; !taken {
			break
		}
	}
	n := &model.Node{
		Name: name, Pool: p.Name, Zone: g.Zone, Group: g.Name, Spec: spec, State: model.NodeProvisioning,
		CreateTime: w.st.Now, InternalIP: w.allocateIP(c),
	}
	ix := w.index(c, g) // built before the node joins, so it is counted once
	c.Nodes[name] = n
	g.Nodes = append(g.Nodes, name)
	ix.byState[model.NodeProvisioning]++
	ix.nodes = append(ix.nodes, n)
	ix.joins++
	w.updateSchedNode(c, n) // in the scheduler's view from the start, as a rebuild has it (not schedulable yet)
	w.engine.Schedule(w.engine.Jitter(nodeBootBase, nodeBootSpread), model.Event{Kind: evNodeReady, Cluster: c.Key(), Node: name})
	w.engine.Record("NodeCreating", c, p.Name, name, "", "creating node %s in %s (%s, %s)", name, g.Zone, spec.MachineType, spec.Version)
	return n
}

// setNodeState moves a node to a new state, keeping its group's counts.
func (w *World) setNodeState(c *model.Cluster, n *model.Node, s model.NodeState) {
	if n.State == s {
		return
	}
	if g := w.groupOf(c, n); g != nil {
		ix := w.index(c, g)
		ix.byState[n.State]--
		ix.byState[s]++
	}
	n.State = s
	w.engine.EmitNodeChanged(c, n, engine.NodeStateChanged)
}

func (w *World) groupOf(c *model.Cluster, n *model.Node) *model.InstanceGroup {
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
func (w *World) nodeEvent(ev model.Event) (*model.Cluster, *model.Node) {
	c := w.st.Clusters[ev.Cluster]
	if c == nil {
		return nil, nil
	}
	return c, c.Nodes[ev.Node]
}

func (w *World) onNodeReady(ev model.Event) {
	c, n := w.nodeEvent(ev)
	if n == nil || n.State != model.NodeProvisioning {
		return
	}
	n.Unschedulable = false
	w.setNodeState(c, n, model.NodeReady)
	n.ReadyTime = w.st.Now
	w.startDaemonPods(c, n)
	w.engine.Record("NodeReady", c, n.Pool, n.Name, "", "node %s is ready (kubelet %s)", n.Name, kubeletVersion(n.Spec.Version))
	w.engine.EmitNodeReady(c, n)
	w.poolNodesChanged(c, n.Pool)
}

// retireNode takes a node out of service: cordon, drain by the caller's policy, then delete
// (or, for an in-place recreation, recreate). why names the caller's reason for the event log.
func (w *World) retireNode(c *model.Cluster, n *model.Node, policy model.DrainPolicy, why string) {
	if n.State == model.NodeDeleting || n.State == model.NodeDraining {
		return
	}
	if n.State == model.NodeProvisioning {
		// Not yet registered: nothing to drain.
		w.deleteNode(c, n, why)
		return
	}
	w.startDrain(c, n, policy, why)
}

func (w *World) cordon(c *model.Cluster, n *model.Node, why string) {
	if n.Unschedulable {
		return
	}
	n.Unschedulable = true
	if n.State == model.NodeReady {
		w.setNodeState(c, n, model.NodeCordoned)
	} else {
		w.engine.EmitNodeChanged(c, n, engine.NodeCordonChanged)
	}
	w.engine.Record("NodeCordoned", c, n.Pool, n.Name, "", "cordoned node %s: %s", n.Name, why)
}

func (w *World) onNodeDrained(ev model.Event) {
	c, n := w.nodeEvent(ev)
	if n == nil || n.State != model.NodeDraining {
		return
	}
	w.engine.Record("NodeDrained", c, n.Pool, n.Name, "", "node %s drained", n.Name)
	if w.engine.EmitNodeDrained(c, n) {
		return
	}
	w.deleteNode(c, n, "drained")
}

// deleteNode deletes the VM; it is gone after the delete time.
func (w *World) deleteNode(c *model.Cluster, n *model.Node, why string) {
	if n.State == model.NodeDeleting {
		return
	}
	w.setNodeState(c, n, model.NodeDeleting)
	n.Unschedulable = true
	w.engine.Record("NodeDeleting", c, n.Pool, n.Name, "", "deleting node %s: %s", n.Name, why)
	w.engine.Schedule(w.engine.Jitter(nodeDeleteBase, nodeDeleteSpread), model.Event{Kind: evNodeDeleted, Cluster: c.Key(), Node: n.Name})
}

func (w *World) onNodeDeleted(ev model.Event) {
	c, n := w.nodeEvent(ev)
	if n == nil || n.State != model.NodeDeleting {
		return
	}
	w.engine.EmitNodeDeleted(c, n)
	w.nodeGone(c, n.Name)
	w.forgetNode(c, n)
	w.engine.Record("NodeDeleted", c, n.Pool, n.Name, "", "node %s deleted", n.Name)
	w.poolNodesChanged(c, n.Pool)
}

// forgetNode removes a node from its group and the cluster.
func (w *World) forgetNode(c *model.Cluster, n *model.Node) {
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
				if ix.view != nil {
					ix.view.nodeRemovedAt(i)
				}
				break
			}
		}
	}
	delete(c.Nodes, n.Name)
	n.Gone = true
	w.engine.EmitNodeChanged(c, n, engine.NodeForgotten)
}

// reconcilePool brings each instance group to its target size: it adds nodes with the pool's
// spec or retires the surplus (nodes still provisioning first, then the newest).
func (w *World) reconcilePool(c *model.Cluster, p *model.NodePool) {
	if p.Status == model.PoolStopping || c.Status == model.ClusterStopping {
		return
	}
	for _, g := range p.Groups {
		ix := w.index(c, g)
		live := len(g.Nodes) - ix.byState[model.NodeDraining] - ix.byState[model.NodeDeleting]
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
			pi, pj := nodes[i].State == model.NodeProvisioning, nodes[j].State == model.NodeProvisioning
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
func (w *World) liveNodes(c *model.Cluster, g *model.InstanceGroup) []*model.Node {
	out := make([]*model.Node, 0, len(g.Nodes))
	for _, name := range g.Nodes {
		n := c.Nodes[name]
		if n != nil && n.State != model.NodeDeleting && n.State != model.NodeDraining {
			out = append(out, n)
		}
	}
	return out
}

// poolSettled says every group is at its target size with every node ready.
func (w *World) poolSettled(c *model.Cluster, p *model.NodePool) bool {
	for _, g := range p.Groups {
		ix := w.index(c, g)
		if ix.byState[model.NodeProvisioning] > 0 || ix.byState[model.NodeDraining] > 0 || ix.byState[model.NodeDeleting] > 0 {
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
