package model

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
)

// ResourcePriorityClasses is the resource name of scheduling.k8s.io/v1 PriorityClass objects.
const ResourcePriorityClasses = "priorityclasses"

// HighestUserDefinablePriority is the highest value a PriorityClass not of the system's may
// have (kube-apiserver's scheduling.HighestUserDefinablePriority).
const HighestUserDefinablePriority = 1000000000

// SystemPriorityClass is one of the PriorityClasses every cluster has (R-SCHED-3).
type SystemPriorityClass struct {
	Name, Description string
	Value             int32
}

// SystemPriorityClasses are the PriorityClasses kube-apiserver creates in every cluster, GKE's
// included, with their values.
var SystemPriorityClasses = []SystemPriorityClass{
	{"system-cluster-critical", "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.", 2000000000},
	{"system-node-critical", "Used for system critical pods that must not be moved from their current node.", 2000001000},
}

// priorityClass is what the simulation reads of a PriorityClass.
type priorityClass struct {
	Value            int32                    `json:"value"`
	GlobalDefault    bool                     `json:"globalDefault"`
	PreemptionPolicy *corev1.PreemptionPolicy `json:"preemptionPolicy"`
}

// PriorityClass resolves a PriorityClass name to its value and preemption policy, as the API
// server's Priority admission does; ok is false when the cluster has no class of that name.
func (c *Cluster) PriorityClass(name string) (value int32, policy *corev1.PreemptionPolicy, ok bool) {
	for _, s := range SystemPriorityClasses {
		if s.Name == name {
			return s.Value, nil, true
		}
	}
	o := c.Objects[ResourcePriorityClasses][name]
	if o == nil {
		return 0, nil, false
	}
	var pc priorityClass
	if err := json.Unmarshal(o.Object, &pc); err != nil {
		return 0, nil, false // validated on the way in
	}
	return pc.Value, pc.PreemptionPolicy, true
}

// DefaultPriorityClass is the cluster's class marked globalDefault (the one with the lowest
// value if several are, as the API server picks), which pods naming none get; "" if none.
func (c *Cluster) DefaultPriorityClass() (name string, value int32, policy *corev1.PreemptionPolicy) {
	for _, key := range SortedKeys(c.Objects[ResourcePriorityClasses]) {
		var pc priorityClass
		if err := json.Unmarshal(c.Objects[ResourcePriorityClasses][key].Object, &pc); err != nil || !pc.GlobalDefault {
			continue
		}
		if name == "" || pc.Value < value {
			name, value, policy = key, pc.Value, pc.PreemptionPolicy
		}
	}
	return name, value, policy
}
