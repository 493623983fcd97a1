package model

import (
	"encoding/json"
	"hash/fnv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// SafeChars is the alphabet Kubernetes uses for generated names (no vowels, no confusables).
const SafeChars = "bcdfghjklmnpqrstvwxz2456789"

// TemplateHash is the pod-template-hash of a template: stable for equal templates.
func TemplateHash(t *corev1.PodTemplateSpec) string {
	b, _ := json.Marshal(t)
	h := fnv.New32a()
	h.Write(b)
	v := h.Sum32()
	out := make([]byte, 0, 10)
	for i := 0; i < 10; i++ {
		out = append(out, SafeChars[v%uint32(len(SafeChars))])
		v = v/uint32(len(SafeChars)) ^ uint32(i)*2654435761
	}
	return string(out)
}

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
