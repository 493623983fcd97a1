package model

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
)

// ResourceComputeClasses is the resource name of ComputeClass objects.
const ResourceComputeClasses = "computeclasses"

// computeClassSpec is what the simulation reads of a ComputeClass.
type computeClassSpec struct {
	Priorities        []computeClassRule `json:"priorities"`
	WhenUnsatisfiable string             `json:"whenUnsatisfiable"`
}

type computeClassRule struct {
	MachineFamily string          `json:"machineFamily"`
	MachineType   string          `json:"machineType"`
	Spot          *bool           `json:"spot"`
	MinCores      int             `json:"minCores"`
	MinMemoryGb   int             `json:"minMemoryGb"`
	Nodepools     []string        `json:"nodepools"`
	GPU           json.RawMessage `json:"gpu"`
	TPU           json.RawMessage `json:"tpu"`
	PodFamily     json.RawMessage `json:"podFamily"`
	FlexStart     json.RawMessage `json:"flexStart"`
}

// ComputeClass reads a cluster's ComputeClass by name.
func (c *Cluster) ComputeClass(name string) *computeClassSpec {
	o := c.Objects[ResourceComputeClasses][name]
	if o == nil {
		return nil
	}
	var obj struct {
		Spec computeClassSpec `json:"spec"`
	}
	if err := json.Unmarshal(o.Object, &obj); err != nil {
		return nil // validated on the way in
	}
	return &obj.Spec
}

// Matches says whether nodes of pool p satisfy the rule: every field it sets.
func (r computeClassRule) Matches(p *NodePool) bool {
	if len(r.GPU) > 0 || len(r.TPU) > 0 || len(r.PodFamily) > 0 || len(r.FlexStart) > 0 {
		return false
	}
	mt, _ := catalog.LookupMachineType(p.Spec.MachineType)
	family, _, _ := strings.Cut(p.Spec.MachineType, "-")
	spot := r.Spot != nil && *r.Spot
	switch {
	case r.MachineFamily != "" && r.MachineFamily != family,
		r.MachineType != "" && r.MachineType != p.Spec.MachineType,
		spot != (p.Spec.Spot || p.Spec.Preemptible),
		r.MinCores > 0 && int(mt.VCPU) < r.MinCores,
		r.MinMemoryGb > 0 && int(mt.MemoryMiB/1024) < r.MinMemoryGb,
		len(r.Nodepools) > 0 && !slices.Contains(r.Nodepools, p.Name):
		return false
	}
	return true
}
