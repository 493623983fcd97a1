package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var _ datasource.DataSourceWithConfigure = &ClusterDataSource{}

// ClusterDataSource is data.gkesim_cluster.
type ClusterDataSource struct {
	data *providerData
}

func NewClusterDataSource() datasource.DataSource { return &ClusterDataSource{} }

type clusterDataModel struct {
	clusterAttrs
	NodePoolNames types.List `tfsdk:"node_pool_names"`
}

func (d *ClusterDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster"
}

func computedString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
}

func (d *ClusterDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads a GKE cluster.",
		Attributes: map[string]schema.Attribute{
			"name":        schema.StringAttribute{Required: true, MarkdownDescription: "Cluster name.", Validators: []validator.String{gkeNameValidator()}},
			"project":     schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project. Defaults to the provider's project."},
			"location":    schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Region or zone. Defaults to the provider's location."},
			"id":          computedString("`projects/{project}/locations/{location}/clusters/{name}`."),
			"description": computedString("Description."),
			"node_locations": schema.SetAttribute{
				ElementType: types.StringType, Computed: true, MarkdownDescription: "Zones of the cluster's nodes.",
			},
			"initial_node_count":       schema.Int64Attribute{Computed: true, MarkdownDescription: "Nodes per zone of the default pool at creation."},
			"master_version":           computedString("Current control-plane version."),
			"enable_l4_ilb_subsetting": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether GKE subsetting for L4 internal load balancers is on."},
			"resource_labels":          schema.MapAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "GCE resource labels."},
			"endpoint":                 computedString("Address of the cluster's Kubernetes-shaped API."),
			"status":                   computedString("Cluster status."),
			"self_link":                computedString("API URL of the cluster."),
			"cluster_ipv4_cidr":        computedString("Pod address range."),
			"services_ipv4_cidr":       computedString("Service address range."),
			"release_channel": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Release channel (one element).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"channel": computedString("`UNSPECIFIED`, `RAPID`, `REGULAR`, `STABLE` or `EXTENDED`."),
				}},
			},
			"cluster_autoscaling": schema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Cluster autoscaler settings (one element).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"autoscaling_profile": computedString("`BALANCED` or `OPTIMIZE_UTILIZATION`."),
				}},
			},
			"node_pool_names": schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Names of the cluster's node pools."},
		},
	}
}

func (d *ClusterDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (d *ClusterDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m clusterDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	project, location := d.data.projectAndLocation(m.Project, m.Location, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	name := client.ClusterName(project, location, m.Name.ValueString())
	cl, err := d.data.client.GKE.Projects.Locations.Clusters.Get(name).Context(ctx).Do()
	if err != nil {
		resp.Diagnostics.AddError("Error reading cluster", fmt.Sprintf("Reading %s: %s", name, client.Message(err)))
		return
	}
	m.ID, m.Project = types.StringValue(name), types.StringValue(project)
	m.ResourceLabels = types.MapNull(types.StringType)
	flattenCluster(ctx, cl, &m.clusterAttrs, blocksAlways, &resp.Diagnostics)
	m.InitialNodeCount = types.Int64Value(cl.InitialNodeCount)
	pools := []string{}
	for _, p := range cl.NodePools {
		pools = append(pools, p.Name)
	}
	names, diags := types.ListValueFrom(ctx, types.StringType, pools)
	resp.Diagnostics.Append(diags...)
	m.NodePoolNames = names
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
