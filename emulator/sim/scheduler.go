package sim

import (
	"container/heap"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The scheduler places pending pods on ready, schedulable nodes by their requests against the
// nodes' allocatable resources (as kube-scheduler does), honouring nodeSelector, required node
// affinity, taints and tolerations, cordons and the pods-per-node limit.
//
// Nodes with the same labels, taints and allocatable (a pool's nodes of one machine shape in
// one zone) form a group, checked once per pod. Inside a group the schedulable nodes sit in a
// heap ordered by free CPU, so the default (least-allocated) choice is O(log n) and scheduling
// stays sublinear in cluster size. The optimize-utilization profile (R-CA-8) packs onto the
// most allocated node that fits, which scans the group.

const evSchedule = "scheduler.pass"

// schedIndex is the scheduler's view of a cluster's nodes.
type schedIndex struct {
	groups map[string]*schedGroup
	nodes  map[string]*schedNode
	// ownerZone counts pods per owner per zone, to spread replicas across zones.
	ownerZone map[string]map[string]int
}

type schedGroup struct {
	key     string
	zone    string
	labels  map[string]string
	taints  []corev1.Taint
	alloc   model.Resources
	maxPods int
	heap    nodeHeap
	members map[string]*schedNode
	// registered counts members that are Kubernetes nodes (booted), for kube-scheduler's
	// "0/N nodes are available" message.
	registered int
}

type schedNode struct {
	name        string
	group       *schedGroup
	free        model.Resources
	pods        int
	schedulable bool
	registered  bool
	idx         int // position in the group's heap, -1 when not in it
}

// nodeHeap orders nodes by free CPU, then free memory, then name.
type nodeHeap []*schedNode

func (h nodeHeap) Len() int { return len(h) }
func (h nodeHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.free.MilliCPU != b.free.MilliCPU {
		return a.free.MilliCPU > b.free.MilliCPU
	}
	if a.free.MemoryBytes != b.free.MemoryBytes {
		return a.free.MemoryBytes > b.free.MemoryBytes
	}
	return a.name < b.name
}
func (h nodeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].idx = i; h[j].idx = j }
func (h *nodeHeap) Push(x any)   { n := x.(*schedNode); n.idx = len(*h); *h = append(*h, n) }
func (h *nodeHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	n.idx = -1
	return n
}

func (w *World) buildSchedIndex(c *model.Cluster, ix *k8sIndex) *schedIndex {
	s := &schedIndex{groups: map[string]*schedGroup{}, nodes: map[string]*schedNode{}, ownerZone: map[string]map[string]int{}}
	ix.sched = s
	for _, name := range sortedNodeNames(c) {
		w.updateSchedNode(c, c.Nodes[name])
	}
	for _, p := range c.Pods {
		if p.Node != "" {
			s.countOwnerZone(c, p, 1)
		}
	}
	return s
}

// groupKey identifies nodes the scheduler treats alike.
func groupKey(n *model.Node) string {
	return n.Pool + "|" + n.Zone + "|" + n.Spec.MachineType + "|" + n.Spec.ImageType + "|" + n.Spec.DiskType +
		fmt.Sprintf("|%v|%v", n.Spec.Spot, n.Spec.Preemptible) + n.Own.Key()
}

func (s *schedIndex) group(w *World, c *model.Cluster, n *model.Node) *schedGroup {
	key := groupKey(n)
	if g, ok := s.groups[key]; ok {
		return g
	}
	k8sNode := w.RenderK8sNode(c, n)
	lbls := map[string]string{}
	for k, v := range k8sNode.Labels {
		if k != "kubernetes.io/hostname" {
			lbls[k] = v
		}
	}
	var taints []corev1.Taint
	for _, t := range k8sNode.Spec.Taints {
		if t.Key != "node.kubernetes.io/unschedulable" {
			taints = append(taints, t)
		}
	}
	maxPods := catalog.DefaultMaxPods
	if p := c.Pool(n.Pool); p != nil {
		maxPods = int(p.MaxPodsPerNode)
	}
	g := &schedGroup{key: key, zone: n.Zone, labels: lbls, taints: taints, maxPods: maxPods, members: map[string]*schedNode{},
		alloc: c.NodeAllocatable(n)}
	s.groups[key] = g
	return g
}

// schedNodeChanged updates the scheduler's view of node n (new, state change, cordon, gone)
// and queues a scheduling pass when the node can take pods.
func (w *World) schedNodeChanged(c *model.Cluster, n *model.Node) {
	if w.updateSchedNode(c, n) {
		w.queueSchedule(c)
	}
}

// updateSchedNode updates the scheduler's view of node n and says whether it is schedulable.
// Building the view calls it for every node; it has no other effect, so that a view rebuilt
// after a restore changes nothing the original did not.
func (w *World) updateSchedNode(c *model.Cluster, n *model.Node) bool {
	ix, ok := w.k8s[c]
	if !ok || ix.sched == nil {
		return false // built on first use
	}
	s := ix.sched
	sn := s.nodes[n.Name]
	if sn == nil {
		if c.Nodes[n.Name] == nil {
			return false
		}
		g := s.group(w, c, n)
		sn = &schedNode{name: n.Name, group: g, idx: -1, free: g.alloc}
		s.nodes[n.Name] = sn
		g.members[n.Name] = sn
	}
	if c.Nodes[n.Name] == nil { // forgotten
		if sn.idx >= 0 {
			heap.Remove(&sn.group.heap, sn.idx)
		}
		if sn.registered {
			sn.group.registered--
		}
		delete(sn.group.members, n.Name)
		delete(s.nodes, n.Name)
		return false
	}
	sn.free = sn.group.alloc.Sub(ix.requested[n.Name])
	sn.pods = len(ix.podsOnNode[n.Name])
	sn.schedulable = n.State == model.NodeReady && !n.Unschedulable
	if reg := n.State != model.NodeProvisioning; reg != sn.registered {
		sn.registered = reg
		if reg {
			sn.group.registered++
		} else {
			sn.group.registered--
		}
	}
	switch {
	case sn.schedulable && sn.idx < 0:
		heap.Push(&sn.group.heap, sn)
	case !sn.schedulable && sn.idx >= 0:
		heap.Remove(&sn.group.heap, sn.idx)
	case sn.idx >= 0:
		heap.Fix(&sn.group.heap, sn.idx)
	}
	return sn.schedulable
}

// dropSchedIndex forgets the scheduler's groups (pool labels or taints changed in place).
func (w *World) dropSchedIndex(c *model.Cluster) {
	if ix, ok := w.k8s[c]; ok {
		ix.sched = w.buildSchedIndex(c, ix)
		w.queueSchedule(c)
	}
}

func (s *schedIndex) countOwnerZone(c *model.Cluster, p *model.Pod, d int) {
	if p.OwnerKind != model.OwnerDeployment {
		return
	}
	n := c.Nodes[p.Node]
	if n == nil {
		return
	}
	key := p.Namespace + "/" + p.Owner
	if s.ownerZone[key] == nil {
		s.ownerZone[key] = map[string]int{}
	}
	s.ownerZone[key][n.Zone] += d
}

// queueSchedule schedules one scheduling pass at the current instant.
func (w *World) queueSchedule(c *model.Cluster) {
	ix := w.podIndex(c)
	if ix.scheduleQueued || ix.pending.len() == 0 {
		return
	}
	ix.scheduleQueued = true
	w.engine.Schedule(0, model.Event{Kind: evSchedule, Cluster: c.Key()})
}

func (w *World) registerSchedulerHandlers() {
	w.engine.On(evSchedule, func(ev model.Event) {
		if c := w.st.Clusters[ev.Cluster]; c != nil {
			w.podIndex(c).scheduleQueued = false
			w.schedulePending(c)
		}
	})
}

// schedulePending places every pending pod it can, highest priority first, then oldest.
func (w *World) schedulePending(c *model.Cluster) {
	ix := w.podIndex(c)
	type queued struct {
		p   *model.Pod
		key string
	}
	queue := make([]queued, 0, ix.pending.len())
	for p := range ix.pending.m {
		queue = append(queue, queued{p, p.Key()})
	}
	sort.Slice(queue, func(i, j int) bool {
		a, b := queue[i].p, queue[j].p
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if !a.CreateTime.Equal(b.CreateTime) {
			return a.CreateTime.Before(b.CreateTime)
		}
		return queue[i].key < queue[j].key
	})
	groups := make([]*schedGroup, 0, len(ix.sched.groups))
	for _, g := range ix.sched.groups {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].key < groups[j].key })
	// Pods of one template that did not fit make the rest of that template fail too.
	failed := map[string]string{}
	for _, q := range queue {
		p := q.p
		sig := podClass(p)
		if msg, ok := failed[sig]; ok {
			w.markUnschedulable(c, p, msg)
			continue
		}
		node, msg := w.pickNode(c, ix, groups, p, p.Packs())
		if node == nil {
			failed[sig] = msg
			w.markUnschedulable(c, p, msg)
			continue
		}
		w.bindPod(c, p, node)
	}
}

func (w *World) markUnschedulable(c *model.Cluster, p *model.Pod, msg string) {
	if p.Unschedulable == msg {
		return
	}
	p.Unschedulable = msg
	w.touchPod(c, p)
	w.engine.Record("FailedScheduling", c, "", "", "", "pod %s: %s", p.Key(), msg)
}

// pickNode chooses the node for p, or explains why there is none in kube-scheduler's words.
func (w *World) pickNode(c *model.Cluster, ix *k8sIndex, groups []*schedGroup, p *model.Pod, mostAllocated bool) (*schedNode, string) {
	spec := w.podSpec(c, p)
	reasons := map[string]int{}
	total := 0
	var best *schedNode
	bestSpread := 0
	spread := ix.sched.ownerZone[p.Namespace+"/"+p.Owner]
	for _, g := range groups {
		registered := g.registered
		total += registered
		if registered == 0 {
			continue
		}
		if why := g.rejects(spec); why != "" {
			reasons[why] += registered
			continue
		}
		if unsched := registered - g.heap.Len(); unsched > 0 {
			reasons["node(s) were unschedulable"] += unsched
		}
		cand := g.fit(p.Req, mostAllocated, reasons)
		if cand == nil {
			continue
		}
		if best == nil || better(cand, best, spread[g.zone], bestSpread, mostAllocated) {
			best, bestSpread = cand, spread[g.zone]
		}
	}
	if best != nil {
		return best, ""
	}
	if total == 0 {
		return nil, "no nodes available to schedule pods"
	}
	var parts []string
	for why, n := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, why))
	}
	sort.Strings(parts)
	return nil, fmt.Sprintf("0/%d nodes are available: %s.", total, strings.Join(parts, ", "))
}

// better compares two candidate nodes of different groups: the scoring strategy first
// (least or most allocated, by CPU share), then fewer replicas of the same owner in the zone.
func better(a, b *schedNode, aSpread, bSpread int, mostAllocated bool) bool {
	fa := float64(a.free.MilliCPU) / float64(max(a.group.alloc.MilliCPU, 1))
	fb := float64(b.free.MilliCPU) / float64(max(b.group.alloc.MilliCPU, 1))
	if fa != fb {
		if mostAllocated {
			return fa < fb
		}
		return fa > fb
	}
	if aSpread != bSpread {
		return aSpread < bSpread
	}
	return a.name < b.name
}

// rejects says why no node of the group can take a pod with this spec, or "".
func (g *schedGroup) rejects(spec *corev1.PodSpec) string {
	for k, v := range spec.NodeSelector {
		if k == "kubernetes.io/hostname" {
			continue
		}
		if g.labels[k] != v {
			return "node(s) didn't match Pod's node affinity/selector"
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if !model.MatchesNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, g.labels) {
			return "node(s) didn't match Pod's node affinity/selector"
		}
	}
	for _, t := range g.taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule || model.Tolerates(spec.Tolerations, t) || computeClassTolerated(spec, t) {
			continue
		}
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
	}
	return ""
}

// fit finds the node of the group for a pod's requests: the one with the most free CPU
// (least allocated) or, packing, the one with the least free CPU that fits. It counts why the
// others do not fit.
func (g *schedGroup) fit(req model.Resources, mostAllocated bool, reasons map[string]int) *schedNode {
	if !mostAllocated && g.heap.Len() > 0 {
		top := g.heap[0]
		if req.Fits(top.free) && top.pods < g.maxPods {
			return top
		}
		if req.MilliCPU > top.free.MilliCPU {
			// The node with the most free CPU cannot take it: none can.
			reasons["Insufficient cpu"] += g.heap.Len()
			return nil
		}
	}
	var best *schedNode
	for _, n := range g.heap {
		switch {
		case n.pods >= g.maxPods:
			reasons["Too many pods"]++
		case req.MilliCPU > n.free.MilliCPU:
			reasons["Insufficient cpu"]++
		case req.MemoryBytes > n.free.MemoryBytes:
			reasons["Insufficient memory"]++
		case best == nil || packs(n, best, mostAllocated):
			best = n
		}
	}
	return best
}

func packs(a, b *schedNode, mostAllocated bool) bool {
	if a.free.MilliCPU != b.free.MilliCPU {
		return (a.free.MilliCPU < b.free.MilliCPU) == mostAllocated
	}
	return a.name < b.name
}

// bindPod places p on node sn; its containers start a few seconds later.
func (w *World) bindPod(c *model.Cluster, p *model.Pod, sn *schedNode) {
	ix := w.podIndex(c)
	ix.pending.remove(p)
	w.pdbTrack(c, p, false)
	p.Node = sn.name
	p.IP = w.allocatePodIP(c)
	p.Unschedulable = ""
	w.touchPod(c, p)
	ix.bind(p)
	ix.sched.countOwnerZone(c, p, 1)
	w.pdbTrack(c, p, true)
	w.schedNodeChanged(c, c.Nodes[sn.name])
	w.touchNode(c, c.Nodes[sn.name])
	w.engine.Record("Scheduled", c, c.Nodes[sn.name].Pool, sn.name, "", "pod %s scheduled to %s", p.Key(), sn.name)
	w.engine.Schedule(w.engine.Jitter(podStartBase, podStartSpread), model.Event{Kind: evPodStarted, Cluster: c.Key(), Node: p.Key()})
}

const (
	podStartBase   = 2 * time.Second
	podStartSpread = 6 * time.Second
)

// podClass names the pods that are alike to the scheduler: a controller's pods of one
// template. A bare pod is a class of its own.
func podClass(p *model.Pod) string {
	if p.OwnerKind == "" {
		return p.Key()
	}
	return p.OwnerKind + "/" + p.Namespace + "/" + p.Owner + "/" + p.Template
}
