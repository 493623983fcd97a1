package core

import (
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// GenerateName gives an object that asks for one (metadata.generateName) its name, as the API
// server does before validating: the prefix and five random characters.
func (w *Core) GenerateName(meta *metav1.ObjectMeta) {
	if meta.Name != "" || meta.GenerateName == "" {
		return
	}
	const alphabet = "bcdfghjklmnpqrstvwxz2456789" // the API server's: no vowels, no look-alikes
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[w.engine.Rng.IntN(len(alphabet))]
	}
	meta.Name = meta.GenerateName + string(b)
}

// ValidateMeta checks metadata as the API server does on create; namespaced objects carry the
// namespace of the request's path.
func ValidateMeta(meta metav1.ObjectMeta, namespace string, nameFn apivalidation.ValidateNameFunc) field.ErrorList {
	meta.Namespace = namespace
	return apivalidation.ValidateObjectMeta(&meta, namespace != "", nameFn, field.NewPath("metadata"))
}
