package core

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// StatusMarks are what changed in a cluster since the last publish that a controller derives a
// status from: the Deployments whose pods changed, the budgets whose pods changed, whether the
// counts of GKE's DaemonSets changed, and GKE's DaemonSet pods by DaemonSet (those not
// terminating, those ready). The core keeps them as pods, nodes and objects change; at a publish
// the workload controllers (core.WorkloadSteps) and then the budgets' controller (pdb.go) set the
// statuses from them and clear them. They live as long as the cluster's change feed, which keeps
// them (a cluster whose control plane is not up has neither).
type StatusMarks struct {
	Deployments map[*model.Deployment]struct{}
	PDBs        map[*model.PDB]struct{}
	DaemonSets  bool
	// daemonPodsLive and daemonPodsReady are GKE's DaemonSet pods, by DaemonSet, not
	// terminating and ready.
	daemonPodsLive, daemonPodsReady map[string]map[*model.Pod]struct{}
}

func newStatusMarks() *StatusMarks {
	m := &StatusMarks{Deployments: map[*model.Deployment]struct{}{}, PDBs: map[*model.PDB]struct{}{},
		daemonPodsLive: map[string]map[*model.Pod]struct{}{}, daemonPodsReady: map[string]map[*model.Pod]struct{}{}}
	for _, ds := range catalog.SystemDaemonSets {
		m.daemonPodsLive[ds.Name], m.daemonPodsReady[ds.Name] = map[*model.Pod]struct{}{}, map[*model.Pod]struct{}{}
	}
	return m
}

// DaemonPods counts the pods of GKE's DaemonSet ds that are not terminating, and those ready.
func (m *StatusMarks) DaemonPods(ds string) (live, ready int) {
	return len(m.daemonPodsLive[ds]), len(m.daemonPodsReady[ds])
}

// trackDaemonPod keeps the DaemonSet counts of a GKE DaemonSet pod.
func (m *StatusMarks) trackDaemonPod(p *model.Pod) {
	if p.OwnerKind != model.OwnerDaemonSet || m.daemonPodsLive[p.Owner] == nil {
		return
	}
	live, ready := m.daemonPodsLive[p.Owner], m.daemonPodsReady[p.Owner]
	if p.Terminating {
		delete(live, p)
	} else {
		live[p] = struct{}{}
	}
	if p.Ready {
		ready[p] = struct{}{}
	} else {
		delete(ready, p)
	}
	m.DaemonSets = true
}

func (m *StatusMarks) untrackDaemonPod(p *model.Pod) {
	if p.OwnerKind == model.OwnerDaemonSet && m.daemonPodsLive[p.Owner] != nil {
		delete(m.daemonPodsLive[p.Owner], p)
		delete(m.daemonPodsReady[p.Owner], p)
		m.DaemonSets = true
	}
}

// MarkDeployment notes that d's status may have changed: the next publish sets it.
func (w *Core) MarkDeployment(c *model.Cluster, d *model.Deployment) {
	if f := w.Feed(c); f != nil {
		f.marks.Deployments[d] = struct{}{}
		w.NoteDirty(c, f)
	}
}

// MarkPDB notes that budget b's status may have changed: the next publish sets it.
func (w *Core) MarkPDB(c *model.Cluster, b *model.PDB) {
	if f := w.Feed(c); f != nil {
		f.marks.PDBs[b] = struct{}{}
		w.NoteDirty(c, f)
	}
}

// MarkDaemonSets notes that the statuses of GKE's DaemonSets may have changed.
func (w *Core) MarkDaemonSets(c *model.Cluster) {
	if f := w.Feed(c); f != nil {
		f.marks.DaemonSets = true
		w.NoteDirty(c, f)
	}
}

// MarkPDBsIn notes that the statuses of the budgets in namespace may have changed.
func (w *Core) MarkPDBsIn(c *model.Cluster, namespace string) {
	f := w.Feed(c)
	if f == nil {
		return
	}
	for _, b := range c.PDBs {
		if b.Namespace == namespace {
			f.marks.PDBs[b] = struct{}{}
			w.NoteDirty(c, f)
		}
	}
}
