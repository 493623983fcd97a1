package workloads

import (
	"math"
	"sort"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The Deployment controller (with the ReplicaSet controller folded in): it keeps spec.replicas
// pods of the current template, replaces evicted or deleted pods at once, and rolls a template
// change out with maxSurge / maxUnavailable (25% / 25% by default), as Kubernetes does.

func (w *Workloads) registerDeploymentHandlers() {
	w.engine.On(core.EvDeploymentSync, func(ev model.Event) {
		c := w.st.Clusters[ev.Cluster]
		if c == nil {
			return
		}
		delete(w.core.PodIndex(c).SyncQueued, ev.DeploymentKey())
		if d := c.Deployments[ev.DeploymentKey()]; d != nil {
			w.syncDeployment(c, d)
		}
	})
}

// QueueSync schedules one controller pass for a deployment at the current instant.
func (w *Workloads) QueueSync(c *model.Cluster, key string) {
	ix := w.core.PodIndex(c)
	if ix.SyncQueued[key] || c.Deployments[key] == nil {
		return
	}
	ix.SyncQueued[key] = true
	w.engine.Schedule(0, model.DeploymentEvent(core.EvDeploymentSync, c.Key(), key))
}

// rollingParams resolves maxSurge and maxUnavailable against the replica count.
func rollingParams(d *model.Deployment) (surge, unavailable int) {
	replicas := d.DesiredReplicas()
	var ms, mu *intstr.IntOrString
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		ms, mu = ru.MaxSurge, ru.MaxUnavailable
	}
	surge, unavailable = scaledOrDefault(ms, replicas, true), scaledOrDefault(mu, replicas, false)
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable
}

// defaultRollingPercent is maxSurge's and maxUnavailable's default: 25%.
const defaultRollingPercent = 25

// scaledOrDefault is v (defaultRollingPercent when nil) scaled against total, as
// intstr.GetScaledValueFromIntOrPercent scales it (the default without parsing "25%": a status
// pass asks at every batch of pod changes).
func scaledOrDefault(v *intstr.IntOrString, total int, roundUp bool) int {
	if v != nil {
		n, _ := intstr.GetScaledValueFromIntOrPercent(v, total, roundUp)
		return n
	}
	if roundUp {
		return int(math.Ceil(float64(defaultRollingPercent) * (float64(total)) / 100))
	}
	return int(math.Floor(float64(defaultRollingPercent) * (float64(total)) / 100))
}

// syncDeployment is one controller pass.
func (w *Workloads) syncDeployment(c *model.Cluster, d *model.Deployment) {
	if d.Controller != nil && d.Controller.Ordinals {
		w.syncOrdinals(c, d) // a StatefulSet's stand-in (standins.go)
		return
	}
	ix := w.core.PodIndex(c)
	replicas := d.DesiredReplicas()
	// Most passes find nothing to do (a pod started): count before sorting anything.
	nCur, nOld := 0, 0
	for tmpl, t := range ix.TmplCounts[d.Key()] {
		if tmpl == d.Current {
			nCur += int(t.Live)
		} else {
			nOld += int(t.Live)
		}
	}
	if nOld == 0 && nCur <= replicas {
		// Pods went (evicted, deleted) or replicas grew: only new pods are needed, and which
		// pods exist does not matter.
		for i := nCur; i < replicas; i++ {
			w.newDeploymentPod(c, d)
		}
		w.dropOldTemplates(c, d)
		return
	}
	var cur, old []*model.Pod
	for _, p := range core.SortedPods(ix.PodsOf[d.Key()]) {
		if p.Terminating {
			continue
		}
		if p.Template == d.Current {
			cur = append(cur, p)
		} else {
			old = append(old, p)
		}
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType && len(old) > 0 {
		// Recreate: every old pod goes before any new one is made.
		for _, p := range old {
			w.core.TerminatePod(c, p, core.GraceOf(w.core.PodSpec(c, p), 0))
		}
		return
	}
	if len(old) == 0 {
		w.scaleTo(c, d, cur, replicas)
		w.dropOldTemplates(c, d)
		return
	}
	surge, unavailable := rollingParams(d)
	// Scale the new template up within replicas + maxSurge ...
	if up := min(replicas+surge-len(cur)-len(old), replicas-len(cur)); up > 0 {
		for i := 0; i < up; i++ {
			w.newDeploymentPod(c, d)
		}
	}
	// ... and the old one down while at least replicas - maxUnavailable stay available.
	available := 0
	for _, p := range append(cur, old...) {
		if p.Ready {
			available++
		}
	}
	canGo := available - (replicas - unavailable)
	sort.SliceStable(old, func(i, j int) bool { return !old[i].Ready && old[j].Ready })
	for _, p := range old {
		if p.Ready && canGo <= 0 {
			break
		}
		if p.Ready {
			canGo--
		}
		w.core.TerminatePod(c, p, core.GraceOf(w.core.PodSpec(c, p), 0))
	}
}

// scaleTo brings the pods of the current template to n: new pods, or the least useful go
// first (pending, then not ready, then newest).
func (w *Workloads) scaleTo(c *model.Cluster, d *model.Deployment, cur []*model.Pod, n int) {
	for i := len(cur); i < n; i++ {
		w.newDeploymentPod(c, d)
	}
	if len(cur) <= n {
		return
	}
	sort.SliceStable(cur, func(i, j int) bool {
		a, b := cur[i], cur[j]
		if (a.Node == "") != (b.Node == "") {
			return a.Node == ""
		}
		if a.Ready != b.Ready {
			return !a.Ready
		}
		return a.CreateTime > b.CreateTime
	})
	for _, p := range cur[:len(cur)-n] {
		w.core.TerminatePod(c, p, core.GraceOf(w.core.PodSpec(c, p), 0))
	}
}

// dropOldTemplates forgets templates no pod uses any more.
func (w *Workloads) dropOldTemplates(c *model.Cluster, d *model.Deployment) {
	if len(d.Templates) == 1 {
		return
	}
	used := map[string]bool{d.Current: true}
	for p := range w.core.PodIndex(c).PodsOf[d.Key()] {
		used[p.Template] = true
	}
	for h := range d.Templates {
		if !used[h] {
			delete(d.Templates, h)
		}
	}
}

func (w *Workloads) newDeploymentPod(c *model.Cluster, d *model.Deployment) *model.Pod {
	t := d.Templates[d.Current]
	var key string
	if d.Controller != nil {
		key = w.engine.NewPodKey(c, d.Namespace, d.Controller.Name, "-") // the pods of the controller it stands in for
	} else {
		key = w.engine.NewPodKey(c, d.Namespace, d.Name, "-", d.Current, "-")
	}
	p := model.KeyedPod(key)
	p.OwnerKind, p.Owner, p.Template, p.Labels, p.Annotation = model.OwnerDeployment, d.Name, d.Current, t.Labels, t.Annotations
	w.core.AddPod(c, p)
	return p
}

// OwnerChanged tells a pod's Deployment that one of its pods changed.
func (w *Workloads) OwnerChanged(c *model.Cluster, p *model.Pod) {
	if p.OwnerKind == model.OwnerDeployment {
		w.QueueSync(c, p.OwnerKey())
	}
}
