package sim

import (
	"container/heap"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
)

// What an imported cluster (import.go) keeps of the real one that a cluster created here derives
// from the catalogue: the capacity and allocatable its nodes reported per machine type (which
// also lets it have machine types the catalogue lacks), the labels GKE put on every node of a
// pool, and what single nodes had of their own. Nodes GKE creates later (an upgrade's surge
// nodes, a scale-up) get the machine type's and the pool's, never a node's own: labels and
// taints put on a node by hand are lost when GKE recreates it, as they are on GKE.

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

// key tells nodes with different own labels, taints or allocatable apart for the scheduler,
// which treats the nodes of a group alike.
func (o *NodeOwn) key() string {
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

// machineType is a machine type as the cluster knows it: the shape its imported nodes reported,
// or the catalogue's.
func (c *Cluster) machineType(name string) (catalog.MachineType, bool) {
	if s := c.MachineShapes[name]; s != nil {
		return catalog.MachineType{Name: name, VCPU: int((s.CapacityMilliCPU + 999) / 1000), MemoryMiB: s.CapacityMemoryBytes >> 20,
			PricePerHour: s.PricePerHour}, true
	}
	return catalog.LookupMachineType(name)
}

// typeAllocatable is what a new node of a machine type offers the scheduler.
func (c *Cluster) typeAllocatable(machineType string) Resources {
	if s := c.MachineShapes[machineType]; s != nil {
		return s.Allocatable
	}
	mt, _ := catalog.LookupMachineType(machineType)
	return Resources{MilliCPU: mt.AllocatableMilliCPU(), MemoryBytes: mt.AllocatableMemoryMiB() << 20}
}

// nodeAllocatable is what node n offers the scheduler.
func (c *Cluster) nodeAllocatable(n *Node) Resources {
	if n.Own != nil && n.Own.Allocatable != nil {
		return *n.Own.Allocatable
	}
	return c.typeAllocatable(n.Spec.MachineType)
}

// nodeCapacity is node n's CPU and memory capacity.
func (c *Cluster) nodeCapacity(n *Node) Resources {
	if s := c.MachineShapes[n.Spec.MachineType]; s != nil {
		return Resources{MilliCPU: s.CapacityMilliCPU, MemoryBytes: s.CapacityMemoryBytes}
	}
	mt, _ := catalog.LookupMachineType(n.Spec.MachineType)
	return Resources{MilliCPU: mt.CapacityMilliCPU(), MemoryBytes: mt.MemoryMiB << 20}
}

// knowsMachineType says whether nodes of a machine type can be created in the cluster.
func (c *Cluster) knowsMachineType(name string) bool {
	_, ok := c.machineType(name)
	return ok
}

// poolNodeLabels adds to labels what GKE put on every imported node of pool p: the labels
// they shared, and the ones whose value was each node's zone.
func poolNodeLabels(p *NodePool, zone string, labels map[string]string) {
	for k, v := range p.NodeLabels {
		labels[k] = v
	}
	for _, k := range p.ZoneLabels {
		labels[k] = zone
	}
}

// ownLabelsAndTaints adds what node n had of its own.
func ownLabelsAndTaints(n *Node, labels map[string]string, taints []corev1.Taint) []corev1.Taint {
	if n.Own == nil {
		return taints
	}
	for k, v := range n.Own.Labels {
		labels[k] = v
	}
	return append(taints, n.Own.Taints...)
}

// nodeRecreated is a node whose VM was recreated in place with a new spec (R-SURGE-4): the new
// VM registers a new Node, so what was put on the old one by hand is gone, and the scheduler
// files it with the nodes of its new shape.
func (w *World) nodeRecreated(c *Cluster, n *Node) {
	n.Own = nil
	ix, ok := w.k8s[c]
	if !ok || ix.sched == nil {
		return
	}
	sn := ix.sched.nodes[n.Name]
	if sn == nil || sn.group.key == groupKey(n) {
		return
	}
	if sn.idx >= 0 {
		heap.Remove(&sn.group.heap, sn.idx)
	}
	if sn.registered {
		sn.group.registered--
	}
	delete(sn.group.members, n.Name)
	delete(ix.sched.nodes, n.Name)
	w.updateSchedNode(c, n)
}
