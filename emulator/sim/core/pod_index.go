package core

import (
	"slices"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/labelindex"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"k8s.io/apimachinery/pkg/labels"
)

// The Kubernetes objects of a cluster: namespaces, Deployments, their Pods, bare Pods,
// PodDisruptionBudgets. Specs are kept as the Kubernetes API types users send (so kubectl and
// the provider read back what they wrote); what the simulation needs from them is derived.

// PodIndex holds a cluster's derived indexes over its Kubernetes objects. It is rebuilt from
// the state on first use (after a restore) and kept up to date by every change.
type PodIndex struct {
	// podsOnNode: node name -> pods bound to it, by namespace and name.
	PodsOnNode map[string]PodList
	// workload: node name -> requests and number of the pods bound to it that are not
	// DaemonSet pods (what the autoscaler weighs a node by).
	Workload map[string]nodeLoad
	// requested: node name -> resources requested by the pods bound to it (terminating ones
	// included until they are gone, as the kubelet does).
	Requested map[string]model.Resources
	// podsOf: deployment key -> its pods.
	PodsOf map[string]map[*model.Pod]struct{}
	// tmplCounts: deployment key -> template -> how many of its pods there are, live (not
	// terminating) and ready, so that a controller pass and a status update count without
	// walking every pod.
	TmplCounts map[string]map[string]*model.TemplateCount
	// pending: pods waiting for the scheduler.
	Pending podSet
	// selectors: compiled label selectors of PDBs and deployments, by object.
	Selectors map[any]labels.Selector
	// PDBs: the budgets by their selectors (Core.PdbsOf), built on first use.
	PDBs *labelindex.Index[*model.PDB]
	// Flagged: node name -> how many pods bound to it Core.FlagPod flags (the cluster
	// autoscaler's: pods it must look at one by one before removing the node); flagged holds
	// those pods, flag is the cluster's flag.
	Flagged map[string]int
	flagged map[*model.Pod]struct{}
	flag    func(*model.Pod) bool
	// sched is the scheduler's view of the nodes.
	Sched *schedIndex
	// scheduleQueued says a scheduling pass is already scheduled for this instant.
	ScheduleQueued bool
	// syncQueued: deployments with a controller pass already scheduled.
	SyncQueued map[string]bool
}

// PodIndex returns the Kubernetes index of c, building it if needed.
func (w *Core) PodIndex(c *model.Cluster) *PodIndex {
	if w.PodIndexes == nil {
		w.PodIndexes = map[*model.Cluster]*PodIndex{}
	}
	if ix, ok := w.PodIndexes[c]; ok {
		return ix
	}
	ix := &PodIndex{
		PodsOnNode: map[string]PodList{}, Workload: map[string]nodeLoad{}, Requested: map[string]model.Resources{},
		PodsOf: map[string]map[*model.Pod]struct{}{}, TmplCounts: map[string]map[string]*model.TemplateCount{}, Pending: newPodSet(),
		Selectors: map[any]labels.Selector{}, SyncQueued: map[string]bool{},
		Flagged: map[string]int{}, flagged: map[*model.Pod]struct{}{},
	}
	if w.FlagPod != nil {
		ix.flag = func(p *model.Pod) bool { return w.FlagPod(c, p) }
	}
	w.PodIndexes[c] = ix
	for _, p := range c.Pods {
		ix.track(p)
	}
	// The "already queued" marks mirror the event queue: rebuilt from it, a restored world
	// queues exactly the passes the original would have.
	w.engine.QueuedFor(c, func(ev model.Event) {
		switch ev.Kind {
		case evSchedule:
			ix.ScheduleQueued = true
		case EvDeploymentSync:
			ix.SyncQueued[ev.DeploymentKey()] = true
		}
	})
	ix.Sched = w.buildSchedIndex(c, ix)
	return ix
}

// track adds a pod to the indexes.
func (ix *PodIndex) track(p *model.Pod) {
	if p.Node != "" {
		ix.bind(p)
	} else if !p.Terminating {
		ix.Pending.add(p)
	}
	if p.OwnerKind == model.OwnerDeployment {
		key := p.OwnerKey()
		if ix.PodsOf[key] == nil {
			ix.PodsOf[key] = map[*model.Pod]struct{}{}
		}
		ix.PodsOf[key][p] = struct{}{}
		ix.countTemplate(p, 1)
	}
}

// countTemplate adds (sign 1) or takes away (sign -1) what a deployment pod counts for in its
// template's counts, as it is now. A change of the pod's state is counted by taking it away
// before the change and adding it after.
func (ix *PodIndex) countTemplate(p *model.Pod, sign int32) {
	if p.OwnerKind != model.OwnerDeployment {
		return
	}
	key := p.OwnerKey()
	byTmpl := ix.TmplCounts[key]
	if byTmpl == nil {
		byTmpl = map[string]*model.TemplateCount{}
		ix.TmplCounts[key] = byTmpl
	}
	t := byTmpl[p.Template]
	if t == nil {
		t = &model.TemplateCount{}
		byTmpl[p.Template] = t
	}
	t.All += sign
	if !p.Terminating {
		t.Live += sign
		if p.Ready {
			t.Ready += sign
		}
	}
	if t.All == 0 {
		delete(byTmpl, p.Template)
		if len(byTmpl) == 0 {
			delete(ix.TmplCounts, key)
		}
	}
}

func (ix *PodIndex) bind(p *model.Pod) {
	ix.PodsOnNode[p.Node] = ix.PodsOnNode[p.Node].insert(p)
	ix.Requested[p.Node] = ix.Requested[p.Node].Add(p.Req)
	if p.OwnerKind != model.OwnerDaemonSet {
		l := ix.Workload[p.Node]
		ix.Workload[p.Node] = nodeLoad{l.Req.Add(p.Req), l.Pods + 1}
	}
	ix.countFlag(p)
}

// countFlag adds a bound pod to its node's flagged count if the flag says so.
func (ix *PodIndex) countFlag(p *model.Pod) {
	if ix.flag != nil && ix.flag(p) {
		ix.flagged[p] = struct{}{}
		ix.Flagged[p.Node]++
	}
}

// unflag takes a bound pod out of its node's flagged count.
func (ix *PodIndex) unflag(p *model.Pod) {
	if _, ok := ix.flagged[p]; !ok {
		return
	}
	delete(ix.flagged, p)
	if ix.Flagged[p.Node]--; ix.Flagged[p.Node] == 0 {
		delete(ix.Flagged, p.Node)
	}
}

// ReflagPod counts a bound pod's flag again after a change to it (its annotations).
func (w *Core) ReflagPod(c *model.Cluster, p *model.Pod) {
	if ix := w.PodIndex(c); p.Node != "" {
		ix.unflag(p)
		ix.countFlag(p)
	}
}

// nodeLoad is what a node's pods other than DaemonSet pods request, and how many they are.
type nodeLoad struct {
	Req  model.Resources
	Pods int
}

// untrack removes a pod from the indexes.
func (ix *PodIndex) untrack(p *model.Pod) {
	ix.Pending.remove(p)
	if p.Node != "" {
		ix.PodsOnNode[p.Node] = ix.PodsOnNode[p.Node].remove(p)
		ix.Requested[p.Node] = ix.Requested[p.Node].Sub(p.Req)
		ix.unflag(p)
		if p.OwnerKind != model.OwnerDaemonSet {
			l := ix.Workload[p.Node]
			if l.Pods == 1 {
				delete(ix.Workload, p.Node)
			} else {
				ix.Workload[p.Node] = nodeLoad{l.Req.Sub(p.Req), l.Pods - 1}
			}
		}
	}
	if p.OwnerKind == model.OwnerDeployment {
		delete(ix.PodsOf[p.OwnerKey()], p)
		ix.countTemplate(p, -1)
	}
}

// sortedPods orders a pod set by name, for deterministic iteration.
// podList is a list of pods kept in namespace and name order: walking it is deterministic
// without sorting it.
type PodList []*model.Pod

func comparePods(a, b *model.Pod) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

func (l PodList) insert(p *model.Pod) PodList {
	i, found := slices.BinarySearchFunc(l, p, comparePods)
	if found {
		l[i] = p
		return l
	}
	return slices.Insert(l, i, p)
}

func (l PodList) remove(p *model.Pod) PodList {
	if i, found := slices.BinarySearchFunc(l, p, comparePods); found && l[i] == p {
		return slices.Delete(l, i, i+1)
	}
	return l
}

func SortedPods(set map[*model.Pod]struct{}) []*model.Pod {
	out := make([]*model.Pod, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.SortFunc(out, comparePods)
	return out
}

// podSet is a set of pods that stays as small as it is: a Go map keeps the buckets of its
// largest size, and walking it costs that much, so the set starts a fresh map once it has
// shrunk to a quarter of its peak (150,000 pods pending at a cluster's creation would otherwise
// make every later scheduling pass walk 150,000 empty slots).
type podSet struct {
	M    map[*model.Pod]struct{}
	peak int
}

func newPodSet() podSet { return podSet{M: map[*model.Pod]struct{}{}} }

func (s *podSet) add(p *model.Pod) {
	s.M[p] = struct{}{}
	s.peak = max(s.peak, len(s.M))
}

func (s *podSet) remove(p *model.Pod) {
	delete(s.M, p)
	if s.peak >= 1024 && len(s.M) < s.peak/4 {
		m := make(map[*model.Pod]struct{}, len(s.M))
		for q := range s.M {
			m[q] = struct{}{}
		}
		s.M, s.peak = m, len(m)
	}
}

func (s *podSet) Len() int { return len(s.M) }
