package model

import (
	"encoding/json"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
)

// StoredObject is one object of a stored kind.
type StoredObject struct {
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	RV        int64  `json:"rv"`
	// Object is the object's JSON, as served but for its resourceVersion.
	Object json.RawMessage `json:"object"`
}

// Key is namespace/name (name for cluster-scoped kinds).
func (o *StoredObject) Key() string { return StoredKey(o.Namespace, o.Name) }

func StoredKey(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func (c *Cluster) Stored(resource string) map[string]*StoredObject {
	if c.Objects == nil {
		c.Objects = map[string]map[string]*StoredObject{}
	}
	if c.Objects[resource] == nil {
		c.Objects[resource] = map[string]*StoredObject{}
	}
	return c.Objects[resource]
}

// Set stores obj's JSON.
func (o *StoredObject) Set(obj runtime.Object) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return KubeError(http.StatusInternalServerError, "InternalError", "encode %s %s: %v", o.Resource, o.Key(), err)
	}
	o.Object = raw
	return nil
}
