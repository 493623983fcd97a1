package workloads

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Typed comparisons of the statuses the controllers set, in place of reflect.DeepEqual (the
// status pass runs at every batch of pod changes, and a status that did not change must not be
// touched: a touch gives a new resourceVersion). Each answers exactly as reflect.DeepEqual does:
// a nil slice differs from an empty one, two pointers are equal when both are nil or point to
// equal values, and two times are equal when their wall clock, monotonic reading and location
// are (not merely their instant). TestStatusEqualAgreesWithDeepEqual checks them against
// reflect.DeepEqual; TestStatusEqualKnowsEveryField fails when the API types gain a field.

// deploymentStatusEqual is reflect.DeepEqual(*a, *b).
func deploymentStatusEqual(a, b *appsv1.DeploymentStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration && a.Replicas == b.Replicas && a.UpdatedReplicas == b.UpdatedReplicas &&
		a.ReadyReplicas == b.ReadyReplicas && a.AvailableReplicas == b.AvailableReplicas && a.UnavailableReplicas == b.UnavailableReplicas &&
		int32PtrEqual(a.TerminatingReplicas, b.TerminatingReplicas) && int32PtrEqual(a.CollisionCount, b.CollisionCount) &&
		slicesEqual(a.Conditions, b.Conditions, deploymentConditionEqual)
}

// deploymentConditionEqual is reflect.DeepEqual(*a, *b).
func deploymentConditionEqual(a, b *appsv1.DeploymentCondition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		timeEqual(a.LastUpdateTime, b.LastUpdateTime) && timeEqual(a.LastTransitionTime, b.LastTransitionTime)
}

// replicaSetStatusEqual is reflect.DeepEqual(*a, *b).
func replicaSetStatusEqual(a, b *appsv1.ReplicaSetStatus) bool {
	return a.Replicas == b.Replicas && a.FullyLabeledReplicas == b.FullyLabeledReplicas && a.ReadyReplicas == b.ReadyReplicas &&
		a.AvailableReplicas == b.AvailableReplicas && a.ObservedGeneration == b.ObservedGeneration &&
		int32PtrEqual(a.TerminatingReplicas, b.TerminatingReplicas) &&
		slicesEqual(a.Conditions, b.Conditions, func(x, y *appsv1.ReplicaSetCondition) bool {
			return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message &&
				timeEqual(x.LastTransitionTime, y.LastTransitionTime)
		})
}

// daemonSetStatusEqual is reflect.DeepEqual(*a, *b).
func daemonSetStatusEqual(a, b *appsv1.DaemonSetStatus) bool {
	return a.CurrentNumberScheduled == b.CurrentNumberScheduled && a.NumberMisscheduled == b.NumberMisscheduled &&
		a.DesiredNumberScheduled == b.DesiredNumberScheduled && a.NumberReady == b.NumberReady &&
		a.ObservedGeneration == b.ObservedGeneration && a.UpdatedNumberScheduled == b.UpdatedNumberScheduled &&
		a.NumberAvailable == b.NumberAvailable && a.NumberUnavailable == b.NumberUnavailable &&
		int32PtrEqual(a.CollisionCount, b.CollisionCount) &&
		slicesEqual(a.Conditions, b.Conditions, func(x, y *appsv1.DaemonSetCondition) bool {
			return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message &&
				timeEqual(x.LastTransitionTime, y.LastTransitionTime)
		})
}

// int32PtrEqual is reflect.DeepEqual(a, b).
func int32PtrEqual(a, b *int32) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

// slicesEqual is reflect.DeepEqual(a, b) given eq, DeepEqual of two elements: nil and empty
// differ.
func slicesEqual[T any](a, b []T, eq func(x, y *T) bool) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !eq(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// timeEqual is reflect.DeepEqual(a, b): == when the two are alike to the field (the statuses'
// times all are), DeepEqual itself for two representations of one instant (two locations
// alike but at different addresses, as decoding makes), and false for two instants.
func timeEqual(a, b metav1.Time) bool {
	switch {
	case a.Time == b.Time:
		return true
	case !a.Time.Equal(b.Time):
		return false
	}
	return reflect.DeepEqual(a, b)
}
