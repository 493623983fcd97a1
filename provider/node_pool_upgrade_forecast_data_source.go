package provider

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var _ datasource.DataSourceWithConfigure = &NodePoolUpgradeForecastDataSource{}

// NodePoolUpgradeForecastDataSource is data.gkesim_node_pool_upgrade_forecast: what a change of
// a node pool would do if it were asked for now, from the emulator's forecast (a copy of its
// simulation runs the change; nothing changes).
type NodePoolUpgradeForecastDataSource struct {
	data *providerData
}

// NewNodePoolUpgradeForecastDataSource is the data source's constructor for the provider.
func NewNodePoolUpgradeForecastDataSource() datasource.DataSource {
	return &NodePoolUpgradeForecastDataSource{}
}

type forecastModel struct {
	ID              types.String           `tfsdk:"id"`
	Cluster         types.String           `tfsdk:"cluster"`
	NodePool        types.String           `tfsdk:"node_pool"`
	Project         types.String           `tfsdk:"project"`
	Location        types.String           `tfsdk:"location"`
	Version         types.String           `tfsdk:"version"`
	MachineType     types.String           `tfsdk:"machine_type"`
	ImageType       types.String           `tfsdk:"image_type"`
	DiskType        types.String           `tfsdk:"disk_type"`
	DiskSizeGb      types.Int64            `tfsdk:"disk_size_gb"`
	Automatic       types.Bool             `tfsdk:"automatic"`
	NodeCount       types.Int64            `tfsdk:"node_count"`
	UpgradeSettings []upgradeSettingsModel `tfsdk:"upgrade_settings"`

	RecreatesNodes       types.Bool          `tfsdk:"recreates_nodes"`
	Reasons              types.List          `tfsdk:"reasons"`
	Strategy             types.String        `tfsdk:"strategy"`
	StartsAt             types.String        `tfsdk:"starts_at"`
	WaitsForWindow       types.Bool          `tfsdk:"waits_for_window"`
	WaitSeconds          types.Int64         `tfsdk:"wait_seconds"`
	DurationSeconds      types.Int64         `tfsdk:"duration_seconds"`
	Finished             types.Bool          `tfsdk:"finished"`
	Nodes                types.Int64         `tfsdk:"nodes"`
	Zones                []forecastZoneModel `tfsdk:"zones"`
	Phases               []forecastSpanModel `tfsdk:"phases"`
	DrainsHeld           types.Int64         `tfsdk:"drains_held"`
	LongestHoldSeconds   types.Int64         `tfsdk:"longest_hold_seconds"`
	PDBHolds             []forecastPDBModel  `tfsdk:"pdb_holds"`
	PodsForced           types.Int64         `tfsdk:"pods_forced"`
	PodsForcedNames      types.List          `tfsdk:"pods_forced_names"`
	PodsForcedAtTimeout  types.Int64         `tfsdk:"pods_forced_at_timeout"`
	PodsWaited           types.Int64         `tfsdk:"pods_waited"`
	PeakPending          types.Int64         `tfsdk:"peak_pending"`
	PodsLeftPending      types.Int64         `tfsdk:"pods_left_pending"`
	PodsLeftPendingNames types.List          `tfsdk:"pods_left_pending_names"`
	VMsBefore            types.Int64         `tfsdk:"vms_before"`
	PeakVMs              types.Int64         `tfsdk:"peak_vms"`
	PeakExtraVMs         types.Int64         `tfsdk:"peak_extra_vms"`
	VMHours              types.Float64       `tfsdk:"vm_hours"`
	LBBackendChanges     types.Int64         `tfsdk:"lb_backend_changes"`
	Headline             types.String        `tfsdk:"headline"`
}

type forecastZoneModel struct {
	Zone            types.String `tfsdk:"zone"`
	Nodes           types.Int64  `tfsdk:"nodes"`
	DurationSeconds types.Int64  `tfsdk:"duration_seconds"`
}

type forecastSpanModel struct {
	Phase           types.String `tfsdk:"phase"`
	DurationSeconds types.Int64  `tfsdk:"duration_seconds"`
}

type forecastPDBModel struct {
	PDB             types.String `tfsdk:"pdb"`
	Drains          types.Int64  `tfsdk:"drains"`
	LongestSeconds  types.Int64  `tfsdk:"longest_seconds"`
	ForcedAtTimeout types.Int64  `tfsdk:"forced_at_timeout"`
}

func (d *NodePoolUpgradeForecastDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_pool_upgrade_forecast"
}

func (d *NodePoolUpgradeForecastDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	count := func(desc string) dschema.Int64Attribute {
		return dschema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	names := func(desc string) dschema.ListAttribute {
		return dschema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: desc}
	}
	optional := func(desc string) dschema.StringAttribute {
		return dschema.StringAttribute{Optional: true, MarkdownDescription: desc, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
	}
	us := dataSourceBlock(upgradeSettingsBlock())
	us.MarkdownDescription = "The planned upgrade settings, as in `gkesim_node_pool`'s `upgrade_settings`: attributes left out keep the pool's current values."
	resp.Schema = dschema.Schema{
		MarkdownDescription: "What a change of a node pool would do if it were asked for now: how long it takes, which drains PodDisruptionBudgets hold, which pods are forced out or left Pending, how many extra VMs it needs. " +
			"The emulator runs the change on a copy of its simulation (nothing changes in the emulator) and reports what happened in the copy. " +
			"See the [forecast guide](../guides/forecast-node-pool-changes.md). Give the change as `gkesim_node_pool` would send it: `version`, the `node_config` attributes that recreate nodes, `upgrade_settings`; or `automatic` for GKE's auto-upgrade.",
		Attributes: map[string]dschema.Attribute{
			"cluster":      dschema.StringAttribute{Required: true, MarkdownDescription: "The cluster: its name or `projects/{project}/locations/{location}/clusters/{name}`."},
			"node_pool":    dschema.StringAttribute{Required: true, MarkdownDescription: "Node pool name."},
			"project":      dschema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project. Defaults to the cluster reference's, then the provider's."},
			"location":     dschema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "The cluster's location. Defaults to the cluster reference's, then the provider's."},
			"id":           computedString("`projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{node_pool}`."),
			"version":      optional("The nodes' new GKE version; `\"-\"` for the control plane's. With `automatic`, the version auto-upgrade moves to (the control plane's when left out)."),
			"machine_type": optional("The nodes' new machine type."),
			"image_type":   optional("The nodes' new image type (`COS_CONTAINERD`, `UBUNTU_CONTAINERD`)."),
			"disk_type":    optional("The nodes' new boot disk type (`pd-standard`, `pd-balanced`, `pd-ssd`)."),
			"disk_size_gb": dschema.Int64Attribute{Optional: true, MarkdownDescription: "The nodes' new boot disk size in GB (at least 10).",
				Validators: []validator.Int64{int64validator.AtLeast(10)}},
			"automatic": dschema.BoolAttribute{Optional: true, MarkdownDescription: "Forecast GKE's node auto-upgrade to `version` instead: it waits for the maintenance window and pauses when the window closes. It changes the version only."},
			"node_count": dschema.Int64Attribute{Optional: true, MarkdownDescription: "Forecast a resize of the pool to this many nodes per zone instead, alone (no other change): no node is recreated; the forecast shows the nodes added or drained, the budgets that held the drains, and the pods that waited.",
				Validators: []validator.Int64{int64validator.Between(0, 1000)}},

			"recreates_nodes":  dschema.BoolAttribute{Computed: true, MarkdownDescription: "The change replaces the pool's nodes."},
			"reasons":          names("Why the nodes are (or are not) recreated: what of their settings changes, e.g. `version 1.33.4-gke.1 -> 1.33.5-gke.1`."),
			"strategy":         computedString("How the nodes are replaced (surge with its settings, blue-green with its phases)."),
			"starts_at":        computedString("When the first node is touched (RFC 3339, emulated time): now, or later when the change waits for a maintenance window."),
			"waits_for_window": dschema.BoolAttribute{Computed: true, MarkdownDescription: "The change starts after it was asked for: it waits for the maintenance window (`automatic`)."},
			"wait_seconds":     count("Seconds from now to `starts_at`."),
			"duration_seconds": count("Seconds from `starts_at` to the end of the change (to the end of the forecast when it did not finish)."),
			"finished":         dschema.BoolAttribute{Computed: true, MarkdownDescription: "The change finished within the forecast's limit."},
			"nodes":            count("Nodes the change replaces."),
			"zones": dschema.ListNestedAttribute{Computed: true, MarkdownDescription: "Surge: each zone, in the order they go (one at a time).",
				NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
					"zone":             computedString("Zone."),
					"nodes":            count("Nodes replaced in the zone."),
					"duration_seconds": count("Seconds the zone took."),
				}}},
			"phases": dschema.ListNestedAttribute{Computed: true, MarkdownDescription: "Blue-green: each phase.",
				NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
					"phase":            computedString("Phase (`CREATING_GREEN_POOL`, `DRAINING_BLUE_POOL`, `NODE_POOL_SOAKING`, ...)."),
					"duration_seconds": count("Seconds the phase took."),
				}}},
			"drains_held":          count("Drains a PodDisruptionBudget held (a refused eviction)."),
			"longest_hold_seconds": count("The longest hold of a drain by a PodDisruptionBudget, in seconds."),
			"pdb_holds": dschema.ListNestedAttribute{Computed: true, MarkdownDescription: "Per PodDisruptionBudget that held drains, the longest-holding first.",
				NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
					"pdb":               computedString("The budget, `namespace/name`."),
					"drains":            count("Drains it held."),
					"longest_seconds":   count("Its longest hold, in seconds."),
					"forced_at_timeout": count("Its pods deleted when the drain's 1-hour PDB timeout passed."),
				}}},
			"pods_forced":             count("Pods that did not leave by eviction: deleted at the 1-hour PDB timeout, killed at a drain's deadline, deleted with a blue pool."),
			"pods_forced_names":       names("Those pods, `namespace/name` (`default/` left out)."),
			"pods_forced_at_timeout":  count("Pods deleted at the 1-hour PDB timeout."),
			"pods_waited":             count("Pods that waited for a node (Pending) during the change."),
			"peak_pending":            count("The most pods Pending at once."),
			"pods_left_pending":       count("Pods still Pending when the change ended."),
			"pods_left_pending_names": names("Those pods."),
			"vms_before":              count("The pool's VMs before the change."),
			"peak_vms":                count("The most VMs the pool had at once (in any state) during the change."),
			"peak_extra_vms":          count("`peak_vms` - `vms_before`: the extra VMs the change needs (quota)."),
			"vm_hours":                dschema.Float64Attribute{Computed: true, MarkdownDescription: "The pool's VM-hours over the change."},
			"lb_backend_changes":      count("Backends added to and removed from load balancers during the change."),
			"headline":                computedString("The forecast in one paragraph, as `gkesim_node_pool`'s plan warning gives it."),
		},
		Blocks: map[string]dschema.Block{"upgrade_settings": us},
	}
}

// dataSourceBlock turns a resource schema's list block into a data source's with the same
// attributes and validators, all optional (a data source's inputs): the resource's schema
// stays the one description.
func dataSourceBlock(b schema.ListNestedBlock) dschema.ListNestedBlock {
	out := dschema.ListNestedBlock{
		MarkdownDescription: b.MarkdownDescription, Validators: b.Validators,
		NestedObject: dschema.NestedBlockObject{Attributes: map[string]dschema.Attribute{}, Blocks: map[string]dschema.Block{}},
	}
	for name, a := range b.NestedObject.Attributes {
		switch a := a.(type) {
		case schema.StringAttribute:
			out.NestedObject.Attributes[name] = dschema.StringAttribute{Optional: true, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
		case schema.Int64Attribute:
			out.NestedObject.Attributes[name] = dschema.Int64Attribute{Optional: true, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
		case schema.Float64Attribute:
			out.NestedObject.Attributes[name] = dschema.Float64Attribute{Optional: true, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
		default:
			panic(fmt.Sprintf("dataSourceBlock: attribute %s is a %T", name, a))
		}
	}
	for name, nb := range b.NestedObject.Blocks {
		out.NestedObject.Blocks[name] = dataSourceBlock(nb.(schema.ListNestedBlock))
	}
	return out
}

func (d *NodePoolUpgradeForecastDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (d *NodePoolUpgradeForecastDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m forecastModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	project, location, cluster := d.data.clusterNames(m.Cluster, m.Project, m.Location, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, forecastTimeout)
	defer cancel()
	c := d.data.client
	pool := m.NodePool.ValueString()
	name := client.NodePoolName(project, location, cluster, pool)
	m.ID, m.Project, m.Location = types.StringValue(name), types.StringValue(project), types.StringValue(location)
	freq := client.ForecastRequest{Automatic: m.Automatic.ValueBool()}
	if !m.NodeCount.IsNull() {
		for name, v := range map[string]attr.Value{"version": m.Version, "machine_type": m.MachineType, "image_type": m.ImageType,
			"disk_type": m.DiskType, "disk_size_gb": m.DiskSizeGb, "automatic": m.Automatic} {
			if !v.IsNull() {
				resp.Diagnostics.AddAttributeError(path.Root("node_count"), "Invalid forecast",
					fmt.Sprintf("node_count forecasts a resize alone: leave %s out, or forecast it in a data source of its own.", name))
				return
			}
		}
		if len(m.UpgradeSettings) > 0 {
			resp.Diagnostics.AddAttributeError(path.Root("node_count"), "Invalid forecast", "node_count forecasts a resize alone: leave upgrade_settings out.")
			return
		}
		n := int32(m.NodeCount.ValueInt64())
		freq.NodeCount = &n
		f, err := c.ForecastNodePool(ctx, project, location, cluster, pool, freq)
		if err != nil {
			msg := client.Message(err)
			resp.Diagnostics.AddAttributeError(forecastErrorPath(err, msg), "Error forecasting the node pool change",
				fmt.Sprintf("Forecasting the resize of %s: %s", name, msg))
			return
		}
		m.fill(ctx, f, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
		return
	}
	u := &container.UpdateNodePoolRequest{
		NodeVersion: m.Version.ValueString(), MachineType: m.MachineType.ValueString(), ImageType: strings.ToUpper(m.ImageType.ValueString()),
		DiskType: m.DiskType.ValueString(), DiskSizeGb: m.DiskSizeGb.ValueInt64(),
	}
	if err := withUpgradeSettings(ctx, c, name, u, m.UpgradeSettings); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("node_pool"), "Error reading node pool", err.Error())
		return
	}
	freq.Update = u
	f, err := c.ForecastNodePool(ctx, project, location, cluster, pool, freq)
	if err != nil {
		msg := client.Message(err)
		resp.Diagnostics.AddAttributeError(forecastErrorPath(err, msg), "Error forecasting the node pool change",
			fmt.Sprintf("Forecasting the change of %s: %s", name, msg))
		return
	}
	m.fill(ctx, f, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// forecastErrorPath is the input an error of the emulator is about, from its message.
func forecastErrorPath(err error, msg string) path.Path {
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code == http.StatusNotFound {
		return path.Root("cluster")
	}
	lower := strings.ToLower(msg)
	for _, k := range []struct{ words, attr string }{
		{"node pool|nodepool", "node_pool"},
		{"machine type|machinetype", "machine_type"},
		{"image", "image_type"},
		{"disk type|disktype", "disk_type"},
		{"disk size|disksizegb", "disk_size_gb"},
		{"upgradesettings|surge|unavailable|blue|rollout|soak|strategy", "upgrade_settings"},
		{"version", "version"},
	} {
		for _, w := range strings.Split(k.words, "|") {
			if strings.Contains(lower, w) {
				return path.Root(k.attr)
			}
		}
	}
	return path.Root("cluster")
}

// fill sets the outputs from the forecast.
func (m *forecastModel) fill(ctx context.Context, f *client.Forecast, diags *diag.Diagnostics) {
	secs := func(s float64) types.Int64 { return types.Int64Value(int64(math.Round(s))) }
	pods := func(ps []client.ForecastPod) types.List {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			out = append(out, p.Pod)
		}
		return stringList(ctx, out, diags)
	}
	m.RecreatesNodes = types.BoolValue(f.RecreatesNodes)
	m.Reasons = stringList(ctx, append(make([]string, 0, len(f.Reasons)), f.Reasons...), diags)
	m.Strategy = types.StringValue(f.Strategy)
	m.StartsAt = types.StringNull()
	if !f.Started.IsZero() {
		m.StartsAt = types.StringValue(f.Started.Format(time.RFC3339))
	}
	m.WaitsForWindow, m.WaitSeconds = types.BoolValue(f.Wait() > 0), secs(f.Wait().Seconds())
	m.DurationSeconds, m.Finished, m.Nodes = secs(f.DurationSeconds), types.BoolValue(f.Finished), types.Int64Value(int64(f.Nodes))
	m.Zones, m.Phases, m.PDBHolds = []forecastZoneModel{}, []forecastSpanModel{}, []forecastPDBModel{}
	for _, z := range f.Zones {
		m.Zones = append(m.Zones, forecastZoneModel{Zone: types.StringValue(z.Zone), Nodes: types.Int64Value(int64(z.Nodes)), DurationSeconds: secs(z.DurationSeconds)})
	}
	for _, p := range f.Phases {
		m.Phases = append(m.Phases, forecastSpanModel{Phase: types.StringValue(p.Phase), DurationSeconds: secs(p.DurationSeconds)})
	}
	for _, p := range f.PDBs {
		m.PDBHolds = append(m.PDBHolds, forecastPDBModel{PDB: types.StringValue(p.PDB), Drains: types.Int64Value(int64(p.Drains)),
			LongestSeconds: secs(p.LongestSeconds), ForcedAtTimeout: types.Int64Value(int64(p.ForcedAtTimeout))})
	}
	_, longest := f.LongestHold()
	m.DrainsHeld, m.LongestHoldSeconds = types.Int64Value(int64(f.HeldDrains())), secs(longest)
	m.PodsForced, m.PodsForcedNames = types.Int64Value(int64(len(f.Forced))), pods(f.Forced)
	m.PodsForcedAtTimeout = types.Int64Value(int64(f.ForcedAtTimeout()))
	m.PodsWaited, m.PeakPending = types.Int64Value(int64(len(f.Pending))), types.Int64Value(int64(f.PeakPending))
	m.PodsLeftPending, m.PodsLeftPendingNames = types.Int64Value(int64(len(f.LeftPending))), pods(f.LeftPending)
	m.VMsBefore, m.PeakVMs, m.PeakExtraVMs = types.Int64Value(int64(f.VMs.Before)), types.Int64Value(int64(f.VMs.Peak)), types.Int64Value(int64(f.VMs.PeakExtra))
	m.VMHours = types.Float64Value(f.VMs.VMHours)
	m.LBBackendChanges = types.Int64Value(int64(f.LBBackendChanges()))
	m.Headline = types.StringValue(forecastHeadline(f))
}
