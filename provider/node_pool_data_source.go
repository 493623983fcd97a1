package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var _ datasource.DataSourceWithConfigure = &NodePoolDataSource{}

// NodePoolDataSource is data.gkesim_node_pool.
type NodePoolDataSource struct {
	data *providerData
}

const nodeCountNowDesc = "Nodes per zone now: the instance groups' target sizes averaged over the zones (rounded down), as terraform-provider-google reads them. " +
	"It follows the cluster autoscaler; `data.gkesim_nodes` lists the nodes."

func NewNodePoolDataSource() datasource.DataSource { return &NodePoolDataSource{} }

func (d *NodePoolDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_pool"
}

func (d *NodePoolDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads a GKE node pool.",
		Attributes: map[string]schema.Attribute{
			"cluster":             schema.StringAttribute{Required: true, MarkdownDescription: "The cluster: its name or `projects/{project}/locations/{location}/clusters/{name}`."},
			"name":                schema.StringAttribute{Required: true, MarkdownDescription: "Node pool name."},
			"project":             schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project. Defaults to the cluster reference's, then the provider's."},
			"location":            schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "The cluster's location. Defaults to the cluster reference's, then the provider's."},
			"id":                  computedString("`projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}`."),
			"initial_node_count":  schema.Int64Attribute{Computed: true, MarkdownDescription: "Nodes per zone at creation."},
			"node_count":          schema.Int64Attribute{Computed: true, MarkdownDescription: nodeCountNowDesc},
			"node_locations":      schema.SetAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Zones of the pool's nodes."},
			"version":             computedString("Node version."),
			"instance_group_urls": schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "URLs of the pool's managed instance groups."},
			"status":              computedString("Node pool status."),
			"node_config": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Node configuration (one element).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"machine_type": computedString("Machine type."),
					"disk_size_gb": schema.Int64Attribute{Computed: true, MarkdownDescription: "Boot disk size in GB."},
					"disk_type":    computedString("Boot disk type."),
					"image_type":   computedString("Node image."),
					"labels":       schema.MapAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Kubernetes labels."},
					"spot":         schema.BoolAttribute{Computed: true, MarkdownDescription: "Spot VMs."},
					"flex_start":   schema.BoolAttribute{Computed: true, MarkdownDescription: "Flex-start VMs (upgraded with `SHORT_LIVED`)."},
					"taint": schema.ListNestedAttribute{
						Computed: true, MarkdownDescription: "Kubernetes taints.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"key":    computedString("Taint key."),
							"value":  computedString("Taint value."),
							"effect": computedString("`NO_SCHEDULE`, `PREFER_NO_SCHEDULE` or `NO_EXECUTE`."),
						}},
					},
				}},
			},
			"upgrade_settings": upgradeSettingsDataSourceAttr(),
			"autoscaling":      autoscalingDataSourceAttr(),
			"management": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Auto-repair and auto-upgrade (one element).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"auto_repair":  schema.BoolAttribute{Computed: true, MarkdownDescription: "Repair failed nodes."},
					"auto_upgrade": schema.BoolAttribute{Computed: true, MarkdownDescription: "Upgrade nodes with the release channel."},
				}},
			},
		},
	}
}

func (d *NodePoolDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (d *NodePoolDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m nodePoolAttrs
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	project, location, cluster := poolNames(d.data, &m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = types.StringValue(client.NodePoolName(project, location, cluster, m.Name.ValueString()))
	m.Project, m.Location = types.StringValue(project), types.StringValue(location)
	if _, found := readNodePool(ctx, d.data.client, &m, blocksAlways, &resp.Diagnostics); !found {
		resp.Diagnostics.AddError("Error reading node pool", fmt.Sprintf("Node pool %s not found.", m.ID.ValueString()))
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
