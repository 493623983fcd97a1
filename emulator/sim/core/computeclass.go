package core

import (
	corev1 "k8s.io/api/core/v1"
)

// GKE's custom compute classes (cloud.google.com/v1 ComputeClass, R-CA-11): a cluster-scoped
// object listing, in order of preference, the node configurations the cluster autoscaler should
// add for the pods that select the class (nodeSelector cloud.google.com/compute-class: NAME).
// On Standard clusters the class uses node pools created for it, which carry the label and the
// taint cloud.google.com/compute-class=NAME; GKE gives the pods that select a class the
// toleration of its taint.
//
// What gkesim simulates: when it grows a pool for such pods, the autoscaler takes the pools of
// the class in the order of the first priority rule each matches (machineFamily, machineType,
// spot, minCores, minMemoryGb, nodepools; all the fields a rule sets must match), before cost;
// a pool no rule matches is grown only with whenUnsatisfiable: ScaleUpAnyway (the default is
// DoNotScaleUp). Every other field is stored and served as written; rules that name
// accelerators (gpu, tpu), podFamily or flexStart match no pool; node pool auto-creation,
// active migration and the autoscaling policy are not simulated.

// ComputeClassLabel selects a compute class (on pods) and marks its node pools.
const ComputeClassLabel = "cloud.google.com/compute-class"

// computeClassTolerated says whether a pod tolerates taint t because it selects the compute
// class t is the taint of: GKE gives such pods the toleration.
func computeClassTolerated(spec *corev1.PodSpec, t corev1.Taint) bool {
	return t.Key == ComputeClassLabel && t.Value != "" && spec.NodeSelector[ComputeClassLabel] == t.Value
}

// The values of a compute class's whenUnsatisfiable.
const (
	WhenUnsatisfiableScaleUp      = "ScaleUpAnyway"
	WhenUnsatisfiableDoNotScaleUp = "DoNotScaleUp"
)
