package core

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The scheduler places pending pods on ready, schedulable nodes by their requests against the
// nodes' allocatable resources (as kube-scheduler does), honouring nodeSelector, required node
// affinity (on every label GKE puts on nodes, the hostname among them: R-SCHED-1), taints and
// tolerations, cordons and the pods-per-node limit, and prefers the nodes its preferred node
// affinity matches (R-SCHED-2).
//
// Nodes with the same labels, taints and allocatable (a pool's nodes of one machine shape in
// one zone) form a group, checked once per pod. Inside a group the schedulable nodes sit in a
// heap ordered by free CPU, so the default (least-allocated) choice is O(log n) and scheduling
// stays sublinear in cluster size. The optimize-utilization profile (R-CA-8) packs onto the
// most allocated node that fits, which scans the group.

const evSchedule = "scheduler.pass"

// schedIndex is the scheduler's view of a cluster's nodes.
type schedIndex struct {
	Groups map[string]*SchedGroup
	Nodes  map[string]*schedNode
	// ownerZone counts pods per owner per zone, to spread replicas across zones.
	OwnerZone map[string]map[string]int
	// sorted are the groups by key (SortedSchedGroups); queue is a scheduling pass's storage
	// for the pending pods, kept between passes.
	sorted []*SchedGroup
	queue  []queuedPod
}

// queuedPod is a pending pod in a scheduling pass, with its key.
type queuedPod struct {
	p   *model.Pod
	key string
}

// maxKeptQueue is the most pending pods whose storage a pass keeps for the next.
const maxKeptQueue = 4096

type SchedGroup struct {
	Key     string
	zone    string
	Labels  map[string]string
	Taints  []corev1.Taint
	alloc   model.Resources
	MaxPods int
	Heap    nodeHeap
	// registered counts members that are Kubernetes nodes (booted), for kube-scheduler's
	// "0/N nodes are available" message.
	Registered int
}

type schedNode struct {
	Name        string
	Group       *SchedGroup
	Free        model.Resources
	Pods        int
	Schedulable bool
	Registered  bool
	Idx         int // position in the group's heap, -1 when not in it
}

func (w *Core) buildSchedIndex(c *model.Cluster, ix *PodIndex) *schedIndex {
	s := &schedIndex{Groups: map[string]*SchedGroup{}, Nodes: map[string]*schedNode{}, OwnerZone: map[string]map[string]int{}}
	ix.Sched = s
	for _, name := range SortedNodeNames(c) {
		w.updateSchedNode(c, c.Nodes[name])
	}
	for _, p := range c.Pods {
		if p.Node != "" && p.OwnerKind == model.OwnerDeployment {
			s.countOwnerZone(c.Nodes[p.Node], p, 1)
		}
	}
	return s
}

// groupKey identifies nodes the scheduler treats alike.
func groupKey(n *model.Node) string {
	return n.Pool + "|" + n.Zone + "|" + n.Spec.MachineType + "|" + n.Spec.ImageType + "|" + n.Spec.DiskType +
		"|" + strconv.FormatBool(n.Spec.Spot) + "|" + strconv.FormatBool(n.Spec.Preemptible) + n.Own.Key()
}

func (s *schedIndex) group(w *Core, c *model.Cluster, n *model.Node) *SchedGroup {
	key := groupKey(n)
	if g, ok := s.Groups[key]; ok {
		return g
	}
	nodeLabels, nodeTaints := w.K8sNodeLabelsAndTaints(c, n)
	lbls := map[string]string{}
	for k, v := range nodeLabels {
		if k != model.LabelHostname { // each node's own: nodeLabels
			lbls[k] = v
		}
	}
	var taints []corev1.Taint
	for _, t := range nodeTaints {
		if t.Key != "node.kubernetes.io/unschedulable" {
			taints = append(taints, t)
		}
	}
	maxPods := catalog.DefaultMaxPods
	if p := c.Pool(n.Pool); p != nil {
		maxPods = int(p.MaxPodsPerNode)
	}
	g := &SchedGroup{Key: key, zone: n.Zone, Labels: lbls, Taints: taints, MaxPods: maxPods,
		alloc: c.NodeAllocatable(n)}
	s.Groups[key] = g
	return g
}

// SchedNodeChanged updates the scheduler's view of node n (new, state change, cordon, gone)
// and queues a scheduling pass when the node can take pods.
func (w *Core) SchedNodeChanged(c *model.Cluster, n *model.Node) {
	if w.updateSchedNode(c, n) {
		w.QueueSchedule(c)
	}
}

// updateSchedNode updates the scheduler's view of node n and says whether it is schedulable.
// Building the view calls it for every node; it has no other effect, so that a view rebuilt
// after a restore changes nothing the original did not.
func (w *Core) updateSchedNode(c *model.Cluster, n *model.Node) bool {
	ix, ok := w.PodIndexes[c]
	if !ok || ix.Sched == nil {
		return false // built on first use
	}
	s := ix.Sched
	sn := s.Nodes[n.Name]
	present := c.Nodes[n.Name] != nil
	if sn == nil {
		if !present {
			return false
		}
		g := s.group(w, c, n)
		sn = &schedNode{Name: n.Name, Group: g, Idx: -1, Free: g.alloc}
		s.Nodes[n.Name] = sn
	}
	if !present {
		s.forget(sn)
		return false
	}
	on := ix.OnNode(n)
	sn.Free = sn.Group.alloc.Sub(on.Requested)
	sn.Pods = len(on.Pods)
	sn.Schedulable = n.State == model.NodeReady && !n.Unschedulable
	if reg := n.State != model.NodeProvisioning; reg != sn.Registered {
		sn.Registered = reg
		if reg {
			sn.Group.Registered++
		} else {
			sn.Group.Registered--
		}
	}
	switch {
	case sn.Schedulable && sn.Idx < 0:
		sn.Group.Heap.push(sn)
	case !sn.Schedulable && sn.Idx >= 0:
		sn.Group.Heap.remove(sn.Idx)
	case sn.Idx >= 0:
		sn.Group.Heap.fix(sn.Idx)
	}
	return sn.Schedulable
}

// forget takes sn out of the scheduler's view: its group's heap and count of registered
// nodes, and the nodes by name (a node gone, or filed again in another group).
func (s *schedIndex) forget(sn *schedNode) {
	if sn.Idx >= 0 {
		sn.Group.Heap.remove(sn.Idx)
	}
	if sn.Registered {
		sn.Group.Registered--
	}
	delete(s.Nodes, sn.Name)
}

// DropSchedIndex forgets the scheduler's groups (pool labels or taints changed in place).
func (w *Core) DropSchedIndex(c *model.Cluster) {
	if ix, ok := w.PodIndexes[c]; ok {
		ix.Sched = w.buildSchedIndex(c, ix)
		w.QueueSchedule(c)
	}
}

// countOwnerZone counts bound pod p in or out (d) of its owner's pods in the zone of n, its
// node (the cluster's, or nil: a pod on a node the cluster does not have counts in no zone).
func (s *schedIndex) countOwnerZone(n *model.Node, p *model.Pod, d int) {
	if p.OwnerKind != model.OwnerDeployment || n == nil {
		return
	}
	key := p.OwnerKey()
	zones := s.OwnerZone[key]
	if zones == nil {
		zones = map[string]int{}
		s.OwnerZone[key] = zones
	}
	zones[n.Zone] += d
}

// QueueSchedule schedules one scheduling pass at the current instant.
func (w *Core) QueueSchedule(c *model.Cluster) {
	ix := w.PodIndex(c)
	if ix.ScheduleQueued || ix.Pending.Len() == 0 {
		return
	}
	ix.ScheduleQueued = true
	w.engine.Schedule(0, model.Event{Kind: evSchedule, Cluster: c.Key()})
}

func (w *Core) registerSchedulerHandlers() {
	w.engine.On(evSchedule, func(ev model.Event) {
		if c := w.st.Clusters[ev.Cluster]; c != nil {
			w.PodIndex(c).ScheduleQueued = false
			w.schedulePending(c)
		}
	})
}

// SortedSchedGroups are the scheduler's node groups by key, as a scheduling pass and the
// autoscaler's shadow scheduling walk them. Groups are only ever added (a rebuild of the view
// starts a new list), so the list is sorted again only when one was; a new list is made then,
// so that one handed out before never changes. Callers must not change it.
func (ix *PodIndex) SortedSchedGroups() []*SchedGroup {
	s := ix.Sched
	if len(s.sorted) != len(s.Groups) {
		s.sorted = slices.SortedFunc(maps.Values(s.Groups), func(a, b *SchedGroup) int { return strings.Compare(a.Key, b.Key) })
	}
	return s.sorted
}

// schedulePending places every pending pod it can, highest priority first, then oldest.
func (w *Core) schedulePending(c *model.Cluster) {
	ix := w.PodIndex(c)
	s := ix.Sched
	queue := s.queue[:0]
	if n := ix.Pending.Len(); cap(queue) < n {
		queue = make([]queuedPod, 0, n)
	}
	for p := range ix.Pending.M {
		queue = append(queue, queuedPod{p, p.Key()})
	}
	defer func() { // keep the storage, not the pods
		clear(queue)
		if cap(queue) <= maxKeptQueue {
			s.queue = queue[:0]
		}
	}()
	// Keys are unique: the order is total, whatever the sort.
	slices.SortFunc(queue, func(a, b queuedPod) int {
		if a.p.Priority != b.p.Priority {
			return cmp.Compare(b.p.Priority, a.p.Priority)
		}
		if a.p.CreateTime != b.p.CreateTime {
			return cmp.Compare(a.p.CreateTime, b.p.CreateTime)
		}
		return strings.Compare(a.key, b.key)
	})
	groups := ix.SortedSchedGroups()
	separate := c.Autopilot && w.runsExtended(c)
	// Pods of one template that did not fit make the rest of that template fail too.
	failed := map[Class]string{}
	for _, q := range queue {
		p := q.p
		sig := PodClass(p)
		if msg, ok := failed[sig]; ok {
			w.markUnschedulable(c, p, msg)
			continue
		}
		node, msg := w.pickNode(c, ix, groups, p, p.Packs(), separate || (c.Autopilot && IsExtended(p)))
		if node == nil {
			failed[sig] = msg
			w.markUnschedulable(c, p, msg)
			continue
		}
		w.bindPod(c, p, node)
		separate = separate || (c.Autopilot && IsExtended(p))
	}
}

func (w *Core) markUnschedulable(c *model.Cluster, p *model.Pod, msg string) {
	if p.Unschedulable() == msg {
		return
	}
	p.SetUnschedulable(msg)
	w.TouchPod(c, p)
	w.engine.Record("FailedScheduling", c, "", "", "", "pod %s: %s", p.Key(), msg)
}

// pickNode chooses the node for p, or explains why there is none in kube-scheduler's words.
// separate says Autopilot's separation of extended-duration pods applies (R-EXT-5).
func (w *Core) pickNode(c *model.Cluster, ix *PodIndex, groups []*SchedGroup, p *model.Pod, mostAllocated, separate bool) (*schedNode, string) {
	spec := w.PodSpec(c, p)
	reasons := map[string]int{}
	total := 0
	var best *schedNode
	bestSpread := 0
	bestPref := 0
	spread := ix.Sched.OwnerZone[p.OwnerKey()]
	byName := model.SelectsByName(spec)
	for _, g := range groups {
		registered := g.Registered
		total += registered
		if registered == 0 {
			continue
		}
		why := g.Rejects(spec)
		if byName {
			why = g.untolerated(spec) // the selection is checked node by node (fit)
		}
		if why != "" {
			reasons[why] += registered
			continue
		}
		if unsched := registered - g.Heap.Len(); unsched > 0 {
			reasons["node(s) were unschedulable"] += unsched
		}
		var selects func(*schedNode) string
		if byName || (separate && Separable(p)) {
			selects = func(n *schedNode) string {
				if byName && !g.selects(spec, n) {
					return msgNodeSelector
				}
				if separate && w.SeparatedFrom(c, p, n.Name) {
					return msgSeparated
				}
				return ""
			}
		}
		cand := g.fit(p.Req, mostAllocated, reasons, selects)
		if cand == nil {
			continue
		}
		lbls := g.Labels
		if byName {
			lbls = g.nodeLabels(cand)
		}
		pref := model.PreferredAffinityScore(spec, lbls, cand.Name)
		if best == nil || pref > bestPref || (pref == bestPref && better(cand, best, spread[g.zone], bestSpread, mostAllocated)) {
			best, bestSpread, bestPref = cand, spread[g.zone], pref
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
	fa := float64(a.Free.MilliCPU) / float64(max(a.Group.alloc.MilliCPU, 1))
	fb := float64(b.Free.MilliCPU) / float64(max(b.Group.alloc.MilliCPU, 1))
	if fa != fb {
		if mostAllocated {
			return fa < fb
		}
		return fa > fb
	}
	if aSpread != bSpread {
		return aSpread < bSpread
	}
	return a.Name < b.Name
}

// msgNodeSelector is kube-scheduler's reason for nodes that a pod's node selector or required
// node affinity does not select.
const msgNodeSelector = "node(s) didn't match Pod's node affinity/selector"

// Rejects says why no node of the group can take a pod with this spec, or "": its node selector
// and required node affinity (R-SCHED-1), then its tolerations.
func (g *SchedGroup) Rejects(spec *corev1.PodSpec) string {
	if !model.SelectsNode(spec, g.Labels, g.Labels[model.LabelHostname]) {
		return msgNodeSelector
	}
	return g.untolerated(spec)
}

// untolerated names the first taint of the group that the pod does not tolerate, or "".
func (g *SchedGroup) untolerated(spec *corev1.PodSpec) string {
	for _, t := range g.Taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule || model.Tolerates(spec.Tolerations, t) || computeClassTolerated(spec, t) {
			continue
		}
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
	}
	return ""
}

// nodeLabels are the labels of one node of the group: the group's and its hostname.
func (g *SchedGroup) nodeLabels(n *schedNode) map[string]string {
	lbls := maps.Clone(g.Labels)
	lbls[model.LabelHostname] = n.Name
	return lbls
}

// selects says whether a pod that selects nodes by name (model.SelectsByName) may go on node n.
func (g *SchedGroup) selects(spec *corev1.PodSpec, n *schedNode) bool {
	if want, ok := spec.NodeSelector[model.LabelHostname]; ok && want != n.Name {
		return false
	}
	return model.SelectsNode(spec, g.nodeLabels(n), n.Name)
}

// fit finds the node of the group for a pod's requests: the one with the most free CPU
// (least allocated) or, packing, the one with the least free CPU that fits. It counts why the
// others do not fit. selects, when not nil, says why the pod may not go on a node ("" when it
// may): its selection of nodes by name, Autopilot's separation.
func (g *SchedGroup) fit(req model.Resources, mostAllocated bool, reasons map[string]int, selects func(*schedNode) string) *schedNode {
	if !mostAllocated && selects == nil && g.Heap.Len() > 0 {
		top := g.Heap[0].Node
		if req.Fits(top.Free) && top.Pods < g.MaxPods {
			return top
		}
		if req.MilliCPU > top.Free.MilliCPU {
			// The node with the most free CPU cannot take it: none can.
			reasons["Insufficient cpu"] += g.Heap.Len()
			return nil
		}
	}
	var best *schedNode
	for _, e := range g.Heap {
		n := e.Node
		why := ""
		if selects != nil {
			why = selects(n)
		}
		switch {
		case why != "":
			reasons[why]++
		case n.Pods >= g.MaxPods:
			reasons["Too many pods"]++
		case req.MilliCPU > n.Free.MilliCPU:
			reasons["Insufficient cpu"]++
		case req.MemoryBytes > n.Free.MemoryBytes:
			reasons["Insufficient memory"]++
		case best == nil || packs(n, best, mostAllocated):
			best = n
		}
	}
	return best
}

func packs(a, b *schedNode, mostAllocated bool) bool {
	if a.Free.MilliCPU != b.Free.MilliCPU {
		return (a.Free.MilliCPU < b.Free.MilliCPU) == mostAllocated
	}
	return a.Name < b.Name
}

// bindPod places p on node sn; its containers start a few seconds later.
func (w *Core) bindPod(c *model.Cluster, p *model.Pod, sn *schedNode) {
	ix := w.PodIndex(c)
	ix.Pending.remove(p)
	w.PDBTrack(c, p, false)
	p.Node = sn.Name
	p.IP = w.allocatePodIP(c)
	p.SetUnschedulable("")
	w.TouchPod(c, p)
	ix.bind(p)
	n := c.Nodes[sn.Name] // once: nothing below changes the cluster's nodes
	ix.Sched.countOwnerZone(n, p, 1)
	w.PDBTrack(c, p, true)
	w.SchedNodeChanged(c, n)
	w.TouchNode(c, n)
	w.engine.RecordPodLine("Scheduled", c, n.Pool, sn.Name, model.ScheduledLine, p.Key(), 0)
	w.StartContainers(c, p)
}

// How long a bound pod's containers take to start: PodStartBase plus up to PodStartSpread.
const (
	PodStartBase   = 2 * time.Second
	PodStartSpread = 6 * time.Second
)

// StartContainers schedules the start of a bound pod's containers, a few seconds from now.
func (w *Core) StartContainers(c *model.Cluster, p *model.Pod) {
	w.engine.Schedule(w.engine.Jitter(PodStartBase, PodStartSpread), model.PodEvent(EvPodStarted, c.Key(), p))
}

// Class names the pods that are alike to the scheduler: a controller's pods of one template.
// A bare pod is a class of its own.
type Class struct {
	ownerKind       model.OwnerKind
	owner, template string
}

// PodClass is pod p's class.
func PodClass(p *model.Pod) Class {
	if p.OwnerKind == 0 {
		return Class{owner: p.Key()}
	}
	return Class{p.OwnerKind, p.OwnerKey(), p.Template}
}

// Autopilot places extended-duration pods on nodes of their own, away from other workloads'
// pods (R-EXT-5); DaemonSet and kube-system pods run beside either.
const msgSeparated = "node(s) run Pods that Autopilot keeps apart from extended-duration Pods"

// IsExtended says whether p asked for extended run duration (R-EXT-1).
func IsExtended(p *model.Pod) bool { return p.Annotation[SafeToEvictAnnotation] == "false" }

// Separable says whether Autopilot's separation concerns p: a user workload's pod.
func Separable(p *model.Pod) bool {
	return p.OwnerKind != model.OwnerDaemonSet && p.Namespace() != "kube-system"
}

// SeparatedFrom says whether, on Autopilot, p may not run on node because of the pods there: an
// extended-duration pod beside another workload's pod, or an ordinary pod beside an
// extended-duration one (R-EXT-5).
func (w *Core) SeparatedFrom(c *model.Cluster, p *model.Pod, node string) bool {
	if !c.Autopilot || !Separable(p) {
		return false
	}
	for _, q := range w.PodIndex(c).On(node).Pods {
		if q != p && !q.Terminating && Separable(q) && IsExtended(q) != IsExtended(p) {
			return true
		}
	}
	return false
}

// runsExtended says whether any of the cluster's pods asked for extended run duration.
func (w *Core) runsExtended(c *model.Cluster) bool {
	for _, p := range c.Pods {
		if IsExtended(p) && !p.Terminating {
			return true
		}
	}
	return false
}
