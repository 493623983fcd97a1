package provider

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// On Autopilot (R-SCHED-5) the workload reads back the requests it sent while Autopilot's
// adjustment still describes the stored ones, and the stored ones once they changed since.
func TestRequestedRequestsOnAutopilot(t *testing.T) {
	deploy := func(cpu string) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{autopilotAdjustment: `{"input":{"containers":[{"requests":{"cpu":"10m"},"name":"app"}]},` +
				`"output":{"containers":[{"requests":{"cpu":"50m","ephemeral-storage":"1Gi","memory":"2Gi"},"name":"app"}]},"modified":true}`}},
			Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: k8sresource.MustParse(cpu),
					corev1.ResourceMemory: k8sresource.MustParse("2Gi"), corev1.ResourceEphemeralStorage: k8sresource.MustParse("1Gi")}}}}}}},
		}
	}
	got := requestedRequests(deploy("0.05"))
	if cpu, ok := got[corev1.ResourceCPU]; !ok || cpu.String() != "10m" || len(got) != 1 {
		t.Errorf("adjusted by Autopilot: read %v, want what was sent (cpu 10m only)", got)
	}
	got = requestedRequests(deploy("1"))
	if cpu := got[corev1.ResourceCPU]; cpu.String() != "1" || len(got) != 3 {
		t.Errorf("changed since the adjustment: read %v, want the stored requests", got)
	}
	plain := deploy("1")
	plain.Annotations = nil
	if got := requestedRequests(plain); len(got) != 3 {
		t.Errorf("no adjustment: read %v, want the stored requests", got)
	}
}
