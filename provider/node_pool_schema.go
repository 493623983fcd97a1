package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The schema of gkesim_node_pool, and the models its attributes decode into (the data source
// gkesim_node_pool shares nodePoolAttrs). The resource's methods are in node_pool_resource.go.

var taintEffects = []string{"NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"}

// nodePoolAttrs are the attributes gkesim_node_pool and its data source share.
type nodePoolAttrs struct {
	ID                types.String           `tfsdk:"id"`
	Cluster           types.String           `tfsdk:"cluster"`
	Name              types.String           `tfsdk:"name"`
	Project           types.String           `tfsdk:"project"`
	Location          types.String           `tfsdk:"location"`
	InitialNodeCount  types.Int64            `tfsdk:"initial_node_count"`
	NodeCount         types.Int64            `tfsdk:"node_count"`
	NodeLocations     types.Set              `tfsdk:"node_locations"`
	Version           types.String           `tfsdk:"version"`
	InstanceGroupURLs types.List             `tfsdk:"instance_group_urls"`
	Status            types.String           `tfsdk:"status"`
	NodeConfig        []nodeConfigModel      `tfsdk:"node_config"`
	Management        []managementModel      `tfsdk:"management"`
	UpgradeSettings   []upgradeSettingsModel `tfsdk:"upgrade_settings"`
	Autoscaling       []autoscalingModel     `tfsdk:"autoscaling"`
}

type nodePoolModel struct {
	nodePoolAttrs
	BlueGreenReturnAtSoak types.Bool     `tfsdk:"blue_green_return_at_soak"`
	Timeouts              timeouts.Value `tfsdk:"timeouts"`
}

type nodeConfigModel struct {
	MachineType types.String `tfsdk:"machine_type"`
	DiskSizeGb  types.Int64  `tfsdk:"disk_size_gb"`
	DiskType    types.String `tfsdk:"disk_type"`
	ImageType   types.String `tfsdk:"image_type"`
	Labels      types.Map    `tfsdk:"labels"`
	Spot        types.Bool   `tfsdk:"spot"`
	FlexStart   types.Bool   `tfsdk:"flex_start"`
	Taint       []taintModel `tfsdk:"taint"`
}

type taintModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

type managementModel struct {
	AutoRepair  types.Bool `tfsdk:"auto_repair"`
	AutoUpgrade types.Bool `tfsdk:"auto_upgrade"`
}

func (r *NodePoolResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := stringplanmodifier.UseStateForUnknown
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GKE node pool: one managed instance group per zone of the pool, each with its nodes. " +
			"Changing `version` or the machine attributes in `node_config` recreates the nodes through the pool's upgrade strategy; " +
			"labels and taints change in place. Attribute names follow terraform-provider-google's `google_container_node_pool`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}`.",
				PlanModifiers:       []planmodifier.String{keep()},
			},
			"cluster": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The cluster: its name, or `projects/{project}/locations/{location}/clusters/{name}` (then project and location come from it).",
				PlanModifiers:       []planmodifier.String{sameCluster{}, stringplanmodifier.RequiresReplace()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Node pool name: 1-40 lowercase letters, digits and hyphens, starting with a letter.",
				Validators:          []validator.String{gkeNameValidator()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"project": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Project. Defaults to the cluster reference's project, then the provider's.",
				Validators:          []validator.String{projectIDValidator{}},
				PlanModifiers:       []planmodifier.String{keep(), stringplanmodifier.RequiresReplace()},
			},
			"location": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "The cluster's location. Defaults to the cluster reference's location, then the provider's.",
				PlanModifiers:       []planmodifier.String{keep(), stringplanmodifier.RequiresReplace()},
			},
			"initial_node_count": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Nodes per zone at creation. Changing it replaces the pool; use `node_count` to resize. Cannot be set with `node_count`.",
				Validators:          []validator.Int64{int64validator.Between(0, 1000)},
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown(), int64planmodifier.RequiresReplace()},
			},
			"node_count": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Nodes per zone. Changing it resizes the pool (`setSize`). Defaults to 1 at creation when neither it nor `initial_node_count` is set. " +
					"With `autoscaling` the autoscaler owns the size: `node_count` keeps the value Terraform last set (a size the autoscaler changed shows no diff; " +
					"`data.gkesim_node_pool` reads the current one), and changing it resizes the pool once, after which the autoscaler carries on. " +
					"Removing `autoscaling` resizes the pool to a configured `node_count`.",
				Validators:    []validator.Int64{int64validator.Between(0, 1000)},
				PlanModifiers: []planmodifier.Int64{nodeCountPlan{}},
			},
			"node_locations": schema.SetAttribute{
				ElementType: types.StringType, Optional: true, Computed: true,
				MarkdownDescription: "Zones of the pool's nodes. Defaults to the cluster's node locations. Changing it adds or removes a zone's nodes.",
				PlanModifiers:       []planmodifier.Set{setplanmodifier.UseStateForUnknown()},
			},
			"version": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Node version (`1.36.12-gke.2240000`) or alias (`1.36`, `1.36.12`, `latest`). Defaults to the control plane's version. " +
					"Changing it upgrades the nodes with the pool's upgrade strategy (`upgrade_settings`) and waits until the upgrade is done " +
					"(or, with `blue_green_return_at_soak`, until a blue-green upgrade reaches its soak).",
				PlanModifiers: []planmodifier.String{keep()},
			},
			"instance_group_urls": schema.ListAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "URLs of the pool's managed instance groups, one per zone (during a blue-green upgrade, the blue and the green ones).",
				PlanModifiers:       []planmodifier.List{keepUnlessNodesChange("node_locations")},
			},
			"status": schema.StringAttribute{
				Computed: true, MarkdownDescription: "Node pool status: PROVISIONING, RUNNING, RECONCILING (e.g. an upgrade in progress), STOPPING, ERROR.",
				PlanModifiers: []planmodifier.String{keepUnlessNodesChange()},
			},
			"blue_green_return_at_soak": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Return from an apply that upgrades the nodes with a standard blue-green upgrade once the blue pool is drained " +
					"(phase `NODE_POOL_SOAKING`, or `DELETING_BLUE_POOL` when there is no soak) instead of waiting through the soak and the blue pool deletion " +
					"(terraform-provider-google #16770). The upgrade goes on; the state shows its target meanwhile, and later applies that change the pool wait for it first. " +
					"Not sent to GKE. Defaults to false; right after an import the configured value plans no change and takes effect with the pool's next update.",
			},
		},
		Blocks: map[string]schema.Block{
			"node_config": schema.ListNestedBlock{
				MarkdownDescription: "Configuration of the pool's nodes. Without this block nodes are e2-medium with a 100 GB pd-balanced disk and COS_CONTAINERD.",
				Validators:          []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"machine_type": schema.StringAttribute{
							Optional: true, Computed: true,
							MarkdownDescription: "Machine type, e.g. `e2-standard-4`. Defaults to `e2-medium`. Changing it recreates the nodes.",
							PlanModifiers:       []planmodifier.String{keepKnownState{}},
						},
						"disk_size_gb": schema.Int64Attribute{
							Optional: true, Computed: true,
							MarkdownDescription: "Boot disk size in GB, at least 10. Defaults to 100. Changing it recreates the nodes.",
							Validators:          []validator.Int64{int64validator.AtLeast(10)},
							PlanModifiers:       []planmodifier.Int64{keepKnownState{}},
						},
						"disk_type": schema.StringAttribute{
							Optional: true, Computed: true,
							MarkdownDescription: "Boot disk type: `pd-standard`, `pd-balanced` (default), `pd-ssd`, `pd-extreme` or `hyperdisk-balanced`. Changing it recreates the nodes.",
							PlanModifiers:       []planmodifier.String{keepKnownState{}},
						},
						"image_type": schema.StringAttribute{
							Optional: true, Computed: true,
							MarkdownDescription: "Node image: `COS_CONTAINERD` (default), `UBUNTU_CONTAINERD` or `WINDOWS_LTSC_CONTAINERD` (case-insensitive). Changing it recreates the nodes.",
							PlanModifiers:       []planmodifier.String{keepKnownState{}},
						},
						"labels": schema.MapAttribute{
							ElementType: types.StringType, Optional: true,
							MarkdownDescription: "Kubernetes labels of the nodes. Applied in place.",
						},
						"spot": schema.BoolAttribute{
							Optional: true, Computed: true,
							MarkdownDescription: "Spot VMs. Changing it replaces the pool.",
							Default:             booldefault.StaticBool(false),
							PlanModifiers:       []planmodifier.Bool{replaceIfChanged()},
						},
						"flex_start": schema.BoolAttribute{
							Optional: true, Computed: true,
							MarkdownDescription: "Flex-start VMs (Dynamic Workload Scheduler). GKE upgrades such pools with the `SHORT_LIVED` strategy: running nodes keep their configuration until they are interrupted, within 7 days, and new nodes get the new one ([R-SL-1](../guides/node-upgrades.md#r-sl-1)). Changing it replaces the pool.",
							Default:             booldefault.StaticBool(false),
							PlanModifiers:       []planmodifier.Bool{replaceIfChanged()},
						},
					},
					Blocks: map[string]schema.Block{
						"taint": schema.ListNestedBlock{
							MarkdownDescription: "Kubernetes taints of the nodes. Applied in place.",
							NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
								"key":   schema.StringAttribute{Required: true, MarkdownDescription: "Taint key."},
								"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Taint value."},
								"effect": schema.StringAttribute{
									Required: true, MarkdownDescription: "`NO_SCHEDULE`, `PREFER_NO_SCHEDULE` or `NO_EXECUTE`.",
									Validators: []validator.String{stringvalidator.OneOf(taintEffects...)},
								},
							}},
						},
					},
				},
			},
			"management": schema.ListNestedBlock{
				MarkdownDescription: "Node auto-repair and auto-upgrade. Without this block GKE turns both on; clusters in a release channel must keep both on. " +
					"An import reads the block only when one is off, so that a configuration without it plans nothing (one that writes both `true` out plans adding the block once; the apply changes nothing on GKE).",
				Validators: []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"auto_repair": schema.BoolAttribute{
						Optional: true, Computed: true, Default: booldefault.StaticBool(true),
						MarkdownDescription: "Repair failed nodes. Defaults to true.",
					},
					"auto_upgrade": schema.BoolAttribute{
						Optional: true, Computed: true, Default: booldefault.StaticBool(true),
						MarkdownDescription: "Upgrade nodes with the cluster's release channel. Defaults to true.",
					},
				}},
			},
			"upgrade_settings": upgradeSettingsBlock(),
			"autoscaling":      autoscalingBlock(),
			"timeouts":         timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

// replaceIfChanged replaces the pool when a node_config flag really changes. Adding a
// node_config block to a pool created without one makes the flag's prior value null and its
// planned value the default false, which is no change: the pool had GKE's default.
func replaceIfChanged() planmodifier.Bool {
	return boolplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
		if req.StateValue.IsNull() && !req.PlanValue.IsUnknown() && !req.PlanValue.ValueBool() {
			return
		}
		resp.RequiresReplace = true
	}, "Changing it replaces the pool.", "Changing it replaces the pool.")
}
