package autoupgrade

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Node auto-repair: maintenance that the maintenance policy does not govern (R-MW-4). A node
// fails (FailNode, the emulator's fault): its kubelet stops posting status, so it reads
// NotReady and takes no new pods. When the node has been unhealthy for about ten minutes and its
// pool has auto-repair on, GKE repairs it under an AUTO_REPAIR_NODES operation, inside or
// outside the maintenance window and through any exclusion: the node is drained (as an upgrade
// drains, R-SURGE-3) and deleted, and its instance group creates a healthy replacement.

const (
	evAutoRepair = "maintenance.repair"
	// autoRepairDetection is how long a node is unhealthy before GKE repairs it.
	AutoRepairDetection = 10 * time.Minute
	// autoRepairPoll is how often a repair in progress is looked at.
	autoRepairPoll = 30 * time.Second
	// autoRepairOffPoll is how often a failed node in a pool without auto-repair is looked at
	// again (auto-repair may be turned on).
	autoRepairOffPoll = time.Hour
)

// FailNode makes a registered node fail: its kubelet stops posting status. The pool's
// auto-repair (if on) repairs it; otherwise it stays NotReady.
func (w *AutoUpgrades) FailNode(project, location, cluster, node string) (*model.Node, error) {
	c, err := w.core.GetCluster(project, location, cluster)
	if err != nil {
		return nil, err
	}
	n := c.Nodes[node]
	if n == nil {
		return nil, model.NotFound("node %q not found in cluster %s.", node, c.Name)
	}
	if n.State != model.NodeReady && n.State != model.NodeCordoned {
		return nil, model.FailedPrecondition("Node %s is %s: only a running node (ready or cordoned) can fail.", n.Name, n.State)
	}
	if c.AutoMaintenance == nil {
		w.StartAutoMaintenance(c)
	}
	am := c.AutoMaintenance
	if am.Repairs[node] != nil {
		return nil, model.FailedPrecondition("Node %s has already failed (at %s).", n.Name, am.Repairs[node].FailedAt.Format(time.RFC3339))
	}
	if am.Repairs == nil {
		am.Repairs = map[string]*model.NodeRepair{}
	}
	am.Repairs[node] = &model.NodeRepair{FailedAt: w.st.Now}
	w.core.TouchNode(c, n) // NotReady
	w.engine.Record("NodeFailed", c, n.Pool, n.Name, "", "node %s failed: kubelet stopped posting node status (NotReady)", n.Name)
	w.core.Cordon(c, n, "node is NotReady")
	if p := c.Pool(n.Pool); p == nil || !p.AutoRepair {
		w.engine.Record("NodeNotRepaired", c, n.Pool, n.Name, "", "node %s stays NotReady: auto-repair is off for node pool %s", n.Name, n.Pool)
	}
	w.engine.Schedule(AutoRepairDetection, model.Event{Kind: evAutoRepair, Cluster: c.Key(), Node: n.Name})
	return n, nil
}

func (w *AutoUpgrades) onAutoRepair(ev model.Event) {
	c, n := w.core.NodeEvent(ev)
	if c == nil || c.AutoMaintenance == nil {
		return
	}
	am := c.AutoMaintenance
	r := am.Repairs[ev.Node]
	if r == nil {
		return
	}
	if n == nil {
		// The node is gone: repaired, or removed with its pool.
		delete(am.Repairs, ev.Node)
		if op := w.st.Operations[r.Op]; op != nil && op.Status != api.OpStatusDone {
			p := c.Pool(op.Pool)
			if p != nil && !w.core.PoolSettled(c, p) {
				am.Repairs[ev.Node] = r // wait for the replacement to be ready
				w.engine.Schedule(autoRepairPoll, ev)
				return
			}
			op.Detail = ""
			w.engine.Record("NodeRepaired", c, op.Pool, ev.Node, op.ID, "node %s repaired: replaced by a healthy node", ev.Node)
			w.core.FinishOperation(op, 0, "")
		}
		return
	}
	p := c.Pool(n.Pool)
	switch {
	case r.Op != "":
		// Draining or deleting: look again.
	case p == nil || !p.AutoRepair:
		w.engine.Schedule(autoRepairOffPoll, ev)
		return
	case p.Upgrade != nil:
		// An upgrade owns the pool's nodes; repair when it is over.
		w.engine.Schedule(AutoRepairDetection, ev)
		return
	default:
		// R-MW-4: node auto-repair is not governed by maintenance windows or exclusions.
		op := w.core.StartOperation(api.OpAutoRepairNodes, c, p.Name, false)
		op.Detail = "Repairing node " + n.Name
		r.Op = op.ID
		w.engine.Record("NodeRepairing", c, p.Name, n.Name, op.ID, "auto-repair of node %s, NotReady for %s: draining and recreating it (not governed by the maintenance policy)",
			n.Name, w.st.Now.Sub(r.FailedAt).Round(time.Second))
		w.core.RetireNode(c, n, core.SurgeDrain, "auto-repair of a NotReady node")
	}
	w.engine.Schedule(autoRepairPoll, ev)
}
