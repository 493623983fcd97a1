package model

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	corev1 "k8s.io/api/core/v1"
)

// MachineShape is a machine type as an imported cluster's nodes reported it.
type MachineShape struct {
	CapacityMilliCPU    int64     `json:"capacityMilliCpu"`
	CapacityMemoryBytes int64     `json:"capacityMemoryBytes"`
	Allocatable         Resources `json:"allocatable"`
	// PricePerHour is the catalogue's price, or for a type it lacks an estimate from the vCPUs
	// and memory at general-purpose (n2) rates.
	PricePerHour float64 `json:"pricePerHour"`
}

// NodeOwn is what an imported node had of its own.
type NodeOwn struct {
	// Labels are labels beyond its pool's (kubectl label, a controller's).
	Labels map[string]string `json:"labels,omitempty"`
	// Taints are taints beyond its pool's and the cordon's.
	Taints []corev1.Taint `json:"taints,omitempty"`
	// Allocatable, when set, is what the node reported, which differs from its machine
	// type's shape.
	Allocatable *Resources `json:"allocatable,omitempty"`
}

// Key tells nodes with different own labels, taints or allocatable apart for the scheduler,
// which treats the nodes of a group alike.
func (o *NodeOwn) Key() string {
	if o == nil {
		return ""
	}
	var b strings.Builder
	keys := make([]string, 0, len(o.Labels))
	for k := range o.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString("|l:" + k + "=" + o.Labels[k])
	}
	for _, t := range o.Taints {
		b.WriteString("|t:" + t.Key + "=" + t.Value + ":" + string(t.Effect))
	}
	if a := o.Allocatable; a != nil {
		fmt.Fprintf(&b, "|a:%d/%d", a.MilliCPU, a.MemoryBytes)
	}
	return b.String()
}

// MachineType is a machine type as the cluster knows it: the shape its imported nodes reported,
// or the catalogue's.
func (c *Cluster) MachineType(name string) (catalog.MachineType, bool) {
	if s := c.MachineShapes[name]; s != nil {
		return catalog.MachineType{Name: name, VCPU: int((s.CapacityMilliCPU + 999) / 1000), MemoryMiB: s.CapacityMemoryBytes >> 20,
			PricePerHour: s.PricePerHour}, true
	}
	return catalog.LookupMachineType(name)
}

// TypeAllocatable is what a new node of a machine type offers the scheduler.
func (c *Cluster) TypeAllocatable(machineType string) Resources {
	if s := c.MachineShapes[machineType]; s != nil {
		return s.Allocatable
	}
	mt, _ := catalog.LookupMachineType(machineType)
	return Resources{MilliCPU: mt.AllocatableMilliCPU(), MemoryBytes: mt.AllocatableMemoryMiB() << 20}
}

// NodeAllocatable is what node n offers the scheduler.
func (c *Cluster) NodeAllocatable(n *Node) Resources {
	if n.Own != nil && n.Own.Allocatable != nil {
		return *n.Own.Allocatable
	}
	return c.TypeAllocatable(n.Spec.MachineType)
}

// NodeCapacity is node n's CPU and memory capacity.
func (c *Cluster) NodeCapacity(n *Node) Resources {
	if s := c.MachineShapes[n.Spec.MachineType]; s != nil {
		return Resources{MilliCPU: s.CapacityMilliCPU, MemoryBytes: s.CapacityMemoryBytes}
	}
	mt, _ := catalog.LookupMachineType(n.Spec.MachineType)
	return Resources{MilliCPU: mt.CapacityMilliCPU(), MemoryBytes: mt.MemoryMiB << 20}
}

// KnowsMachineType says whether nodes of a machine type can be created in the cluster.
func (c *Cluster) KnowsMachineType(name string) bool {
	_, ok := c.MachineType(name)
	return ok
}

// ImportRecord says where an imported cluster came from.
type ImportRecord struct {
	SnapshotTime time.Time `json:"snapshotTime"`
	Time         time.Time `json:"time"`
}

func (p *NodePool) GroupNamed(name string) *InstanceGroup {
	for _, g := range p.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}
