package kuberender

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// A node as the Kubernetes API serves it: the labels GKE puts on nodes, the conditions its
// kubelet and node problem detector report, its capacity and allocatable, and annotations
// saying what its pods request.

// TaintEffects map GKE's taint effects (a pool's node config) to Kubernetes'.
var TaintEffects = map[string]corev1.TaintEffect{
	api.EffectNoSchedule: corev1.TaintEffectNoSchedule, api.EffectPreferNoSchedule: corev1.TaintEffectPreferNoSchedule,
	api.EffectNoExecute: corev1.TaintEffectNoExecute,
}

// Annotations gkesim puts on nodes so that users see what the scheduler sees.
const (
	AnnotationRequestedCPU    = "gkesim.io/requested-cpu"
	AnnotationRequestedMemory = "gkesim.io/requested-memory"
	AnnotationPods            = "gkesim.io/pods"
)

// NodeSnap is a node as it is now, with what its rendering needs from its pool and pods: the
// change feed keeps one per change and renders it when a watcher reads it.
type NodeSnap struct {
	// Node is a copy of the node (its drain state left out: not part of the object).
	Node               model.Node
	Project, ClusterID string
	// PoolLabels and PoolTaints are the pool's (its node config's labels and taints).
	PoolLabels map[string]string
	PoolTaints []model.Taint
	// NodeLabels and ZoneLabels are an imported pool's labels on every node (core/allocatable.go).
	NodeLabels map[string]string
	ZoneLabels []string
	MaxPods    int64
	// Capacity and Alloc are the node's capacity and allocatable; Requested and Pods what the
	// pods bound to it request, and how many they are (shown in gkesim's annotations).
	Capacity, Alloc model.Resources
	Requested       model.Resources
	Pods            int
	// Failed: the node has stopped posting its status (a fault or an auto-repair's cause).
	Failed bool
}

// Render renders the node as a Kubernetes Node (the change feed's snapshot interface).
func (s *NodeSnap) Render() runtime.Object { return s.RenderNode() }

// nodeConditions are the conditions GKE nodes report besides Ready: the kubelet's pressure
// conditions and those of GKE's node problem detector, all healthy.
var nodeConditions = []struct {
	Typ             corev1.NodeConditionType
	Reason, Message string
}{
	{"FrequentUnregisterNetDevice", "NoFrequentUnregisterNetDevice", "node is functioning properly"},
	{"FrequentContainerdRestart", "NoFrequentContainerdRestart", "containerd is functioning properly"},
	{"KernelDeadlock", "KernelHasNoDeadlock", "kernel has no deadlock"},
	{"ReadonlyFilesystem", "FilesystemIsNotReadOnly", "Filesystem is not read-only"},
	{"CorruptDockerOverlay2", "NoCorruptDockerOverlay2", "docker overlay2 is functioning properly"},
	{"FrequentKubeletRestart", "NoFrequentKubeletRestart", "kubelet is functioning properly"},
	{"FrequentDockerRestart", "NoFrequentDockerRestart", "docker is functioning properly"},
	{corev1.NodeMemoryPressure, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
	{corev1.NodeDiskPressure, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
	{corev1.NodePIDPressure, "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
}

// RenderNode renders the node as a Kubernetes Node, with the labels GKE puts on nodes and, in
// annotations, what its pods request.
func (s *NodeSnap) RenderNode() *corev1.Node {
	labels, taints := s.LabelsAndTaints()
	// The kubelet's heartbeat is the node's last change: a node's resourceVersion changes only
	// when the node does.
	n := &s.Node
	heartbeat := metav1.NewTime(latest(n.ChangeTime, n.ReadyTime, n.CreateTime))
	return s.renderNodeObject(labels, taints, heartbeat)
}

// LabelsAndTaints are the labels and taints of RenderNode's Node, without the rest.
func (s *NodeSnap) LabelsAndTaints() (map[string]string, []corev1.Taint) {
	n := &s.Node
	labels := gkeNodeLabels(n, s.MaxPods, s.Capacity.MilliCPU)
	for k, v := range s.NodeLabels {
		labels[k] = v
	}
	for _, k := range s.ZoneLabels {
		labels[k] = n.Zone
	}
	var taints []corev1.Taint
	for k, v := range s.PoolLabels {
		labels[k] = v
	}
	for _, t := range s.PoolTaints {
		taints = append(taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: TaintEffects[t.Effect]})
	}
	taints = ownLabelsAndTaints(n, labels, taints)
	if n.Unschedulable {
		taints = append(taints, corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule})
	}
	return labels, taints
}

// GKENodeLabels are the labels GKE puts on a node of its own accord: the well-known ones of
// Kubernetes (hostname, zone and region, instance type, os and arch, with their beta names) and
// GKE's own (pool, machine family, image, provisioning ...). The API renders them and the
// scheduler selects on them (R-SCHED-1): this is their one list.
func GKENodeLabels(c *model.Cluster, n *model.Node) map[string]string {
	maxPods := int64(catalog.DefaultMaxPods)
	if p := c.Pool(n.Pool); p != nil {
		maxPods = p.MaxPodsPerNode
	}
	return gkeNodeLabels(n, maxPods, c.NodeCapacity(n).MilliCPU)
}

func gkeNodeLabels(n *model.Node, maxPods, capacityMilliCPU int64) map[string]string {
	region := n.Zone[:max(strings.LastIndexByte(n.Zone, '-'), 0)]
	provisioning := "standard"
	switch {
	case n.Spec.Spot:
		provisioning = "spot"
	case n.Spec.Preemptible:
		provisioning = "preemptible"
	}
	labels := map[string]string{
		"cloud.google.com/gke-nodepool":            n.Pool,
		"cloud.google.com/gke-boot-disk":           n.Spec.DiskType,
		"cloud.google.com/gke-container-runtime":   "containerd",
		"cloud.google.com/gke-cpu-scaling-level":   strconv.FormatInt(max(capacityMilliCPU/1000, 1), 10),
		"cloud.google.com/gke-logging-variant":     "DEFAULT",
		"cloud.google.com/gke-max-pods-per-node":   strconv.FormatInt(maxPods, 10),
		"cloud.google.com/gke-os-distribution":     osDistribution(n.Spec.ImageType),
		"cloud.google.com/gke-provisioning":        provisioning,
		"cloud.google.com/gke-stack-type":          "IPV4",
		"cloud.google.com/machine-family":          strings.SplitN(n.Spec.MachineType, "-", 2)[0],
		"cloud.google.com/private-node":            "false",
		"node.kubernetes.io/instance-type":         n.Spec.MachineType,
		"beta.kubernetes.io/instance-type":         n.Spec.MachineType,
		"topology.kubernetes.io/zone":              n.Zone,
		"topology.kubernetes.io/region":            region,
		"topology.gke.io/zone":                     n.Zone,
		"failure-domain.beta.kubernetes.io/zone":   n.Zone,
		"failure-domain.beta.kubernetes.io/region": region,
		model.LabelHostname:                        n.Name,
		"kubernetes.io/os":                         "linux",
		"kubernetes.io/arch":                       "amd64",
		"beta.kubernetes.io/os":                    "linux",
		"beta.kubernetes.io/arch":                  "amd64",
	}
	if n.Spec.Spot {
		labels["cloud.google.com/gke-spot"] = "true"
	}
	if n.Spec.Preemptible {
		labels["cloud.google.com/gke-preemptible"] = "true"
	}
	return labels
}

func (s *NodeSnap) renderNodeObject(labels map[string]string, taints []corev1.Taint, heartbeat metav1.Time) *corev1.Node {
	n := &s.Node
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		Message: "kubelet is posting ready status", LastHeartbeatTime: heartbeat, LastTransitionTime: metav1.NewTime(n.ReadyTime)}
	if n.State == model.NodeDeleting || s.Failed {
		ready.Status, ready.Reason, ready.Message = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
	}
	conditions := make([]corev1.NodeCondition, 0, len(nodeConditions)+1)
	for _, nc := range nodeConditions {
		conditions = append(conditions, corev1.NodeCondition{Type: nc.Typ, Status: corev1.ConditionFalse, Reason: nc.Reason, Message: nc.Message,
			LastHeartbeatTime: heartbeat, LastTransitionTime: metav1.NewTime(n.ReadyTime)})
	}
	conditions = append(conditions, ready)
	disk := int64(n.Spec.DiskSizeGb) << 30
	uid := model.UIDOf(s.ClusterID, n.Name)
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: n.Name, UID: types.UID(uid), CreationTimestamp: metav1.NewTime(n.CreateTime),
			ResourceVersion: strconv.FormatInt(n.RV, 10), Labels: labels,
			Annotations: map[string]string{
				"container.googleapis.com/instance_id":                   model.UIDOf(n.Name, "instance")[:19],
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
				AnnotationRequestedCPU:                                   fmt.Sprintf("%dm", s.Requested.MilliCPU),
				AnnotationRequestedMemory:                                fmt.Sprintf("%dMi", s.Requested.MemoryBytes>>20),
				AnnotationPods:                                           strconv.Itoa(s.Pods),
			},
		},
		Spec: corev1.NodeSpec{
			ProviderID:    fmt.Sprintf("gce://%s/%s/%s", s.Project, n.Zone, n.Name),
			Unschedulable: n.Unschedulable,
			Taints:        taints,
		},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:              *resource.NewMilliQuantity(s.Capacity.MilliCPU, resource.DecimalSI),
				corev1.ResourceMemory:           *resource.NewQuantity(s.Capacity.MemoryBytes, resource.BinarySI),
				corev1.ResourcePods:             *resource.NewQuantity(s.MaxPods, resource.DecimalSI),
				corev1.ResourceEphemeralStorage: *resource.NewQuantity(disk, resource.BinarySI),
			},
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:              *resource.NewMilliQuantity(s.Alloc.MilliCPU, resource.DecimalSI),
				corev1.ResourceMemory:           *resource.NewQuantity(s.Alloc.MemoryBytes, resource.BinarySI),
				corev1.ResourcePods:             *resource.NewQuantity(s.MaxPods, resource.DecimalSI),
				corev1.ResourceEphemeralStorage: *resource.NewQuantity(disk*9/10, resource.BinarySI),
			},
			Conditions: conditions,
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: n.InternalIP},
				{Type: corev1.NodeHostName, Address: n.Name},
			},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID: strings.ReplaceAll(model.UIDOf(n.Name, "machine"), "-", ""), SystemUUID: model.UIDOf(n.Name, "vm"),
				BootID: model.UIDOf(n.Name, n.CreateTime.UTC().Truncate(time.Second).Format(time.RFC3339), "boot"), KernelVersion: kernelVersion(n.Spec.ImageType),
				KubeletVersion: KubeletVersion(n.Spec.Version),
				OSImage:        osImage(n.Spec.ImageType), ContainerRuntimeVersion: "containerd://1.7.27",
				OperatingSystem: "linux", Architecture: "amd64",
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		},
	}
}

// latest is the latest of some times.
func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

// kernelVersion is the kernel of a node image.
func kernelVersion(imageType string) string {
	if osDistribution(imageType) == "ubuntu" {
		return "6.8.0-1027-gke"
	}
	return "6.6.87+"
}

func osDistribution(imageType string) string {
	switch {
	case strings.HasPrefix(imageType, "UBUNTU"):
		return "ubuntu"
	case strings.HasPrefix(imageType, "WINDOWS"):
		return "windows"
	}
	return "cos"
}

func osImage(imageType string) string {
	switch osDistribution(imageType) {
	case "ubuntu":
		return "Ubuntu 24.04.2 LTS"
	case "windows":
		return "Windows Server 2022 Datacenter"
	}
	return "Container-Optimized OS from Google"
}

// ownLabelsAndTaints adds what node n had of its own (an imported node's).
func ownLabelsAndTaints(n *model.Node, labels map[string]string, taints []corev1.Taint) []corev1.Taint {
	if n.Own == nil {
		return taints
	}
	for k, v := range n.Own.Labels {
		labels[k] = v
	}
	return append(taints, n.Own.Taints...)
}

// KubeletVersion is the Kubernetes version a GKE version runs: 1.X.Y-gke.N -> v1.X.Y-gke.N.
func KubeletVersion(v string) string { return "v" + v }
