package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var (
	_ resource.ResourceWithConfigure      = &MaintenancePolicyResource{}
	_ resource.ResourceWithImportState    = &MaintenancePolicyResource{}
	_ resource.ResourceWithModifyPlan     = &MaintenancePolicyResource{}
	_ resource.ResourceWithValidateConfig = &MaintenancePolicyResource{}
)

// Default timeouts: the cluster's (setMaintenancePolicy is a cluster update).
const (
	maintenancePolicyCreateTimeout = clusterUpdateTimeout
	maintenancePolicyUpdateTimeout = clusterUpdateTimeout
	maintenancePolicyDeleteTimeout = clusterUpdateTimeout
)

// Limits of GKE's maintenance policies that a configuration alone can break (R-EX-4); the rules
// that need the cluster (availability, release channel, end of support) are the emulator's.
const (
	maxMaintenanceExclusions = 20
	maxNoUpgradesExclusions  = 3
	maxNoUpgradesDays        = 30
	scopeNoUpgrades          = "NO_UPGRADES"
	untilEndOfSupport        = "UNTIL_END_OF_SUPPORT"
	// staleRetries bounds the re-reads when another writer changed the policy in between.
	staleRetries = 3
)

var exclusionScopes = []string{scopeNoUpgrades, "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"}

// MaintenancePolicyResource is gkesim_maintenance_policy: the maintenance policy of a cluster.
type MaintenancePolicyResource struct {
	data *providerData
}

func NewMaintenancePolicyResource() resource.Resource { return &MaintenancePolicyResource{} }

type maintenancePolicyModel struct {
	ID                     types.String           `tfsdk:"id"`
	Cluster                types.String           `tfsdk:"cluster"`
	Project                types.String           `tfsdk:"project"`
	Location               types.String           `tfsdk:"location"`
	ResourceVersion        types.String           `tfsdk:"resource_version"`
	DailyMaintenanceWindow []dailyWindowModel     `tfsdk:"daily_maintenance_window"`
	RecurringWindow        []recurringWindowModel `tfsdk:"recurring_window"`
	MaintenanceExclusion   []exclusionModel       `tfsdk:"maintenance_exclusion"`
	Timeouts               timeouts.Value         `tfsdk:"timeouts"`
}

type dailyWindowModel struct {
	StartTime types.String `tfsdk:"start_time"`
	Duration  types.String `tfsdk:"duration"`
}

type recurringWindowModel struct {
	StartTime  types.String `tfsdk:"start_time"`
	EndTime    types.String `tfsdk:"end_time"`
	Recurrence types.String `tfsdk:"recurrence"`
}

type exclusionModel struct {
	ExclusionName    types.String            `tfsdk:"exclusion_name"`
	StartTime        types.String            `tfsdk:"start_time"`
	EndTime          types.String            `tfsdk:"end_time"`
	ExclusionOptions []exclusionOptionsModel `tfsdk:"exclusion_options"`
}

type exclusionOptionsModel struct {
	Scope           types.String `tfsdk:"scope"`
	EndTimeBehavior types.String `tfsdk:"end_time_behavior"`
}

func (r *MaintenancePolicyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_maintenance_policy"
}

func (r *MaintenancePolicyResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := stringplanmodifier.UseStateForUnknown
	rfc3339 := []validator.String{rfc3339Validator{}}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The maintenance policy of a GKE cluster: one maintenance window (daily or recurring) and up to 20 maintenance exclusions. " +
			"Automatic upgrades of the control plane and of auto-upgrading node pools run only while the window is open and no exclusion blocks them. " +
			"Block and attribute names follow the `maintenance_policy` block of terraform-provider-google's `google_container_cluster`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "The cluster's id, `projects/{project}/locations/{location}/clusters/{cluster}`: a cluster has one maintenance policy.",
				PlanModifiers: []planmodifier.String{keep()},
			},
			"cluster": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The cluster: its name, or `projects/{project}/locations/{location}/clusters/{name}` (then project and location come from it).",
				PlanModifiers:       []planmodifier.String{sameCluster{}, stringplanmodifier.RequiresReplace()},
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
			"resource_version": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "GKE's hash of the policy (`maintenancePolicy.resourceVersion`). The provider reads it just before each write and sends it, " +
					"so a write never undoes a change made since it was read.",
			},
		},
		Blocks: map[string]schema.Block{
			"daily_maintenance_window": schema.ListNestedBlock{
				MarkdownDescription: "A 4-hour window starting at the same time every day. Exactly one of `daily_maintenance_window` and `recurring_window` is required.",
				Validators:          []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"start_time": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Start of the window, `HH:MM` in UTC (GKE also accepts `3:00` for `03:00`; both read back without a diff).",
						Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^([01]?[0-9]|2[0-3]):[0-5][0-9]$`),
							"must be in the format HH:MM (RFC3339), hours 00-23 and minutes 00-59, in UTC")},
					},
					"duration": schema.StringAttribute{
						Computed: true, MarkdownDescription: "Length of the window as GKE reports it (`PT4H0M0S`).",
						PlanModifiers: []planmodifier.String{knownStateForUnknown{}},
					},
				}},
			},
			"recurring_window": schema.ListNestedBlock{
				MarkdownDescription: "A window that recurs by an RFC 5545 RRULE, evaluated in UTC: `start_time` and `end_time` give its first occurrence (and so its length). " +
					"Exactly one of `daily_maintenance_window` and `recurring_window` is required.",
				Validators: []validator.List{listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"start_time": schema.StringAttribute{Required: true, Validators: rfc3339,
						MarkdownDescription: "Start of the first occurrence, RFC 3339 (GKE stores it in UTC; another offset reads back without a diff)."},
					"end_time": schema.StringAttribute{Required: true, Validators: rfc3339,
						MarkdownDescription: "End of the first occurrence, RFC 3339, after `start_time`."},
					"recurrence": schema.StringAttribute{Required: true, Validators: []validator.String{recurrenceValidator{}},
						MarkdownDescription: "RRULE such as `FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR` or `FREQ=DAILY`; `FREQ=HOURLY`, `MINUTELY` and `SECONDLY` are not supported. " +
							"`FREQ=DAILY` and `FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU` are the same rule and do not diff."},
				}},
			},
			"maintenance_exclusion": schema.SetNestedBlock{
				MarkdownDescription: "A one-off period in which the upgrades its scope names do not run. At most 20, at most 3 of them with scope `NO_UPGRADES`.",
				Validators:          []validator.Set{setvalidator.SizeAtMost(maxMaintenanceExclusions)},
				NestedObject: schema.NestedBlockObject{
					Attributes: map[string]schema.Attribute{
						"exclusion_name": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the exclusion, unique in the cluster.",
							Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
						"start_time": schema.StringAttribute{Required: true, Validators: rfc3339,
							MarkdownDescription: "Start, RFC 3339 (may be in the past)."},
						"end_time": schema.StringAttribute{Optional: true, Validators: rfc3339,
							MarkdownDescription: "End, RFC 3339, after `start_time`. Exactly one of `end_time` and `exclusion_options.end_time_behavior` is required. " +
								"`NO_UPGRADES` lasts at most 30 days; other scopes end at most 180 days after the exclusion is created and not after the end of support of the cluster's minor version."},
					},
					Blocks: map[string]schema.Block{
						"exclusion_options": schema.ListNestedBlock{
							MarkdownDescription: "What the exclusion blocks. Without it, the scope is `NO_UPGRADES`.",
							Validators:          []validator.List{listvalidator.SizeAtMost(1)},
							NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
								"scope": schema.StringAttribute{
									Required: true,
									MarkdownDescription: "`NO_UPGRADES` (everything), `NO_MINOR_UPGRADES` (minor upgrades; patches still run) or " +
										"`NO_MINOR_OR_NODE_UPGRADES` (minor upgrades and every node upgrade; control-plane patches still run). Scopes other than `NO_UPGRADES` need a release channel.",
									Validators: []validator.String{stringvalidator.OneOf(exclusionScopes...)},
								},
								"end_time_behavior": schema.StringAttribute{
									Optional: true,
									MarkdownDescription: "`UNTIL_END_OF_SUPPORT`: the exclusion lasts until the end of support of the cluster's minor version, " +
										"and moves with it on a minor upgrade. Not for `NO_UPGRADES`.",
									Validators: []validator.String{stringvalidator.OneOf(untilEndOfSupport)},
								},
							}},
						},
					},
				},
			},
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func (r *MaintenancePolicyResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (r *MaintenancePolicyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	fillClusterScope(ctx, r.data, req, resp)
	keepEquivalentPolicy(ctx, req, resp)
}

// ValidateConfig checks the rules a configuration breaks on its own, at plan time. A block
// list may be unknown here (a dynamic block whose for_each comes from a variable: Terraform
// validates before variables have values); its rules are checked once it is known.
func (r *MaintenancePolicyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var daily, recurring types.List
	var exclusions types.Set
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("daily_maintenance_window"), &daily)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("recurring_window"), &recurring)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("maintenance_exclusion"), &exclusions)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var m maintenancePolicyModel
	if !recurring.IsUnknown() {
		resp.Diagnostics.Append(recurring.ElementsAs(ctx, &m.RecurringWindow, false)...)
	}
	if !exclusions.IsUnknown() {
		resp.Diagnostics.Append(exclusions.ElementsAs(ctx, &m.MaintenanceExclusion, false)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if !daily.IsUnknown() && !recurring.IsUnknown() && len(daily.Elements())+len(recurring.Elements()) != 1 {
		resp.Diagnostics.AddError("Exactly one maintenance window is required",
			"Set exactly one of daily_maintenance_window and recurring_window: a cluster has one maintenance window (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-mw-2).")
	}
	for _, rw := range m.RecurringWindow {
		start, okS := knownTime(rw.StartTime)
		end, okE := knownTime(rw.EndTime)
		if okS && okE && !end.After(start) {
			resp.Diagnostics.AddAttributeError(path.Root("recurring_window").AtListIndex(0).AtName("end_time"), "Window ends before it starts",
				fmt.Sprintf("end_time %s must be after start_time %s.", rw.EndTime.ValueString(), rw.StartTime.ValueString()))
		}
	}
	noUpgrades, names := 0, map[string]bool{}
	for _, e := range m.MaintenanceExclusion {
		name := e.ExclusionName.ValueString()
		where := fmt.Sprintf("maintenance_exclusion %q", name)
		if !e.ExclusionName.IsUnknown() {
			if names[name] {
				resp.Diagnostics.AddError("Duplicate exclusion name", where+" appears twice: exclusion names are unique in a cluster.")
			}
			names[name] = true
		}
		scope, behavior := types.StringValue(scopeNoUpgrades), types.StringNull()
		if len(e.ExclusionOptions) > 0 {
			scope, behavior = e.ExclusionOptions[0].Scope, e.ExclusionOptions[0].EndTimeBehavior
		}
		if scope.IsUnknown() || behavior.IsUnknown() || e.EndTime.IsUnknown() {
			continue
		}
		hasEnd, until := !e.EndTime.IsNull(), behavior.ValueString() == untilEndOfSupport
		switch {
		case hasEnd == until:
			resp.Diagnostics.AddError("Exclusion needs exactly one end",
				where+": set exactly one of end_time and exclusion_options.end_time_behavior = \"UNTIL_END_OF_SUPPORT\".")
		case until && scope.ValueString() == scopeNoUpgrades:
			resp.Diagnostics.AddError("UNTIL_END_OF_SUPPORT needs a narrower scope",
				where+": end_time_behavior UNTIL_END_OF_SUPPORT needs scope NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES; a NO_UPGRADES exclusion lasts at most 30 days.")
		}
		if scope.ValueString() == scopeNoUpgrades {
			noUpgrades++
		}
		start, okS := knownTime(e.StartTime)
		end, okE := knownTime(e.EndTime)
		if !okS || !okE {
			continue
		}
		if !end.After(start) {
			resp.Diagnostics.AddError("Exclusion ends before it starts", fmt.Sprintf("%s: end_time %s must be after start_time %s.", where, e.EndTime.ValueString(), e.StartTime.ValueString()))
		} else if scope.ValueString() == scopeNoUpgrades && end.Sub(start) > maxNoUpgradesDays*24*time.Hour {
			resp.Diagnostics.AddError("NO_UPGRADES exclusion too long",
				fmt.Sprintf("%s lasts %s: an exclusion with scope NO_UPGRADES lasts at most %d days (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4). Split it, or use scope NO_MINOR_UPGRADES.", where, end.Sub(start), maxNoUpgradesDays))
		}
	}
	if noUpgrades > maxNoUpgradesExclusions {
		resp.Diagnostics.AddAttributeError(path.Root("maintenance_exclusion"), "Too many NO_UPGRADES exclusions",
			fmt.Sprintf("%d exclusions have scope NO_UPGRADES; a cluster has at most %d (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4).", noUpgrades, maxNoUpgradesExclusions))
	}
}

// knownTime parses a known RFC 3339 value.
func knownTime(v types.String) (time.Time, bool) {
	if v.IsNull() || v.IsUnknown() {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, v.ValueString())
	return t, err == nil
}

// names resolves the project, location and name of the policy's cluster.
func (r *MaintenancePolicyResource) names(m *maintenancePolicyModel, diags *diag.Diagnostics) (string, string, string) {
	if !m.ID.IsNull() && !m.ID.IsUnknown() && m.ID.ValueString() != "" {
		p, l, n := clusterRef(m.ID.ValueString())
		return p, l, n
	}
	return r.data.clusterNames(m.Cluster, m.Project, m.Location, diags)
}

func (r *MaintenancePolicyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan maintenancePolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, maintenancePolicyCreateTimeout)
	resp.Diagnostics.Append(d...)
	project, location, cluster := r.names(&plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name := client.ClusterName(project, location, cluster)
	if !r.write(ctx, name, project, location, expandWindow(&plan), &resp.Diagnostics) {
		return
	}
	plan.ID, plan.Project, plan.Location = types.StringValue(name), types.StringValue(project), types.StringValue(location)
	if !r.readInto(ctx, &plan, &resp.Diagnostics) && !resp.Diagnostics.HasError() {
		resp.Diagnostics.AddError("Error creating maintenance policy", "The policy of "+name+" was set but reads back empty.")
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// write sends a policy with the resourceVersion read just before (a nil window clears the
// policy). When another writer changed the policy in between, GKE refuses the stale version:
// read again and retry.
func (r *MaintenancePolicyResource) write(ctx context.Context, name, project, location string, window *container.MaintenanceWindow, diags *diag.Diagnostics) bool {
	c := r.data.client
	for attempt := 1; ; attempt++ {
		cl, err := c.GKE.Projects.Locations.Clusters.Get(name).Context(ctx).Do()
		if err != nil {
			diags.AddError("Error reading cluster", fmt.Sprintf("Reading the maintenance policy's resourceVersion of %s: %s", name, client.Message(err)))
			return false
		}
		rv := ""
		if cl.MaintenancePolicy != nil {
			rv = cl.MaintenancePolicy.ResourceVersion
		}
		mp := &container.MaintenancePolicy{ResourceVersion: rv, Window: window}
		op, err := c.GKE.Projects.Locations.Clusters.SetMaintenancePolicy(name, &container.SetMaintenancePolicyRequest{MaintenancePolicy: mp}).Context(ctx).Do()
		var ge *googleapi.Error
		if errors.As(err, &ge) && ge.Code == http.StatusConflict && attempt < staleRetries {
			continue
		}
		if err := c.Await(ctx, project, location, op, err); err != nil {
			diags.AddError("Error setting maintenance policy", fmt.Sprintf("Setting the maintenance policy of %s: %s", name, err))
			return false
		}
		return true
	}
}

// expandWindow builds the API's maintenance window from the model.
func expandWindow(m *maintenancePolicyModel) *container.MaintenanceWindow {
	w := &container.MaintenanceWindow{}
	for _, d := range m.DailyMaintenanceWindow {
		w.DailyMaintenanceWindow = &container.DailyMaintenanceWindow{StartTime: d.StartTime.ValueString()}
	}
	for _, rw := range m.RecurringWindow {
		w.RecurringWindow = &container.RecurringTimeWindow{Recurrence: rw.Recurrence.ValueString(),
			Window: &container.TimeWindow{StartTime: rw.StartTime.ValueString(), EndTime: rw.EndTime.ValueString()}}
	}
	for _, e := range m.MaintenanceExclusion {
		tw := container.TimeWindow{StartTime: e.StartTime.ValueString(), EndTime: e.EndTime.ValueString()}
		for _, o := range e.ExclusionOptions {
			// The scope is sent even when it is the default NO_UPGRADES, as terraform-provider-google does.
			tw.MaintenanceExclusionOptions = &container.MaintenanceExclusionOptions{Scope: o.Scope.ValueString(), EndTimeBehavior: o.EndTimeBehavior.ValueString()}
		}
		if w.MaintenanceExclusions == nil {
			w.MaintenanceExclusions = map[string]container.TimeWindow{}
		}
		w.MaintenanceExclusions[e.ExclusionName.ValueString()] = tw
	}
	return w
}

// readInto refreshes m from the cluster; it reports whether the cluster has a policy.
func (r *MaintenancePolicyResource) readInto(ctx context.Context, m *maintenancePolicyModel, diags *diag.Diagnostics) bool {
	cl, err := r.data.client.GKE.Projects.Locations.Clusters.Get(m.ID.ValueString()).Context(ctx).Do()
	if client.IsNotFound(err) {
		return false
	}
	if err != nil {
		diags.AddError("Error reading maintenance policy", fmt.Sprintf("Reading %s: %s", m.ID.ValueString(), client.Message(err)))
		return true
	}
	_, _, name := clusterRef(m.ID.ValueString())
	if m.Cluster.IsNull() || m.Cluster.IsUnknown() {
		m.Cluster = types.StringValue(name)
	}
	return flattenMaintenancePolicy(cl.MaintenancePolicy, m)
}

// flattenMaintenancePolicy copies the API's policy into m, keeping m's spelling of values GKE
// normalises (times in another offset, "3:00", the seven-day BYDAY form of FREQ=DAILY) and
// reading an empty scope as NO_UPGRADES, so that plans stay empty. It reports whether the
// cluster has a policy (a window or exclusions).
func flattenMaintenancePolicy(mp *container.MaintenancePolicy, m *maintenancePolicyModel) bool {
	if mp == nil || mp.Window == nil {
		return false
	}
	m.ResourceVersion = types.StringValue(mp.ResourceVersion)
	w := mp.Window
	var daily []dailyWindowModel
	if d := w.DailyMaintenanceWindow; d != nil {
		start := types.StringValue(d.StartTime)
		if len(m.DailyMaintenanceWindow) > 0 && sameDailyStart(m.DailyMaintenanceWindow[0].StartTime.ValueString(), d.StartTime) {
			start = m.DailyMaintenanceWindow[0].StartTime
		}
		daily = []dailyWindowModel{{StartTime: start, Duration: types.StringValue(d.Duration)}}
	}
	m.DailyMaintenanceWindow = daily
	var recurring []recurringWindowModel
	if rw := w.RecurringWindow; rw != nil && rw.Window != nil {
		got := recurringWindowModel{StartTime: types.StringValue(rw.Window.StartTime), EndTime: types.StringValue(rw.Window.EndTime),
			Recurrence: types.StringValue(rw.Recurrence)}
		if len(m.RecurringWindow) > 0 {
			prior := m.RecurringWindow[0]
			got.StartTime = sameInstant(prior.StartTime, got.StartTime)
			got.EndTime = sameInstant(prior.EndTime, got.EndTime)
			if sameRecurrence(prior.Recurrence.ValueString(), rw.Recurrence) {
				got.Recurrence = prior.Recurrence
			}
		}
		recurring = []recurringWindowModel{got}
	}
	m.RecurringWindow = recurring
	prior := map[string]exclusionModel{}
	for _, e := range m.MaintenanceExclusion {
		prior[e.ExclusionName.ValueString()] = e
	}
	names := make([]string, 0, len(w.MaintenanceExclusions))
	for n := range w.MaintenanceExclusions {
		names = append(names, n)
	}
	sort.Strings(names)
	var exclusions []exclusionModel
	for _, n := range names {
		exclusions = append(exclusions, flattenExclusion(n, w.MaintenanceExclusions[n], prior[n]))
	}
	m.MaintenanceExclusion = exclusions
	return len(daily)+len(recurring)+len(exclusions) > 0
}

// flattenExclusion reads one exclusion; prior is the configured (or stored) one of that name.
func flattenExclusion(name string, tw container.TimeWindow, prior exclusionModel) exclusionModel {
	e := exclusionModel{ExclusionName: types.StringValue(name), StartTime: sameInstant(prior.StartTime, types.StringValue(tw.StartTime)),
		EndTime: types.StringNull()}
	var opts *exclusionOptionsModel
	if o := tw.MaintenanceExclusionOptions; o != nil {
		// GKE omits the default scope: an empty scope is NO_UPGRADES (as terraform-provider-google reads it).
		scope := o.Scope
		if scope == "" {
			scope = scopeNoUpgrades
		}
		opts = &exclusionOptionsModel{Scope: types.StringValue(scope), EndTimeBehavior: types.StringNull()}
		if o.EndTimeBehavior != "" && o.EndTimeBehavior != "END_TIME_BEHAVIOR_UNSPECIFIED" {
			opts.EndTimeBehavior = types.StringValue(o.EndTimeBehavior)
		}
	} else if len(prior.ExclusionOptions) > 0 && prior.ExclusionOptions[0].Scope.ValueString() == scopeNoUpgrades {
		// A NO_UPGRADES exclusion may come back without options at all.
		opts = &exclusionOptionsModel{Scope: types.StringValue(scopeNoUpgrades), EndTimeBehavior: types.StringNull()}
	}
	if opts != nil {
		e.ExclusionOptions = []exclusionOptionsModel{*opts}
	}
	// With UNTIL_END_OF_SUPPORT GKE reports the current end of support as the end time; the
	// configuration has none.
	if opts == nil || opts.EndTimeBehavior.IsNull() {
		e.EndTime = sameInstant(prior.EndTime, types.StringValue(tw.EndTime))
	}
	return e
}

func (r *MaintenancePolicyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state maintenancePolicyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.readInto(ctx, &state, &resp.Diagnostics) {
		if !resp.Diagnostics.HasError() {
			resp.State.RemoveResource(ctx)
		}
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *MaintenancePolicyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state maintenancePolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, maintenancePolicyUpdateTimeout)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	plan.ID, plan.Project, plan.Location = state.ID, state.Project, state.Location
	name := state.ID.ValueString()
	if !r.write(ctx, name, state.Project.ValueString(), state.Location.ValueString(), expandWindow(&plan), &resp.Diagnostics) {
		return
	}
	r.readInto(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete clears the cluster's policy: an empty maintenancePolicy (GKE: "An empty field clears
// the existing maintenance policy").
func (r *MaintenancePolicyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state maintenancePolicyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, maintenancePolicyDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name := state.ID.ValueString()
	if _, err := r.data.client.GKE.Projects.Locations.Clusters.Get(name).Context(ctx).Do(); client.IsNotFound(err) {
		return // the cluster, and its policy, are gone
	}
	r.write(ctx, name, state.Project.ValueString(), state.Location.ValueString(), nil, &resp.Diagnostics)
}

func (r *MaintenancePolicyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
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
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("cluster"), names[0])...)
}

// knownStateForUnknown is UseStateForUnknown for attributes of blocks that may be new: it keeps
// the prior value only when there is one (UseStateForUnknown would plan null for a block that
// did not exist).
type knownStateForUnknown struct{}

func (knownStateForUnknown) Description(context.Context) string {
	return "keeps the prior value, if any, while the configuration leaves it to the API"
}
func (m knownStateForUnknown) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (knownStateForUnknown) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.PlanValue.IsUnknown() && !req.StateValue.IsNull() && !req.StateValue.IsUnknown() {
		resp.PlanValue = req.StateValue
	}
}

// rfc3339Validator checks an RFC 3339 time.
type rfc3339Validator struct{}

func (rfc3339Validator) Description(context.Context) string {
	return "must be an RFC 3339 time such as 2026-12-15T00:00:00Z"
}
func (v rfc3339Validator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (rfc3339Validator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := time.Parse(time.RFC3339, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid time",
			fmt.Sprintf("%q is not an RFC 3339 time; write it like 2026-12-15T00:00:00Z or 2026-12-14T19:00:00-05:00.", req.ConfigValue.ValueString()))
	}
}

// recurrenceValidator checks the shape of an RRULE: KEY=VALUE parts with a FREQ that GKE
// supports for maintenance windows.
type recurrenceValidator struct{}

func (recurrenceValidator) Description(context.Context) string {
	return "must be an RFC 5545 RRULE with FREQ=DAILY, WEEKLY, MONTHLY or YEARLY"
}
func (v recurrenceValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (recurrenceValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	freq := ""
	for _, kv := range strings.Split(strings.TrimPrefix(s, "RRULE:"), ";") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid recurrence",
				fmt.Sprintf("%q is not an RRULE: write KEY=VALUE parts separated by ';', such as FREQ=WEEKLY;BYDAY=SA,SU.", s))
			return
		}
		if k == "FREQ" {
			freq = v
		}
	}
	switch freq {
	case "DAILY", "WEEKLY", "MONTHLY", "YEARLY":
	case "HOURLY", "MINUTELY", "SECONDLY":
		resp.Diagnostics.AddAttributeError(req.Path, "Unsupported recurrence",
			fmt.Sprintf("%q: FREQ=%s is not supported for GKE maintenance windows; use DAILY, WEEKLY, MONTHLY or YEARLY.", s, freq))
	default:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid recurrence",
			fmt.Sprintf("%q has no FREQ (DAILY, WEEKLY, MONTHLY or YEARLY), which an RRULE requires.", s))
	}
}
