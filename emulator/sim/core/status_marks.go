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
	// daemonPods are GKE's DaemonSet pods with what each counts for (daemonLive: not
	// terminating, daemonReady), and daemonCounts those counts by DaemonSet: one small entry
	// per pod rather than a place in two sets.
	daemonPods   map[*model.Pod]uint8
	daemonCounts map[string]*[2]int
}

// What a DaemonSet pod counts for (StatusMarks.daemonPods).
const (
	daemonLive uint8 = 1 << iota
	daemonReady
)

func newStatusMarks() *StatusMarks {
	m := &StatusMarks{Deployments: map[*model.Deployment]struct{}{}, PDBs: map[*model.PDB]struct{}{},
		daemonPods: map[*model.Pod]uint8{}, daemonCounts: map[string]*[2]int{}}
	for _, ds := range catalog.SystemDaemonSets {
		m.daemonCounts[ds.Name] = &[2]int{}
	}
	return m
}

// DaemonPods counts the pods of GKE's DaemonSet ds that are not terminating, and those ready.
func (m *StatusMarks) DaemonPods(ds string) (live, ready int) {
	if n := m.daemonCounts[ds]; n != nil {
		return n[0], n[1]
	}
	return 0, 0
}

// trackDaemonPod keeps the DaemonSet counts of a GKE DaemonSet pod.
func (m *StatusMarks) trackDaemonPod(p *model.Pod) {
	n := m.daemonCount(p)
	if n == nil {
		return
	}
	var now uint8
	if !p.Terminating {
		now |= daemonLive
	}
	if p.Ready {
		now |= daemonReady
	}
	countDaemonPod(n, m.daemonPods[p], -1)
	countDaemonPod(n, now, 1)
	if now == 0 {
		delete(m.daemonPods, p)
	} else {
		m.daemonPods[p] = now
	}
	m.DaemonSets = true
}

func (m *StatusMarks) untrackDaemonPod(p *model.Pod) {
	if n := m.daemonCount(p); n != nil {
		countDaemonPod(n, m.daemonPods[p], -1)
		delete(m.daemonPods, p)
		m.DaemonSets = true
	}
}

// daemonCount is the counts of p's DaemonSet if p is a pod of one of GKE's, or nil.
func (m *StatusMarks) daemonCount(p *model.Pod) *[2]int {
	if p.OwnerKind != model.OwnerDaemonSet {
		return nil
	}
	return m.daemonCounts[p.Owner]
}

// countDaemonPod adds sign to the counts that what counts for.
func countDaemonPod(n *[2]int, what uint8, sign int) {
	if what&daemonLive != 0 {
		n[0] += sign
	}
	if what&daemonReady != 0 {
		n[1] += sign
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
