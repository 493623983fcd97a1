package core

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// Pod life: Pending (waiting for the scheduler) -> bound to a node -> Running and Ready once its
// containers start -> Terminating for its grace period after an eviction or deletion -> gone.
// Pods on a node whose VM is deleted go with it.

const (
	EvPodStarted = "pod.started"
	evPodGone    = "pod.gone"

	DefaultGraceSeconds = 30
)

func (w *Core) RegisterPodHandlers() {
	w.engine.On(EvPodStarted, w.onPodStarted)
	w.engine.On(evPodGone, w.onPodGone)
	w.registerSchedulerHandlers()
	w.registerDrainHandlers()
}

// PodSpec is the spec a pod runs: its own, or its owner's template.
func (w *Core) PodSpec(c *model.Cluster, p *model.Pod) *corev1.PodSpec {
	if p.Spec != nil {
		return p.Spec
	}
	switch p.OwnerKind {
	case model.OwnerDeployment:
		if d := c.Deployments[p.OwnerKey()]; d != nil {
			if t := d.Templates[p.Template]; t != nil {
				return &t.Spec
			}
		}
	case model.OwnerDaemonSet:
		if ds := c.DaemonSets[p.OwnerKey()]; ds != nil {
			return &ds.Spec.Template.Spec
		}
		if ds := catalog.SystemDaemonSetNamed(p.Owner); ds != nil {
			return &ds.Spec
		}
	}
	return &corev1.PodSpec{}
}

// EffectiveRequests is what the scheduler reserves for a pod: per resource, the larger of the
// sum of its containers' requests and the largest init container's request (R-CA-9 counts init
// containers too).
func EffectiveRequests(spec *corev1.PodSpec) model.Resources {
	var sum, initMax model.Resources
	for _, ct := range spec.Containers {
		sum = sum.Add(containerRequests(ct))
	}
	for _, ct := range spec.InitContainers {
		r := containerRequests(ct)
		initMax.MilliCPU = max(initMax.MilliCPU, r.MilliCPU)
		initMax.MemoryBytes = max(initMax.MemoryBytes, r.MemoryBytes)
	}
	return model.Resources{MilliCPU: max(sum.MilliCPU, initMax.MilliCPU), MemoryBytes: max(sum.MemoryBytes, initMax.MemoryBytes)}
}

func containerRequests(ct corev1.Container) model.Resources {
	var r model.Resources
	if q, ok := ct.Resources.Requests[corev1.ResourceCPU]; ok {
		r.MilliCPU = q.MilliValue()
	} else if q, ok := ct.Resources.Limits[corev1.ResourceCPU]; ok { // requests default to limits
		r.MilliCPU = q.MilliValue()
	}
	if q, ok := ct.Resources.Requests[corev1.ResourceMemory]; ok {
		r.MemoryBytes = q.Value()
	} else if q, ok := ct.Resources.Limits[corev1.ResourceMemory]; ok {
		r.MemoryBytes = q.Value()
	}
	return r
}

// PodPriority is a pod's priority: spec.priority as admission set it, or else the value of its
// PriorityClass (the cluster's globalDefault class when it names none; 0 when there is none),
// resolved as the API server's Priority admission does (R-SCHED-3).
func PodPriority(c *model.Cluster, spec *corev1.PodSpec) int32 {
	if spec.Priority != nil {
		return *spec.Priority
	}
	if spec.PriorityClassName == "" {
		_, v, _ := c.DefaultPriorityClass()
		return v
	}
	v, _, _ := c.PriorityClass(spec.PriorityClassName)
	return v
}

func GraceSeconds(spec *corev1.PodSpec) int64 {
	if spec.TerminationGracePeriodSeconds != nil {
		return *spec.TerminationGracePeriodSeconds
	}
	return DefaultGraceSeconds
}

// AddPod creates a pod; unless it is already bound (DaemonSet pods), it waits for the scheduler.
func (w *Core) AddPod(c *model.Cluster, p *model.Pod) {
	spec := w.PodSpec(c, p)
	p.UIDSalt = w.engine.RandUint32()
	p.Req = EffectiveRequests(spec)
	p.Priority = PodPriority(c, spec)
	if c.AutoscalingProfile == api.ProfileOptimizeUtilization && (spec.SchedulerName == "" || spec.SchedulerName == corev1.DefaultSchedulerName) {
		p.Rarely().Scheduler = model.OptimizeUtilizationScheduler // GKE's webhook, at the pod's creation (R-CA-8)
	}
	p.Phase = model.PodPending
	p.CreateTime = model.StampOf(w.st.Now)
	w.podCreated(c, p)
	// The indexes first: one built now, on first use, must not count the pod twice.
	ix := w.PodIndex(c)
	w.PDBTrack(c, p, true)
	if old := c.Pods[p.Key()]; old != nil && old != p {
		// A kube-proxy pod (named after its node) takes its key from a pod a user made with
		// that name: the pod under it leaves the cluster's map, as a removed one does.
		old.MarkRemoved()
	}
	c.Pods[p.Key()] = p
	ix.track(p)
	if p.Node != "" {
		n := c.Nodes[p.Node]
		if n != nil {
			p.IP, _ = model.ParseIP(n.InternalIP) // DaemonSet pods here use the host network
		}
		ix.Sched.countOwnerZone(n, p, 1)
		if n != nil {
			w.SchedNodeChanged(c, n)
			w.TouchNode(c, n)
		}
		w.StartContainers(c, p)
		return
	}
	w.QueueSchedule(c)
}

// podEvent resolves the cluster and pod of an event; either may be gone.
func (w *Core) podEvent(ev model.Event) (*model.Cluster, *model.Pod) {
	c := w.st.Clusters[ev.Cluster]
	if c == nil {
		return nil, nil
	}
	return c, ev.PodIn(c)
}

func (w *Core) onPodStarted(ev model.Event) {
	c, p := w.podEvent(ev)
	if p == nil || p.Terminating || p.Node == "" || p.Phase == model.PodRunning {
		return
	}
	if w.waitForMounts(c, p) {
		return
	}
	w.PDBTrack(c, p, false)
	ix := w.PodIndex(c)
	ix.countTemplate(p, -1)
	p.Phase = model.PodRunning
	p.Ready = true
	ix.countTemplate(p, 1)
	p.StartTime = model.StampOf(w.st.Now)
	p.ReadyTime = p.StartTime
	w.TouchPod(c, p)
	w.PDBTrack(c, p, true)
	w.engine.EmitPodChanged(c, p, engine.PodStarted)
}

// TerminatePod starts a pod's graceful termination; it is gone after grace. A pod not yet on a
// node goes at once.
func (w *Core) TerminatePod(c *model.Cluster, p *model.Pod, grace time.Duration) {
	if p.Terminating {
		// A shorter grace (a force deletion) can cut a termination short.
		if w.st.Now.Add(grace).Before(p.GoneTime()) {
			p.Rarely().GoneTime = model.StampOf(w.st.Now.Add(grace))
			w.engine.Schedule(grace, model.PodEvent(evPodGone, c.Key(), p))
		}
		return
	}
	w.PDBTrack(c, p, false)
	ix := w.PodIndex(c)
	ix.countTemplate(p, -1)
	p.Terminating = true
	p.Ready = false
	ix.countTemplate(p, 1)
	p.Rarely().DeletionTime = model.StampOf(w.st.Now)
	w.TouchPod(c, p)
	if p.Node == "" {
		w.removePod(c, p)
		return
	}
	p.Rarely().GoneTime = model.StampOf(w.st.Now.Add(grace))
	w.engine.EmitPodChanged(c, p, engine.PodTerminating)
	w.engine.Schedule(grace, model.PodEvent(evPodGone, c.Key(), p))
}

func (w *Core) onPodGone(ev model.Event) {
	c, p := w.podEvent(ev)
	if p == nil || !p.Terminating || w.st.Now.Before(p.GoneTime()) {
		return
	}
	w.removePod(c, p)
}

// removePod forgets a pod and frees its node's resources.
func (w *Core) removePod(c *model.Cluster, p *model.Pod) {
	ix := w.PodIndex(c)
	w.PDBTrack(c, p, false)
	n := c.Nodes[p.Node] // nil for a pod on no node, or on one the cluster does not have
	ix.Sched.countOwnerZone(n, p, -1)
	ix.untrack(p)
	if p.Removed() {
		// p had already left the map (its key given to another pod by AddPod): the pod under
		// its key leaves with it.
		if other := c.Pods[p.Key()]; other != nil {
			other.MarkRemoved()
		}
	}
	delete(c.Pods, p.Key())
	p.MarkRemoved()
	ix.removed++
	w.podRemoved(c, p, c.NextRV())
	if n != nil {
		w.SchedNodeChanged(c, n)
		w.TouchNode(c, n)
		if n.Drain != nil {
			w.engine.Schedule(0, model.Event{Kind: evDrainAttempt, Cluster: c.Key(), Node: n.Name})
		}
	}
	w.QueueSchedule(c)
	w.engine.EmitPodChanged(c, p, engine.PodRemoved)
}

// NodeGone removes every pod of a deleted node at once (their VM is gone).
func (w *Core) NodeGone(c *model.Cluster, node string) {
	ix, ok := w.PodIndexes[c]
	if !ok {
		ix = w.PodIndex(c)
	}
	var buf [32]*model.Pod // a copy, as removals change the node's list; on the stack for most nodes
	for _, p := range append(buf[:0], ix.On(node).Pods...) {
		w.removePod(c, p)
	}
	ix.dropEntry(node)
}

// SafeToEvictAnnotation marks pods the autoscaler must not evict (R-CA-2, R-EXT-*).
const SafeToEvictAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict"
