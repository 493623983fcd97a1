package core

import (
	"fmt"
	"sort"
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

func SortedNodeNames(c *model.Cluster) []string {
	names := make([]string, 0, len(c.Nodes))
	for name := range c.Nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

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

// RenderK8sNode renders one node as a Kubernetes Node, with the labels GKE puts on nodes and,
// in annotations, what its pods request.
func (w *Core) RenderK8sNode(c *model.Cluster, n *model.Node) *corev1.Node {
	return w.nodeSnapshot(c, n).renderNode()
}

// K8sNodeLabelsAndTaints are the labels and taints of RenderK8sNode's Node, without the rest.
func (w *Core) K8sNodeLabelsAndTaints(c *model.Cluster, n *model.Node) (map[string]string, []corev1.Taint) {
	return w.nodeSnapshot(c, n).labelsAndTaints()
}

// nodeSnap is a node as it is now, with what its rendering needs from its pool and pods: the
// change feed keeps one per change and renders it when a watcher reads it.
type nodeSnap struct {
	node               model.Node
	project, clusterID string
	poolLabels         map[string]string
	poolTaints         []model.Taint
	// nodeLabels and zoneLabels are an imported pool's labels on every node (core/allocatable.go).
	nodeLabels      map[string]string
	zoneLabels      []string
	maxPods         int64
	capacity, alloc model.Resources
	requested       model.Resources
	pods            int
	failed          bool
}

func (w *Core) nodeSnapshot(c *model.Cluster, n *model.Node) *nodeSnap {
	s := &nodeSnap{node: *n, project: c.Project, clusterID: c.ID, maxPods: int64(catalog.DefaultMaxPods), failed: c.NodeFailed(n.Name)}
	s.node.Drain = nil // the drain's own state is not part of the object
	if p := c.Pool(n.Pool); p != nil {
		s.poolLabels, s.poolTaints, s.maxPods = p.Labels, p.Taints, p.MaxPodsPerNode
		s.nodeLabels, s.zoneLabels = p.NodeLabels, p.ZoneLabels
	}
	s.capacity, s.alloc = c.NodeCapacity(n), c.NodeAllocatable(n)
	ix := w.PodIndex(c)
	on := ix.On(n.Name)
	s.requested, s.pods = on.Requested, len(on.Pods)
	return s
}

func (s *nodeSnap) Render() runtime.Object { return s.renderNode() }

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

func (s *nodeSnap) renderNode() *corev1.Node {
	labels, taints := s.labelsAndTaints()
	// The kubelet's heartbeat is the node's last change: a node's resourceVersion changes only
	// when the node does.
	n := &s.node
	heartbeat := metav1.NewTime(latest(n.ChangeTime, n.ReadyTime, n.CreateTime))
	return s.renderNodeObject(labels, taints, heartbeat)
}

func (s *nodeSnap) labelsAndTaints() (map[string]string, []corev1.Taint) {
	n := &s.node
	labels := gkeNodeLabels(n, s.maxPods, s.capacity.MilliCPU)
	for k, v := range s.nodeLabels {
		labels[k] = v
	}
	for _, k := range s.zoneLabels {
		labels[k] = n.Zone
	}
	var taints []corev1.Taint
	for k, v := range s.poolLabels {
		labels[k] = v
	}
	for _, t := range s.poolTaints {
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

func (s *nodeSnap) renderNodeObject(labels map[string]string, taints []corev1.Taint, heartbeat metav1.Time) *corev1.Node {
	n := &s.node
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		Message: "kubelet is posting ready status", LastHeartbeatTime: heartbeat, LastTransitionTime: metav1.NewTime(n.ReadyTime)}
	if n.State == model.NodeDeleting || s.failed {
		ready.Status, ready.Reason, ready.Message = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
	}
	conditions := make([]corev1.NodeCondition, 0, len(nodeConditions)+1)
	for _, nc := range nodeConditions {
		conditions = append(conditions, corev1.NodeCondition{Type: nc.Typ, Status: corev1.ConditionFalse, Reason: nc.Reason, Message: nc.Message,
			LastHeartbeatTime: heartbeat, LastTransitionTime: metav1.NewTime(n.ReadyTime)})
	}
	conditions = append(conditions, ready)
	disk := int64(n.Spec.DiskSizeGb) << 30
	uid := model.UIDOf(s.clusterID, n.Name)
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: n.Name, UID: types.UID(uid), CreationTimestamp: metav1.NewTime(n.CreateTime),
			ResourceVersion: strconv.FormatInt(n.RV, 10), Labels: labels,
			Annotations: map[string]string{
				"container.googleapis.com/instance_id":                   model.UIDOf(n.Name, "instance")[:19],
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
				AnnotationRequestedCPU:                                   fmt.Sprintf("%dm", s.requested.MilliCPU),
				AnnotationRequestedMemory:                                fmt.Sprintf("%dMi", s.requested.MemoryBytes>>20),
				AnnotationPods:                                           strconv.Itoa(s.pods),
			},
		},
		Spec: corev1.NodeSpec{
			ProviderID:    fmt.Sprintf("gce://%s/%s/%s", s.project, n.Zone, n.Name),
			Unschedulable: n.Unschedulable,
			Taints:        taints,
		},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:              *resource.NewMilliQuantity(s.capacity.MilliCPU, resource.DecimalSI),
				corev1.ResourceMemory:           *resource.NewQuantity(s.capacity.MemoryBytes, resource.BinarySI),
				corev1.ResourcePods:             *resource.NewQuantity(s.maxPods, resource.DecimalSI),
				corev1.ResourceEphemeralStorage: *resource.NewQuantity(disk, resource.BinarySI),
			},
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:              *resource.NewMilliQuantity(s.alloc.MilliCPU, resource.DecimalSI),
				corev1.ResourceMemory:           *resource.NewQuantity(s.alloc.MemoryBytes, resource.BinarySI),
				corev1.ResourcePods:             *resource.NewQuantity(s.maxPods, resource.DecimalSI),
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
				KubeletVersion: kubeletVersion(n.Spec.Version),
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
