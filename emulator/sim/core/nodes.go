package core

import (
	"encoding/binary"
	"net"
	"slices"
	"sort"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Node life: provisioning -> ready -> (cordoned -> draining ->) deleting -> gone. Each step takes
// emulated time and lands in the event log.

const (
	EvNodeReady   = "node.ready"
	evNodeDrained = "node.drained"
	evNodeDeleted = "node.deleted"

	NodeBootBase     = 60 * time.Second
	NodeBootSpread   = 30 * time.Second
	NodeDeleteBase   = 30 * time.Second
	NodeDeleteSpread = 30 * time.Second
)

// GroupView is a controller's view of a group's node order, told when the node at position i
// leaves the group.
type GroupView interface{ NodeRemovedAt(i int) }

// GroupIndex counts a group's nodes by state and holds them in the group's order, so that the
// controllers that walk a group (a surge upgrade's zone, on every node event) skip a lookup by
// name per node; it is derived, never persisted.
type GroupIndex struct {
	ByState map[model.NodeState]int
	Nodes   []*model.Node
	// view is a controller's own view of the group's node order (a surge upgrade's view of its
	// zone, upgrade/upgrade.go), when one keeps it.
	View GroupView
	// joins counts the nodes that joined the group since the index was built.
	Joins int
}

func (w *Core) RegisterNodeHandlers() {
	w.engine.On(EvNodeReady, w.onNodeReady)
	w.engine.On(evNodeDrained, w.onNodeDrained)
	w.engine.On(evNodeDeleted, w.onNodeDeleted)
}

// GroupIndex returns the derived counts of group g, building them on first use (after a restore).
func (w *Core) GroupIndex(c *model.Cluster, g *model.InstanceGroup) *GroupIndex {
	if w.Groups == nil {
		w.Groups = map[*model.InstanceGroup]*GroupIndex{}
	}
	ix, ok := w.Groups[g]
	if !ok {
		ix = &GroupIndex{ByState: map[model.NodeState]int{}, Nodes: make([]*model.Node, 0, len(g.Nodes))}
		for _, name := range g.Nodes {
			if n := c.Nodes[name]; n != nil {
				ix.ByState[n.State]++
				ix.Nodes = append(ix.Nodes, n)
			}
		}
		w.Groups[g] = ix
	}
	return ix
}

// allocateIP gives a new node the next address of its cluster's node range.
func (w *Core) allocateIP(c *model.Cluster) string {
	c.NextNodeIP++
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, c.NodeIPBase+1+c.NextNodeIP)
	return ip.String()
}

// AddNode creates a VM in group g with the given spec; it becomes ready after boot time.
func (w *Core) AddNode(c *model.Cluster, p *model.NodePool, g *model.InstanceGroup, spec model.NodeSpec) *model.Node {
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
	ix := w.GroupIndex(c, g) // built before the node joins, so it is counted once
	c.Nodes[name] = n
	g.Nodes = append(g.Nodes, name)
	ix.ByState[model.NodeProvisioning]++
	ix.Nodes = append(ix.Nodes, n)
	ix.Joins++
	w.updateSchedNode(c, n) // in the scheduler's view from the start, as a rebuild has it (not schedulable yet)
	w.engine.Schedule(w.engine.Jitter(NodeBootBase, NodeBootSpread), model.Event{Kind: EvNodeReady, Cluster: c.Key(), Node: name})
	w.engine.RecordNodeLine("NodeCreating", c, p.Name, name, "", "creating node ", " in "+g.Zone+" ("+spec.MachineType+", "+spec.Version+")", "")
	return n
}

// SetNodeState moves a node to a new state, keeping its group's counts.
func (w *Core) SetNodeState(c *model.Cluster, n *model.Node, s model.NodeState) {
	if n.State == s {
		return
	}
	if g := w.GroupOf(c, n); g != nil {
		ix := w.GroupIndex(c, g)
		ix.ByState[n.State]--
		ix.ByState[s]++
	}
	n.State = s
	w.engine.EmitNodeChanged(c, n, engine.NodeStateChanged)
}

func (w *Core) GroupOf(c *model.Cluster, n *model.Node) *model.InstanceGroup {
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

// NodeEvent resolves an event's cluster and node; either may be gone (deleted meanwhile).
func (w *Core) NodeEvent(ev model.Event) (*model.Cluster, *model.Node) {
	c := w.st.Clusters[ev.Cluster]
	if c == nil {
		return nil, nil
	}
	return c, c.Nodes[ev.Node]
}

func (w *Core) onNodeReady(ev model.Event) {
	c, n := w.NodeEvent(ev)
	if n == nil || n.State != model.NodeProvisioning {
		return
	}
	n.Unschedulable = false
	w.SetNodeState(c, n, model.NodeReady)
	n.ReadyTime = w.st.Now
	w.startDaemonPods(c, n)
	w.engine.RecordNodeLine("NodeReady", c, n.Pool, n.Name, "", "node ", " is ready (kubelet "+kuberender.KubeletVersion(n.Spec.Version)+")", "")
	w.engine.EmitNodeReady(c, n)
	w.poolNodesChanged(c, n.Pool)
}

// RetireNode takes a node out of service: cordon, drain by the caller's policy, then delete
// (or, for an in-place recreation, recreate). why names the caller's reason for the event log.
func (w *Core) RetireNode(c *model.Cluster, n *model.Node, policy model.DrainPolicy, why string) {
	if n.State == model.NodeDeleting || n.State == model.NodeDraining {
		return
	}
	if n.State == model.NodeProvisioning {
		// Not yet registered: nothing to drain.
		w.DeleteNode(c, n, why)
		return
	}
	w.StartDrain(c, n, policy, why)
}

func (w *Core) Cordon(c *model.Cluster, n *model.Node, why string) {
	if n.Unschedulable {
		return
	}
	n.Unschedulable = true
	if n.State == model.NodeReady {
		w.SetNodeState(c, n, model.NodeCordoned)
	} else {
		w.engine.EmitNodeChanged(c, n, engine.NodeCordonChanged)
	}
	w.engine.RecordNodeLine("NodeCordoned", c, n.Pool, n.Name, "", "cordoned node ", ": ", why)
}

func (w *Core) onNodeDrained(ev model.Event) {
	c, n := w.NodeEvent(ev)
	if n == nil || n.State != model.NodeDraining {
		return
	}
	w.engine.RecordNodeLine("NodeDrained", c, n.Pool, n.Name, "", "node ", " drained", "")
	if w.engine.EmitNodeDrained(c, n) {
		return
	}
	w.DeleteNode(c, n, "drained")
}

// DeleteNode deletes the VM; it is gone after the delete time.
func (w *Core) DeleteNode(c *model.Cluster, n *model.Node, why string) {
	if n.State == model.NodeDeleting {
		return
	}
	w.SetNodeState(c, n, model.NodeDeleting)
	n.Unschedulable = true
	w.engine.RecordNodeLine("NodeDeleting", c, n.Pool, n.Name, "", "deleting node ", ": ", why)
	w.engine.Schedule(w.engine.Jitter(NodeDeleteBase, NodeDeleteSpread), model.Event{Kind: evNodeDeleted, Cluster: c.Key(), Node: n.Name})
}

func (w *Core) onNodeDeleted(ev model.Event) {
	c, n := w.NodeEvent(ev)
	if n == nil || n.State != model.NodeDeleting {
		return
	}
	w.engine.EmitNodeDeleted(c, n)
	w.NodeGone(c, n.Name)
	w.forgetNode(c, n)
	w.engine.RecordNodeLine("NodeDeleted", c, n.Pool, n.Name, "", "node ", " deleted", "")
	w.poolNodesChanged(c, n.Pool)
}

// forgetNode removes a node from its group and the cluster.
func (w *Core) forgetNode(c *model.Cluster, n *model.Node) {
	if g := w.GroupOf(c, n); g != nil {
		ix := w.GroupIndex(c, g)
		ix.ByState[n.State]--
		for i, name := range g.Nodes {
			if name == n.Name {
				g.Nodes = slices.Delete(g.Nodes, i, i+1)
				break
			}
		}
		for i, x := range ix.Nodes {
			if x == n {
				ix.Nodes = slices.Delete(ix.Nodes, i, i+1)
				if ix.View != nil {
					ix.View.NodeRemovedAt(i)
				}
				break
			}
		}
	}
	delete(c.Nodes, n.Name)
	n.Gone = true
	w.engine.EmitNodeChanged(c, n, engine.NodeForgotten)
}

// ReconcilePool brings each instance group to its target size: it adds nodes with the pool's
// spec or retires the surplus (nodes still provisioning first, then the newest).
func (w *Core) ReconcilePool(c *model.Cluster, p *model.NodePool) {
	if p.Status == model.PoolStopping || c.Status == model.ClusterStopping {
		return
	}
	for _, g := range p.Groups {
		ix := w.GroupIndex(c, g)
		live := len(g.Nodes) - ix.ByState[model.NodeDraining] - ix.ByState[model.NodeDeleting]
		for i := live; i < g.TargetSize; i++ {
			if !w.ReserveCapacity(c, p, g.Zone, p.Spec, 1) {
				w.WaitForCapacity(c, p, g.Zone, "nodes")
				break
			}
			w.AddNode(c, p, g, p.Spec)
		}
		if live <= g.TargetSize {
			continue
		}
		// Only a shrinking group pays for listing its nodes.
		nodes := w.LiveNodes(c, g)
		sort.SliceStable(nodes, func(i, j int) bool {
			pi, pj := nodes[i].State == model.NodeProvisioning, nodes[j].State == model.NodeProvisioning
			if pi != pj {
				return pi
			}
			return nodes[i].CreateTime.After(nodes[j].CreateTime)
		})
		for _, n := range nodes[:live-g.TargetSize] {
			w.RetireNode(c, n, SurgeDrain, "node pool resized")
		}
	}
}

// LiveNodes are a group's nodes that are not on their way out.
func (w *Core) LiveNodes(c *model.Cluster, g *model.InstanceGroup) []*model.Node {
	out := make([]*model.Node, 0, len(g.Nodes))
	for _, name := range g.Nodes {
		n := c.Nodes[name]
		if n != nil && n.State != model.NodeDeleting && n.State != model.NodeDraining {
			out = append(out, n)
		}
	}
	return out
}

// PoolSettled says every group is at its target size with every node ready.
func (w *Core) PoolSettled(c *model.Cluster, p *model.NodePool) bool {
	for _, g := range p.Groups {
		ix := w.GroupIndex(c, g)
		if ix.ByState[model.NodeProvisioning] > 0 || ix.ByState[model.NodeDraining] > 0 || ix.ByState[model.NodeDeleting] > 0 {
			return false
		}
		if len(g.Nodes) != g.TargetSize {
			return false
		}
	}
	return true
}

// poolNodesChanged lets the controllers that wait on a pool's nodes take their next step,
// then finishes the cluster's operations whose work is done.
func (w *Core) poolNodesChanged(c *model.Cluster, pool string) {
	if p := c.Pool(pool); p != nil {
		for _, h := range w.engine.Hooks.PoolNodesChanged {
			h(c, p)
		}
	}
	w.CheckOperations(c)
}
