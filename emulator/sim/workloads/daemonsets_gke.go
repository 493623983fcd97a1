package workloads

import (
	"sort"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// GKE's kube-system DaemonSets as read-only apps/v1 objects: kubectl drain looks up the
// DaemonSet of every DaemonSet pod on the node before it skips the pod (--ignore-daemonsets),
// and kubectl get ds / describe show them.

const resDaemonSets = "daemonsets.apps"

func (w *Workloads) RenderDaemonSet(c *model.Cluster, ds *catalog.GKEDaemonSet, state *model.DaemonSetState) *appsv1.DaemonSet {
	lbls := map[string]string{"k8s-app": ds.Name}
	maxUnavailable := intstr.FromInt32(1)
	return &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: ds.Name, Namespace: "kube-system", UID: types.UID(model.UIDOf(c.ID, "ds", ds.Name)),
			ResourceVersion: model.RVString(state.RV), Generation: 1, CreationTimestamp: metav1.NewTime(c.CreateTime), Labels: lbls},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: lbls},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbls}, Spec: *ds.Spec.DeepCopy()},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &maxUnavailable}},
		},
		Status: state.Status,
	}
}

// syncDaemonSetStatus is the DaemonSet controller's status update: a pod wanted on every
// registered node, and how many run and are ready.
func (w *Workloads) syncDaemonSetStatus(c *model.Cluster, m *core.StatusMarks) {
	if c.Autopilot || c.OwnDaemonSets() {
		return
	}
	desired := int32(0)
	for _, p := range c.Pools {
		for _, g := range p.Groups {
			desired += int32(len(g.Nodes) - w.core.GroupIndex(c, g).ByState[model.NodeProvisioning])
		}
	}
	if c.DaemonSetStates == nil {
		c.DaemonSetStates = map[string]*model.DaemonSetState{}
	}
	for _, ds := range catalog.SystemDaemonSets {
		nLive, nReady := m.DaemonPods(ds.Name)
		live, ready := int32(nLive), int32(nReady)
		st := appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: desired, CurrentNumberScheduled: live,
			UpdatedNumberScheduled: live, NumberReady: ready, NumberAvailable: ready, NumberUnavailable: max(desired-ready, 0)}
		state := c.DaemonSetStates[ds.Name]
		switch {
		case state == nil:
			state = &model.DaemonSetState{Name: ds.Name, Status: st}
			c.DaemonSetStates[ds.Name] = state
			w.core.TouchObject(c, state, true)
		case !daemonSetStatusEqual(&state.Status, &st):
			state.Status = st
			w.core.TouchObject(c, state, false)
		}
	}
}

// ListDaemonSets lists GKE's system DaemonSets (none on Autopilot clusters) by name.
func (w *Workloads) ListDaemonSets(c *model.Cluster, o model.ListOptions) *appsv1.DaemonSetList {
	out := &appsv1.DaemonSetList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSetList"},
		ListMeta: metav1.ListMeta{ResourceVersion: model.RVString(c.RV)}, Items: []appsv1.DaemonSet{}}
	if c.OwnDaemonSets() {
		out.Items = append(out.Items, w.listClusterDaemonSets(c, o)...)
		return out
	}
	if c.Autopilot || (o.Namespace != "" && o.Namespace != "kube-system") {
		return out
	}
	for _, ds := range catalog.SystemDaemonSets {
		if state := c.DaemonSetStates[ds.Name]; state != nil && o.Matches("kube-system", map[string]string{"k8s-app": ds.Name}) {
			out.Items = append(out.Items, *w.RenderDaemonSet(c, ds, state))
		}
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].Name < out.Items[j].Name })
	return out
}

// GetDaemonSet gets one of GKE's system DaemonSets.
func (w *Workloads) GetDaemonSet(c *model.Cluster, ns, name string) (*appsv1.DaemonSet, error) {
	if c.OwnDaemonSets() {
		if ds := c.DaemonSets[model.NamespacedKey(ns, name)]; ds != nil && !ds.Static {
			return w.renderClusterDaemonSet(c, ds), nil
		}
		return nil, model.KubeNotFound(resDaemonSets, name)
	}
	ds := catalog.SystemDaemonSetNamed(name)
	if ds == nil || ns != "kube-system" || c.Autopilot || c.DaemonSetStates[name] == nil {
		return nil, model.KubeNotFound(resDaemonSets, name)
	}
	return w.RenderDaemonSet(c, ds, c.DaemonSetStates[name]), nil
}
