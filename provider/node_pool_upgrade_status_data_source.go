package provider

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var _ datasource.DataSourceWithConfigure = &NodePoolUpgradeStatusDataSource{}

// NodePoolUpgradeStatusDataSource is data.gkesim_node_pool_upgrade_status: where a node pool's
// upgrade is, from the pool's updateInfo, its running UPGRADE_NODES operation (progress metrics,
// detail with the ETA) and its nodes in the cluster's Kubernetes API.
type NodePoolUpgradeStatusDataSource struct {
	data *providerData
}

func NewNodePoolUpgradeStatusDataSource() datasource.DataSource {
	return &NodePoolUpgradeStatusDataSource{}
}

type upgradeStatusModel struct {
	ID                     types.String `tfsdk:"id"`
	Cluster                types.String `tfsdk:"cluster"`
	Name                   types.String `tfsdk:"name"`
	Project                types.String `tfsdk:"project"`
	Location               types.String `tfsdk:"location"`
	Strategy               types.String `tfsdk:"strategy"`
	InProgress             types.Bool   `tfsdk:"in_progress"`
	Paused                 types.Bool   `tfsdk:"paused"`
	Phase                  types.String `tfsdk:"phase"`
	CurrentZone            types.String `tfsdk:"current_zone"`
	TargetVersion          types.String `tfsdk:"target_version"`
	Operation              types.String `tfsdk:"operation"`
	Detail                 types.String `tfsdk:"detail"`
	StartedTime            types.String `tfsdk:"started_time"`
	ETA                    types.String `tfsdk:"eta"`
	NodesDone              types.Int64  `tfsdk:"nodes_done"`
	NodesTotal             types.Int64  `tfsdk:"nodes_total"`
	NodesByVersion         types.Map    `tfsdk:"nodes_by_version"`
	Zones                  []zoneModel  `tfsdk:"zones"`
	BlueInstanceGroupURLs  types.List   `tfsdk:"blue_instance_group_urls"`
	GreenInstanceGroupURLs types.List   `tfsdk:"green_instance_group_urls"`
	BluePoolDeletionStart  types.String `tfsdk:"blue_pool_deletion_start_time"`
}

type zoneModel struct {
	Zone           types.String `tfsdk:"zone"`
	NodesByVersion types.Map    `tfsdk:"nodes_by_version"`
}

func (d *NodePoolUpgradeStatusDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_pool_upgrade_status"
}

func (d *NodePoolUpgradeStatusDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	versions := func(what string) schema.MapAttribute {
		return schema.MapAttribute{ElementType: types.Int64Type, Computed: true, MarkdownDescription: what}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Where a node pool's upgrade is: strategy, blue-green phase, nodes per version (per zone too), progress, start and estimated end. " +
			"Read it during an apply that returned at a blue-green soak (`blue_green_return_at_soak`), or from outputs to watch an upgrade. " +
			"Built from the pool's `updateInfo`, its `UPGRADE_NODES` operation and its nodes in the cluster's Kubernetes API.",
		Attributes: map[string]schema.Attribute{
			"cluster":     schema.StringAttribute{Required: true, MarkdownDescription: "The cluster: its name or `projects/{project}/locations/{location}/clusters/{name}`."},
			"name":        schema.StringAttribute{Required: true, MarkdownDescription: "Node pool name."},
			"project":     schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project. Defaults to the cluster reference's, then the provider's."},
			"location":    schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "The cluster's location. Defaults to the cluster reference's, then the provider's."},
			"id":          computedString("`projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}`."),
			"strategy":    computedString("The pool's upgrade strategy: `SURGE`, `BLUE_GREEN` or `SHORT_LIVED`."),
			"in_progress": schema.BoolAttribute{Computed: true, MarkdownDescription: "An upgrade operation of the pool is running."},
			"paused": schema.BoolAttribute{Computed: true, MarkdownDescription: "A blue-green upgrade was cancelled and waits, in its phase, to be resumed (an update to the same version) " +
				"or rolled back ([R-BG-7](../guides/blue-green-upgrades.md#r-bg-7)): the pool has `updateInfo` but no running operation."},
			"phase": computedString("Blue-green phase: `CREATING_GREEN_POOL`, `CORDONING_BLUE_POOL`, `DRAINING_BLUE_POOL`, `NODE_POOL_SOAKING`, `DELETING_BLUE_POOL` or `ROLLBACK_STARTED` " +
				"(`WAITING_TO_DRAIN_BLUE_POOL` on v1beta1). Null for other strategies and when no blue-green upgrade is under way."),
			"current_zone":                  computedString("Surge: the zone being upgraded (zones go one at a time, [R-SURGE-2](../guides/node-upgrades.md#r-surge-2))."),
			"target_version":                computedString("The version the nodes are moving to."),
			"operation":                     computedString("The running upgrade operation (for a paused upgrade, the cancelled one); `gkesim container operations cancel` takes it."),
			"detail":                        computedString("The operation's detail: what changes, the strategy, nodes done, phase or zone, ETA."),
			"started_time":                  computedString("When the operation started (RFC 3339, emulated time)."),
			"eta":                           computedString("Estimated end of the upgrade (RFC 3339, emulated time), from the pace so far (surge) or the phases and soaks left (blue-green)."),
			"nodes_done":                    schema.Int64Attribute{Computed: true, MarkdownDescription: "Nodes upgraded (surge) or blue nodes drained (blue-green) so far."},
			"nodes_total":                   schema.Int64Attribute{Computed: true, MarkdownDescription: "Nodes the upgrade changes."},
			"nodes_by_version":              versions("Ready nodes of the pool by version (booting VMs are not nodes yet)."),
			"blue_instance_group_urls":      schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Blue-green: the old (blue) instance groups."},
			"green_instance_group_urls":     schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Blue-green: the new (green) instance groups."},
			"blue_pool_deletion_start_time": computedString("Blue-green: when the blue pool's deletion starts (the end of the soak)."),
			"zones": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Per zone of the pool, sorted: Ready nodes by version.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"zone":             computedString("Zone."),
					"nodes_by_version": versions("Ready nodes in the zone by version."),
				}},
			},
		},
	}
}

func (d *NodePoolUpgradeStatusDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (d *NodePoolUpgradeStatusDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m upgradeStatusModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	project, location, cluster := d.data.clusterNames(m.Cluster, m.Project, m.Location, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	c := d.data.client
	pool := m.Name.ValueString()
	name := client.NodePoolName(project, location, cluster, pool)
	m.ID, m.Project, m.Location = types.StringValue(name), types.StringValue(project), types.StringValue(location)
	np, err := c.GKE.Projects.Locations.Clusters.NodePools.Get(name).Context(ctx).Do()
	if err != nil {
		resp.Diagnostics.AddError("Error reading node pool", fmt.Sprintf("Reading %s: %s", name, client.Message(err)))
		return
	}
	ops, err := c.UpgradeOperations(ctx, project, location, cluster, pool)
	if err != nil {
		resp.Diagnostics.AddError("Error reading node pool upgrade", err.Error())
		return
	}
	nodes, err := c.PoolNodeVersions(ctx, project, location, cluster, pool)
	if err != nil {
		resp.Diagnostics.AddError("Error reading node pool nodes", err.Error())
		return
	}
	m.fill(ctx, np, ops, nodes, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

var targetVersionRE = regexp.MustCompile(`version (\S+) -> ([^\s,;)]+)`)

// fill sets the status from the pool, its UPGRADE_NODES operations (oldest first) and its nodes.
func (m *upgradeStatusModel) fill(ctx context.Context, np *container.NodePool, ops []*container.Operation, nodes client.ZoneVersions, diags *diag.Diagnostics) {
	strOrNull := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	strategy := strategySurge
	if us := np.UpgradeSettings; us != nil && us.Strategy != "" {
		strategy = us.Strategy
	}
	m.Strategy = types.StringValue(strategy)
	var running, last *container.Operation
	for _, op := range ops {
		last = op
		if client.Running(op) {
			running = op
		}
	}
	var info *container.BlueGreenInfo
	if np.UpdateInfo != nil {
		info = np.UpdateInfo.BlueGreenInfo
	}
	paused := info != nil && running == nil
	m.InProgress, m.Paused = types.BoolValue(running != nil), types.BoolValue(paused)
	op := running
	if paused {
		op = last
	}
	m.Phase, m.BluePoolDeletionStart, m.TargetVersion = types.StringNull(), types.StringNull(), types.StringNull()
	m.BlueInstanceGroupURLs, m.GreenInstanceGroupURLs = types.ListNull(types.StringType), types.ListNull(types.StringType)
	if info != nil {
		m.Phase, m.BluePoolDeletionStart, m.TargetVersion = strOrNull(info.Phase), strOrNull(info.BluePoolDeletionStartTime), strOrNull(info.GreenPoolVersion)
		m.BlueInstanceGroupURLs = stringList(ctx, info.BlueInstanceGroupUrls, diags)
		m.GreenInstanceGroupURLs = stringList(ctx, info.GreenInstanceGroupUrls, diags)
	}
	m.Operation, m.Detail, m.StartedTime, m.ETA, m.CurrentZone = types.StringNull(), types.StringNull(), types.StringNull(), types.StringNull(), types.StringNull()
	m.NodesDone, m.NodesTotal = types.Int64Null(), types.Int64Null()
	if op != nil {
		m.Operation, m.Detail, m.StartedTime = types.StringValue(op.Name), strOrNull(op.Detail), strOrNull(op.StartTime)
		if eta, ok := client.OperationETA(op); ok && running != nil {
			m.ETA = types.StringValue(eta.Format(time.RFC3339))
		}
		if done, _, ok := client.Metric(op, "nodes done"); ok {
			m.NodesDone = types.Int64Value(done)
		}
		if total, _, ok := client.Metric(op, "nodes total"); ok {
			m.NodesTotal = types.Int64Value(total)
		}
		if _, zone, ok := client.Metric(op, "zone"); ok && zone != "done" {
			m.CurrentZone = strOrNull(zone)
		}
		if mm := targetVersionRE.FindStringSubmatch(op.Detail); mm != nil && m.TargetVersion.IsNull() {
			m.TargetVersion = types.StringValue(mm[2])
		}
	}
	m.NodesByVersion = int64Map(ctx, nodes.Versions(), diags)
	m.Zones = nil
	for _, z := range nodes.Zones() {
		m.Zones = append(m.Zones, zoneModel{Zone: types.StringValue(z), NodesByVersion: int64Map(ctx, nodes[z], diags)})
	}
}

func int64Map(ctx context.Context, vals map[string]int64, diags *diag.Diagnostics) types.Map {
	m, d := types.MapValueFrom(ctx, types.Int64Type, vals)
	diags.Append(d...)
	return m
}
