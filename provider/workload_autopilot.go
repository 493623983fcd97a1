package provider

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
)

// autopilotAdjustment is the annotation Autopilot writes on a workload whose requests it
// rewrote (defaults, minimums, ratio: the guide's R-SCHED-5), with what was sent and what it
// stored.
const autopilotAdjustment = "autopilot.gke.io/resource-adjustment"

// requestedRequests are the requests of a Deployment's first container as the configuration
// sent them: on Autopilot, the annotation's input while its output is what is stored, so that
// Autopilot raising 10m to its 50m minimum is not a change Terraform would try to undo.
func requestedRequests(d *appsv1.Deployment) corev1.ResourceList {
	cts := d.Spec.Template.Spec.Containers
	if len(cts) == 0 {
		return nil
	}
	live := cts[0].Resources.Requests
	var adj struct {
		Input, Output struct {
			Containers []struct {
				Requests map[corev1.ResourceName]string `json:"requests"`
			} `json:"containers"`
		}
	}
	if json.Unmarshal([]byte(d.Annotations[autopilotAdjustment]), &adj) != nil || len(adj.Input.Containers) == 0 || len(adj.Output.Containers) == 0 {
		return live
	}
	out := adj.Output.Containers[0].Requests
	for name, q := range live {
		stored, err := k8sresource.ParseQuantity(out[name])
		if err != nil || stored.Cmp(q) != 0 {
			return live // changed since: the annotation no longer describes the requests
		}
	}
	in := corev1.ResourceList{}
	for name, s := range adj.Input.Containers[0].Requests {
		q, err := k8sresource.ParseQuantity(s)
		if err != nil {
			return live
		}
		in[name] = q
	}
	return in
}
