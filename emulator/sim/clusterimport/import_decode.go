package clusterimport

import (
	"bytes"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Decoding the many objects of a snapshot (import_read.go): its pods and nodes, nearly all of
// its objects, are decoded in one pass each into what the import reads of them (the metadata
// without managedFields, the spec, the few status fields it keeps), not into every field of
// the Kubernetes types, whose managedFields and statuses (a node's image list, a pod's
// container statuses) are most of what kubectl prints. The result is the same Kubernetes
// object with those fields left empty. An object that this decoding cannot read is decoded as
// before (decodeObjectInFull), so that a refusal says what it said.

// objectMeta is an object's metadata without its managedFields (nor the legacy selfLink).
type objectMeta struct {
	Name                       string                  `json:"name,omitempty"`
	GenerateName               string                  `json:"generateName,omitempty"`
	Namespace                  string                  `json:"namespace,omitempty"`
	UID                        types.UID               `json:"uid,omitempty"`
	ResourceVersion            string                  `json:"resourceVersion,omitempty"`
	Generation                 int64                   `json:"generation,omitempty"`
	CreationTimestamp          metav1.Time             `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *metav1.Time            `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64                  `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string       `json:"labels,omitempty"`
	Annotations                map[string]string       `json:"annotations,omitempty"`
	OwnerReferences            []metav1.OwnerReference `json:"ownerReferences,omitempty"`
	Finalizers                 []string                `json:"finalizers,omitempty"`
}

func (m *objectMeta) objectMeta() metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, GenerateName: m.GenerateName, Namespace: m.Namespace, UID: m.UID,
		ResourceVersion: m.ResourceVersion, Generation: m.Generation, CreationTimestamp: m.CreationTimestamp,
		DeletionTimestamp: m.DeletionTimestamp, DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds, Labels: m.Labels,
		Annotations: m.Annotations, OwnerReferences: m.OwnerReferences, Finalizers: m.Finalizers}
}

// podDoc is what the import reads of a Pod.
type podDoc struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        objectMeta     `json:"metadata"`
	Spec            corev1.PodSpec `json:"spec"`
	Status          struct {
		Phase      corev1.PodPhase       `json:"phase,omitempty"`
		Conditions []corev1.PodCondition `json:"conditions,omitempty"`
		PodIP      string                `json:"podIP,omitempty"`
		StartTime  *metav1.Time          `json:"startTime,omitempty"`
	} `json:"status"`
}

// nodeDoc is what the import reads of a Node.
type nodeDoc struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        objectMeta      `json:"metadata"`
	Spec            corev1.NodeSpec `json:"spec"`
	Status          struct {
		Capacity    corev1.ResourceList    `json:"capacity,omitempty"`
		Allocatable corev1.ResourceList    `json:"allocatable,omitempty"`
		Conditions  []corev1.NodeCondition `json:"conditions,omitempty"`
		Addresses   []corev1.NodeAddress   `json:"addresses,omitempty"`
		NodeInfo    corev1.NodeSystemInfo  `json:"nodeInfo"`
	} `json:"status"`
}

// decodeObject decodes one object: a pod or a node in one pass into what the import reads of
// it, any other object as decodeObjectInFull does.
func decodeObject(raw json.RawMessage, listKind string) decoded {
	kind, found := leadingKind(raw)
	if !found {
		kind = listKind
	}
	var (
		tm   metav1.TypeMeta
		meta *objectMeta
		obj  any
		err  error
	)
	switch kind {
	case "Pod":
		var d podDoc
		if err = json.Unmarshal(raw, &d); err == nil {
			tm, meta = d.TypeMeta, &d.Metadata
			obj = &corev1.Pod{TypeMeta: d.TypeMeta, ObjectMeta: d.Metadata.objectMeta(), Spec: d.Spec,
				Status: corev1.PodStatus{Phase: d.Status.Phase, Conditions: d.Status.Conditions, PodIP: d.Status.PodIP, StartTime: d.Status.StartTime}}
		}
	case "Node":
		var d nodeDoc
		if err = json.Unmarshal(raw, &d); err == nil {
			tm, meta = d.TypeMeta, &d.Metadata
			obj = &corev1.Node{TypeMeta: d.TypeMeta, ObjectMeta: d.Metadata.objectMeta(), Spec: d.Spec,
				Status: corev1.NodeStatus{Capacity: d.Status.Capacity, Allocatable: d.Status.Allocatable, Conditions: d.Status.Conditions,
					Addresses: d.Status.Addresses, NodeInfo: d.Status.NodeInfo}}
		}
	default:
		return decodeObjectInFull(raw, listKind)
	}
	// Refused, or not what its leading keys said (a kind further on): decoded as before.
	if err != nil || (tm.Kind != kind && (tm.Kind != "" || listKind != kind)) {
		return decodeObjectInFull(raw, listKind)
	}
	h := objectHeader{APIVersion: tm.APIVersion, Kind: kind}
	h.Metadata.Name, h.Metadata.Namespace = meta.Name, meta.Namespace
	return decoded{h: h, obj: obj}
}

// leadingKind is the kind an object names among its first two keys (kubectl and the API server
// write apiVersion and kind first), read without decoding the rest; found is false when
// neither of those keys is "kind" (or a key or value holds an escape).
func leadingKind(raw []byte) (kind string, found bool) {
	rest := bytes.TrimLeft(raw, " \t\r\n")
	if len(rest) == 0 || rest[0] != '{' {
		return "", false
	}
	rest = rest[1:]
	for range 2 {
		key, after, ok := leadingString(rest)
		if !ok {
			return "", false
		}
		after = bytes.TrimLeft(after, " \t\r\n")
		if len(after) == 0 || after[0] != ':' {
			return "", false
		}
		value, after, ok := leadingString(after[1:])
		if !ok {
			return "", false
		}
		if key == "kind" {
			return value, true
		}
		after = bytes.TrimLeft(after, " \t\r\n")
		if len(after) == 0 || after[0] != ',' {
			return "", false
		}
		rest = after[1:]
	}
	return "", false
}

// leadingString reads the JSON string at the start of b (after white space), one without
// escapes.
func leadingString(b []byte) (s string, rest []byte, ok bool) {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 || bytes.IndexByte(b[1:1+end], '\\') >= 0 {
		return "", nil, false
	}
	return string(b[1 : 1+end]), b[2+end:], true
}
