package model

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// SafeChars is the alphabet Kubernetes uses for generated names (no vowels, no confusables).
const SafeChars = "bcdfghjklmnpqrstvwxz2456789"

// SetTemplate makes t the deployment's current template (a rollout if it changed).
func (d *Deployment) SetTemplate(t corev1.PodTemplateSpec) {
	hash := TemplateHash(&t)
	if d.Templates == nil {
		d.Templates = map[string]*corev1.PodTemplateSpec{}
	}
	if _, ok := d.Templates[hash]; !ok {
		tc := t.DeepCopy()
		if tc.Labels == nil {
			tc.Labels = map[string]string{}
		}
		tc.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
		d.Templates[hash] = tc
	}
	d.Current = hash
}
