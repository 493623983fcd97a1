package provider

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"
)

// A node pool's upgrade_settings: the strategy that carries out node-recreating changes (R-UPG-1..3)
// and its parameters, named as terraform-provider-google(-beta) names them.
//
// No perma-diffs (terraform-provider-google #13157, #17008, #17164): every attribute is Optional and
// Computed, and ModifyPlan plans each one the configuration leaves out: its value in the state when
// the block was there before (so changing max_surge alone keeps max_unavailable), else GKE's
// default (strategy SURGE, max_surge 1, batch_node_count 1, batch_soak_duration 0s,
// node_pool_soak_duration 3600s, wait_for_drain_duration 259200s). Plans are therefore fully known
// and equal to what GKE reads back. Updates send the whole upgradeSettings: GKE's current value
// with the planned values on top (read-modify-write, as gcloud does), so a block the configuration
// leaves out is left as it is.

// Strategies (NodePool.UpgradeSettings.strategy).
const (
	strategySurge      = "SURGE"
	strategyBlueGreen  = "BLUE_GREEN"
	strategyShortLived = "SHORT_LIVED"
)

// GKE's defaults of what upgrade_settings leaves out (R-SURGE-1, R-BG-3/4, R-ABG-2).
const (
	defaultMaxSurge          = 1
	defaultBatchNodeCount    = 1
	defaultBatchSoakDuration = "0s"
	defaultPoolSoakDuration  = "3600s"
	defaultWaitForDrain      = "259200s"
	maxSoakSeconds           = 7 * 24 * 3600 // R-BG-4, R-ABG-2: soaks and waits are at most 7 days
)

type upgradeSettingsModel struct {
	Strategy          types.String             `tfsdk:"strategy"`
	MaxSurge          types.Int64              `tfsdk:"max_surge"`
	MaxUnavailable    types.Int64              `tfsdk:"max_unavailable"`
	BlueGreenSettings []blueGreenSettingsModel `tfsdk:"blue_green_settings"`
}

type blueGreenSettingsModel struct {
	StandardRolloutPolicy   []standardRolloutPolicyModel   `tfsdk:"standard_rollout_policy"`
	AutoscaledRolloutPolicy []autoscaledRolloutPolicyModel `tfsdk:"autoscaled_rollout_policy"`
	NodePoolSoakDuration    types.String                   `tfsdk:"node_pool_soak_duration"`
}

type standardRolloutPolicyModel struct {
	BatchPercentage   types.Float64 `tfsdk:"batch_percentage"`
	BatchNodeCount    types.Int64   `tfsdk:"batch_node_count"`
	BatchSoakDuration types.String  `tfsdk:"batch_soak_duration"`
}

type autoscaledRolloutPolicyModel struct {
	WaitForDrainDuration types.String `tfsdk:"wait_for_drain_duration"`
}

// upgradeSettingsBlock is the resource's upgrade_settings block.
func upgradeSettingsBlock() schema.ListNestedBlock {
	one := []validator.List{listvalidator.SizeAtMost(1)}
	return schema.ListNestedBlock{
		MarkdownDescription: "How GKE upgrades the nodes when `version` or a machine attribute of `node_config` changes ([R-UPG-1](../guides/node-upgrades.md#r-upg-1), [R-UPG-2](../guides/node-upgrades.md#r-upg-2)). " +
			"Attributes left out keep their current value; in a new block they get GKE's defaults. " +
			"Removing the block leaves the settings as they are on GKE.",
		Validators: one,
		NestedObject: schema.NestedBlockObject{
			Attributes: map[string]schema.Attribute{
				"strategy": schema.StringAttribute{
					Optional: true, Computed: true,
					MarkdownDescription: "`SURGE` (default) or `BLUE_GREEN`. GKE sets `SHORT_LIVED` on flex-start pools (`node_config.flex_start`), which cannot use another strategy ([R-UPG-3](../guides/node-upgrades.md#r-upg-3)).",
					Validators:          []validator.String{stringvalidator.OneOf(strategySurge, strategyBlueGreen, strategyShortLived)},
				},
				"max_surge": schema.Int64Attribute{
					Optional: true, Computed: true,
					MarkdownDescription: "Surge: extra nodes created per zone during an upgrade. Defaults to 1 (0 when `max_unavailable` is set above 0 in a new block). At least one of `max_surge` and `max_unavailable` must be above 0 for `SURGE` ([R-SURGE-1](../guides/node-upgrades.md#r-surge-1)). Blue-green pools use them for the changes that still upgrade with surge ([R-UPG-2](../guides/node-upgrades.md#r-upg-2)).",
					Validators:          []validator.Int64{int64validator.AtLeast(0)},
				},
				"max_unavailable": schema.Int64Attribute{
					Optional: true, Computed: true,
					MarkdownDescription: "Surge: nodes per zone that may be unavailable at once during an upgrade. Defaults to 0. GKE upgrades at most `max_surge + max_unavailable` nodes at a time, and never more than 20 ([R-SURGE-2](../guides/node-upgrades.md#r-surge-2)).",
					Validators:          []validator.Int64{int64validator.AtLeast(0)},
				},
			},
			Blocks: map[string]schema.Block{
				"blue_green_settings": schema.ListNestedBlock{
					MarkdownDescription: "Blue-green parameters; needs `strategy = \"BLUE_GREEN\"`. At most one of `standard_rollout_policy` and `autoscaled_rollout_policy`; with neither GKE uses a standard rollout of one node per batch.",
					Validators:          one,
					NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{
							"node_pool_soak_duration": schema.StringAttribute{
								Optional: true, Computed: true,
								MarkdownDescription: "Standard rollout: how long the pool soaks after the whole blue pool is drained, before the blue pool is deleted, in seconds (`\"3600s\"`, the default). 0 to 7 days; once the batch soaks and this soak add up to 7 days, the rest is skipped and blue pool deletion starts ([R-BG-4](../guides/blue-green-upgrades.md#r-bg-4)). Not allowed with `autoscaled_rollout_policy` (no soak, [R-ABG-3](../guides/blue-green-upgrades.md#r-abg-3)).",
								Validators:          []validator.String{soakDurationValidator{}},
							},
						},
						Blocks: map[string]schema.Block{
							"standard_rollout_policy": schema.ListNestedBlock{
								MarkdownDescription: "Drain the blue pool in batches ([R-BG-3](../guides/blue-green-upgrades.md#r-bg-3)). Set at most one of `batch_percentage` and `batch_node_count`; with neither, batches are 1 node.",
								Validators:          one,
								NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
									"batch_percentage": schema.Float64Attribute{
										Optional: true, Computed: true,
										MarkdownDescription: "Fraction of the blue pool drained per batch, 0.0 to 1.0, rounded down to at least one node. 0 skips the drain phase.",
										Validators:          []validator.Float64{float64validator.Between(0, 1)},
									},
									"batch_node_count": schema.Int64Attribute{
										Optional: true, Computed: true,
										MarkdownDescription: "Blue nodes drained per batch. Defaults to 1. 0 skips the drain phase.",
										Validators:          []validator.Int64{int64validator.AtLeast(0)},
									},
									"batch_soak_duration": schema.StringAttribute{
										Optional: true, Computed: true,
										MarkdownDescription: "Soak after each drained batch, in seconds (`\"0s\"`, the default). 0 to 7 days.",
										Validators:          []validator.String{soakDurationValidator{}},
									},
								}},
							},
							"autoscaled_rollout_policy": schema.ListNestedBlock{
								MarkdownDescription: "Autoscaled blue-green (Preview in GKE; google-beta's name): the green pool starts empty and the cluster autoscaler grows it; the blue pool is cordoned, scaled down by the autoscaler, then drained; no soak ([R-ABG-1](../guides/blue-green-upgrades.md#r-abg-1) to [R-ABG-5](../guides/blue-green-upgrades.md#r-abg-5)). Needs a control plane on 1.34.0-gke.2201000 or later and autoscaling on the pool (GKE checks both).",
								Validators:          one,
								NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
									"wait_for_drain_duration": schema.StringAttribute{
										Optional: true, Computed: true,
										MarkdownDescription: "How long GKE waits after cordoning the blue pool before draining what is left of it, in seconds. 0 to 7 days; defaults to `\"259200s\"` (3 days).",
										Validators:          []validator.String{soakDurationValidator{}},
									},
								}},
							},
						},
					},
				},
			},
		},
	}
}

// upgradeSettingsDataSourceAttr is upgrade_settings in the data source: the same shape, read only.
func upgradeSettingsDataSourceAttr() dschema.ListNestedAttribute {
	return dschema.ListNestedAttribute{
		Computed: true, MarkdownDescription: "Upgrade strategy and its settings, as GKE reports them with its defaults filled in (one element).",
		NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
			"strategy":        computedString("`SURGE`, `BLUE_GREEN` or `SHORT_LIVED`."),
			"max_surge":       dschema.Int64Attribute{Computed: true, MarkdownDescription: "Surge nodes per zone."},
			"max_unavailable": dschema.Int64Attribute{Computed: true, MarkdownDescription: "Unavailable nodes per zone."},
			"blue_green_settings": dschema.ListNestedAttribute{
				Computed: true, MarkdownDescription: "Blue-green settings (one element, for `BLUE_GREEN`).",
				NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
					"node_pool_soak_duration": computedString("Soak of the pool after the blue pool is drained."),
					"standard_rollout_policy": dschema.ListNestedAttribute{
						Computed: true, MarkdownDescription: "Batches of the standard rollout (one element).",
						NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
							"batch_percentage":    dschema.Float64Attribute{Computed: true, MarkdownDescription: "Fraction of the blue pool per batch."},
							"batch_node_count":    dschema.Int64Attribute{Computed: true, MarkdownDescription: "Blue nodes per batch."},
							"batch_soak_duration": computedString("Soak after each batch."),
						}},
					},
					"autoscaled_rollout_policy": dschema.ListNestedAttribute{
						Computed: true, MarkdownDescription: "Autoscaled rollout (one element).",
						NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
							"wait_for_drain_duration": computedString("Wait before the blue pool is drained."),
						}},
					},
				}},
			},
		}},
	}
}

var protoDurationRE = regexp.MustCompile(`^[0-9]+(\.[0-9]{1,9})?s$`)

// parseProtoDuration reads a google.protobuf.Duration in its JSON form ("3600s", "1.5s").
func parseProtoDuration(s string) (time.Duration, bool) {
	if !protoDurationRE.MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// soakDurationValidator checks a blue-green duration: seconds with an s suffix, 0 to 7 days.
type soakDurationValidator struct{}

func (soakDurationValidator) Description(context.Context) string {
	return `must be a duration in seconds such as "3600s", from "0s" to "604800s" (7 days)`
}
func (v soakDurationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v soakDurationValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	d, ok := parseProtoDuration(s)
	switch {
	case !ok:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%q is not a duration in seconds: write it as GKE does, e.g. \"3600s\" for an hour (the value %s).", s, v.Description(ctx)))
	case d > maxSoakSeconds*time.Second:
		resp.Diagnostics.AddAttributeError(req.Path, "Duration too long",
			fmt.Sprintf("%q is %s; GKE allows at most 7 days (\"604800s\") here (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-bg-4).", s, d))
	}
}

// sameDuration says whether two durations in seconds are equal ("3600s" and "3600.0s").
func sameDuration(a, b string) bool {
	da, oka := parseProtoDuration(a)
	db, okb := parseProtoDuration(b)
	return oka && okb && da == db
}

// blockList reads a list block (or list nested attribute) at p; ok is false when it is unknown.
func blockList[T any](ctx context.Context, get func(context.Context, path.Path, any) diag.Diagnostics, p path.Path, diags *diag.Diagnostics) ([]T, bool) {
	var l types.List
	if d := get(ctx, p, &l); d.HasError() {
		diags.Append(d...)
		return nil, false
	}
	if l.IsUnknown() {
		return nil, false
	}
	var out []T
	if !l.IsNull() {
		diags.Append(l.ElementsAs(ctx, &out, false)...)
	}
	return out, !diags.HasError()
}

func set(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }

// upgradeSettingsValidator checks the rules of upgrade_settings that span attributes, at plan time.
type upgradeSettingsValidator struct{}

func (upgradeSettingsValidator) Description(context.Context) string {
	return "checks that upgrade_settings is a valid combination for its strategy"
}
func (v upgradeSettingsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (upgradeSettingsValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	root := path.Root("upgrade_settings")
	uss, ok := blockList[upgradeSettingsModel](ctx, req.Config.GetAttribute, root, &resp.Diagnostics)
	if !ok {
		return
	}
	ncs, _ := blockList[nodeConfigModel](ctx, req.Config.GetAttribute, path.Root("node_config"), &resp.Diagnostics)
	flex := len(ncs) > 0 && ncs[0].FlexStart.ValueBool()
	var atSoak types.Bool
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("blue_green_return_at_soak"), &atSoak)...)
	if len(uss) == 0 {
		return
	}
	us := uss[0]
	at := root.AtListIndex(0)
	strategy := us.Strategy.ValueString()
	if us.Strategy.IsUnknown() {
		return
	}
	fail := func(p path.Path, summary, detail string, args ...any) {
		resp.Diagnostics.AddAttributeError(p, summary, fmt.Sprintf(detail, args...))
	}
	switch {
	case flex && set(us.Strategy) && strategy != strategyShortLived:
		fail(at.AtName("strategy"), "Strategy not allowed for flex-start nodes",
			"node_config.flex_start pools always upgrade with SHORT_LIVED; strategy %q cannot be used (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-upg-3). Remove strategy or set it to \"SHORT_LIVED\".", strategy)
	case !flex && strategy == strategyShortLived:
		fail(at.AtName("strategy"), "SHORT_LIVED needs flex-start nodes",
			"GKE sets strategy SHORT_LIVED on flex-start pools only (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-upg-3). Set node_config.flex_start = true, or use \"SURGE\" or \"BLUE_GREEN\".")
	}
	surge := strategy == strategySurge || (us.Strategy.IsNull() && !flex)
	if (strategy == strategyShortLived || (flex && us.Strategy.IsNull())) && (us.MaxSurge.ValueInt64() > 0 || us.MaxUnavailable.ValueInt64() > 0 || len(us.BlueGreenSettings) > 0) {
		fail(at, "SHORT_LIVED has no parameters",
			"Flex-start pools upgrade with SHORT_LIVED, which has no parameters (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-sl-1): remove max_surge, max_unavailable and blue_green_settings.")
	}
	if surge && set(us.MaxSurge) && set(us.MaxUnavailable) && us.MaxSurge.ValueInt64() == 0 && us.MaxUnavailable.ValueInt64() == 0 {
		fail(at.AtName("max_surge"), "No upgrade concurrency",
			"max_surge and max_unavailable are both 0: at least one of them must be greater than zero for the SURGE strategy (strategy is %s; see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-surge-1), or no node could ever be upgraded.", describeStrategy(us.Strategy))
	}
	if strategy == strategyBlueGreen && set(us.MaxSurge) && set(us.MaxUnavailable) && us.MaxSurge.ValueInt64() == 0 && us.MaxUnavailable.ValueInt64() == 0 {
		fail(at.AtName("max_surge"), "No upgrade concurrency",
			"max_surge and max_unavailable are both 0: a BLUE_GREEN pool still upgrades with surge for the changes blue-green does not carry (kubelet or Linux configuration, gVNIC, ...), and GKE gives a pool that sets neither its defaults, 1 and 0 (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-surge-11). Remove both, or set one above 0.")
	}
	if len(us.BlueGreenSettings) > 0 && strategy != strategyBlueGreen {
		fail(at.AtName("blue_green_settings"), "Blue-green settings without the blue-green strategy",
			"blue_green_settings only applies to strategy = \"BLUE_GREEN\" (strategy is %s). Set strategy = \"BLUE_GREEN\", or remove blue_green_settings.", describeStrategy(us.Strategy))
	}
	if atSoak.ValueBool() && set(us.Strategy) && strategy != strategyBlueGreen {
		resp.Diagnostics.AddAttributeWarning(path.Root("blue_green_return_at_soak"), "blue_green_return_at_soak has no effect",
			fmt.Sprintf("Only blue-green upgrades have a soak phase; with strategy %s applies wait until the upgrade is done.", strategy))
	}
	if len(us.BlueGreenSettings) == 0 {
		return
	}
	bg := us.BlueGreenSettings[0]
	bgPath := at.AtName("blue_green_settings").AtListIndex(0)
	if len(bg.StandardRolloutPolicy) > 0 && len(bg.AutoscaledRolloutPolicy) > 0 {
		fail(bgPath, "Two rollout policies",
			"blue_green_settings must contain only one of standard_rollout_policy and autoscaled_rollout_policy.")
	}
	if len(bg.AutoscaledRolloutPolicy) > 0 && set(bg.NodePoolSoakDuration) {
		fail(bgPath.AtName("node_pool_soak_duration"), "No soak with autoscaled blue-green",
			"Autoscaled blue-green upgrades have no node pool soak phase (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-abg-3): remove node_pool_soak_duration, or use standard_rollout_policy.")
	}
	if len(bg.StandardRolloutPolicy) > 0 {
		sp := bg.StandardRolloutPolicy[0]
		if set(sp.BatchPercentage) && set(sp.BatchNodeCount) {
			fail(bgPath.AtName("standard_rollout_policy").AtListIndex(0), "Two batch sizes",
				"standard_rollout_policy must contain only one of batch_percentage and batch_node_count.")
		}
	}
}

func describeStrategy(s types.String) string {
	if s.IsNull() {
		return "not set, so SURGE"
	}
	return s.ValueString()
}

// planUpgradeSettings plans the attributes of upgrade_settings the configuration leaves out: the
// state's value when the block was there before, else GKE's default. See the top of this file.
func planUpgradeSettings(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	root := path.Root("upgrade_settings")
	diags := &resp.Diagnostics
	cfgs, ok := blockList[upgradeSettingsModel](ctx, req.Config.GetAttribute, root, diags)
	if !ok || len(cfgs) == 0 {
		return
	}
	var prior []upgradeSettingsModel
	if !req.State.Raw.IsNull() {
		prior, _ = blockList[upgradeSettingsModel](ctx, req.State.GetAttribute, root, diags)
	}
	ncs, _ := blockList[nodeConfigModel](ctx, req.Config.GetAttribute, path.Root("node_config"), diags)
	flex := len(ncs) > 0 && ncs[0].FlexStart.ValueBool()
	c := cfgs[0]
	if c.Strategy.IsUnknown() || c.MaxSurge.IsUnknown() || c.MaxUnavailable.IsUnknown() {
		return // known at apply only; GKE's answer will tell
	}
	var s upgradeSettingsModel
	hadBlock := len(prior) > 0
	if hadBlock {
		s = prior[0]
	}
	at := root.AtListIndex(0)
	setPlan := func(p path.Path, v attr.Value) { diags.Append(resp.Plan.SetAttribute(ctx, p, v)...) }

	strategy := c.Strategy
	if strategy.IsNull() {
		switch {
		case flex:
			strategy = types.StringValue(strategyShortLived)
		case set(s.Strategy) && s.Strategy.ValueString() != strategyShortLived:
			strategy = s.Strategy
		default:
			strategy = types.StringValue(strategySurge)
		}
		setPlan(at.AtName("strategy"), strategy)
	}
	st := strategy.ValueString()
	orState := func(cfg, prior types.Int64, def int64) types.Int64 {
		switch {
		case !cfg.IsNull():
			return cfg
		case st == strategyShortLived:
			return types.Int64Value(0)
		case hadBlock && set(prior):
			return prior
		}
		return types.Int64Value(def)
	}
	maxUnavailable := orState(c.MaxUnavailable, s.MaxUnavailable, 0)
	// GKE's default surge is 1 (R-SURGE-1); a blue-green pool keeps surge settings for the changes
	// that still upgrade with surge (R-UPG-2).
	surgeDefault := int64(0)
	if maxUnavailable.ValueInt64() == 0 {
		surgeDefault = defaultMaxSurge
	}
	maxSurge := orState(c.MaxSurge, s.MaxSurge, surgeDefault)
	// R-SURGE-1: a SURGE pool left with 0/0 (say, back from BLUE_GREEN) gets GKE's default surge
	// rather than an error (terraform-provider-google #17164).
	if c.MaxSurge.IsNull() && st == strategySurge && maxSurge.ValueInt64() == 0 && maxUnavailable.ValueInt64() == 0 {
		maxSurge = types.Int64Value(defaultMaxSurge)
	}
	if c.MaxUnavailable.IsNull() {
		setPlan(at.AtName("max_unavailable"), maxUnavailable)
	}
	if c.MaxSurge.IsNull() {
		setPlan(at.AtName("max_surge"), maxSurge)
	}

	if len(c.BlueGreenSettings) == 0 {
		return
	}
	cb := c.BlueGreenSettings[0]
	var sb blueGreenSettingsModel
	if hadBlock && len(s.BlueGreenSettings) > 0 {
		sb = s.BlueGreenSettings[0]
	}
	bgAt := at.AtName("blue_green_settings").AtListIndex(0)
	stateOr := func(prior types.String, def string) types.String {
		if set(prior) {
			return prior
		}
		return types.StringValue(def)
	}
	if cb.NodePoolSoakDuration.IsNull() {
		soak := stateOr(sb.NodePoolSoakDuration, defaultPoolSoakDuration)
		if len(cb.AutoscaledRolloutPolicy) > 0 {
			soak = types.StringNull() // R-ABG-3: no soak
		}
		setPlan(bgAt.AtName("node_pool_soak_duration"), soak)
	}
	if len(cb.StandardRolloutPolicy) > 0 {
		cs := cb.StandardRolloutPolicy[0]
		var ss standardRolloutPolicyModel
		if len(sb.StandardRolloutPolicy) > 0 {
			ss = sb.StandardRolloutPolicy[0]
		}
		spAt := bgAt.AtName("standard_rollout_policy").AtListIndex(0)
		// A oneof: the member the configuration sets wins; otherwise the state's member stays.
		percentage, count := cs.BatchPercentage, cs.BatchNodeCount
		if percentage.IsNull() && count.IsNull() {
			percentage, count = ss.BatchPercentage, ss.BatchNodeCount
			if !set(percentage) && !set(count) {
				percentage, count = types.Float64Null(), types.Int64Value(defaultBatchNodeCount)
			}
		} else if percentage.IsNull() {
			percentage = types.Float64Null()
		} else {
			count = types.Int64Null()
		}
		if cs.BatchPercentage.IsNull() {
			setPlan(spAt.AtName("batch_percentage"), percentage)
		}
		if cs.BatchNodeCount.IsNull() {
			setPlan(spAt.AtName("batch_node_count"), count)
		}
		if cs.BatchSoakDuration.IsNull() {
			setPlan(spAt.AtName("batch_soak_duration"), stateOr(ss.BatchSoakDuration, defaultBatchSoakDuration))
		}
	}
	if len(cb.AutoscaledRolloutPolicy) > 0 && cb.AutoscaledRolloutPolicy[0].WaitForDrainDuration.IsNull() {
		var sa autoscaledRolloutPolicyModel
		if len(sb.AutoscaledRolloutPolicy) > 0 {
			sa = sb.AutoscaledRolloutPolicy[0]
		}
		setPlan(bgAt.AtName("autoscaled_rollout_policy").AtListIndex(0).AtName("wait_for_drain_duration"),
			stateOr(sa.WaitForDrainDuration, defaultWaitForDrain))
	}
}

// expandUpgradeSettings builds the whole upgradeSettings to send: GKE's current settings (nil at
// creation) with the planned values on top. Members of a oneof the plan does not use are dropped.
func expandUpgradeSettings(p upgradeSettingsModel, current *container.UpgradeSettings) *container.UpgradeSettings {
	out := &container.UpgradeSettings{}
	if current != nil {
		out.Strategy, out.MaxSurge, out.MaxUnavailable = current.Strategy, current.MaxSurge, current.MaxUnavailable
		if b := current.BlueGreenSettings; b != nil {
			out.BlueGreenSettings = &container.BlueGreenSettings{NodePoolSoakDuration: b.NodePoolSoakDuration}
			if sp := b.StandardRolloutPolicy; sp != nil {
				out.BlueGreenSettings.StandardRolloutPolicy = &container.StandardRolloutPolicy{
					BatchPercentage: sp.BatchPercentage, BatchNodeCount: sp.BatchNodeCount, BatchSoakDuration: sp.BatchSoakDuration}
			}
			if ap := b.AutoscaledRolloutPolicy; ap != nil {
				out.BlueGreenSettings.AutoscaledRolloutPolicy = &container.AutoscaledRolloutPolicy{WaitForDrainDuration: ap.WaitForDrainDuration}
			}
		}
	}
	if set(p.Strategy) {
		out.Strategy = p.Strategy.ValueString()
	}
	if set(p.MaxSurge) {
		out.MaxSurge = p.MaxSurge.ValueInt64()
	}
	if set(p.MaxUnavailable) {
		out.MaxUnavailable = p.MaxUnavailable.ValueInt64()
	}
	out.ForceSendFields = []string{"MaxSurge", "MaxUnavailable"}
	if out.Strategy != strategyBlueGreen {
		out.BlueGreenSettings = nil
		return out
	}
	if len(p.BlueGreenSettings) == 0 {
		return out
	}
	b := p.BlueGreenSettings[0]
	bg := out.BlueGreenSettings
	if bg == nil {
		bg = &container.BlueGreenSettings{}
		out.BlueGreenSettings = bg
	}
	if set(b.NodePoolSoakDuration) {
		bg.NodePoolSoakDuration = b.NodePoolSoakDuration.ValueString()
	}
	if len(b.StandardRolloutPolicy) > 0 {
		bg.AutoscaledRolloutPolicy = nil
		sp := bg.StandardRolloutPolicy
		if sp == nil {
			sp = &container.StandardRolloutPolicy{}
			bg.StandardRolloutPolicy = sp
		}
		m := b.StandardRolloutPolicy[0]
		// The batch size is a oneof in which 0 means "skip the drain phase": send the member set.
		switch {
		case set(m.BatchPercentage):
			sp.BatchPercentage, sp.BatchNodeCount = m.BatchPercentage.ValueFloat64(), 0
			sp.ForceSendFields = []string{"BatchPercentage"}
		case set(m.BatchNodeCount):
			sp.BatchPercentage, sp.BatchNodeCount = 0, m.BatchNodeCount.ValueInt64()
			sp.ForceSendFields = []string{"BatchNodeCount"}
		}
		if set(m.BatchSoakDuration) {
			sp.BatchSoakDuration = m.BatchSoakDuration.ValueString()
		}
	}
	if len(b.AutoscaledRolloutPolicy) > 0 {
		bg.StandardRolloutPolicy, bg.NodePoolSoakDuration = nil, "" // R-ABG-3: no soak
		ap := bg.AutoscaledRolloutPolicy
		if ap == nil {
			ap = &container.AutoscaledRolloutPolicy{}
			bg.AutoscaledRolloutPolicy = ap
		}
		if w := b.AutoscaledRolloutPolicy[0].WaitForDrainDuration; set(w) {
			ap.WaitForDrainDuration = w.ValueString()
		}
	}
	return out
}

// wantBlock says whether flatten fills a nested block: configured, or present on GKE when the
// mode reads more than the configuration (import, data sources).
func wantBlock(mode blockMode, configured, onGKE bool) bool {
	return configured || (mode != blocksAsConfigured && onGKE)
}

// durationValue is a duration GKE reports, in the prior value's spelling when they are equal.
func durationValue(gke string, prior types.String) types.String {
	if gke == "" {
		return types.StringNull()
	}
	if set(prior) && sameDuration(prior.ValueString(), gke) {
		return prior
	}
	return types.StringValue(gke)
}

// flattenUpgradeSettings reads GKE's upgradeSettings into the model. Blocks the configuration
// (prior) leaves out stay out, except where mode reads more (see blockMode).
func flattenUpgradeSettings(us *container.UpgradeSettings, prior []upgradeSettingsModel, mode blockMode) []upgradeSettingsModel {
	if us == nil {
		us = &container.UpgradeSettings{}
	}
	strategy := us.Strategy
	if strategy == "" || strategy == "NODE_POOL_UPDATE_STRATEGY_UNSPECIFIED" {
		strategy = strategySurge
	}
	nonDefault := strategy == strategyBlueGreen || (strategy == strategySurge && (us.MaxSurge != defaultMaxSurge || us.MaxUnavailable != 0))
	if !mode.want(len(prior) > 0, nonDefault) {
		return prior
	}
	var p upgradeSettingsModel
	if len(prior) > 0 {
		p = prior[0]
	}
	m := upgradeSettingsModel{
		Strategy: types.StringValue(strategy), MaxSurge: types.Int64Value(us.MaxSurge), MaxUnavailable: types.Int64Value(us.MaxUnavailable),
	}
	bg := us.BlueGreenSettings
	if !wantBlock(mode, len(p.BlueGreenSettings) > 0, bg != nil) {
		return []upgradeSettingsModel{m}
	}
	if bg == nil {
		bg = &container.BlueGreenSettings{}
	}
	var pb blueGreenSettingsModel
	if len(p.BlueGreenSettings) > 0 {
		pb = p.BlueGreenSettings[0]
	}
	b := blueGreenSettingsModel{NodePoolSoakDuration: durationValue(bg.NodePoolSoakDuration, pb.NodePoolSoakDuration)}
	if sp := bg.StandardRolloutPolicy; wantBlock(mode, len(pb.StandardRolloutPolicy) > 0, sp != nil) {
		if sp == nil {
			sp = &container.StandardRolloutPolicy{}
		}
		var ps standardRolloutPolicyModel
		if len(pb.StandardRolloutPolicy) > 0 {
			ps = pb.StandardRolloutPolicy[0]
		}
		s := standardRolloutPolicyModel{BatchPercentage: types.Float64Null(), BatchNodeCount: types.Int64Null(),
			BatchSoakDuration: durationValue(sp.BatchSoakDuration, ps.BatchSoakDuration)}
		// The Go client cannot tell a member set to 0 from an absent one: a 0 is the member the
		// configuration uses.
		switch {
		case sp.BatchPercentage != 0:
			s.BatchPercentage = types.Float64Value(sp.BatchPercentage)
		case sp.BatchNodeCount != 0 || !set(ps.BatchPercentage):
			s.BatchNodeCount = types.Int64Value(sp.BatchNodeCount)
		default:
			s.BatchPercentage = types.Float64Value(0)
		}
		b.StandardRolloutPolicy = []standardRolloutPolicyModel{s}
	}
	if ap := bg.AutoscaledRolloutPolicy; wantBlock(mode, len(pb.AutoscaledRolloutPolicy) > 0, ap != nil) {
		if ap == nil {
			ap = &container.AutoscaledRolloutPolicy{}
		}
		var pa autoscaledRolloutPolicyModel
		if len(pb.AutoscaledRolloutPolicy) > 0 {
			pa = pb.AutoscaledRolloutPolicy[0]
		}
		b.AutoscaledRolloutPolicy = []autoscaledRolloutPolicyModel{{WaitForDrainDuration: durationValue(ap.WaitForDrainDuration, pa.WaitForDrainDuration)}}
	}
	m.BlueGreenSettings = []blueGreenSettingsModel{b}
	return []upgradeSettingsModel{m}
}
