package sim

import (
	"fmt"
	"maps"
	"slices"
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

// Rendering the model in GKE's and Kubernetes' JSON shapes.

// RenderCluster renders a cluster. endpoint is the address of its Kubernetes-shaped API.
func (w *World) RenderCluster(c *model.Cluster, links Links, endpoint string) *api.Cluster {
	out := &api.Cluster{
		Name:                  c.Name,
		Description:           c.Description,
		InitialNodeCount:      c.InitialNodeCount,
		Network:               c.Network,
		Subnetwork:            c.Subnetwork,
		ClusterIpv4Cidr:       c.ClusterIPv4CIDR,
		Locations:             slices.Clone(c.Locations),
		ResourceLabels:        maps.Clone(c.ResourceLabels),
		LabelFingerprint:      labelFingerprint(c.ResourceLabels),
		MaintenancePolicy:     w.maintenance.RenderMaintenancePolicy(c),
		InitialClusterVersion: c.InitialVersion,
		SelfLink:              links.Container("projects/%s/locations/%s/clusters/%s", c.Project, c.Location, c.Name),
		Zone:                  c.Location,
		Endpoint:              endpoint,
		CurrentMasterVersion:  c.MasterVersion,
		CreateTime:            c.CreateTime.Format(time.RFC3339),
		Status:                c.Status,
		StatusMessage:         c.StatusMessage,
		NodeIpv4CidrSize:      24,
		ServicesIpv4Cidr:      c.ServicesIPv4CIDR,
		Location:              c.Location,
		Id:                    c.ID,
		Etag:                  c.Etag,
		Extra:                 c.Extra.Clone(),
	}
	out.Autoscaling = &api.ClusterAutoscaling{AutoscalingProfile: c.AutoscalingProfile, Extra: c.AutoscalingExtra.Clone()}
	region := c.Location
	if l, ok := catalog.ParseLocation(c.Location); ok {
		region = l.Region
	}
	out.NetworkConfig = &api.NetworkConfig{
		Network:               fmt.Sprintf("projects/%s/global/networks/%s", c.Project, lastSegment(c.Network)),
		Subnetwork:            fmt.Sprintf("projects/%s/regions/%s/subnetworks/%s", c.Project, region, lastSegment(c.Subnetwork)),
		EnableL4IlbSubsetting: c.L4ILBSubsetting,
		Extra:                 c.NetworkExtra.Clone(),
	}
	out.ReleaseChannel = &api.ReleaseChannel{}
	if c.ReleaseChannel != api.ChannelUnspecified {
		out.ReleaseChannel.Channel = c.ReleaseChannel
	}
	if c.Autopilot {
		out.Autopilot = &api.Autopilot{Enabled: true}
	}
	var oldest catalog.Version
	for i, p := range c.Pools {
		rp := w.RenderNodePool(c, p, links)
		out.NodePools = append(out.NodePools, rp)
		out.InstanceGroupUrls = append(out.InstanceGroupUrls, rp.InstanceGroupUrls...)
		if v, ok := catalog.ParseVersion(p.Spec.Version); ok && (i == 0 || v.Compare(oldest) < 0) {
			oldest = v
		}
		if i == 0 {
			out.NodeConfig = rp.Config
		}
	}
	if len(c.Pools) > 0 {
		out.CurrentNodeVersion = oldest.String()
	}
	for _, n := range c.Nodes {
		if n.State != model.NodeProvisioning && n.State != model.NodeDeleting {
			out.CurrentNodeCount++
		}
	}
	return out
}

func lastSegment(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// RenderNodePool renders a node pool.
func (w *World) RenderNodePool(c *model.Cluster, p *model.NodePool, links Links) *api.NodePool {
	cfg := &api.NodeConfig{
		MachineType: p.Spec.MachineType, DiskSizeGb: p.Spec.DiskSizeGb, DiskType: p.Spec.DiskType,
		ImageType: p.Spec.ImageType, Labels: maps.Clone(p.Labels), Spot: p.Spec.Spot, Preemptible: p.Spec.Preemptible,
		FlexStart: p.FlexStart, Extra: p.ConfigExtra.Clone(),
	}
	for _, t := range p.Taints {
		cfg.Taints = append(cfg.Taints, &api.NodeTaint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	as := p.Autoscaling
	us := p.UpgradeSettings.Clone()
	out := &api.NodePool{
		Name:              p.Name,
		Config:            cfg,
		InitialNodeCount:  p.InitialNodeCount,
		Locations:         slices.Clone(p.Locations),
		Version:           p.Spec.Version,
		Autoscaling:       &as,
		Management:        &api.NodeManagement{AutoUpgrade: p.AutoUpgrade, AutoRepair: p.AutoRepair},
		MaxPodsConstraint: &api.MaxPodsConstraint{MaxPodsPerNode: api.Int64(p.MaxPodsPerNode)},
		UpgradeSettings:   &us,
		SelfLink:          links.Container("projects/%s/locations/%s/clusters/%s/nodePools/%s", c.Project, c.Location, c.Name, p.Name),
		Status:            p.Status,
		StatusMessage:     p.StatusMessage,
		PodIpv4CidrSize:   p.PodIPv4CIDRSize,
		Etag:              p.Etag,
		Extra:             p.Extra.Clone(),
	}
	if p.QueuedProvisioning {
		out.QueuedProvisioning = &api.QueuedProvisioning{Enabled: true}
	}
	igURL := func(g *model.InstanceGroup) string {
		return links.Compute("projects/%s/zones/%s/instanceGroupManagers/%s", c.Project, g.Zone, g.Name)
	}
	for _, g := range p.Groups {
		out.InstanceGroupUrls = append(out.InstanceGroupUrls, igURL(g))
	}
	if u := p.Upgrade; u != nil && u.BG != nil {
		info := &api.BlueGreenInfo{Phase: u.BG.Phase, GreenPoolVersion: u.Target.Version}
		if u.Rollback {
			info.GreenPoolVersion = u.From.Version
		}
		// v1 has no WAITING_TO_DRAIN_BLUE_POOL; its clients see the blue pool as cordoned.
		if info.Phase == phaseWaitingToDrain && !strings.Contains(links.ContainerBase, "/v1beta1/") {
			info.Phase = phaseCordoningBlue
		}
		if !u.BG.DeletionStart.IsZero() {
			info.BluePoolDeletionStartTime = u.BG.DeletionStart.Format(time.RFC3339)
		}
		for _, g := range p.Groups {
			if u.BG.IsBlue(g.Name) {
				info.BlueInstanceGroupUrls = append(info.BlueInstanceGroupUrls, igURL(g))
			} else if u.BG.IsGreen(g.Name) {
				info.GreenInstanceGroupUrls = append(info.GreenInstanceGroupUrls, igURL(g))
			}
		}
		out.UpdateInfo = &api.UpdateInfo{BlueGreenInfo: info}
	}
	return out
}

// K8sNodes renders the registered nodes of a cluster (VMs still booting are not nodes yet),
// sorted by name, as Kubernetes Node objects.
func (w *World) K8sNodes(c *model.Cluster) []corev1.Node {
	names := sortedNodeNames(c)
	out := make([]corev1.Node, 0, len(names))
	for _, name := range names {
		n := c.Nodes[name]
		if n.State == model.NodeProvisioning {
			continue
		}
		out = append(out, *w.RenderK8sNode(c, n))
	}
	return out
}

func sortedNodeNames(c *model.Cluster) []string {
	names := make([]string, 0, len(c.Nodes))
	for name := range c.Nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

var taintEffects = map[string]corev1.TaintEffect{
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
func (w *World) RenderK8sNode(c *model.Cluster, n *model.Node) *corev1.Node {
	return w.nodeSnapshot(c, n).renderNode()
}

// nodeSnap is a node as it is now, with what its rendering needs from its pool and pods: the
// change feed keeps one per change and renders it when a watcher reads it.
type nodeSnap struct {
	node               model.Node
	project, clusterID string
	poolLabels         map[string]string
	poolTaints         []model.Taint
	// nodeLabels and zoneLabels are an imported pool's labels on every node (imported.go).
	nodeLabels      map[string]string
	zoneLabels      []string
	maxPods         int64
	capacity, alloc model.Resources
	requested       model.Resources
	pods            int
	failed          bool
}

func (w *World) nodeSnapshot(c *model.Cluster, n *model.Node) *nodeSnap {
	s := &nodeSnap{node: *n, project: c.Project, clusterID: c.ID, maxPods: int64(catalog.DefaultMaxPods), failed: c.NodeFailed(n.Name)}
	s.node.Drain = nil // the drain's own state is not part of the object
	if p := c.Pool(n.Pool); p != nil {
		s.poolLabels, s.poolTaints, s.maxPods = p.Labels, p.Taints, p.MaxPodsPerNode
		s.nodeLabels, s.zoneLabels = p.NodeLabels, p.ZoneLabels
	}
	s.capacity, s.alloc = c.NodeCapacity(n), c.NodeAllocatable(n)
	ix := w.podIndex(c)
	s.requested, s.pods = ix.requested[n.Name], len(ix.podsOnNode[n.Name])
	return s
}

func (s *nodeSnap) render() runtime.Object { return s.renderNode() }

// nodeConditions are the conditions GKE nodes report besides Ready: the kubelet's pressure
// conditions and those of GKE's node problem detector, all healthy.
var nodeConditions = []struct {
	typ             corev1.NodeConditionType
	reason, message string
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
	n := &s.node
	labels := gkeNodeLabels(n)
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
		taints = append(taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: taintEffects[t.Effect]})
	}
	taints = ownLabelsAndTaints(n, labels, taints)
	if n.Unschedulable {
		taints = append(taints, corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule})
	}
	// The kubelet's heartbeat is the node's last change: a node's resourceVersion changes only
	// when the node does.
	heartbeat := metav1.NewTime(latest(n.ChangeTime, n.ReadyTime, n.CreateTime))
	return s.renderNodeObject(labels, taints, heartbeat)
}

// gkeNodeLabels are the labels GKE puts on a node of its own accord.
func gkeNodeLabels(n *model.Node) map[string]string {
	region := n.Zone[:max(strings.LastIndexByte(n.Zone, '-'), 0)]
	labels := map[string]string{
		"cloud.google.com/gke-nodepool":          n.Pool,
		"cloud.google.com/gke-boot-disk":         n.Spec.DiskType,
		"cloud.google.com/gke-container-runtime": "containerd",
		"cloud.google.com/gke-os-distribution":   osDistribution(n.Spec.ImageType),
		"cloud.google.com/machine-family":        strings.SplitN(n.Spec.MachineType, "-", 2)[0],
		"node.kubernetes.io/instance-type":       n.Spec.MachineType,
		"beta.kubernetes.io/instance-type":       n.Spec.MachineType,
		"topology.kubernetes.io/zone":            n.Zone,
		"topology.kubernetes.io/region":          region,
		"failure-domain.beta.kubernetes.io/zone": n.Zone,
		"kubernetes.io/hostname":                 n.Name,
		"kubernetes.io/os":                       "linux",
		"kubernetes.io/arch":                     "amd64",
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
		conditions = append(conditions, corev1.NodeCondition{Type: nc.typ, Status: corev1.ConditionFalse, Reason: nc.reason, Message: nc.message,
			LastHeartbeatTime: heartbeat, LastTransitionTime: metav1.NewTime(n.ReadyTime)})
	}
	conditions = append(conditions, ready)
	disk := int64(n.Spec.DiskSizeGb) << 30
	uid := model.UidOf(s.clusterID, n.Name)
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: n.Name, UID: types.UID(uid), CreationTimestamp: metav1.NewTime(n.CreateTime),
			ResourceVersion: strconv.FormatInt(n.RV, 10), Labels: labels,
			Annotations: map[string]string{
				"container.googleapis.com/instance_id":                   model.UidOf(n.Name, "instance")[:19],
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
				MachineID: strings.ReplaceAll(model.UidOf(n.Name, "machine"), "-", ""), SystemUUID: model.UidOf(n.Name, "vm"),
				BootID: model.UidOf(n.Name, n.CreateTime.UTC().Truncate(time.Second).Format(time.RFC3339), "boot"), KernelVersion: kernelVersion(n.Spec.ImageType),
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
