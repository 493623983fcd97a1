package upgrade

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Short-lived upgrades (R-SL-1), for flex-start and queued-provisioning pools: new nodes use the
// new configuration at once; existing nodes keep running until they are interrupted (their
// run duration ends), within at most seven days, and their replacements use the new
// configuration. The operation ends once the pool's configuration has changed.

const (
	evNodeInterrupted = "node.interrupted"
	// shortLivedWindow is the longest a node runs the old configuration after the change.
	shortLivedWindow = 7 * 24 * time.Hour
)

func (w *Upgrades) RegisterShortLivedHandlers() {
	w.engine.On(evNodeInterrupted, func(ev model.Event) {
		c, n := w.core.NodeEvent(ev)
		if n == nil || n.State == model.NodeDeleting {
			return
		}
		p := c.Pool(n.Pool)
		if p == nil || n.Spec == p.Spec {
			return
		}
		w.engine.Record("NodeInterrupted", c, n.Pool, n.Name, "", "flex-start node %s reached the end of its run; its replacement uses %s", n.Name, DescribeSpecChange(n.Spec, p.Spec))
		w.core.DeleteNode(c, n, "interrupted")
	})
}

func (w *Upgrades) beginShortLived(c *model.Cluster, p *model.NodePool) {
	u := p.Upgrade
	var old []string
	for _, name := range core.SortedNodeNames(c) {
		if n := c.Nodes[name]; n.Pool == p.Name && n.Spec != u.Target && n.State != model.NodeDeleting {
			old = append(old, name)
		}
	}
	w.engine.Record("UpgradeStarted", c, p.Name, "", u.Op, "short-lived upgrade of %s: new nodes use %s now; the %d existing nodes run until interrupted, within %s",
		p.Name, DescribeSpecChange(u.From, u.Target), len(old), shortLivedWindow)
	for _, name := range old {
		w.engine.Schedule(w.engine.Jitter(time.Hour, shortLivedWindow-time.Hour), model.Event{Kind: evNodeInterrupted, Cluster: c.Key(), Node: name})
	}
	w.finishUpgrade(c, p)
}
