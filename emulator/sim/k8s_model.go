package sim

import (
	"slices"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"k8s.io/apimachinery/pkg/labels"
)

// The Kubernetes objects of a cluster: namespaces, Deployments, their Pods, bare Pods,
// PodDisruptionBudgets. Specs are kept as the Kubernetes API types users send (so kubectl and
// the provider read back what they wrote); what the simulation needs from them is derived.

// k8sIndex holds a cluster's derived indexes over its Kubernetes objects. It is rebuilt from
// the state on first use (after a restore) and kept up to date by every change.
type k8sIndex struct {
	// podsOnNode: node name -> pods bound to it, by namespace and name.
	podsOnNode map[string]podList
	// workload: node name -> requests and number of the pods bound to it that are not
	// DaemonSet pods (what the autoscaler weighs a node by).
	workload map[string]nodeLoad
	// requested: node name -> resources requested by the pods bound to it (terminating ones
	// included until they are gone, as the kubelet does).
	requested map[string]model.Resources
	// podsOf: deployment key -> its pods.
	podsOf map[string]map[*model.Pod]struct{}
	// tmplCounts: deployment key -> template -> how many of its pods there are, live (not
	// terminating) and ready, so that a controller pass and a status update count without
	// walking every pod.
	tmplCounts map[string]map[string]*model.TemplateCount
	// pending: pods waiting for the scheduler.
	pending podSet
	// selectors: compiled label selectors of PDBs and deployments, by object.
	selectors map[any]labels.Selector
	// sched is the scheduler's view of the nodes.
	sched *schedIndex
	// scheduleQueued says a scheduling pass is already scheduled for this instant.
	scheduleQueued bool
	// syncQueued: deployments with a controller pass already scheduled.
	syncQueued map[string]bool
}

// podIndex returns the Kubernetes index of c, building it if needed.
func (w *World) podIndex(c *model.Cluster) *k8sIndex {
	if w.k8s == nil {
		w.k8s = map[*model.Cluster]*k8sIndex{}
	}
	if ix, ok := w.k8s[c]; ok {
		return ix
	}
	ix := &k8sIndex{
		podsOnNode: map[string]podList{}, workload: map[string]nodeLoad{}, requested: map[string]model.Resources{},
		podsOf: map[string]map[*model.Pod]struct{}{}, tmplCounts: map[string]map[string]*model.TemplateCount{}, pending: newPodSet(),
		selectors: map[any]labels.Selector{}, syncQueued: map[string]bool{},
	}
	w.k8s[c] = ix
	for _, p := range c.Pods {
		ix.track(p)
	}
	// The "already queued" marks mirror the event queue: rebuilt from it, a restored world
	// queues exactly the passes the original would have.
	w.engine.QueuedFor(c, func(ev model.Event) {
		switch ev.Kind {
		case evSchedule:
			ix.scheduleQueued = true
		case evDeploymentSync:
			ix.syncQueued[ev.Node] = true
		}
	})
	ix.sched = w.buildSchedIndex(c, ix)
	return ix
}

// track adds a pod to the indexes.
func (ix *k8sIndex) track(p *model.Pod) {
	if p.Node != "" {
		ix.bind(p)
	} else if !p.Terminating {
		ix.pending.add(p)
	}
	if p.OwnerKind == model.OwnerDeployment {
		key := p.Namespace + "/" + p.Owner
		if ix.podsOf[key] == nil {
			ix.podsOf[key] = map[*model.Pod]struct{}{}
		}
		ix.podsOf[key][p] = struct{}{}
		ix.countTemplate(p, 1)
	}
}

// countTemplate adds (sign 1) or takes away (sign -1) what a deployment pod counts for in its
// template's counts, as it is now. A change of the pod's state is counted by taking it away
// before the change and adding it after.
func (ix *k8sIndex) countTemplate(p *model.Pod, sign int32) {
	if p.OwnerKind != model.OwnerDeployment {
		return
	}
	key := p.Namespace + "/" + p.Owner
	byTmpl := ix.tmplCounts[key]
	if byTmpl == nil {
		byTmpl = map[string]*model.TemplateCount{}
		ix.tmplCounts[key] = byTmpl
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
			delete(ix.tmplCounts, key)
		}
	}
}

func (ix *k8sIndex) bind(p *model.Pod) {
	ix.podsOnNode[p.Node] = ix.podsOnNode[p.Node].insert(p)
	ix.requested[p.Node] = ix.requested[p.Node].Add(p.Req)
	if p.OwnerKind != model.OwnerDaemonSet {
		l := ix.workload[p.Node]
		ix.workload[p.Node] = nodeLoad{l.req.Add(p.Req), l.pods + 1}
	}
}

// nodeLoad is what a node's pods other than DaemonSet pods request, and how many they are.
type nodeLoad struct {
	req  model.Resources
	pods int
}

// untrack removes a pod from the indexes.
func (ix *k8sIndex) untrack(p *model.Pod) {
	ix.pending.remove(p)
	if p.Node != "" {
		ix.podsOnNode[p.Node] = ix.podsOnNode[p.Node].remove(p)
		ix.requested[p.Node] = ix.requested[p.Node].Sub(p.Req)
		if p.OwnerKind != model.OwnerDaemonSet {
			l := ix.workload[p.Node]
			if l.pods == 1 {
				delete(ix.workload, p.Node)
			} else {
				ix.workload[p.Node] = nodeLoad{l.req.Sub(p.Req), l.pods - 1}
			}
		}
	}
	if p.OwnerKind == model.OwnerDeployment {
		delete(ix.podsOf[p.Namespace+"/"+p.Owner], p)
		ix.countTemplate(p, -1)
	}
}

// sortedPods orders a pod set by name, for deterministic iteration.
// podList is a list of pods kept in namespace and name order: walking it is deterministic
// without sorting it.
type podList []*model.Pod

func comparePods(a, b *model.Pod) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

func (l podList) insert(p *model.Pod) podList {
	i, found := slices.BinarySearchFunc(l, p, comparePods)
	if found {
		l[i] = p
		return l
	}
	return slices.Insert(l, i, p)
}

func (l podList) remove(p *model.Pod) podList {
	if i, found := slices.BinarySearchFunc(l, p, comparePods); found && l[i] == p {
		return slices.Delete(l, i, i+1)
	}
	return l
}

func sortedPods(set map[*model.Pod]struct{}) []*model.Pod {
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
	m    map[*model.Pod]struct{}
	peak int
}

func newPodSet() podSet { return podSet{m: map[*model.Pod]struct{}{}} }

func (s *podSet) add(p *model.Pod) {
	s.m[p] = struct{}{}
	s.peak = max(s.peak, len(s.m))
}

func (s *podSet) remove(p *model.Pod) {
	delete(s.m, p)
	if s.peak >= 1024 && len(s.m) < s.peak/4 {
		m := make(map[*model.Pod]struct{}, len(s.m))
		for q := range s.m {
			m[q] = struct{}{}
		}
		s.m, s.peak = m, len(m)
	}
}

func (s *podSet) len() int { return len(s.m) }
