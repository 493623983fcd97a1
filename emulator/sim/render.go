package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// Rendering the model in GKE's and Kubernetes' JSON shapes.

// RenderCluster renders a cluster. endpoint is the address of its Kubernetes-shaped API.
func (w *World) RenderCluster(c *Cluster, links Links, endpoint string) *api.Cluster {
	out := &api.Cluster{
		Name:                  c.Name,
		Description:           c.Description,
		InitialNodeCount:      c.InitialNodeCount,
		Network:               c.Network,
		Subnetwork:            c.Subnetwork,
		ClusterIpv4Cidr:       c.ClusterIPv4CIDR,
		Locations:             c.Locations,
		ResourceLabels:        c.ResourceLabels,
		MaintenancePolicy:     &api.MaintenancePolicy{ResourceVersion: c.PolicyVersion},
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
		Extra:                 c.Extra,
	}
	out.Autoscaling = &api.ClusterAutoscaling{AutoscalingProfile: c.AutoscalingProfile, Extra: c.AutoscalingExtra}
	region := c.Location
	if l, ok := ParseLocation(c.Location); ok {
		region = l.Region
	}
	out.NetworkConfig = &api.NetworkConfig{
		Network:               fmt.Sprintf("projects/%s/global/networks/%s", c.Project, lastSegment(c.Network)),
		Subnetwork:            fmt.Sprintf("projects/%s/regions/%s/subnetworks/%s", c.Project, region, lastSegment(c.Subnetwork)),
		EnableL4IlbSubsetting: c.L4ILBSubsetting,
		Extra:                 c.NetworkExtra,
	}
	out.ReleaseChannel = &api.ReleaseChannel{}
	if c.ReleaseChannel != api.ChannelUnspecified {
		out.ReleaseChannel.Channel = c.ReleaseChannel
	}
	if c.Autopilot {
		out.Autopilot = &api.Autopilot{Enabled: true}
	}
	var oldest Version
	for i, p := range c.Pools {
		rp := w.RenderNodePool(c, p, links)
		out.NodePools = append(out.NodePools, rp)
		out.InstanceGroupUrls = append(out.InstanceGroupUrls, rp.InstanceGroupUrls...)
		if v, ok := ParseVersion(p.Spec.Version); ok && (i == 0 || v.Compare(oldest) < 0) {
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
		if n.State != NodeProvisioning && n.State != NodeDeleting {
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
func (w *World) RenderNodePool(c *Cluster, p *NodePool, links Links) *api.NodePool {
	cfg := &api.NodeConfig{
		MachineType: p.Spec.MachineType, DiskSizeGb: p.Spec.DiskSizeGb, DiskType: p.Spec.DiskType,
		ImageType: p.Spec.ImageType, Labels: p.Labels, Spot: p.Spec.Spot, Preemptible: p.Spec.Preemptible,
		Extra: p.ConfigExtra,
	}
	for _, t := range p.Taints {
		cfg.Taints = append(cfg.Taints, &api.NodeTaint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	as := p.Autoscaling
	us := p.UpgradeSettings
	out := &api.NodePool{
		Name:              p.Name,
		Config:            cfg,
		InitialNodeCount:  p.InitialNodeCount,
		Locations:         p.Locations,
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
		Extra:             p.Extra,
	}
	for _, g := range p.Groups {
		out.InstanceGroupUrls = append(out.InstanceGroupUrls, links.Compute("projects/%s/zones/%s/instanceGroupManagers/%s", c.Project, g.Zone, g.Name))
	}
	return out
}

// K8sNodes renders the registered nodes of a cluster (VMs still booting are not nodes yet),
// sorted by name, as Kubernetes Node objects.
func (w *World) K8sNodes(c *Cluster) []*api.K8sNode {
	names := sortedNodeNames(c)
	out := make([]*api.K8sNode, 0, len(names))
	for _, name := range names {
		n := c.Nodes[name]
		if n.State == NodeProvisioning {
			continue
		}
		out = append(out, w.RenderK8sNode(c, n))
	}
	return out
}

func sortedNodeNames(c *Cluster) []string {
	names := make([]string, 0, len(c.Nodes))
	for name := range c.Nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

var taintEffects = map[string]string{
	api.EffectNoSchedule: "NoSchedule", api.EffectPreferNoSchedule: "PreferNoSchedule", api.EffectNoExecute: "NoExecute",
}

// RenderK8sNode renders one node as a Kubernetes Node, with the labels GKE puts on nodes.
func (w *World) RenderK8sNode(c *Cluster, n *Node) *api.K8sNode {
	p := c.Pool(n.Pool)
	mt, _ := LookupMachineType(n.Spec.MachineType)
	region := n.Zone[:strings.LastIndexByte(n.Zone, '-')]
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
	var taints []*api.K8sTaint
	if p != nil {
		for k, v := range p.Labels {
			labels[k] = v
		}
		for _, t := range p.Taints {
			taints = append(taints, &api.K8sTaint{Key: t.Key, Value: t.Value, Effect: taintEffects[t.Effect]})
		}
	}
	if n.Unschedulable {
		taints = append(taints, &api.K8sTaint{Key: "node.kubernetes.io/unschedulable", Effect: "NoSchedule"})
	}
	ready := &api.K8sCondition{Type: "Ready", Status: "True", Reason: "KubeletReady", Message: "kubelet is posting ready status",
		LastHeartbeatTime: w.st.Now.Format(time.RFC3339), LastTransitionTime: n.ReadyTime.Format(time.RFC3339)}
	if n.State == NodeDeleting {
		ready.Status, ready.Reason, ready.Message = "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."
	}
	maxPods := int64(defaultMaxPods)
	if p != nil {
		maxPods = p.MaxPodsPerNode
	}
	return &api.K8sNode{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: api.ObjectMeta{
			Name: n.Name, UID: uidOf(c.ID, n.Name), CreationTimestamp: n.CreateTime.Format(time.RFC3339),
			ResourceVersion: strconv.FormatInt(n.ReadyTime.Unix(), 10), Labels: labels,
			Annotations: map[string]string{"container.googleapis.com/instance_id": uidOf(n.Name, "instance")[:19]},
		},
		Spec: api.K8sNodeSpec{
			ProviderID:    fmt.Sprintf("gce://%s/%s/%s", c.Project, n.Zone, n.Name),
			Unschedulable: n.Unschedulable,
			Taints:        taints,
		},
		Status: api.K8sNodeStatus{
			Capacity: map[string]string{
				"cpu": strconv.Itoa(mt.VCPU), "memory": fmt.Sprintf("%dKi", mt.MemoryMiB*1024),
				"pods": strconv.FormatInt(maxPods, 10), "ephemeral-storage": fmt.Sprintf("%dKi", int64(n.Spec.DiskSizeGb)*1024*1024),
			},
			Allocatable: map[string]string{
				"cpu": fmt.Sprintf("%dm", mt.AllocatableMilliCPU()), "memory": fmt.Sprintf("%dKi", mt.AllocatableMemoryMiB()*1024),
				"pods": strconv.FormatInt(maxPods, 10), "ephemeral-storage": fmt.Sprintf("%dKi", int64(n.Spec.DiskSizeGb)*1024*1024*9/10),
			},
			Conditions: []*api.K8sCondition{ready},
			Addresses: []*api.K8sNodeAddress{
				{Type: "InternalIP", Address: n.InternalIP},
				{Type: "Hostname", Address: n.Name},
			},
			NodeInfo: &api.K8sNodeSystemInfo{
				KubeletVersion: kubeletVersion(n.Spec.Version), KubeProxyVersion: kubeletVersion(n.Spec.Version),
				OSImage: osImage(n.Spec.ImageType), ContainerRuntimeVersion: "containerd://1.7.27",
				OperatingSystem: "linux", Architecture: "amd64",
			},
		},
	}
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

// uidOf derives a stable UUID-shaped id from names.
func uidOf(parts ...string) string {
	var h [16]byte
	x := uint64(1469598103934665603)
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			x ^= uint64(p[i])
			x *= 1099511628211
		}
		x ^= 0xff
	}
	for i := range h {
		x ^= x >> 29
		x *= 0xbf58476d1ce4e5b9
		h[i] = byte(x >> 56)
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
