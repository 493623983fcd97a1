package sim

import (
	"fmt"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// Node-recreating changes (R-UPG-1) and the surge upgrade that carries them out.
//
// Surge (R-SURGE-1..4): zones one at a time; in a zone at most min(maxSurge+maxUnavailable, 20,
// nodes in the zone) nodes change at once. A surge slot creates a node with the new spec, waits
// until it is ready, then cordons, drains and deletes an old node. An unavailable slot cordons
// and drains an old node and recreates it in place with the new spec.

// maxUpgradeConcurrency caps the nodes upgraded at once in a zone (R-SURGE-2).
const maxUpgradeConcurrency = 20

// Upgrade is a node-recreating change in progress on a pool.
type Upgrade struct {
	Op             string    `json:"op"`
	Strategy       string    `json:"strategy"`
	From           NodeSpec  `json:"from"`
	Target         NodeSpec  `json:"target"`
	MaxSurge       int       `json:"maxSurge"`
	MaxUnavailable int       `json:"maxUnavailable"`
	Zones          []string  `json:"zones"`
	Zone           int       `json:"zone"`
	ZoneSize       int       `json:"zoneSize"`
	Total          int       `json:"total"`
	Done           int       `json:"done"`
	Cancelled      bool      `json:"cancelled,omitempty"`
	StartTime      time.Time `json:"startTime"`
}

// upgradeRole marks what a node is doing for an upgrade.
type upgradeRole string

const (
	roleNone     upgradeRole = ""
	roleSurge    upgradeRole = "surge"    // a new node created beyond the pool's size
	roleReplaced upgradeRole = "replaced" // an old node retired for a ready surge node
	roleRecreate upgradeRole = "recreate" // an old node drained to be recreated in place
)

// planUpgrade records a node-recreating change on p and returns the operation that runs it.
func (w *World) planUpgrade(c *Cluster, p *NodePool, target NodeSpec) *Operation {
	op := w.startOperation(api.OpUpgradeNodes, c, p.Name, true)
	us := p.UpgradeSettings
	p.Upgrade = &Upgrade{
		Op: op.ID, Strategy: api.StrategySurge, From: p.Spec, Target: target,
		MaxSurge: int(us.MaxSurge), MaxUnavailable: int(us.MaxUnavailable),
		Zones: append([]string(nil), p.Locations...), StartTime: w.st.Now,
	}
	p.Status = PoolReconciling
	op.Detail = fmt.Sprintf("Upgrading node pool %s to %s", p.Name, describeSpecChange(p.Spec, target))
	return op
}

// describeSpecChange says what a node-recreating change changes, for details and the log.
func describeSpecChange(from, to NodeSpec) string {
	var parts []string
	add := func(what string, a, b any) {
		if a != b {
			parts = append(parts, fmt.Sprintf("%s %v -> %v", what, a, b))
		}
	}
	add("version", from.Version, to.Version)
	add("machine type", from.MachineType, to.MachineType)
	add("image type", from.ImageType, to.ImageType)
	add("disk type", from.DiskType, to.DiskType)
	add("disk size", from.DiskSizeGb, to.DiskSizeGb)
	if len(parts) == 0 {
		return "the same node configuration"
	}
	s := parts[0]
	for _, p := range parts[1:] {
		s += ", " + p
	}
	return s
}

func (w *World) beginUpgrade(c *Cluster, p *NodePool) {
	u := p.Upgrade
	for _, n := range c.Nodes {
		if n.Pool == p.Name && n.Spec != u.Target && n.State != NodeDeleting {
			u.Total++
		}
	}
	w.record("UpgradeStarted", c, p.Name, "", u.Op, "surge upgrade of %s started: %d nodes, maxSurge=%d maxUnavailable=%d, zones %v",
		p.Name, u.Total, u.MaxSurge, u.MaxUnavailable, u.Zones)
	w.stepUpgrade(c, p)
}

// stepUpgrade takes every step the upgrade can take now; node events call it again.
func (w *World) stepUpgrade(c *Cluster, p *NodePool) {
	u := p.Upgrade
	if u == nil {
		return
	}
	op := w.st.Operations[u.Op]
	if op == nil || op.Status != api.OpStatusRunning {
		return
	}
	for u.Zone < len(u.Zones) {
		g := p.Group(u.Zones[u.Zone])
		if g == nil || w.stepZone(c, p, g) {
			u.Zone++
			u.ZoneSize = 0
			continue
		}
		break
	}
	w.reportUpgrade(c, p, op)
	if u.Zone >= len(u.Zones) || (u.Cancelled && !w.upgradeInFlight(c, p)) {
		w.finishUpgrade(c, p)
	}
}

// stepZone advances the upgrade in one zone; it reports whether the zone is finished.
func (w *World) stepZone(c *Cluster, p *NodePool, g *InstanceGroup) bool {
	u := p.Upgrade
	var old, readySurge []*Node
	pendingSurge, surgeUsed, unavailUsed := 0, 0, 0
	for _, name := range g.Nodes {
		n := c.Nodes[name]
		switch n.UpgradeRole {
		case roleSurge:
			surgeUsed++
			// R-SURGE-7: Spot surge nodes are not awaited before an old node is drained.
			if n.State == NodeReady || (p.Spec.Spot && n.State == NodeProvisioning) {
				readySurge = append(readySurge, n)
			} else {
				pendingSurge++
			}
		case roleReplaced:
			surgeUsed++ // its surge slot is held until it is deleted
		case roleRecreate:
			unavailUsed++
		default:
			if n.Spec != u.Target && n.State != NodeDeleting && n.State != NodeDraining {
				old = append(old, n)
			}
		}
	}
	if u.ZoneSize == 0 {
		u.ZoneSize = len(old)
	}
	// Ready surge nodes each let one old node go: cordon, drain, delete (R-SURGE-3).
	for _, s := range readySurge {
		s.UpgradeRole = roleNone
		if len(old) == 0 {
			continue
		}
		o := old[0]
		old = old[1:]
		o.UpgradeRole = roleReplaced
		w.retireNode(c, o, surgeDrain, "replaced by surge node "+s.Name)
	}
	if !u.Cancelled {
		limit := min(u.MaxSurge+u.MaxUnavailable, maxUpgradeConcurrency, max(u.ZoneSize, 1))
		surgeSlots := min(u.MaxSurge, limit)
		unavailSlots := min(u.MaxUnavailable, limit-surgeSlots)
		// Old nodes not yet spoken for by a surge node still booting.
		free := len(old) - pendingSurge
		for surgeUsed < surgeSlots && free > 0 {
			n := w.addNode(c, p, g, u.Target)
			n.UpgradeRole = roleSurge
			surgeUsed++
			free--
		}
		for unavailUsed < unavailSlots && free > 0 {
			o := old[len(old)-1]
			old = old[:len(old)-1]
			o.UpgradeRole = roleRecreate
			w.retireNode(c, o, surgeDrain, "recreating with the new configuration (maxUnavailable)")
			unavailUsed++
			free--
		}
	}
	return len(old) == 0 && surgeUsed == 0 && unavailUsed == 0
}

// upgradeInFlight says whether any node of p is mid-upgrade.
func (w *World) upgradeInFlight(c *Cluster, p *NodePool) bool {
	for _, g := range p.Groups {
		for _, name := range g.Nodes {
			if c.Nodes[name].UpgradeRole != roleNone {
				return true
			}
		}
	}
	return false
}

// nodeRetiredForUpgrade is called when an old node finished its part: deleted after a surge
// node replaced it, or drained for recreation (in which case it comes back with the new spec).
func (w *World) onUpgradeNodeDrained(c *Cluster, n *Node) bool {
	p := c.Pool(n.Pool)
	if p == nil || p.Upgrade == nil || n.UpgradeRole != roleRecreate {
		return false
	}
	w.nodeGone(c, n.Name) // its DaemonSet pods go with the old VM
	w.setNodeState(c, n, NodeProvisioning)
	n.Spec = p.Upgrade.Target
	n.CreateTime = w.st.Now
	w.record("NodeRecreating", c, n.Pool, n.Name, p.Upgrade.Op, "recreating node %s with %s", n.Name, describeSpecChange(p.Upgrade.From, n.Spec))
	w.schedule(w.jitter(nodeBootBase, nodeBootSpread), Event{Kind: evNodeReady, Cluster: c.Key(), Node: n.Name})
	return true
}

// countUpgraded notes a node that finished upgrading.
func (w *World) countUpgraded(c *Cluster, n *Node) {
	p := c.Pool(n.Pool)
	if p == nil || p.Upgrade == nil {
		return
	}
	switch n.UpgradeRole {
	case roleReplaced:
		if n.State == NodeDeleting { // deleted
			p.Upgrade.Done++
		}
	case roleRecreate:
		if n.State == NodeReady {
			p.Upgrade.Done++
			n.UpgradeRole = roleNone
		}
	}
}

func (w *World) reportUpgrade(c *Cluster, p *NodePool, op *Operation) {
	u := p.Upgrade
	zone := "done"
	if u.Zone < len(u.Zones) {
		zone = u.Zones[u.Zone]
	}
	setMetrics(op, "nodes done", u.Done, "nodes total", u.Total, "zone", zone)
	op.Detail = fmt.Sprintf("Upgrading node pool %s (%s): %d of %d nodes upgraded", p.Name,
		describeSpecChange(u.From, u.Target), u.Done, u.Total)
}

// cancelUpgrade stops starting new nodes; nodes mid-upgrade finish (R-SURGE-9).
func (w *World) cancelUpgrade(c *Cluster, p *NodePool) {
	u := p.Upgrade
	if u.Cancelled {
		return
	}
	u.Cancelled = true
	w.record("UpgradeCancelled", c, p.Name, "", u.Op, "upgrade of %s cancelled after %d of %d nodes; nodes mid-upgrade will finish", p.Name, u.Done, u.Total)
	w.stepUpgrade(c, p)
}

func (w *World) finishUpgrade(c *Cluster, p *NodePool) {
	u := p.Upgrade
	op := w.st.Operations[u.Op]
	p.Upgrade = nil
	p.Status = PoolRunning
	if u.Cancelled {
		w.record("UpgradeStopped", c, p.Name, "", u.Op, "upgrade of %s stopped: %d of %d nodes on the new configuration", p.Name, u.Done, u.Total)
		if op != nil {
			w.finishOperation(op, codeCancelled, "Operation was cancelled.")
		}
		return
	}
	p.Spec = u.Target
	w.record("UpgradeDone", c, p.Name, "", u.Op, "upgrade of %s done: %d nodes on %s in %s", p.Name, u.Total,
		describeSpecChange(u.From, u.Target), w.st.Now.Sub(u.StartTime).Round(time.Second))
	if op != nil {
		w.finishOperation(op, 0, "")
	}
}
