package model

import (
	"encoding/json"
)

// ControllerRef is the controller that owns a workload's pods when it is not a Deployment.
type ControllerRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	// Ordinals: the pods are NAME-0 .. NAME-(replicas-1) (a StatefulSet); Parallel: they are
	// created at once rather than each after the previous one is ready (podManagementPolicy).
	Ordinals bool `json:"ordinals,omitempty"`
	Parallel bool `json:"parallel,omitempty"`
	// Spec is the controller's spec as imported, echoed when the API lists it.
	Spec json.RawMessage `json:"spec,omitempty"`
}
