package gke

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Rendering the model in GKE's and Kubernetes' JSON shapes.

// RenderCluster renders a cluster. endpoint is the address of its Kubernetes-shaped API.
func (w *GKE) RenderCluster(c *model.Cluster, links core.Links, endpoint string) *api.Cluster {
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
		Network:               fmt.Sprintf("projects/%s/global/networks/%s", c.Project, model.LastSegment(c.Network)),
		Subnetwork:            fmt.Sprintf("projects/%s/regions/%s/subnetworks/%s", c.Project, region, model.LastSegment(c.Subnetwork)),
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

// RenderNodePool renders a node pool.
func (w *GKE) RenderNodePool(c *model.Cluster, p *model.NodePool, links core.Links) *api.NodePool {
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
		if info.Phase == model.PhaseWaitingToDrain && !strings.Contains(links.ContainerBase, "/v1beta1/") {
			info.Phase = model.PhaseCordoningBlue
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
func (w *GKE) K8sNodes(c *model.Cluster) []corev1.Node {
	names := core.SortedNodeNames(c)
	out := make([]corev1.Node, 0, len(names))
	for _, name := range names {
		n := c.Nodes[name]
		if n.State == model.NodeProvisioning {
			continue
		}
		out = append(out, *w.core.RenderK8sNode(c, n))
	}
	return out
}
