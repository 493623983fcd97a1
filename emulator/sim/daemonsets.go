package sim

import (
	"sort"

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

func (w *World) renderDaemonSet(c *Cluster, ds *daemonSet, st appsv1.DaemonSetStatus) *appsv1.DaemonSet {
	lbls := map[string]string{"k8s-app": ds.name}
	maxUnavailable := intstr.FromInt32(1)
	return &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: ds.name, Namespace: "kube-system", UID: types.UID(uidOf(c.ID, "ds", ds.name)),
			ResourceVersion: rvString(c.RV), Generation: 1, CreationTimestamp: metav1.NewTime(c.CreateTime), Labels: lbls},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: lbls},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbls}, Spec: *ds.spec.DeepCopy()},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &maxUnavailable}},
		},
		Status: st,
	}
}

// daemonSetStatuses counts the pods of every system DaemonSet in one pass over the pods.
func (w *World) daemonSetStatuses(c *Cluster) map[string]*appsv1.DaemonSetStatus {
	out := make(map[string]*appsv1.DaemonSetStatus, len(systemDaemonSets))
	for _, ds := range systemDaemonSets {
		out[ds.name] = &appsv1.DaemonSetStatus{ObservedGeneration: 1}
	}
	for _, n := range c.Nodes {
		if n.State == NodeProvisioning {
			continue
		}
		for _, st := range out {
			st.DesiredNumberScheduled++
		}
	}
	for _, p := range c.Pods {
		st := out[p.Owner]
		if p.OwnerKind != OwnerDaemonSet || st == nil || p.Terminating {
			continue
		}
		st.CurrentNumberScheduled++
		st.UpdatedNumberScheduled++
		if p.Ready {
			st.NumberReady++
			st.NumberAvailable++
		}
	}
	for _, st := range out {
		st.NumberUnavailable = max(st.DesiredNumberScheduled-st.NumberAvailable, 0)
	}
	return out
}

// ListDaemonSets lists GKE's system DaemonSets (none on Autopilot clusters) by name.
func (w *World) ListDaemonSets(c *Cluster, o ListOptions) *appsv1.DaemonSetList {
	out := &appsv1.DaemonSetList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSetList"},
		ListMeta: metav1.ListMeta{ResourceVersion: rvString(c.RV)}, Items: []appsv1.DaemonSet{}}
	if c.ownDaemonSets() {
		out.Items = append(out.Items, w.listClusterDaemonSets(c, o)...)
		return out
	}
	if c.Autopilot || (o.Namespace != "" && o.Namespace != "kube-system") {
		return out
	}
	sts := w.daemonSetStatuses(c)
	for _, ds := range systemDaemonSets {
		if o.matches("kube-system", map[string]string{"k8s-app": ds.name}) {
			out.Items = append(out.Items, *w.renderDaemonSet(c, ds, *sts[ds.name]))
		}
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].Name < out.Items[j].Name })
	return out
}

// GetDaemonSet gets one of GKE's system DaemonSets.
func (w *World) GetDaemonSet(c *Cluster, ns, name string) (*appsv1.DaemonSet, error) {
	if c.ownDaemonSets() {
		if ds := c.DaemonSets[ns+"/"+name]; ds != nil && !ds.Static {
			return w.renderClusterDaemonSet(c, ds), nil
		}
		return nil, kubeNotFound(resDaemonSets, name)
	}
	ds := systemDaemonSet(name)
	if ds == nil || ns != "kube-system" || c.Autopilot {
		return nil, kubeNotFound(resDaemonSets, name)
	}
	return w.renderDaemonSet(c, ds, *w.daemonSetStatuses(c)[name]), nil
}
