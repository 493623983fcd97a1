package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var _ datasource.DataSourceWithConfigure = &MaintenanceScheduleDataSource{}

// defaultScheduleWindows is how many open windows the data source lists unless told.
const defaultScheduleWindows = 5

// MaintenanceScheduleDataSource is data.gkesim_maintenance_schedule: when a cluster's
// maintenance policy lets each kind of upgrade run.
type MaintenanceScheduleDataSource struct {
	data *providerData
}

func NewMaintenanceScheduleDataSource() datasource.DataSource {
	return &MaintenanceScheduleDataSource{}
}

type maintenanceScheduleModel struct {
	Cluster              types.String          `tfsdk:"cluster"`
	Project              types.String          `tfsdk:"project"`
	Location             types.String          `tfsdk:"location"`
	WindowCount          types.Int64           `tfsdk:"window_count"`
	Now                  types.String          `tfsdk:"now"`
	ResourceVersion      types.String          `tfsdk:"resource_version"`
	EndOfStandardSupport types.String          `tfsdk:"end_of_standard_support"`
	EndOfExtendedSupport types.String          `tfsdk:"end_of_extended_support"`
	Windows              []scheduleWindowModel `tfsdk:"windows"`
	Upgrades             []scheduleKindModel   `tfsdk:"upgrades"`
}

type scheduleWindowModel struct {
	StartTime types.String `tfsdk:"start_time"`
	EndTime   types.String `tfsdk:"end_time"`
}

type scheduleKindModel struct {
	Kind            types.String `tfsdk:"kind"`
	AllowedNow      types.Bool   `tfsdk:"allowed_now"`
	NextAllowedTime types.String `tfsdk:"next_allowed_time"`
	BlockedBy       types.List   `tfsdk:"blocked_by"`
	Reason          types.String `tfsdk:"reason"`
}

func (d *MaintenanceScheduleDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_maintenance_schedule"
}

func (d *MaintenanceScheduleDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "When a cluster's maintenance policy lets automatic maintenance run, at the emulator's current (emulated) time: " +
			"the next open windows, and for each kind of upgrade whether it may run now, which exclusions block it and when it next may. " +
			"Kinds are those maintenance exclusion scopes tell apart: `CONTROL_PLANE_MINOR`, `CONTROL_PLANE_PATCH`, `CONTROL_PLANE_VM_DISRUPTION`, " +
			"`NODE_MINOR`, `NODE_PATCH`, `NODE_VM_DISRUPTION`.",
		Attributes: map[string]schema.Attribute{
			"cluster":  schema.StringAttribute{Required: true, MarkdownDescription: "The cluster: its name or `projects/{project}/locations/{location}/clusters/{name}`."},
			"project":  schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project. Defaults to the cluster reference's, then the provider's."},
			"location": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "The cluster's location. Defaults to the cluster reference's, then the provider's."},
			"window_count": schema.Int64Attribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("How many open windows to list (1-100). Defaults to %d.", defaultScheduleWindows),
				Validators:          []validator.Int64{int64validator.Between(1, 100)}},
			"now":                     computedString("The emulated time the schedule was computed at (RFC 3339)."),
			"resource_version":        computedString("The policy's `resource_version`."),
			"end_of_standard_support": computedString("End of standard support of the control plane's minor version (RFC 3339)."),
			"end_of_extended_support": computedString("End of extended support of the control plane's minor version (RFC 3339)."),
			"windows": schema.ListNestedAttribute{
				Computed: true,
				MarkdownDescription: "The next open stretches, from now on: the maintenance window's time (any time, without a window) outside `NO_UPGRADES` exclusions. " +
					"The first may be open already (then it starts now).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"start_time": computedString("Start (RFC 3339)."),
					"end_time":   computedString("End (RFC 3339); empty when it does not end within two years."),
				}},
			},
			"upgrades": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "One entry per kind of upgrade, control plane first.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"kind":              computedString("`CONTROL_PLANE_MINOR`, `CONTROL_PLANE_PATCH`, `CONTROL_PLANE_VM_DISRUPTION`, `NODE_MINOR`, `NODE_PATCH` or `NODE_VM_DISRUPTION`."),
					"allowed_now":       schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether it may run now: the window is open and no active exclusion blocks it."},
					"next_allowed_time": computedString("The first time, from now on, it may run (RFC 3339); empty if not within two years."),
					"blocked_by": schema.ListAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Names of the active exclusions that block it now."},
					"reason": computedString("Why it may not run now; empty when it may."),
				}},
			},
		},
	}
}

func (d *MaintenanceScheduleDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (d *MaintenanceScheduleDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m maintenanceScheduleModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	project, location, cluster := d.data.clusterNames(m.Cluster, m.Project, m.Location, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	m.Project, m.Location = types.StringValue(project), types.StringValue(location)
	n := int64(defaultScheduleWindows)
	if !m.WindowCount.IsNull() {
		n = m.WindowCount.ValueInt64()
	}
	s, err := d.data.client.MaintenanceSchedule(ctx, project, location, cluster, int(n))
	if err != nil {
		resp.Diagnostics.AddError("Error reading maintenance schedule", fmt.Sprintf("Reading the maintenance schedule of %s: %s",
			client.ClusterName(project, location, cluster), err))
		return
	}
	m.Now, m.ResourceVersion = types.StringValue(s.Now), types.StringValue(s.ResourceVersion)
	m.EndOfStandardSupport, m.EndOfExtendedSupport = types.StringValue(s.EndOfStandardSupport), types.StringValue(s.EndOfExtendedSupport)
	m.Windows = []scheduleWindowModel{}
	for _, w := range s.Windows {
		m.Windows = append(m.Windows, scheduleWindowModel{StartTime: types.StringValue(w.StartTime), EndTime: types.StringValue(w.EndTime)})
	}
	m.Upgrades = []scheduleKindModel{}
	for _, u := range s.Upgrades {
		blocked, diags := types.ListValueFrom(ctx, types.StringType, append([]string{}, u.BlockedBy...))
		resp.Diagnostics.Append(diags...)
		m.Upgrades = append(m.Upgrades, scheduleKindModel{Kind: types.StringValue(u.Kind), AllowedNow: types.BoolValue(u.AllowedNow),
			NextAllowedTime: types.StringValue(u.NextAllowedTime), BlockedBy: blocked, Reason: types.StringValue(u.Reason)})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
