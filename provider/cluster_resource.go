package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var (
	_ resource.ResourceWithConfigure      = &ClusterResource{}
	_ resource.ResourceWithImportState    = &ClusterResource{}
	_ resource.ResourceWithModifyPlan     = &ClusterResource{}
	_ resource.ResourceWithValidateConfig = &ClusterResource{}
)

// Default timeouts, as terraform-provider-google's google_container_cluster.
const (
	clusterCreateTimeout = 90 * time.Minute
	clusterUpdateTimeout = 90 * time.Minute
	clusterDeleteTimeout = 90 * time.Minute
)

// ClusterResource is gkesim_cluster.
type ClusterResource struct {
	data *providerData
}

func NewClusterResource() resource.Resource { return &ClusterResource{} }

// clusterAttrs are the attributes gkesim_cluster and its data source share.
type clusterAttrs struct {
	ID                    types.String              `tfsdk:"id"`
	Name                  types.String              `tfsdk:"name"`
	Project               types.String              `tfsdk:"project"`
	Location              types.String              `tfsdk:"location"`
	Description           types.String              `tfsdk:"description"`
	NodeLocations         types.Set                 `tfsdk:"node_locations"`
	InitialNodeCount      types.Int64               `tfsdk:"initial_node_count"`
	MasterVersion         types.String              `tfsdk:"master_version"`
	EnableL4ILBSubsetting types.Bool                `tfsdk:"enable_l4_ilb_subsetting"`
	ResourceLabels        types.Map                 `tfsdk:"resource_labels"`
	Endpoint              types.String              `tfsdk:"endpoint"`
	Status                types.String              `tfsdk:"status"`
	SelfLink              types.String              `tfsdk:"self_link"`
	ClusterIPv4CIDR       types.String              `tfsdk:"cluster_ipv4_cidr"`
	ServicesIPv4CIDR      types.String              `tfsdk:"services_ipv4_cidr"`
	ReleaseChannel        []releaseChannelModel     `tfsdk:"release_channel"`
	ClusterAutoscaling    []clusterAutoscalingModel `tfsdk:"cluster_autoscaling"`
}

type clusterModel struct {
	clusterAttrs
	RemoveDefaultNodePool types.Bool     `tfsdk:"remove_default_node_pool"`
	MinMasterVersion      types.String   `tfsdk:"min_master_version"`
	Timeouts              timeouts.Value `tfsdk:"timeouts"`
}

// blockMode says when flatten fills a nested block the configuration may have left out.
type blockMode int

const (
	// blocksAsConfigured fills the blocks the configuration (the prior state) has.
	blocksAsConfigured blockMode = iota
	// blocksOnImport also fills blocks whose values differ from GKE's defaults.
	blocksOnImport
	// blocksAlways fills every block (data sources).
	blocksAlways
)

// want says whether a block is filled: present already, or by the mode.
func (b blockMode) want(present, nonDefault bool) bool {
	return present || b == blocksAlways || (b == blocksOnImport && nonDefault)
}

type releaseChannelModel struct {
	Channel types.String `tfsdk:"channel"`
}

type clusterAutoscalingModel struct {
	AutoscalingProfile types.String `tfsdk:"autoscaling_profile"`
}

// GKE's defaults for what a config leaves out; a block equal to them reads as absent.
const (
	defaultChannel = "REGULAR"
	defaultProfile = "BALANCED"
)

var releaseChannels = []string{"UNSPECIFIED", "RAPID", "REGULAR", "STABLE", "EXTENDED"}

func (r *ClusterResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func (r *ClusterResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GKE cluster. Creating it runs GKE's `CREATE_CLUSTER` operation on the emulator: the control plane comes up, " +
			"then the nodes of the default node pool. Attribute names follow terraform-provider-google's `google_container_cluster`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`projects/{project}/locations/{location}/clusters/{name}`.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Cluster name: 1-40 lowercase letters, digits and hyphens, starting with a letter.",
				Validators:          []validator.String{gkeNameValidator()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"project": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Project. Defaults to the provider's project.",
				Validators:          []validator.String{projectIDValidator{}},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
			},
			"location": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Region (regional cluster) or zone (zonal cluster). Defaults to the provider's location.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
			},
			"description": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Description of the cluster.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"node_locations": schema.SetAttribute{
				ElementType: types.StringType, Optional: true, Computed: true,
				MarkdownDescription: "Zones of the cluster's nodes (of every node pool). Defaults to the cluster's zone, or to three zones of its region. " +
					"Changing it adds or removes nodes in every pool.",
				PlanModifiers: []planmodifier.Set{setplanmodifier.UseStateForUnknown()},
			},
			"initial_node_count": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Nodes per zone of the `default-pool` node pool created with the cluster. Defaults to 1. " +
					"GKE needs a node pool to create a cluster; set `remove_default_node_pool` to delete it once the cluster is up.",
				Default:       int64default.StaticInt64(1),
				Validators:    []validator.Int64{int64validator.Between(1, 1000)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
			},
			"remove_default_node_pool": schema.BoolAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Delete the `default-pool` node pool after the cluster is created, to manage node pools with `gkesim_node_pool` only. " +
					"An imported cluster has it `true` when it has no `default-pool`.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"min_master_version": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Minimum control-plane version: a version (`1.36.12-gke.2240000`) or an alias (`latest`, `1.36`, `1.36.12`). " +
					"At creation it is the cluster's version; raising it later upgrades the control plane (one minor at a time, as GKE requires).",
			},
			"master_version": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Current control-plane version.",
				PlanModifiers:       []planmodifier.String{useStateUnlessChanged("min_master_version")},
			},
			"enable_l4_ilb_subsetting": schema.BoolAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "GKE subsetting for L4 internal load balancers. It cannot be disabled once enabled ([R-LB-4](../guides/load-balancers.md#r-lb-4)): turning it off replaces the cluster.",
				Default:             booldefault.StaticBool(false),
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.RequiresReplaceIf(subsettingDisabled, "Disabling L4 ILB subsetting replaces the cluster.", "Disabling L4 ILB subsetting replaces the cluster.")},
			},
			"resource_labels": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "GCE resource labels of the cluster.",
			},
			"endpoint": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Address of the cluster's Kubernetes-shaped API on the emulator (host and path, as GKE's endpoint is a bare address).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"status": schema.StringAttribute{
				Computed: true, MarkdownDescription: "Cluster status: PROVISIONING, RUNNING, RECONCILING, STOPPING, ERROR.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"self_link": schema.StringAttribute{
				Computed: true, MarkdownDescription: "API URL of the cluster.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"cluster_ipv4_cidr": schema.StringAttribute{
				Computed: true, MarkdownDescription: "Pod address range.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"services_ipv4_cidr": schema.StringAttribute{
				Computed: true, MarkdownDescription: "Service address range.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"release_channel": schema.ListNestedBlock{
				MarkdownDescription: "Release channel the cluster is enrolled in. Without this block GKE enrolls the cluster in REGULAR; removing the block does not unenroll it. " +
					"An import reads the block only for another channel, so that a configuration without it plans nothing (one that writes `REGULAR` out plans adding the block once; the apply changes nothing on GKE).",
				Validators: []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"channel": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "One of `UNSPECIFIED`, `RAPID`, `REGULAR`, `STABLE`, `EXTENDED`.",
						Validators:          []validator.String{stringvalidator.OneOf(releaseChannels...)},
					},
				}},
			},
			"cluster_autoscaling": schema.ListNestedBlock{
				MarkdownDescription: "Cluster-wide settings of the cluster autoscaler, which works on the node pools that have `autoscaling` ([R-CA-8](../guides/cluster-autoscaler.md#r-ca-8)). " +
					"Changing the profile updates the cluster in place. Without this block GKE uses `BALANCED`; removing the block leaves the profile as it is on GKE " +
					"(set `autoscaling_profile = \"BALANCED\"` to go back).",
				Validators: []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"autoscaling_profile": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "`BALANCED` (default) or `OPTIMIZE_UTILIZATION`: removes underutilised nodes sooner (after 1 minute unneeded instead of 10) " +
							"and schedules pods onto the most allocated nodes ([R-CA-8](../guides/cluster-autoscaler.md#r-ca-8)).",
						Default:    stringdefault.StaticString(defaultProfile),
						Validators: []validator.String{stringvalidator.OneOf("BALANCED", "OPTIMIZE_UTILIZATION")},
					},
				}},
			},
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func subsettingDisabled(_ context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = req.StateValue.ValueBool() && !req.PlanValue.IsUnknown() && !req.PlanValue.ValueBool()
}

func (r *ClusterResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (r *ClusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m clusterModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
}

// ModifyPlan fills project and location from the provider at plan time so that plans show them.
func (r *ClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	fillProjectLocation(ctx, r.data, &resp.Plan, &resp.Diagnostics)
}

// fillProjectLocation sets a plan's unknown project and location to the provider's defaults.
func fillProjectLocation(ctx context.Context, d *providerData, plan *tfsdk.Plan, diags *diag.Diagnostics) {
	for _, a := range []struct{ name, def string }{{"project", d.project}, {"location", d.location}} {
		var v types.String
		diags.Append(plan.GetAttribute(ctx, path.Root(a.name), &v)...)
		if v.IsUnknown() && a.def != "" {
			diags.Append(plan.SetAttribute(ctx, path.Root(a.name), a.def)...)
		}
	}
}

func (r *ClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, clusterCreateTimeout)
	resp.Diagnostics.Append(d...)
	project, location := r.data.projectAndLocation(plan.Project, plan.Location, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	in := &container.Cluster{
		Name:                  plan.Name.ValueString(),
		Description:           plan.Description.ValueString(),
		InitialNodeCount:      plan.InitialNodeCount.ValueInt64(),
		InitialClusterVersion: plan.MinMasterVersion.ValueString(),
		Locations:             stringsOf(ctx, plan.NodeLocations, &resp.Diagnostics),
		NetworkConfig:         &container.NetworkConfig{EnableL4ilbSubsetting: plan.EnableL4ILBSubsetting.ValueBool()},
	}
	resp.Diagnostics.Append(plan.ResourceLabels.ElementsAs(ctx, &in.ResourceLabels, false)...)
	if len(plan.ReleaseChannel) > 0 {
		in.ReleaseChannel = &container.ReleaseChannel{Channel: plan.ReleaseChannel[0].Channel.ValueString()}
	}
	if len(plan.ClusterAutoscaling) > 0 {
		in.Autoscaling = &container.ClusterAutoscaling{AutoscalingProfile: plan.ClusterAutoscaling[0].AutoscalingProfile.ValueString()}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	c := r.data.client
	name := client.ClusterName(project, location, in.Name)
	op, err := c.GKE.Projects.Locations.Clusters.Create("projects/"+project+"/locations/"+location,
		&container.CreateClusterRequest{Cluster: in}).Context(ctx).Do()
	if err != nil {
		resp.Diagnostics.AddError("Error creating cluster", fmt.Sprintf("Creating cluster %s: %s", name, client.Message(err)))
		return
	}
	plan.Project, plan.Location = types.StringValue(project), types.StringValue(location)
	plan.ID = types.StringValue(name)
	if err := c.Wait(ctx, project, location, op); err != nil {
		// GKE may leave the cluster behind; keep it in state (tainted) so it can be destroyed.
		if cl, gerr := c.GKE.Projects.Locations.Clusters.Get(name).Context(ctx).Do(); gerr == nil {
			flattenCluster(ctx, cl, &plan.clusterAttrs, blocksAsConfigured, &resp.Diagnostics)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		}
		resp.Diagnostics.AddError("Error creating cluster", err.Error())
		return
	}
	if plan.RemoveDefaultNodePool.ValueBool() {
		dop, err := c.GKE.Projects.Locations.Clusters.NodePools.Delete(name + "/nodePools/" + defaultPoolName).Context(ctx).Do()
		if err := c.Await(ctx, project, location, dop, err); err != nil {
			resp.Diagnostics.AddError("Error removing the default node pool", err.Error())
		}
	}
	r.readInto(ctx, &plan, blocksAsConfigured, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// readInto refreshes m from the API; it reports whether the cluster exists.
func (r *ClusterResource) readInto(ctx context.Context, m *clusterModel, mode blockMode, diags *diag.Diagnostics) bool {
	cl, err := r.data.client.GKE.Projects.Locations.Clusters.Get(m.ID.ValueString()).Context(ctx).Do()
	if client.IsNotFound(err) {
		return false
	}
	if err != nil {
		diags.AddError("Error reading cluster", fmt.Sprintf("Reading %s: %s", m.ID.ValueString(), client.Message(err)))
		return true
	}
	flattenCluster(ctx, cl, &m.clusterAttrs, mode, diags)
	if cl.InitialNodeCount == 0 && m.InitialNodeCount.IsNull() {
		m.InitialNodeCount = types.Int64Value(0)
	}
	if mode == blocksOnImport || m.RemoveDefaultNodePool.IsUnknown() {
		// An imported cluster without its default-pool is one whose pools are managed apart.
		m.RemoveDefaultNodePool = types.BoolValue(mode == blocksOnImport && !hasPool(cl, defaultPoolName))
	}
	return true
}

func hasPool(cl *container.Cluster, name string) bool {
	for _, p := range cl.NodePools {
		if p.Name == name {
			return true
		}
	}
	return false
}

// flattenCluster copies the API's view into the model. Blocks the configuration left out stay
// out (see blockMode), so that plans stay empty.
func flattenCluster(ctx context.Context, cl *container.Cluster, m *clusterAttrs, mode blockMode, diags *diag.Diagnostics) {
	m.Name = types.StringValue(cl.Name)
	m.Location = types.StringValue(cl.Location)
	if cl.Description != "" || !m.Description.IsNull() {
		m.Description = types.StringValue(cl.Description)
	}
	m.NodeLocations = stringSet(ctx, cl.Locations, diags)
	if cl.InitialNodeCount > 0 {
		m.InitialNodeCount = types.Int64Value(cl.InitialNodeCount)
	}
	m.MasterVersion = types.StringValue(cl.CurrentMasterVersion)
	m.EnableL4ILBSubsetting = types.BoolValue(cl.NetworkConfig != nil && cl.NetworkConfig.EnableL4ilbSubsetting)
	if len(cl.ResourceLabels) > 0 || !m.ResourceLabels.IsNull() {
		labels, d := types.MapValueFrom(ctx, types.StringType, cl.ResourceLabels)
		diags.Append(d...)
		m.ResourceLabels = labels
	}
	m.Endpoint = types.StringValue(cl.Endpoint)
	m.Status = types.StringValue(cl.Status)
	m.SelfLink = types.StringValue(cl.SelfLink)
	m.ClusterIPv4CIDR = types.StringValue(cl.ClusterIpv4Cidr)
	m.ServicesIPv4CIDR = types.StringValue(cl.ServicesIpv4Cidr)

	channel := "UNSPECIFIED"
	if cl.ReleaseChannel != nil && cl.ReleaseChannel.Channel != "" {
		channel = cl.ReleaseChannel.Channel
	}
	// GKE enrolls a cluster created without the block in REGULAR: an import takes the block only
	// for another channel, so that a configuration that leaves it out plans nothing.
	if mode.want(len(m.ReleaseChannel) > 0, channel != defaultChannel) {
		m.ReleaseChannel = []releaseChannelModel{{Channel: types.StringValue(channel)}}
	}
	profile := defaultProfile
	if cl.Autoscaling != nil && cl.Autoscaling.AutoscalingProfile != "" {
		profile = cl.Autoscaling.AutoscalingProfile
	}
	if mode.want(len(m.ClusterAutoscaling) > 0, profile != defaultProfile) {
		m.ClusterAutoscaling = []clusterAutoscalingModel{{AutoscalingProfile: types.StringValue(profile)}}
	}
}

func (r *ClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state clusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.readInto(ctx, &state, readMode(state.Name), &resp.Diagnostics) {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *ClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state clusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, clusterUpdateTimeout)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := r.data.client
	name, project, location := state.ID.ValueString(), state.Project.ValueString(), state.Location.ValueString()

	// GKE applies one change per UpdateCluster call; each waits for its operation.
	update := func(what string, u *container.ClusterUpdate) bool {
		op, err := c.GKE.Projects.Locations.Clusters.Update(name, &container.UpdateClusterRequest{Update: u}).Context(ctx).Do()
		return awaitUpdate(ctx, c, project, location, op, err, "cluster", what, name, &resp.Diagnostics)
	}
	if !plan.NodeLocations.IsUnknown() && !plan.NodeLocations.Equal(state.NodeLocations) {
		if !update("node_locations", &container.ClusterUpdate{DesiredLocations: stringsOf(ctx, plan.NodeLocations, &resp.Diagnostics)}) {
			return
		}
	}
	if len(plan.ReleaseChannel) > 0 && (len(state.ReleaseChannel) == 0 || !plan.ReleaseChannel[0].Channel.Equal(state.ReleaseChannel[0].Channel)) {
		if !update("release_channel", &container.ClusterUpdate{DesiredReleaseChannel: &container.ReleaseChannel{Channel: plan.ReleaseChannel[0].Channel.ValueString()}}) {
			return
		}
	}
	if v := plan.MinMasterVersion.ValueString(); v != "" && !plan.MinMasterVersion.Equal(state.MinMasterVersion) {
		upgrade, err := r.masterBelow(ctx, project, location, state.MasterVersion.ValueString(), v, plan.ReleaseChannel)
		if err != nil {
			resp.Diagnostics.AddError("Error reading server config", err.Error())
			return
		}
		if upgrade && !update("min_master_version", &container.ClusterUpdate{DesiredMasterVersion: v}) {
			return
		}
	}
	// Without the block in state the profile on GKE is unknown to the plan (a removed block left
	// it as it was): send the configured one.
	if len(plan.ClusterAutoscaling) > 0 {
		profile := plan.ClusterAutoscaling[0].AutoscalingProfile
		changed := len(state.ClusterAutoscaling) == 0 || !profile.Equal(state.ClusterAutoscaling[0].AutoscalingProfile)
		if changed && !update("cluster_autoscaling", &container.ClusterUpdate{DesiredClusterAutoscaling: &container.ClusterAutoscaling{AutoscalingProfile: profile.ValueString()}}) {
			return
		}
	}
	if plan.EnableL4ILBSubsetting.ValueBool() && !state.EnableL4ILBSubsetting.ValueBool() {
		if !update("enable_l4_ilb_subsetting", &container.ClusterUpdate{DesiredL4ilbSubsettingConfig: &container.ILBSubsettingConfig{Enabled: true}}) {
			return
		}
	}
	if !plan.ResourceLabels.Equal(state.ResourceLabels) {
		labels := map[string]string{}
		resp.Diagnostics.Append(plan.ResourceLabels.ElementsAs(ctx, &labels, false)...)
		// GKE checks the fingerprint of the labels being replaced: read it just before.
		cl, err := c.GKE.Projects.Locations.Clusters.Get(name).Context(ctx).Do()
		if err != nil {
			resp.Diagnostics.AddError("Error updating cluster", fmt.Sprintf("Reading %s for its labelFingerprint: %s", name, client.Message(err)))
			return
		}
		op, err := c.GKE.Projects.Locations.Clusters.SetResourceLabels(name, &container.SetLabelsRequest{
			ResourceLabels: labels, LabelFingerprint: cl.LabelFingerprint, ForceSendFields: []string{"ResourceLabels"}}).Context(ctx).Do()
		if !awaitUpdate(ctx, c, project, location, op, err, "cluster", "resource_labels", name, &resp.Diagnostics) {
			return
		}
	}
	plan.ID, plan.Project, plan.Location = state.ID, state.Project, state.Location
	r.readInto(ctx, &plan, blocksAsConfigured, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// masterBelow says whether the control plane's version is below the requested minimum (a
// version or alias). "latest" is resolved against the server's versions for the channel.
func (r *ClusterResource) masterBelow(ctx context.Context, project, location, current, min string, channel []releaseChannelModel) (bool, error) {
	if min == "latest" {
		sc, err := r.data.client.GKE.Projects.Locations.GetServerConfig("projects/" + project + "/locations/" + location).Context(ctx).Do()
		if err != nil {
			return false, fmt.Errorf("resolving min_master_version \"latest\": %s", client.Message(err))
		}
		ch := defaultChannel
		if len(channel) > 0 {
			ch = channel[0].Channel.ValueString()
		}
		valid := sc.ValidMasterVersions
		for _, c := range sc.Channels {
			if c.Channel == ch {
				valid = c.ValidVersions
			}
		}
		if len(valid) == 0 {
			return false, nil
		}
		min = newestVersion(valid)
	}
	return compareVersionPrefix(current, min) < 0, nil
}

func (r *ClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state clusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, clusterDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := r.data.client
	op, err := c.GKE.Projects.Locations.Clusters.Delete(state.ID.ValueString()).Context(ctx).Do()
	awaitDelete(ctx, c, state.Project.ValueString(), state.Location.ValueString(), op, err, "cluster", state.ID.ValueString(), &resp.Diagnostics)
}

func (r *ClusterResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defaultProject := ""
	if r.data != nil {
		defaultProject = r.data.project
	}
	project, location, names, err := parseImportID(req.ID, defaultProject)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), client.ClusterName(project, location, names[0]))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project"), project)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("location"), location)...)
}
