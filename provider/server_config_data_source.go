package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var _ datasource.DataSourceWithConfigure = &ServerConfigDataSource{}

// ServerConfigDataSource is data.gkesim_server_config: the GKE versions available now (at the
// emulator's current emulated time), per release channel.
type ServerConfigDataSource struct {
	data *providerData
}

func NewServerConfigDataSource() datasource.DataSource { return &ServerConfigDataSource{} }

type serverConfigModel struct {
	Project                            types.String `tfsdk:"project"`
	Location                           types.String `tfsdk:"location"`
	VersionPrefix                      types.String `tfsdk:"version_prefix"`
	ID                                 types.String `tfsdk:"id"`
	DefaultClusterVersion              types.String `tfsdk:"default_cluster_version"`
	LatestMasterVersion                types.String `tfsdk:"latest_master_version"`
	LatestNodeVersion                  types.String `tfsdk:"latest_node_version"`
	ValidMasterVersions                types.List   `tfsdk:"valid_master_versions"`
	ValidNodeVersions                  types.List   `tfsdk:"valid_node_versions"`
	DefaultImageType                   types.String `tfsdk:"default_image_type"`
	ValidImageTypes                    types.List   `tfsdk:"valid_image_types"`
	ReleaseChannelDefaultVersion       types.Map    `tfsdk:"release_channel_default_version"`
	ReleaseChannelLatestVersion        types.Map    `tfsdk:"release_channel_latest_version"`
	ReleaseChannelUpgradeTargetVersion types.Map    `tfsdk:"release_channel_upgrade_target_version"`
	ReleaseChannelValidVersions        types.Map    `tfsdk:"release_channel_valid_versions"`
	MinorVersions                      types.List   `tfsdk:"minor_versions"`
}

// minorSupportAttrs are the attributes of one minor_versions element.
var minorSupportAttrs = map[string]attr.Type{
	"minor":                   types.StringType,
	"end_of_standard_support": types.StringType,
	"end_of_extended_support": types.StringType,
}

func (d *ServerConfigDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_server_config"
}

func (d *ServerConfigDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	list := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: desc}
	}
	strMap := func(desc string) schema.MapAttribute {
		return schema.MapAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "GKE versions available now (at the emulator's emulated time), overall and per release channel: GKE's `serverConfig`. " +
			"The emulator's version table follows a deterministic schedule, so new patch and minor versions appear as emulated time passes. " +
			"Attribute names follow terraform-provider-google's `google_container_engine_versions`.",
		Attributes: map[string]schema.Attribute{
			"project":                                schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project. Defaults to the provider's project."},
			"location":                               schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Region or zone. Defaults to the provider's location."},
			"version_prefix":                         schema.StringAttribute{Optional: true, MarkdownDescription: "Only versions starting with this prefix (e.g. `1.36.`) in the valid and latest version lists."},
			"id":                                     computedString("`projects/{project}/locations/{location}`."),
			"default_cluster_version":                computedString("Version a cluster gets when it names none (the REGULAR channel's default)."),
			"latest_master_version":                  computedString("Newest control-plane version (matching `version_prefix`)."),
			"latest_node_version":                    computedString("Newest node version (matching `version_prefix`)."),
			"valid_master_versions":                  list("Control-plane versions for clusters without a release channel, newest first."),
			"valid_node_versions":                    list("Versions node pools may run, newest first."),
			"default_image_type":                     computedString("Default node image."),
			"valid_image_types":                      list("Node images."),
			"release_channel_default_version":        strMap("Default version per release channel."),
			"release_channel_latest_version":         strMap("Newest version per release channel (matching `version_prefix`)."),
			"release_channel_upgrade_target_version": strMap("Version auto-upgrades move to, per release channel."),
			"release_channel_valid_versions":         strMap("Valid versions per release channel, comma-separated, newest first."),
			"minor_versions": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "Every minor version some release channel offers now, newest first, with its end of standard and of extended support " +
					"(RFC 3339). GKE's serverConfig has no dates; the emulator's version table does (`/emulator/v1/versions`). " +
					"Maintenance exclusions scoped `UNTIL_END_OF_SUPPORT` end at the first; a minor past it is upgraded whatever the maintenance policy ([R-MW-4](../guides/maintenance.md#r-mw-4)).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"minor":                   computedString("`1.XX`."),
					"end_of_standard_support": computedString("End of standard support."),
					"end_of_extended_support": computedString("End of extended support (the Extended channel)."),
				}},
			},
		},
	}
}

func (d *ServerConfigDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func filterPrefix(list []string, prefix string) []string {
	if prefix == "" {
		return list
	}
	out := []string{}
	for _, v := range list {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

func (d *ServerConfigDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m serverConfigModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	project, location := d.data.projectAndLocation(m.Project, m.Location, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	name := "projects/" + project + "/locations/" + location
	sc, err := d.data.client.GKE.Projects.Locations.GetServerConfig(name).Context(ctx).Do()
	if err != nil {
		resp.Diagnostics.AddError("Error reading server config", fmt.Sprintf("Reading the server config of %s: %s", name, client.Message(err)))
		return
	}
	prefix := m.VersionPrefix.ValueString()
	master, nodes := filterPrefix(sc.ValidMasterVersions, prefix), filterPrefix(sc.ValidNodeVersions, prefix)
	m.ID, m.Project, m.Location = types.StringValue(name), types.StringValue(project), types.StringValue(location)
	m.DefaultClusterVersion = types.StringValue(sc.DefaultClusterVersion)
	m.LatestMasterVersion, m.LatestNodeVersion = newestOrNull(master), newestOrNull(nodes)
	m.ValidMasterVersions = stringList(ctx, master, &resp.Diagnostics)
	m.ValidNodeVersions = stringList(ctx, nodes, &resp.Diagnostics)
	m.DefaultImageType = types.StringValue(sc.DefaultImageType)
	m.ValidImageTypes = stringList(ctx, sc.ValidImageTypes, &resp.Diagnostics)
	def, latest, target, valid := map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	for _, ch := range sc.Channels {
		def[ch.Channel] = ch.DefaultVersion
		target[ch.Channel] = ch.UpgradeTargetVersion
		vs := filterPrefix(ch.ValidVersions, prefix)
		valid[ch.Channel] = strings.Join(vs, ",")
		if len(vs) > 0 {
			latest[ch.Channel] = newestVersion(vs)
		}
	}
	m.ReleaseChannelDefaultVersion = stringMap(ctx, def, &resp.Diagnostics)
	m.ReleaseChannelLatestVersion = stringMap(ctx, latest, &resp.Diagnostics)
	m.ReleaseChannelUpgradeTargetVersion = stringMap(ctx, target, &resp.Diagnostics)
	m.ReleaseChannelValidVersions = stringMap(ctx, valid, &resp.Diagnostics)
	vs, err := d.data.client.VersionSchedule(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Error reading the version table", "Reading the emulator's version support dates: "+client.Message(err))
		return
	}
	m.MinorVersions = minorVersions(vs, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// minorVersions lists the minors of every channel once, newest first, with their support dates.
func minorVersions(vs *client.VersionSchedule, diags *diag.Diagnostics) types.List {
	seen := map[string]attr.Value{}
	var minors []string
	for _, ch := range vs.Channels {
		for _, mi := range ch.Minors {
			if _, ok := seen[mi.Minor]; ok {
				continue
			}
			obj, d := types.ObjectValue(minorSupportAttrs, map[string]attr.Value{
				"minor":                   types.StringValue(mi.Minor),
				"end_of_standard_support": types.StringValue(mi.EndOfStandardSupport),
				"end_of_extended_support": types.StringValue(mi.EndOfExtendedSupport),
			})
			diags.Append(d...)
			seen[mi.Minor] = obj
			minors = append(minors, mi.Minor)
		}
	}
	sort.Slice(minors, func(i, j int) bool { return compareVersionPrefix(minors[i], minors[j]) > 0 })
	elems := make([]attr.Value, len(minors))
	for i, mi := range minors {
		elems[i] = seen[mi]
	}
	l, d := types.ListValue(types.ObjectType{AttrTypes: minorSupportAttrs}, elems)
	diags.Append(d...)
	return l
}

func newestOrNull(list []string) types.String {
	if len(list) == 0 {
		return types.StringNull()
	}
	return types.StringValue(newestVersion(list))
}

func stringList(ctx context.Context, vals []string, diags *diag.Diagnostics) types.List {
	l, d := types.ListValueFrom(ctx, types.StringType, vals)
	diags.Append(d...)
	return l
}

func stringMap(ctx context.Context, vals map[string]string, diags *diag.Diagnostics) types.Map {
	m, d := types.MapValueFrom(ctx, types.StringType, vals)
	diags.Append(d...)
	return m
}
