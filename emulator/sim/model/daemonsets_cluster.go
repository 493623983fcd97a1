package model

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// OwnDaemonSets says whether the cluster runs DaemonSets of its own (an imported one) rather
// than GKE's built-in ones.
func (c *Cluster) OwnDaemonSets() bool { return c.Imported != nil }

// DaemonSet is one of an imported cluster's DaemonSets. A static one stands for the static pods
// the kubelet of every node runs from a manifest (kube-proxy on GKE): they are named
// PREFIX-NODE and their owner is the node.
type DaemonSet struct {
	Namespace   string               `json:"namespace"`
	Name        string               `json:"name"`
	UID         string               `json:"uid"`
	Labels      map[string]string    `json:"labels,omitempty"`
	Annotations map[string]string    `json:"annotations,omitempty"`
	Spec        appsv1.DaemonSetSpec `json:"spec"`
	Generation  int64                `json:"generation"`
	CreateTime  time.Time            `json:"createTime"`
	Static      bool                 `json:"static,omitempty"`
	// NodeNamed: its pods are named NAME-NODE (static pods, and kube-proxy as gkesim runs it).
	NodeNamed bool `json:"nodeNamed,omitempty"`
}

// Key is namespace/name.
func (d *DaemonSet) Key() string { return NamespacedKey(d.Namespace, d.Name) }

// RunsOn says whether the DaemonSet controller puts a pod of ds on a node with these labels and
// taints: its node selector and required node affinity match and it tolerates the taints (the
// controller's own tolerations, such as the cordon's, aside).
func (ds *DaemonSet) RunsOn(labels map[string]string, taints []corev1.Taint) bool {
	spec := &ds.Spec.Template.Spec
	for k, v := range spec.NodeSelector {
		if labels[k] != v {
			return false
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil &&
		!MatchesNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, labels) {
		return false
	}
	for _, t := range taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule || t.Key == "node.kubernetes.io/unschedulable" || Tolerates(spec.Tolerations, t) {
			continue
		}
		return false
	}
	return true
}
