package core

import (
	"iter"
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
	// slots hold what is bound to each node with pods (NodePods; read with On), side by side
	// in one array, so that a pass over the nodes reads them from one place; nodes gives a
	// node's slot by its name, so that binding a pod looks its node up once, and a node's
	// handle (model.Node.IndexSlot, OnNode) gives it without hashing the name. free are the
	// slots to reuse (zeroed).
	nodes map[string]int32
	slots []NodePods
	free  []int32
	c     *model.Cluster
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
	// flagged holds the bound pods Core.FlagPod flags (NodePods.Flagged counts them per
	// node); flag is the cluster's flag.
	flagged map[*model.Pod]struct{}
	flag    func(*model.Pod) bool
	// sched is the scheduler's view of the nodes.
	Sched *schedIndex
	// scheduleQueued says a scheduling pass is already scheduled for this instant.
	ScheduleQueued bool
	// syncQueued: deployments with a controller pass already scheduled.
	SyncQueued map[string]bool
	// removed counts the pods removed from the cluster's map since it was last built
	// (compactPods).
	removed int
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
		nodes: map[string]int32{}, c: c,
		PodsOf: map[string]map[*model.Pod]struct{}{}, TmplCounts: map[string]map[string]*model.TemplateCount{}, Pending: newPodSet(),
		Selectors: map[any]labels.Selector{}, SyncQueued: map[string]bool{},
		flagged: map[*model.Pod]struct{}{},
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

// NodePods is what is bound to a node.
type NodePods struct {
	// Pods are the pods bound to it, by namespace and name.
	Pods PodList
	// Requested is what they request (terminating ones included until they are gone, as the
	// kubelet does).
	Requested model.Resources
	// Load is what its pods other than DaemonSet pods request, and how many they are (what the
	// autoscaler weighs a node by).
	Load nodeLoad
	// Flagged is how many of its pods Core.FlagPod flags (the cluster autoscaler's: pods it
	// must look at one by one before removing the node).
	Flagged int
	// node is the node the entry was made for (nil when the pod's node was not in the
	// cluster).
	node *model.Node
}

// On is what is bound to the node of that name (nothing, for a node without pods), as it is
// now.
func (ix *PodIndex) On(node string) NodePods {
	if s, ok := ix.nodes[node]; ok {
		return ix.slots[s]
	}
	return NodePods{}
}

// OnNode is On(n.Name), found through the node's handle when it has one.
func (ix *PodIndex) OnNode(n *model.Node) NodePods {
	if s := int(n.IndexSlot) - 1; s >= 0 && s < len(ix.slots) && ix.slots[s].node == n {
		return ix.slots[s]
	}
	return ix.On(n.Name)
}

// entry is the entry of the node named name, or nil. It is valid until the next newEntry,
// which may move the slots.
func (ix *PodIndex) entry(name string) *NodePods {
	if s, ok := ix.nodes[name]; ok {
		return &ix.slots[s]
	}
	return nil
}

// newEntry makes the entry of the node named name and gives the node (if it is the cluster's)
// its handle. The entry is valid until the next newEntry.
func (ix *PodIndex) newEntry(name string) *NodePods {
	var s int32
	if n := len(ix.free); n > 0 {
		s, ix.free = ix.free[n-1], ix.free[:n-1]
	} else {
		s = int32(len(ix.slots))
		ix.slots = append(ix.slots, NodePods{})
	}
	ix.nodes[name] = s
	e := &ix.slots[s]
	if e.node = ix.c.Nodes[name]; e.node != nil {
		e.node.IndexSlot = s + 1
	}
	return e
}

// dropEntry forgets the entry of the node named name.
func (ix *PodIndex) dropEntry(name string) {
	if s, ok := ix.nodes[name]; ok {
		ix.slots[s] = NodePods{}
		ix.free = append(ix.free, s)
		delete(ix.nodes, name)
	}
}

// Bound yields every node that has pods bound, with what is bound to it (in no order); what it
// yields is valid until the next bind, which may move the slots.
func (ix *PodIndex) Bound() iter.Seq2[string, *NodePods] {
	return func(yield func(string, *NodePods) bool) {
		for name, s := range ix.nodes {
			if !yield(name, &ix.slots[s]) {
				return
			}
		}
	}
}

func (ix *PodIndex) bind(p *model.Pod) {
	e := ix.entry(p.Node)
	if e == nil {
		e = ix.newEntry(p.Node)
	}
	e.Pods = e.Pods.insert(p)
	e.Requested = e.Requested.Add(p.Req)
	if p.OwnerKind != model.OwnerDaemonSet {
		e.Load = nodeLoad{e.Load.Req.Add(p.Req), e.Load.Pods + 1}
	}
	ix.countFlag(p, e)
}

// countFlag adds a bound pod to its node's flagged count if the flag says so.
func (ix *PodIndex) countFlag(p *model.Pod, e *NodePods) {
	if ix.flag != nil && ix.flag(p) {
		ix.flagged[p] = struct{}{}
		e.Flagged++
	}
}

// unflag takes a bound pod out of its node's flagged count.
func (ix *PodIndex) unflag(p *model.Pod, e *NodePods) {
	if _, ok := ix.flagged[p]; !ok {
		return
	}
	delete(ix.flagged, p)
	e.Flagged--
}

// ReflagPod counts a bound pod's flag again after a change to it (its annotations).
func (w *Core) ReflagPod(c *model.Cluster, p *model.Pod) {
	if ix := w.PodIndex(c); p.Node != "" {
		if e := ix.entry(p.Node); e != nil {
			ix.unflag(p, e)
			ix.countFlag(p, e)
		}
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
	if e := ix.entry(p.Node); p.Node != "" && e != nil {
		e.Pods = e.Pods.remove(p)
		e.Requested = e.Requested.Sub(p.Req)
		ix.unflag(p, e)
		if p.OwnerKind != model.OwnerDaemonSet {
			e.Load = nodeLoad{e.Load.Req.Sub(p.Req), e.Load.Pods - 1}
		}
		if len(e.Pods) == 0 {
			ix.dropEntry(p.Node)
		}
	}
	if p.OwnerKind == model.OwnerDeployment {
		delete(ix.PodsOf[p.OwnerKey()], p)
		ix.countTemplate(p, -1)
	}
}

// PodList is a list of pods kept in namespace and name order: walking it is deterministic
// without sorting it.
type PodList []*model.Pod

// comparePods orders pods by namespace, then name. Pods of one namespace (most comparisons)
// are ordered by their keys, which then differ only after the same "namespace/".
func comparePods(a, b *model.Pod) int {
	ka, kb, na := a.Key(), b.Key(), a.Namespace()
	if len(kb) > len(na) && kb[len(na)] == '/' && kb[:len(na)] == na {
		return strings.Compare(ka, kb)
	}
	return strings.Compare(na, b.Namespace())
}

func (l PodList) insert(p *model.Pod) PodList {
	i, found := slices.BinarySearchFunc(l, p, comparePods)
	if found {
		l[i] = p
		return l
	}
	if l == nil {
		// A node's list starts with room for 8 (a node runs GKE's 3 or 4 DaemonSet pods
		// beside its own): two allocations to reach 16 pods, not five.
		l = make(PodList, 0, 8)
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
