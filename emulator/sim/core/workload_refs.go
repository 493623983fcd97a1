package core

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// GraceOf is a pod's termination grace period, capped at limit when limit > 0.
func GraceOf(spec *corev1.PodSpec, limit time.Duration) time.Duration {
	g := time.Duration(GraceSeconds(spec)) * time.Second
	if limit > 0 && g > limit {
		g = limit
	}
	return g
}

// podOwner is the generateName and ownerReferences of a pod whose controller is not one the
// Deployment and DaemonSet renderings describe; ok is false for those.
func (w *Core) podOwner(c *model.Cluster, p *model.Pod) (generateName string, refs []metav1.OwnerReference, ok bool) {
	truth := true
	ref := func(apiVersion, kind, name, uid string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid), Controller: &truth, BlockOwnerDeletion: &truth}}
	}
	switch p.OwnerKind {
	case model.OwnerDeployment:
		d := c.Deployments[p.OwnerKey()]
		if d == nil || d.Controller == nil {
			return "", nil, false
		}
		if !d.Controller.Ordinals {
			generateName = d.Controller.Name + "-"
		}
		return generateName, ref(d.Controller.APIVersion, d.Controller.Kind, d.Controller.Name, d.UID), true
	case model.OwnerDaemonSet:
		ds := c.DaemonSets[p.OwnerKey()]
		switch {
		case ds == nil:
			return "", nil, false
		case ds.Static:
			truth := false // a mirror pod's node is not its controller
			return "", []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: p.Node, UID: types.UID(model.UIDOf(c.ID, p.Node)), Controller: &truth}}, true
		}
		return kuberender.DaemonPodGenerateName(p), ref("apps/v1", "DaemonSet", ds.Name, ds.UID), true
	}
	return "", nil, false
}
