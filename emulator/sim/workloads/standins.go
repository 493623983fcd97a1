package workloads

import (
	"encoding/json"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Controllers gkesim has no model of, in an imported cluster (clusterimport/import.go): StatefulSets, Jobs,
// ReplicaSets of their own and custom controllers (an Argo Rollout ...). Their pods are kept as
// the controller made them, and the Deployment controller (deployments.go) stands in for the
// controller: it keeps the number of pods the controller had and recreates a pod that is
// evicted, as the controller would. A StatefulSet's pods are recreated under their own name
// (NAME-0, NAME-1 ...) once the previous pod of that name is gone, one at a time unless its
// podManagementPolicy is Parallel. The import summary lists every controller it stands in for.
//
// Such a workload is a Deployment with a Controller: its name in the model is NAME~kind, which
// no Kubernetes name can be, so it never meets a real Deployment; the API lists it under its own
// kind (StatefulSets and ReplicaSets) or not at all.

// Kinds of controllers an import stands in for.
const (
	KindStatefulSet = "StatefulSet"
	KindReplicaSet  = "ReplicaSet"
	KindJob         = "Job"
)

// StandInName is the model's name of the workload standing in for controller kind/name.
func StandInName(kind, name string) string { return name + "~" + strings.ToLower(kind) }

// syncOrdinals is the controller pass of a StatefulSet's stand-in: each missing ordinal gets its
// pod, with the pod's own name; a pod still terminating holds its name. OrderedReady creates
// one pod at a time and waits for every pod before it to be ready.
func (w *Workloads) syncOrdinals(c *model.Cluster, d *model.Deployment) {
	ix := w.core.PodIndex(c)
	byName := make(map[string]*model.Pod, len(ix.PodsOf[d.Key()]))
	for p := range ix.PodsOf[d.Key()] {
		byName[p.Name()] = p
	}
	ordered := !d.Controller.Parallel
	for i := range d.DesiredReplicas() {
		name := d.Controller.Name + "-" + strconv.Itoa(i)
		if p := byName[name]; p != nil {
			if ordered && !p.Ready {
				return
			}
			continue
		}
		if c.Pods[model.NamespacedKey(d.Namespace, name)] != nil {
			continue // a pod of that name that another controller owns
		}
		t := d.Templates[d.Current]
		lbls := maps.Clone(t.Labels)
		lbls[appsv1.StatefulSetPodNameLabel] = name
		lbls[appsv1.PodIndexLabel] = strconv.Itoa(i)
		p := model.NewPod(d.Namespace, name)
		p.OwnerKind, p.Owner, p.Template, p.Labels, p.Annotation = model.OwnerDeployment, d.Name, d.Current, lbls, t.Annotations
		w.core.AddPod(c, p)
		if ordered {
			return
		}
	}
}

// OrderedPods says whether a workload creates its pods one after the other, each once the one
// before is ready (a StatefulSet's stand-in with podManagementPolicy OrderedReady).
func OrderedPods(d *model.Deployment) bool {
	return d.Controller != nil && d.Controller.Ordinals && !d.Controller.Parallel
}

// standIns lists the workloads standing in for controllers of a kind, by namespace and name.
func standIns(c *model.Cluster, kind string, o model.ListOptions) []*model.Deployment {
	var out []*model.Deployment
	for _, d := range c.Deployments {
		if d.Controller != nil && d.Controller.Kind == kind && o.Matches(d.Namespace, d.Labels) {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Controller.Name < out[j].Controller.Name
	})
	return out
}

// podCounts counts a workload's pods of template tmpl ("" for all): not terminating, and ready.
func (w *Workloads) podCounts(c *model.Cluster, d *model.Deployment, tmpl string) (pods, ready int32) {
	for p := range w.core.PodIndex(c).PodsOf[d.Key()] {
		if p.Terminating || (tmpl != "" && p.Template != tmpl) {
			continue
		}
		pods++
		if p.Ready {
			ready++
		}
	}
	return pods, ready
}

// ListStatefulSets lists an imported cluster's StatefulSets (read-only: the emulator keeps their
// pods, its own controller recreates them).
func (w *Workloads) ListStatefulSets(c *model.Cluster, o model.ListOptions) *appsv1.StatefulSetList {
	out := &appsv1.StatefulSetList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSetList"},
		ListMeta: metav1.ListMeta{ResourceVersion: model.RVString(c.RV)}, Items: []appsv1.StatefulSet{}}
	for _, d := range standIns(c, KindStatefulSet, o) {
		var spec appsv1.StatefulSetSpec
		_ = json.Unmarshal(d.Controller.Spec, &spec)
		replicas := int32(d.DesiredReplicas())
		spec.Replicas = &replicas
		pods, ready := w.podCounts(c, d, "")
		out.Items = append(out.Items, appsv1.StatefulSet{
			TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: KindStatefulSet},
			ObjectMeta: metav1.ObjectMeta{Name: d.Controller.Name, Namespace: d.Namespace, UID: types.UID(d.UID), ResourceVersion: model.RVString(d.RV),
				Generation: d.Generation, CreationTimestamp: metav1.NewTime(d.CreateTime), Labels: maps.Clone(d.Labels), Annotations: maps.Clone(d.Annotations)},
			Spec: spec,
			Status: appsv1.StatefulSetStatus{ObservedGeneration: d.Generation, Replicas: pods, ReadyReplicas: ready, CurrentReplicas: pods,
				UpdatedReplicas: pods, AvailableReplicas: ready},
		})
	}
	return out
}

// standInReplicaSets renders an imported cluster's ReplicaSets of their own (not a
// Deployment's), which stand-in controllers run (read-only).
func (w *Workloads) standInReplicaSets(c *model.Cluster, o model.ListOptions) []appsv1.ReplicaSet {
	var out []appsv1.ReplicaSet
	for _, d := range standIns(c, KindReplicaSet, o) {
		var spec appsv1.ReplicaSetSpec
		_ = json.Unmarshal(d.Controller.Spec, &spec)
		replicas := int32(d.DesiredReplicas())
		spec.Replicas = &replicas
		pods, ready := w.podCounts(c, d, "")
		out = append(out, appsv1.ReplicaSet{
			TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: KindReplicaSet},
			ObjectMeta: metav1.ObjectMeta{Name: d.Controller.Name, Namespace: d.Namespace, UID: types.UID(d.UID), ResourceVersion: model.RVString(d.RV),
				Generation: d.Generation, CreationTimestamp: metav1.NewTime(d.CreateTime), Labels: maps.Clone(d.Labels), Annotations: maps.Clone(d.Annotations)},
			Spec:   spec,
			Status: appsv1.ReplicaSetStatus{Replicas: pods, FullyLabeledReplicas: pods, ReadyReplicas: ready, AvailableReplicas: ready, ObservedGeneration: d.Generation},
		})
	}
	return out
}

// TemplateFromPod is the pod template a stand-in controller (or a DaemonSet missing from an
// import) recreates pods from: the spec and metadata a pod of it has, without what only that
// pod has (its node, its name).
func TemplateFromPod(pod *corev1.Pod) corev1.PodTemplateSpec {
	spec := pod.Spec.DeepCopy()
	spec.NodeName = ""
	kuberender.WithoutAdmittedToken(spec)
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(pod.Labels), Annotations: maps.Clone(pod.Annotations)}, Spec: *spec}
}
