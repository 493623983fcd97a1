package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var (
	_ resource.ResourceWithConfigure        = &NodePoolResource{}
	_ resource.ResourceWithImportState      = &NodePoolResource{}
	_ resource.ResourceWithModifyPlan       = &NodePoolResource{}
	_ resource.ResourceWithConfigValidators = &NodePoolResource{}
)

// Default timeouts, as terraform-provider-google's google_container_node_pool.
const (
	nodePoolCreateTimeout = 2 * time.Hour
	nodePoolUpdateTimeout = 2 * time.Hour
	nodePoolDeleteTimeout = 2 * time.Hour
)

// GKE's node defaults: a node_config block equal to them reads as absent.
const (
	defaultMachineType = "e2-medium"
	defaultDiskSizeGb  = 100
	defaultDiskType    = "pd-balanced"
	defaultImageType   = "COS_CONTAINERD"
	defaultPoolName    = "default-pool"
)

// NodePoolResource is gkesim_node_pool.
type NodePoolResource struct {
	data *providerData
}

func NewNodePoolResource() resource.Resource { return &NodePoolResource{} }

func (r *NodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_pool"
}

func (r *NodePoolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (r *NodePoolResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.Conflicting(path.MatchRoot("initial_node_count"), path.MatchRoot("node_count")),
		upgradeSettingsValidator{},
		autoscalingValidator{},
	}
}

// ModifyPlan fills project and location from the cluster reference or the provider, and the
// upgrade settings and location policy the configuration leaves out, and warns with the forecast
// of a change that recreates nodes (node_pool_forecast.go).
func (r *NodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	fillClusterScope(ctx, r.data, req, resp)
	if !req.Plan.Raw.IsNull() {
		planUpgradeSettings(ctx, req, resp)
		planAutoscaling(ctx, req, resp)
	}
	keepImportedSettings(ctx, req, resp, "blue_green_return_at_soak")
	keepStateIfUnchanged(ctx, req, resp)
	warnForecast(ctx, r.data, req, resp)
}

// names resolves the pool's project, location and cluster name.
func (r *NodePoolResource) names(m *nodePoolModel, diags *diag.Diagnostics) (string, string, string) {
	return poolNames(r.data, &m.nodePoolAttrs, diags)
}

// poolNames resolves a pool's project, location and cluster name from its cluster reference,
// its own project and location, and the provider's defaults.
func poolNames(d *providerData, m *nodePoolAttrs, diags *diag.Diagnostics) (string, string, string) {
	return d.clusterNames(m.Cluster, m.Project, m.Location, diags)
}

func (r *NodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, nodePoolCreateTimeout)
	resp.Diagnostics.Append(d...)
	project, location, cluster := r.names(&plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	size := int64(1)
	switch {
	case !plan.NodeCount.IsUnknown() && !plan.NodeCount.IsNull():
		size = plan.NodeCount.ValueInt64()
	case !plan.InitialNodeCount.IsUnknown() && !plan.InitialNodeCount.IsNull():
		size = plan.InitialNodeCount.ValueInt64()
	}
	in := &container.NodePool{
		Name:             plan.Name.ValueString(),
		InitialNodeCount: size,
		Locations:        stringsOf(ctx, plan.NodeLocations, &resp.Diagnostics),
		Version:          unknownAsEmpty(plan.Version),
		Config:           expandNodeConfig(ctx, plan.NodeConfig, &resp.Diagnostics),
	}
	if len(plan.UpgradeSettings) > 0 {
		in.UpgradeSettings = expandUpgradeSettings(plan.UpgradeSettings[0], nil)
	}
	if len(plan.Autoscaling) > 0 {
		in.Autoscaling = expandAutoscaling(plan.Autoscaling)
	}
	if len(plan.Management) > 0 {
		in.Management = &container.NodeManagement{
			AutoRepair: plan.Management[0].AutoRepair.ValueBool(), AutoUpgrade: plan.Management[0].AutoUpgrade.ValueBool(),
			ForceSendFields: []string{"AutoRepair", "AutoUpgrade"},
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	c := r.data.client
	parent := client.ClusterName(project, location, cluster)
	name := parent + "/nodePools/" + in.Name
	if !awaitPoolUpgrades(ctx, c, project, location, cluster, &resp.Diagnostics) {
		return
	}
	op, err := c.GKE.Projects.Locations.Clusters.NodePools.Create(parent, &container.CreateNodePoolRequest{NodePool: in}).Context(ctx).Do()
	if err != nil {
		resp.Diagnostics.AddError("Error creating node pool", fmt.Sprintf("Creating %s: %s", name, client.Message(err)))
		return
	}
	plan.ID, plan.Project, plan.Location = types.StringValue(name), types.StringValue(project), types.StringValue(location)
	if err := c.Wait(ctx, project, location, op); err != nil {
		// Keep a pool GKE created despite the failure in state (tainted) so it can be destroyed.
		if _, found := readNodePool(ctx, r.data.client, &plan.nodePoolAttrs, blocksAsConfigured, &resp.Diagnostics); found {
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		}
		resp.Diagnostics.AddError("Error creating node pool", err.Error())
		return
	}
	readNodePool(ctx, r.data.client, &plan.nodePoolAttrs, blocksAsConfigured, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func unknownAsEmpty(v types.String) string {
	if v.IsUnknown() {
		return ""
	}
	return v.ValueString()
}

func expandNodeConfig(ctx context.Context, cfgs []nodeConfigModel, diags *diag.Diagnostics) *container.NodeConfig {
	if len(cfgs) == 0 {
		return nil
	}
	m := cfgs[0]
	out := &container.NodeConfig{
		MachineType: unknownAsEmpty(m.MachineType),
		DiskType:    unknownAsEmpty(m.DiskType),
		ImageType:   strings.ToUpper(unknownAsEmpty(m.ImageType)),
		Spot:        m.Spot.ValueBool(),
		FlexStart:   m.FlexStart.ValueBool(),
		Taints:      expandTaints(m.Taint),
	}
	if !m.DiskSizeGb.IsUnknown() {
		out.DiskSizeGb = m.DiskSizeGb.ValueInt64()
	}
	diags.Append(m.Labels.ElementsAs(ctx, &out.Labels, false)...)
	return out
}

func expandTaints(in []taintModel) []*container.NodeTaint {
	var out []*container.NodeTaint
	for _, t := range in {
		out = append(out, &container.NodeTaint{Key: t.Key.ValueString(), Value: t.Value.ValueString(), Effect: t.Effect.ValueString()})
	}
	return out
}

// readNodePool refreshes m from the API and returns what it read; it reports whether the pool
// exists.
func readNodePool(ctx context.Context, c *client.Client, m *nodePoolAttrs, mode blockMode, diags *diag.Diagnostics) (*container.NodePool, bool) {
	np, err := c.GKE.Projects.Locations.Clusters.NodePools.Get(m.ID.ValueString()).Context(ctx).Do()
	if client.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		diags.AddError("Error reading node pool", fmt.Sprintf("Reading %s: %s", m.ID.ValueString(), client.Message(err)))
		return nil, true
	}
	perZone, err := nodesPerZone(ctx, c, np)
	if err != nil {
		diags.AddError("Error reading node pool size", fmt.Sprintf("Reading the instance groups of %s: %s", m.ID.ValueString(), err))
		return nil, true
	}
	flattenNodePool(ctx, np, perZone, m, mode, diags)
	return np, true
}

// nodesPerZone is the pool's size per zone, from its managed instance groups' target sizes (as
// terraform-provider-google reads it).
func nodesPerZone(ctx context.Context, c *client.Client, np *container.NodePool) (int64, error) {
	if len(np.InstanceGroupUrls) == 0 {
		return 0, nil
	}
	var total int64
	for _, u := range np.InstanceGroupUrls {
		var igm struct {
			TargetSize int64 `json:"targetSize"`
		}
		if err := c.GetJSON(ctx, u, &igm); err != nil {
			return 0, err
		}
		total += igm.TargetSize
	}
	return total / int64(len(np.InstanceGroupUrls)), nil
}

// flattenNodePool copies the API's view into the model. Blocks the configuration left out stay
// out (see blockMode), so that plans stay empty.
func flattenNodePool(ctx context.Context, np *container.NodePool, perZone int64, m *nodePoolAttrs, mode blockMode, diags *diag.Diagnostics) {
	m.Name = types.StringValue(np.Name)
	m.InitialNodeCount = types.Int64Value(np.InitialNodeCount)
	// While the autoscaler owns the size, node_count keeps its value (see node_pool_autoscaling.go);
	// an import takes the size the pool was created with, what node_count means then.
	switch {
	case autoscalingOn(np) && mode == blocksOnImport:
		m.NodeCount = types.Int64Value(np.InitialNodeCount)
	case !autoscalingOn(np) || !set(m.NodeCount):
		m.NodeCount = types.Int64Value(perZone)
	}
	m.NodeLocations = stringSet(ctx, np.Locations, diags)
	if m.Version.IsNull() || m.Version.IsUnknown() || !versionSatisfies(np.Version, m.Version.ValueString()) {
		m.Version = types.StringValue(np.Version)
	}
	urls, d := types.ListValueFrom(ctx, types.StringType, np.InstanceGroupUrls)
	diags.Append(d...)
	m.InstanceGroupURLs = urls
	m.Status = types.StringValue(np.Status)

	cfg := np.Config
	if cfg == nil {
		cfg = &container.NodeConfig{}
	}
	nonDefault := cfg.MachineType != defaultMachineType || cfg.DiskSizeGb != defaultDiskSizeGb || cfg.DiskType != defaultDiskType ||
		cfg.ImageType != defaultImageType || len(cfg.Labels) > 0 || len(cfg.Taints) > 0 || cfg.Spot || cfg.FlexStart
	if mode.want(len(m.NodeConfig) > 0, nonDefault) {
		prior := nodeConfigModel{Labels: types.MapNull(types.StringType)}
		if len(m.NodeConfig) > 0 {
			prior = m.NodeConfig[0]
		}
		nc := nodeConfigModel{
			MachineType: types.StringValue(cfg.MachineType),
			DiskSizeGb:  types.Int64Value(cfg.DiskSizeGb),
			DiskType:    types.StringValue(cfg.DiskType),
			ImageType:   types.StringValue(cfg.ImageType),
			Spot:        types.BoolValue(cfg.Spot),
			FlexStart:   types.BoolValue(cfg.FlexStart),
			Labels:      prior.Labels,
		}
		// GKE upper-cases image types; keep the configuration's spelling.
		if strings.EqualFold(prior.ImageType.ValueString(), cfg.ImageType) {
			nc.ImageType = prior.ImageType
		}
		if len(cfg.Labels) > 0 || !prior.Labels.IsNull() {
			labels, d := types.MapValueFrom(ctx, types.StringType, cfg.Labels)
			diags.Append(d...)
			if cfg.Labels == nil { // labels = {} reads back as none
				labels = types.MapValueMust(types.StringType, map[string]attr.Value{})
			}
			nc.Labels = labels
		}
		for _, t := range cfg.Taints {
			tm := taintModel{Key: types.StringValue(t.Key), Value: types.StringNull(), Effect: types.StringValue(t.Effect)}
			if t.Value != "" {
				tm.Value = types.StringValue(t.Value)
			}
			nc.Taint = append(nc.Taint, tm)
		}
		m.NodeConfig = []nodeConfigModel{nc}
	}
	mg := np.Management
	if mg == nil {
		mg = &container.NodeManagement{}
	}
	// GKE turns both on for a pool created without the block: an import takes the block only
	// when one is off, so that a configuration that leaves it out plans nothing.
	if mode.want(len(m.Management) > 0, !mg.AutoRepair || !mg.AutoUpgrade) {
		m.Management = []managementModel{{AutoRepair: types.BoolValue(mg.AutoRepair), AutoUpgrade: types.BoolValue(mg.AutoUpgrade)}}
	}
	m.UpgradeSettings = flattenUpgradeSettings(np.UpgradeSettings, m.UpgradeSettings, mode)
	m.Autoscaling = flattenAutoscaling(np.Autoscaling, m.Autoscaling, mode)
}

func (r *NodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	prior := state.nodePoolAttrs
	np, found := readNodePool(ctx, r.data.client, &state.nodePoolAttrs, readMode(state.Name), &resp.Diagnostics)
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	if state.BlueGreenReturnAtSoak.IsNull() {
		state.BlueGreenReturnAtSoak = types.BoolValue(false) // imported
	}
	if p := loadPending(ctx, req.Private, &resp.Diagnostics); p != nil && np != nil {
		goesOn, err := pendingGoesOn(ctx, r.data.client, state.Project.ValueString(), state.Location.ValueString(), np, p)
		if err != nil {
			resp.Diagnostics.AddError("Error reading node pool upgrade", err.Error())
			return
		}
		if goesOn {
			keepUpgradeTarget(prior, &state.nodePoolAttrs)
		} else {
			savePending(ctx, resp.Private, nil, &resp.Diagnostics)
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *NodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, nodePoolUpdateTimeout)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := r.data.client
	name, project, location := state.ID.ValueString(), state.Project.ValueString(), state.Location.ValueString()
	_, _, cluster := r.names(&state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !awaitPoolUpgrades(ctx, c, project, location, cluster, &resp.Diagnostics) {
		return
	}
	pools := c.GKE.Projects.Locations.Clusters.NodePools
	wait := func(what string, op *container.Operation, err error) bool {
		return awaitUpdate(ctx, c, project, location, op, err, "node pool", what, name, &resp.Diagnostics)
	}
	updatePool := func(what string, u *container.UpdateNodePoolRequest) bool {
		op, err := pools.Update(name, u).Context(ctx).Do()
		return wait(what, op, err)
	}

	if !plan.NodeLocations.IsUnknown() && !plan.NodeLocations.Equal(state.NodeLocations) {
		if !updatePool("node_locations", &container.UpdateNodePoolRequest{Locations: stringsOf(ctx, plan.NodeLocations, &resp.Diagnostics)}) {
			return
		}
	}
	resize := func(n int64) bool {
		op, err := pools.SetSize(name, &container.SetNodePoolSizeRequest{NodeCount: n, ForceSendFields: []string{"NodeCount"}}).Context(ctx).Do()
		return wait("node_count", op, err)
	}
	// Autoscaling goes through UpdateCluster, as terraform-provider-google sends it.
	setAutoscaling := func() bool {
		op, err := c.GKE.Projects.Locations.Clusters.Update(client.ClusterName(project, location, cluster), &container.UpdateClusterRequest{
			Update: &container.ClusterUpdate{DesiredNodePoolId: state.Name.ValueString(), DesiredNodePoolAutoscaling: expandAutoscaling(plan.Autoscaling)},
		}).Context(ctx).Do()
		return wait("autoscaling", op, err)
	}
	var planAS, stateAS types.List
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, autoscalingPath, &planAS)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, autoscalingPath, &stateAS)...)
	disabling := len(state.Autoscaling) > 0 && len(plan.Autoscaling) == 0
	// Turning autoscaling on or changing its limits comes after a resize, so that the autoscaler
	// starts from the new size. Turning it off comes later (below).
	if !disabling {
		if set(plan.NodeCount) && !plan.NodeCount.Equal(state.NodeCount) && !resize(plan.NodeCount.ValueInt64()) {
			return
		}
		if !planAS.Equal(stateAS) && !setAutoscaling() {
			return
		}
	}
	if len(plan.Management) > 0 {
		pm := plan.Management[0]
		sm := managementModel{AutoRepair: types.BoolValue(true), AutoUpgrade: types.BoolValue(true)}
		if len(state.Management) > 0 {
			sm = state.Management[0]
		}
		if !pm.AutoRepair.Equal(sm.AutoRepair) || !pm.AutoUpgrade.Equal(sm.AutoUpgrade) {
			op, err := pools.SetManagement(name, &container.SetNodePoolManagementRequest{Management: &container.NodeManagement{
				AutoRepair: pm.AutoRepair.ValueBool(), AutoUpgrade: pm.AutoUpgrade.ValueBool(), ForceSendFields: []string{"AutoRepair", "AutoUpgrade"},
			}}).Context(ctx).Do()
			if !wait("management", op, err) {
				return
			}
		}
	}
	pc, sc := configOrEmpty(plan.NodeConfig), configOrEmpty(state.NodeConfig)
	if !pc.Labels.Equal(sc.Labels) {
		labels := map[string]string{}
		resp.Diagnostics.Append(pc.Labels.ElementsAs(ctx, &labels, false)...)
		if !updatePool("node_config.labels", &container.UpdateNodePoolRequest{Labels: &container.NodeLabels{Labels: labels, ForceSendFields: []string{"Labels"}}}) {
			return
		}
	}
	if !taintsEqual(pc.Taint, sc.Taint) {
		taints := &container.NodeTaints{Taints: expandTaints(pc.Taint), ForceSendFields: []string{"Taints"}}
		if taints.Taints == nil {
			taints.Taints = []*container.NodeTaint{}
		}
		if !updatePool("node_config.taint", &container.UpdateNodePoolRequest{Taints: taints}) {
			return
		}
	}
	// The strategy first, so that a change of both the strategy and the version upgrades with the
	// new one. The whole upgradeSettings goes: GKE's current one with the plan on top.
	var planUS, stateUS types.List
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("upgrade_settings"), &planUS)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("upgrade_settings"), &stateUS)...)
	if len(plan.UpgradeSettings) > 0 && !planUS.Equal(stateUS) {
		current, err := pools.Get(name).Context(ctx).Do()
		if err != nil {
			resp.Diagnostics.AddError("Error updating node pool", fmt.Sprintf("Reading %s: %s", name, client.Message(err)))
			return
		}
		if !updatePool("upgrade_settings", &container.UpdateNodePoolRequest{UpgradeSettings: expandUpgradeSettings(plan.UpgradeSettings[0], current.UpgradeSettings)}) {
			return
		}
	}
	// Turning autoscaling off comes after a strategy change (GKE refuses it while the strategy is
	// autoscaled blue-green, R-ABG-1), then node_count takes the size back: the state kept the
	// configured value while the autoscaler moved the size.
	if disabling {
		if !setAutoscaling() {
			return
		}
		if set(plan.NodeCount) {
			np, err := pools.Get(name).Context(ctx).Do()
			if err != nil {
				resp.Diagnostics.AddError("Error updating node pool", fmt.Sprintf("Reading %s: %s", name, client.Message(err)))
				return
			}
			size, err := nodesPerZone(ctx, c, np)
			if err != nil {
				resp.Diagnostics.AddError("Error updating node pool", fmt.Sprintf("Reading the instance groups of %s: %s", name, err))
				return
			}
			if size != plan.NodeCount.ValueInt64() && !resize(plan.NodeCount.ValueInt64()) {
				return
			}
		}
	}
	// Node-recreating changes go in one request, last: GKE upgrades the nodes once (R-UPG-1), and
	// with blue_green_return_at_soak the upgrade may still run when this returns.
	var pending *pendingUpgrade
	if u, what := nodeSpecChanges(plan, state); len(what) > 0 {
		var err error
		pending, err = upgradeNodes(ctx, c, project, location, name, u, plan.BlueGreenReturnAtSoak.ValueBool())
		if err != nil {
			resp.Diagnostics.AddError("Error updating node pool", fmt.Sprintf("Updating %s of %s: %s", strings.Join(what, ", "), name, err))
			return
		}
	}
	plan.ID, plan.Project, plan.Location = state.ID, state.Project, state.Location
	target := plan.nodePoolAttrs
	readNodePool(ctx, r.data.client, &plan.nodePoolAttrs, blocksAsConfigured, &resp.Diagnostics)
	if pending != nil {
		keepUpgradeTarget(target, &plan.nodePoolAttrs)
	}
	savePending(ctx, resp.Private, pending, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func configOrEmpty(c []nodeConfigModel) nodeConfigModel {
	if len(c) > 0 {
		return c[0]
	}
	return nodeConfigModel{Labels: types.MapNull(types.StringType)}
}

// nodeSpecChanges builds the update request for changes that recreate nodes: version and
// the machine attributes of node_config.
func nodeSpecChanges(plan, state nodePoolModel) (*container.UpdateNodePoolRequest, []string) {
	u := &container.UpdateNodePoolRequest{}
	var what []string
	if v := plan.Version; !v.IsUnknown() && !v.IsNull() && !versionSatisfies(state.Version.ValueString(), v.ValueString()) {
		u.NodeVersion = v.ValueString()
		what = append(what, "version")
	}
	if len(plan.NodeConfig) == 0 {
		return u, what
	}
	p, s := plan.NodeConfig[0], configOrEmpty(state.NodeConfig)
	if !p.MachineType.IsUnknown() && p.MachineType.ValueString() != "" && !p.MachineType.Equal(s.MachineType) {
		u.MachineType = p.MachineType.ValueString()
		what = append(what, "node_config.machine_type")
	}
	if !p.DiskType.IsUnknown() && p.DiskType.ValueString() != "" && !p.DiskType.Equal(s.DiskType) {
		u.DiskType = p.DiskType.ValueString()
		what = append(what, "node_config.disk_type")
	}
	if !p.DiskSizeGb.IsUnknown() && p.DiskSizeGb.ValueInt64() > 0 && !p.DiskSizeGb.Equal(s.DiskSizeGb) {
		u.DiskSizeGb = p.DiskSizeGb.ValueInt64()
		what = append(what, "node_config.disk_size_gb")
	}
	if !p.ImageType.IsUnknown() && p.ImageType.ValueString() != "" && !strings.EqualFold(p.ImageType.ValueString(), s.ImageType.ValueString()) {
		u.ImageType = strings.ToUpper(p.ImageType.ValueString())
		what = append(what, "node_config.image_type")
	}
	return u, what
}

func taintsEqual(a, b []taintModel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Key.Equal(b[i].Key) || a[i].Value.ValueString() != b[i].Value.ValueString() || !a[i].Effect.Equal(b[i].Effect) {
			return false
		}
	}
	return true
}

func (r *NodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, nodePoolDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := r.data.client
	_, _, cluster := r.names(&state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !awaitPoolUpgrades(ctx, c, state.Project.ValueString(), state.Location.ValueString(), cluster, &resp.Diagnostics) {
		return
	}
	op, err := c.GKE.Projects.Locations.Clusters.NodePools.Delete(state.ID.ValueString()).Context(ctx).Do()
	awaitDelete(ctx, c, state.Project.ValueString(), state.Location.ValueString(), op, err, "node pool", state.ID.ValueString(), &resp.Diagnostics)
}

func (r *NodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defaultProject := ""
	if r.data != nil {
		defaultProject = r.data.project
	}
	project, location, names, err := parseImportID(req.ID, defaultProject, "nodePools")
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), client.NodePoolName(project, location, names[0], names[1]))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project"), project)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("location"), location)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("cluster"), names[0])...)
	markImported(ctx, resp.Private, &resp.Diagnostics)
}
