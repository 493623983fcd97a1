package gke

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
)

// The node-pools half of the GKE v1 API.

// CreateNodePool validates and adds a pool; its nodes come up over CREATE_NODE_POOL.
func (w *GKE) CreateNodePool(project, location, cluster string, req *api.CreateNodePoolRequest) (*model.Operation, error) {
	c, err := w.core.GetCluster(project, location, cluster)
	if err != nil {
		return nil, err
	}
	if req == nil || req.NodePool == nil {
		return nil, model.InvalidArgument("Required field \"nodePool\" is missing. Send {\"nodePool\": {...}}.")
	}
	if c.Autopilot {
		return nil, model.FailedPrecondition("Creating node pools is not supported for Autopilot clusters; Autopilot provisions nodes for the pods it runs.")
	}
	if c.Pool(req.NodePool.Name) != nil {
		return nil, model.AlreadyExists("projects/%s/locations/%s/clusters/%s/nodePools/%s.", project, location, cluster, req.NodePool.Name)
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	p, err := w.buildNodePool(c, req.NodePool, "nodePool")
	if err != nil {
		return nil, err
	}
	if total := len(c.Nodes) + PoolSize(p); total > maxNodesPerCluster {
		return nil, model.InvalidArgument("The cluster would have %d nodes; a GKE cluster has at most %d nodes.", total, maxNodesPerCluster)
	}
	p.Status = model.PoolProvisioning
	c.Pools = append(c.Pools, p)
	w.core.TouchCluster(c)
	op := w.core.StartOperation(api.OpCreateNodePool, c, p.Name, true)
	w.engine.EmitPoolsChanged(c)
	w.engine.Record("NodePoolCreating", c, p.Name, "", op.ID, "creating node pool %s: %d nodes per zone in %v, %s, %s",
		p.Name, p.InitialNodeCount, p.Locations, p.Spec.MachineType, p.Spec.Version)
	return op, nil
}

// PoolSize is the number of nodes a pool is meant to have.
func PoolSize(p *model.NodePool) int {
	n := 0
	for _, g := range p.Groups {
		n += g.TargetSize
	}
	return n
}

// buildNodePool validates a NodePool of a request and builds the model of it. field is the
// request path of the pool, used in error messages.
func (w *GKE) buildNodePool(c *model.Cluster, in *api.NodePool, field string) (*model.NodePool, error) {
	if err := model.ValidateResourceName(field+".name", in.Name); err != nil {
		return nil, err
	}
	if err := validateNodeCount(field+".initialNodeCount", in.InitialNodeCount); err != nil {
		return nil, err
	}
	spec, labels, taints, extra, err := nodeConfig(in.Config, field+".config")
	if err != nil {
		return nil, err
	}
	zones := c.Locations
	if len(in.Locations) > 0 {
		loc, _ := catalog.ParseLocation(c.Location)
		zones, err = ClusterZones(catalog.Location{Name: loc.Region, Region: loc.Region}, in.Locations, field+".locations")
		if err != nil {
			return nil, err
		}
	}
	autoUpgrade, autoRepair := true, true
	if in.Management != nil {
		autoUpgrade, autoRepair = in.Management.AutoUpgrade, in.Management.AutoRepair
	}
	if err := c.CheckManagement(autoUpgrade, autoRepair); err != nil {
		return nil, err
	}
	spec.Version, err = w.core.ResolveNodeVersion(c, in.Version, field+".version", autoUpgrade)
	if err != nil {
		return nil, err
	}
	as, err := NormalizeAutoscaling(in.Autoscaling, field+".autoscaling", spec.Spot)
	if err != nil {
		return nil, err
	}
	flexStart := in.Config != nil && in.Config.FlexStart
	queued := in.QueuedProvisioning != nil && in.QueuedProvisioning.Enabled
	if queued {
		v, _ := catalog.ParseVersion(spec.Version)
		if min, _ := catalog.ParseVersion(model.ShortLivedMinimum); v.Compare(min) < 0 {
			return nil, model.InvalidField(field+".queuedProvisioning.enabled", true, "Queued provisioning node pools need GKE %s or later; the pool would run %s", model.ShortLivedMinimum, spec.Version)
		}
	}
	us, err := model.NormalizeUpgradeSettings(in.UpgradeSettings, field+".upgradeSettings", model.UpgradeContext{
		Autopilot: c.Autopilot, ShortLived: flexStart || queued, Autoscaling: as.Enabled,
		Autoprovisioned: as.Autoprovisioned, Master: c.MasterVersion})
	if err != nil {
		return nil, err
	}
	maxPods := int64(catalog.DefaultMaxPods)
	if in.MaxPodsConstraint != nil && in.MaxPodsConstraint.MaxPodsPerNode != 0 {
		maxPods = int64(in.MaxPodsConstraint.MaxPodsPerNode)
		if maxPods < 8 || maxPods > 256 {
			return nil, model.InvalidField(field+".maxPodsConstraint.maxPodsPerNode", maxPods, "Must be between 8 and 256")
		}
	}
	p := &model.NodePool{
		Name: in.Name, Spec: spec, Labels: labels, Taints: taints, ConfigExtra: extra,
		InitialNodeCount: in.InitialNodeCount, Locations: zones, AutoUpgrade: autoUpgrade, AutoRepair: autoRepair,
		Autoscaling: as, UpgradeSettings: us, MaxPodsPerNode: maxPods, PodIPv4CIDRSize: PodCIDRSize(maxPods),
		FlexStart: flexStart, QueuedProvisioning: queued, ShortLived: flexStart || queued,
		Extra: in.Extra, CreateTime: w.st.Now, Etag: w.engine.RandHex(16),
	}
	for _, z := range zones {
		w.core.AddGroup(c, p, z, int(in.InitialNodeCount))
	}
	return p, nil
}

// PodCIDRSize is the per-node pod range: twice the max pods, rounded up to a power of two.
func PodCIDRSize(maxPods int64) int32 {
	return int32(32 - bits.Len64(uint64(2*maxPods-1)))
}

func validateNodeCount(field string, n int32) error {
	if n < 0 {
		return model.InvalidField(field, n, "Node counts must not be negative")
	}
	if n > maxNodesPerZonePerPool {
		return model.InvalidField(field, n, "A node pool has at most %d nodes per zone", maxNodesPerZonePerPool)
	}
	return nil
}

// nodeConfig validates a NodeConfig and fills GKE's defaults.
func nodeConfig(in *api.NodeConfig, field string) (model.NodeSpec, map[string]string, []model.Taint, api.Extra, error) {
	spec := model.NodeSpec{MachineType: catalog.DefaultMachineType, DiskType: catalog.DefaultDiskType, DiskSizeGb: catalog.DefaultDiskSizeGb, ImageType: catalog.DefaultImageType}
	if in == nil {
		return spec, nil, nil, nil, nil
	}
	if in.MachineType != "" {
		spec.MachineType = in.MachineType
	}
	if in.DiskType != "" {
		spec.DiskType = in.DiskType
	}
	if in.DiskSizeGb != 0 {
		spec.DiskSizeGb = in.DiskSizeGb
	}
	if in.ImageType != "" {
		spec.ImageType = strings.ToUpper(in.ImageType)
	}
	spec.Spot, spec.Preemptible = in.Spot, in.Preemptible
	spec.Settings = settingsFingerprint(in.Extra)
	if err := ValidateSpec(nil, spec, MemberOf(field)); err != nil {
		return spec, nil, nil, nil, err
	}
	if in.Spot && in.Preemptible {
		return spec, nil, nil, nil, model.InvalidArgument("Invalid value for field %q: both spot and preemptible are set. Spot VMs replace preemptible VMs; set only spot.", field)
	}
	taints, err := ConvertTaints(in.Taints, field+".taints")
	if err != nil {
		return spec, nil, nil, nil, err
	}
	if err := validateLabels(in.Labels, field+".labels"); err != nil {
		return spec, nil, nil, nil, err
	}
	return spec, in.Labels, taints, in.Extra, nil
}

// MemberOf names the members of the request object at path prefix ("" is the request itself),
// for error messages.
func MemberOf(prefix string) func(member string) string {
	return func(member string) string {
		if prefix == "" {
			return member
		}
		return prefix + "." + member
	}
}

// ValidateSpec checks the machine attributes of a node spec against the catalogue. field names
// the request member that carries each attribute.
// c, when given, is the cluster the nodes are for: an imported cluster knows the machine types
// its nodes had (core/allocatable.go).
func ValidateSpec(c *model.Cluster, spec model.NodeSpec, field func(member string) string) error {
	known := c != nil && c.KnowsMachineType(spec.MachineType)
	if _, ok := catalog.LookupMachineType(spec.MachineType); !ok && !known {
		return model.InvalidField(field("machineType"), fmt.Sprintf("%q", spec.MachineType),
			"Unknown machine type; the emulator knows e2-*, n1/n2/n2d/c2/c3/t2d-standard-*, n2-highmem/highcpu-* and e2-highmem/highcpu-* (see the README)")
	}
	if spec.DiskSizeGb < catalog.MinDiskSizeGb || spec.DiskSizeGb > catalog.MaxDiskSizeGb {
		return model.InvalidField(field("diskSizeGb"), spec.DiskSizeGb, "Boot disks must be between %d and %d GB", catalog.MinDiskSizeGb, catalog.MaxDiskSizeGb)
	}
	if !slices.Contains(catalog.DiskTypes, spec.DiskType) {
		return model.InvalidField(field("diskType"), fmt.Sprintf("%q", spec.DiskType), "Must be one of %s", model.QuoteList(catalog.DiskTypes))
	}
	if !slices.Contains(catalog.ImageTypes, spec.ImageType) {
		return model.InvalidField(field("imageType"), fmt.Sprintf("%q", spec.ImageType), "Must be one of %s", model.QuoteList(catalog.ImageTypes))
	}
	return nil
}

func ConvertTaints(in []*api.NodeTaint, field string) ([]model.Taint, error) {
	var out []model.Taint
	for i, t := range in {
		f := fmt.Sprintf("%s[%d]", field, i)
		if t == nil || t.Key == "" {
			return nil, model.InvalidArgument("Invalid value for field %q: a taint needs a key.", f+".key")
		}
		if err := model.ValidateEnum(f+".effect", t.Effect, api.EffectNoSchedule, api.EffectPreferNoSchedule, api.EffectNoExecute); err != nil {
			return nil, err
		}
		if t.Effect == "" {
			return nil, model.InvalidArgument("Invalid value for field %q: a taint needs an effect (NO_SCHEDULE, PREFER_NO_SCHEDULE or NO_EXECUTE).", f+".effect")
		}
		out = append(out, model.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return out, nil
}

func validateLabels(labels map[string]string, field string) error {
	for k, v := range labels {
		if k == "" || len(k) > 253 || len(v) > 63 {
			return model.InvalidField(field, fmt.Sprintf("%q=%q", k, v), "Label keys must be 1-253 characters and values at most 63")
		}
	}
	return nil
}

// NormalizeAutoscaling validates NodePoolAutoscaling (R-CA-3 limits) and fills the location
// policy default (BALANCED, or ANY for Spot pools: R-CA-6).
func NormalizeAutoscaling(in *api.NodePoolAutoscaling, field string, spot bool) (api.NodePoolAutoscaling, error) {
	if in == nil || !in.Enabled {
		return api.NodePoolAutoscaling{}, nil
	}
	as := *in
	if err := model.ValidateEnum(field+".locationPolicy", as.LocationPolicy, "LOCATION_POLICY_UNSPECIFIED", api.LocationPolicyBalanced, api.LocationPolicyAny); err != nil {
		return as, err
	}
	for name, v := range map[string]int32{"minNodeCount": as.MinNodeCount, "maxNodeCount": as.MaxNodeCount,
		"totalMinNodeCount": as.TotalMinNodeCount, "totalMaxNodeCount": as.TotalMaxNodeCount} {
		if v < 0 {
			return as, model.InvalidField(field+"."+name, v, "Node counts must not be negative")
		}
	}
	perZone := as.MinNodeCount > 0 || as.MaxNodeCount > 0
	total := as.TotalMinNodeCount > 0 || as.TotalMaxNodeCount > 0
	switch {
	case perZone && total:
		return as, model.InvalidArgument("Invalid value for field %q: the total_*_node_count fields are mutually exclusive with the *_node_count fields; set per-zone limits (minNodeCount/maxNodeCount) or total limits (totalMinNodeCount/totalMaxNodeCount), not both.", field)
	case !perZone && !total:
		return as, model.InvalidArgument("Invalid value for field %q: autoscaling is enabled but no maximum is set; set maxNodeCount (per zone) or totalMaxNodeCount.", field)
	case perZone && as.MinNodeCount > as.MaxNodeCount:
		return as, model.InvalidArgument("Invalid value for field %q: minNodeCount (%d) must be less than or equal to maxNodeCount (%d).", field, as.MinNodeCount, as.MaxNodeCount)
	case total && as.TotalMinNodeCount > as.TotalMaxNodeCount:
		return as, model.InvalidArgument("Invalid value for field %q: totalMinNodeCount (%d) must be less than or equal to totalMaxNodeCount (%d).", field, as.TotalMinNodeCount, as.TotalMaxNodeCount)
	case perZone && as.MaxNodeCount > maxNodesPerZonePerPool:
		return as, model.InvalidField(field+".maxNodeCount", as.MaxNodeCount, "A node pool has at most %d nodes per zone", maxNodesPerZonePerPool)
	case total && as.TotalMaxNodeCount > maxNodesPerCluster:
		return as, model.InvalidField(field+".totalMaxNodeCount", as.TotalMaxNodeCount, "A cluster has at most %d nodes", maxNodesPerCluster)
	}
	if as.LocationPolicy == "" || as.LocationPolicy == "LOCATION_POLICY_UNSPECIFIED" {
		as.LocationPolicy = api.LocationPolicyBalanced
		if spot {
			as.LocationPolicy = api.LocationPolicyAny
		}
	}
	return as, nil
}

func describeAutoscaling(as api.NodePoolAutoscaling) string {
	switch {
	case !as.Enabled:
		return "disabled"
	case as.TotalMaxNodeCount > 0:
		return fmt.Sprintf("total %d..%d, %s", as.TotalMinNodeCount, as.TotalMaxNodeCount, as.LocationPolicy)
	default:
		return fmt.Sprintf("%d..%d per zone, %s", as.MinNodeCount, as.MaxNodeCount, as.LocationPolicy)
	}
}

// UpdateNodePool applies an UpdateNodePoolRequest (PUT nodePools/{np}).
func (w *GKE) UpdateNodePool(project, location, cluster, name string, req *api.UpdateNodePoolRequest) (*model.Operation, error) {
	c, p, err := w.core.GetNodePool(project, location, cluster, name)
	if err != nil {
		return nil, err
	}
	if req == nil {
		return nil, model.InvalidArgument("Must provide an update.")
	}
	if req.Etag != "" && req.Etag != p.Etag {
		return nil, model.Aborted("The etag %q does not match the node pool's current etag; read the node pool again and retry.", req.Etag)
	}
	return w.requestNodePoolUpdate(c, p, req, MemberOf(""))
}

// requestNodePoolUpdate is every way the API offers to update a node pool's nodes: PUT
// nodePools/{np}, and the cluster-level update.desiredNodeVersion / desiredImageType with
// desiredNodePoolId (what `gcloud container clusters upgrade --node-pool` sends). f names the
// member of the client's request that carries each UpdateNodePoolRequest member.
//
// An update to the version the pool runs, with nothing else, while a node-recreating change
// waits for a maintenance window, starts that change now (R-MW-5); it is answered before the
// cluster-busy check, since the waiting change's operation holds the cluster.
func (w *GKE) requestNodePoolUpdate(c *model.Cluster, p *model.NodePool, req *api.UpdateNodePoolRequest, f func(member string) string) (*model.Operation, error) {
	if req.NodeVersion != "" && p.Upgrade != nil && p.Upgrade.Deferred {
		v, err := w.core.ResolveNodeVersion(c, req.NodeVersion, f("nodeVersion"), p.AutoUpgrade)
		if err != nil {
			return nil, err
		}
		if op, ok := w.upgrade.ApplyNowIfDeferred(c, p, v, onlyNodeVersion(req)); ok {
			return op, nil
		}
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	return w.updateNodePool(c, p, req, f)
}

// updateNodePool validates the whole request first, then applies it: in-place changes at once,
// node-recreating changes through an upgrade (R-UPG-1), location changes by resizing groups.
// f names the member of the client's request that carries each UpdateNodePoolRequest member.
func (w *GKE) updateNodePool(c *model.Cluster, p *model.NodePool, req *api.UpdateNodePoolRequest, f func(member string) string) (*model.Operation, error) {
	target := p.Spec
	if p.Upgrade != nil {
		target = p.Upgrade.Target
	}
	var err error
	if req.NodeVersion != "" {
		if target.Version, err = w.core.ResolveNodeVersion(c, req.NodeVersion, f("nodeVersion"), p.AutoUpgrade); err != nil {
			return nil, err
		}
	}
	if req.ImageType != "" {
		target.ImageType = strings.ToUpper(req.ImageType)
	}
	if req.MachineType != "" {
		target.MachineType = req.MachineType
	}
	if req.DiskType != "" {
		target.DiskType = req.DiskType
	}
	if req.DiskSizeGb != 0 {
		target.DiskSizeGb = int32(req.DiskSizeGb)
	}
	config := p.ConfigExtra.Clone()
	for k, v := range req.Extra {
		mergeExtra(&config, api.Extra{k: unwrapUpdateMember(k, v)})
	}
	target.Settings = settingsFingerprint(config)
	if err := ValidateSpec(c, target, f); err != nil {
		return nil, err
	}
	var zones []string
	if len(req.Locations) > 0 {
		loc, _ := catalog.ParseLocation(c.Location)
		if zones, err = ClusterZones(catalog.Location{Name: loc.Region, Region: loc.Region}, req.Locations, f("locations")); err != nil {
			return nil, err
		}
	}
	var us *api.UpgradeSettings
	if req.UpgradeSettings != nil {
		v, err := model.NormalizeUpgradeSettings(req.UpgradeSettings, f("upgradeSettings"), model.PoolUpgradeContext(c, p))
		if err != nil {
			return nil, err
		}
		us = &v
	}
	var taints []model.Taint
	if req.Taints != nil {
		if taints, err = ConvertTaints(req.Taints.Taints, f("taints.taints")); err != nil {
			return nil, err
		}
	}
	if req.Labels != nil {
		if err := validateLabels(req.Labels.Labels, f("labels.labels")); err != nil {
			return nil, err
		}
	}

	paused := p.Upgrade != nil && p.Upgrade.Paused
	if paused && target != p.Upgrade.Target {
		return nil, model.FailedPrecondition("Node pool %s has a paused %s upgrade to %s (phase %s): resume it by updating to the same configuration, or roll it back, before changing the nodes again (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-bg-7).",
			p.Name, upgrade.StrategyName(p.Upgrade.Strategy), upgrade.DescribeSpecChange(p.Upgrade.From, p.Upgrade.Target), p.Upgrade.BG.Phase)
	}

	// Everything is valid: apply.
	var changes []string
	if us != nil {
		p.UpgradeSettings = *us
		changes = append(changes, "upgrade settings")
	}
	if req.Labels != nil {
		p.Labels = req.Labels.Labels
		changes = append(changes, "labels (in place)")
	}
	if req.Taints != nil {
		p.Taints = taints
		changes = append(changes, "taints (in place)")
	}
	if req.Labels != nil || req.Taints != nil {
		w.core.DropSchedIndex(c) // the nodes' labels and taints changed in place
		w.core.TouchPoolNodes(c, p)
	}
	for k := range req.Extra {
		changes = append(changes, k)
	}
	sort.Strings(changes[len(changes)-len(req.Extra):])
	p.ConfigExtra = config
	if zones != nil {
		w.setPoolLocations(c, p, zones)
		changes = append(changes, fmt.Sprintf("locations %v", zones))
	}
	p.Etag = w.engine.RandHex(16)
	w.core.TouchCluster(c)
	switch {
	case paused:
		return w.upgrade.ResumeUpgrade(c, p), nil
	case target != p.Spec:
		return w.upgrade.PlanManualUpgrade(c, p, target), nil
	}
	op := w.core.StartOperation(api.OpUpgradeNodes, c, p.Name, true)
	if zones != nil {
		p.Status = model.PoolReconciling
	}
	w.engine.Record("NodePoolUpdated", c, p.Name, "", op.ID, "node pool %s updated: %s", p.Name, strings.Join(changes, ", "))
	return op, nil
}

// unwrapUpdateMember turns UpdateNodePoolRequest wrappers into the NodeConfig member they set:
// resourceLabels {labels} -> resourceLabels, tags {tags} -> tags.
func unwrapUpdateMember(key string, raw json.RawMessage) json.RawMessage {
	inner := map[string]string{"resourceLabels": "labels", "tags": "tags"}[key]
	if inner == "" {
		return raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		if v, ok := m[inner]; ok {
			return v
		}
	}
	return raw
}

// setPoolLocations moves a pool to a new set of zones: new zones get a group of the pool's
// per-zone size, dropped zones have their nodes retired.
func (w *GKE) setPoolLocations(c *model.Cluster, p *model.NodePool, zones []string) {
	perZone := int(p.InitialNodeCount)
	if len(p.Groups) > 0 {
		perZone = p.Groups[0].TargetSize
	}
	keep := map[string]bool{}
	for _, z := range zones {
		keep[z] = true
		if p.Group(z) == nil {
			w.core.AddGroup(c, p, z, perZone)
		}
	}
	for _, g := range p.Groups {
		if !keep[g.Zone] {
			g.TargetSize = 0
		}
	}
	p.Locations = append([]string(nil), zones...)
}

// dropEmptyGroups removes the groups of zones a pool left once their nodes are gone.
func (w *GKE) dropEmptyGroups(p *model.NodePool) {
	out := p.Groups[:0]
	for _, g := range p.Groups {
		if g.TargetSize == 0 && len(g.Nodes) == 0 && !slices.Contains(p.Locations, g.Zone) {
			delete(w.core.Groups, g)
			continue
		}
		out = append(out, g)
	}
	p.Groups = out
}

// DeleteNodePool drains and deletes a pool's nodes, then the pool.
func (w *GKE) DeleteNodePool(project, location, cluster, name string) (*model.Operation, error) {
	c, p, err := w.core.GetNodePool(project, location, cluster, name)
	if err != nil {
		return nil, err
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	w.core.TouchCluster(c)
	op := w.core.StartOperation(api.OpDeleteNodePool, c, p.Name, true)
	w.engine.Record("NodePoolDeleting", c, p.Name, "", op.ID, "deleting node pool %s (%d nodes)", p.Name, PoolSize(p))
	return op, nil
}

// SetNodePoolSize sets the number of nodes per zone.
func (w *GKE) SetNodePoolSize(project, location, cluster, name string, req *api.SetNodePoolSizeRequest) (*model.Operation, error) {
	c, p, err := w.core.GetNodePool(project, location, cluster, name)
	if err != nil {
		return nil, err
	}
	if req == nil {
		req = &api.SetNodePoolSizeRequest{}
	}
	if err := validateNodeCount("nodeCount", req.NodeCount); err != nil {
		return nil, err
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	others := len(c.Nodes) - PoolSize(p)
	if total := others + int(req.NodeCount)*len(p.Locations); total > maxNodesPerCluster {
		return nil, model.InvalidArgument("The cluster would have %d nodes; a GKE cluster has at most %d nodes.", total, maxNodesPerCluster)
	}
	for _, g := range p.Groups {
		if slices.Contains(p.Locations, g.Zone) {
			g.TargetSize = int(req.NodeCount)
		}
	}
	p.Status = model.PoolReconciling
	p.Etag = w.engine.RandHex(16)
	w.core.TouchCluster(c)
	op := w.core.StartOperation(api.OpSetNodePoolSize, c, p.Name, true)
	w.engine.Record("NodePoolResizing", c, p.Name, "", op.ID, "resizing node pool %s to %d nodes per zone (%d zones)", p.Name, req.NodeCount, len(p.Locations))
	return op, nil
}

// SetNodePoolManagement changes auto-upgrade / auto-repair. It only changes metadata and, as in
// GKE, may run alongside other operations.
func (w *GKE) SetNodePoolManagement(project, location, cluster, name string, req *api.SetNodePoolManagementRequest) (*model.Operation, error) {
	c, p, err := w.core.GetNodePool(project, location, cluster, name)
	if err != nil {
		return nil, err
	}
	if req == nil || req.Management == nil {
		return nil, model.InvalidArgument("Required field \"management\" is missing. Send {\"management\": {\"autoUpgrade\": true, \"autoRepair\": true}}.")
	}
	m := req.Management
	if err := c.CheckManagement(m.AutoUpgrade, m.AutoRepair); err != nil {
		return nil, err
	}
	p.AutoUpgrade, p.AutoRepair = m.AutoUpgrade, m.AutoRepair
	p.Etag = w.engine.RandHex(16)
	op := w.core.StartOperation(api.OpSetNodePoolManagement, c, p.Name, false)
	w.engine.Record("NodePoolUpdated", c, p.Name, "", op.ID, "management of %s: autoUpgrade=%v autoRepair=%v", p.Name, m.AutoUpgrade, m.AutoRepair)
	return op, nil
}

// SetNodePoolAutoscaling replaces a pool's autoscaling settings.
func (w *GKE) SetNodePoolAutoscaling(project, location, cluster, name string, req *api.SetNodePoolAutoscalingRequest) (*model.Operation, error) {
	c, p, err := w.core.GetNodePool(project, location, cluster, name)
	if err != nil {
		return nil, err
	}
	if req == nil || req.Autoscaling == nil {
		return nil, model.InvalidArgument("Required field \"autoscaling\" is missing. Send {\"autoscaling\": {\"enabled\": true, \"minNodeCount\": 1, \"maxNodeCount\": 3}}.")
	}
	return w.setNodePoolAutoscaling(c, p, req.Autoscaling, "autoscaling")
}

// setNodePoolAutoscaling is every way the API offers to set a pool's autoscaling:
// nodePools/{np}:setAutoscaling and the cluster-level update.desiredNodePoolAutoscaling with
// desiredNodePoolId (what `gcloud container clusters update --node-pool --enable-autoscaling`
// sends). field names the request member that carries the settings.
func (w *GKE) setNodePoolAutoscaling(c *model.Cluster, p *model.NodePool, in *api.NodePoolAutoscaling, field string) (*model.Operation, error) {
	as, err := NormalizeAutoscaling(in, field, p.Spec.Spot)
	if err != nil {
		return nil, err
	}
	if err := w.core.CheckClusterFree(c); err != nil {
		return nil, err
	}
	if err := model.CheckAutoscalingKeepsStrategy(p, as, field); err != nil {
		return nil, err
	}
	p.Autoscaling = as
	p.Etag = w.engine.RandHex(16)
	w.engine.EmitPoolsChanged(c)
	return w.metadataUpdate(c, p.Name, "autoscaling of node pool %s set to %s", p.Name, describeAutoscaling(as)), nil
}

// NodeCounts returns how many of a pool's nodes are in each state.
func (w *GKE) NodeCounts(c *model.Cluster, p *model.NodePool) map[model.NodeState]int {
	out := map[model.NodeState]int{}
	for _, g := range p.Groups {
		for s, n := range w.core.GroupIndex(c, g).ByState {
			out[s] += n
		}
	}
	return out
}

// onlyNodeVersion says whether an update asks for nothing but a node version.
func onlyNodeVersion(req *api.UpdateNodePoolRequest) bool {
	return req.ImageType == "" && req.MachineType == "" && req.DiskType == "" && req.DiskSizeGb == 0 &&
		req.Labels == nil && req.Taints == nil && len(req.Locations) == 0 && req.UpgradeSettings == nil
}

// recreatingSettings are the NodeConfig members, beside version, machine type, disk and image,
// that only a new VM can take: GKE replaces the nodes through the pool's surge settings when one
// of them changes (R-UPG-1), on a blue-green pool too (R-UPG-2).
var recreatingSettings = []string{"confidentialNodes", "gcfsConfig", "gvnic", "kubeletConfig", "linuxNodeConfig"}

// settingsFingerprint digests the recreatingSettings of a NodeConfig's extra members: the same
// settings, however the client spelled them (member order, false and empty values left out or
// sent), give the same fingerprint; none set gives "".
func settingsFingerprint(config api.Extra) string {
	var b strings.Builder
	for _, k := range recreatingSettings {
		raw, ok := config[k]
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		if v = pruneZero(v); v == nil {
			continue
		}
		js, _ := json.Marshal(v) // maps marshal in key order
		fmt.Fprintf(&b, "%s=%s\n", k, js)
	}
	if b.Len() == 0 {
		return ""
	}
	return model.Digest([]byte(b.String()), 16)
}

// pruneZero drops false, zero, empty and null values from decoded JSON, recursively; nil when
// nothing is left.
func pruneZero(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e = pruneZero(e); e == nil {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []any:
		if len(x) == 0 {
			return nil
		}
	case bool:
		if !x {
			return nil
		}
	case float64:
		if x == 0 {
			return nil
		}
	case string:
		if x == "" {
			return nil
		}
	}
	return v
}
