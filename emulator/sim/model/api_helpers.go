package model

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Helpers of the Kubernetes API every part uses: list filters, optimistic concurrency, field
// owners, comparing objects.

// ListOptions filter a list.
type ListOptions struct {
	Namespace string // "" = all namespaces
	Labels    labels.Selector
	// NodeName and Phase are the field selectors kubectl uses (spec.nodeName, status.phase).
	NodeName, Phase string
}

// Matches says whether an object of namespace ns with labels lbls is in the list.
func (o ListOptions) Matches(ns string, lbls map[string]string) bool {
	return (o.Namespace == "" || o.Namespace == ns) && (o.Labels == nil || o.Labels.Matches(labels.Set(lbls)))
}

// CloneManagedFields copies an object's field owners.
func CloneManagedFields(mf []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	if len(mf) == 0 {
		return nil
	}
	out := make([]metav1.ManagedFieldsEntry, len(mf))
	for i := range mf {
		mf[i].DeepCopyInto(&out[i])
	}
	return out
}

// CheckRV enforces optimistic concurrency: a request carrying a resourceVersion must carry the
// current one.
func CheckRV(sent string, current int64, resource, name string) error {
	if sent != "" && sent != RVString(current) {
		return KubeConflict(resource, name)
	}
	return nil
}

// EqualJSON compares two API values by their JSON form.
func EqualJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
