package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"
)

// A node pool's autoscaling: the cluster autoscaler's limits for the pool (R-CA-3) and its
// location policy (R-CA-6), named as terraform-provider-google names them.
//
// node_count while the autoscaler owns the size: the autoscaler changes the instance groups'
// target size, which node_count reads. So that this is no perma-diff, Read keeps the value the
// state has while autoscaling is on (the size Terraform last set, or the size when autoscaling
// was turned on); an import and the data source read the current size. A changed node_count is
// a one-off resize (setSize, as terraform-provider-google does), after which the autoscaler
// carries on. Removing the block hands the size back to node_count: when it is configured the
// apply resizes the pool to it, otherwise node_count becomes the pool's size at that moment.

// GKE's limits on autoscaling (R-CA-3, R-CA-9).
const (
	maxNodesPerZone    = 1000
	maxNodesPerCluster = 15000
)

// Location policies (NodePoolAutoscaling.locationPolicy, R-CA-6).
const (
	locationPolicyBalanced = "BALANCED"
	locationPolicyAny      = "ANY"
)

type autoscalingModel struct {
	MinNodeCount      types.Int64  `tfsdk:"min_node_count"`
	MaxNodeCount      types.Int64  `tfsdk:"max_node_count"`
	TotalMinNodeCount types.Int64  `tfsdk:"total_min_node_count"`
	TotalMaxNodeCount types.Int64  `tfsdk:"total_max_node_count"`
	LocationPolicy    types.String `tfsdk:"location_policy"`
}

var autoscalingPath = path.Root("autoscaling")

// autoscalingBlock is the resource's autoscaling block.
func autoscalingBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "The cluster autoscaler on this pool ([R-CA-1](../guides/cluster-autoscaler.md#r-ca-1) to [R-CA-4](../guides/cluster-autoscaler.md#r-ca-4)): it adds nodes for pending pods and removes underutilised ones, " +
			"within per-zone limits (`min_node_count`/`max_node_count`) or limits for the whole pool (`total_min_node_count`/`total_max_node_count`), not both. " +
			"While the block is present the autoscaler owns the pool's size: `node_count` keeps its value in state and a size the autoscaler changed shows no diff. " +
			"Removing the block turns autoscaling off.",
		Validators: []validator.List{listvalidator.SizeAtMost(1)},
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"min_node_count": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Per zone: the fewest nodes the autoscaler leaves in each zone, 0 or more and at most `max_node_count`. Not with the `total_*` limits.",
			},
			"max_node_count": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Per zone: the most nodes the autoscaler grows each zone to, 1 to 1000. Not with the `total_*` limits.",
			},
			"total_min_node_count": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Whole pool: the fewest nodes across all its zones, 0 or more and at most `total_max_node_count`. Not with the per-zone limits.",
			},
			"total_max_node_count": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Whole pool: the most nodes across all its zones, 1 to 15000. Not with the per-zone limits.",
			},
			"location_policy": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Where scale-ups put new nodes ([R-CA-6](../guides/cluster-autoscaler.md#r-ca-6)): `BALANCED` keeps the zones within a node of each other, `ANY` uses the zones with capacity. " +
					"Left out, it keeps its current value; in a new block it is GKE's default, `ANY` for Spot pools and `BALANCED` otherwise (shown in the plan).",
				Validators: []validator.String{stringvalidator.OneOf(locationPolicyBalanced, locationPolicyAny)},
			},
		}},
	}
}

// autoscalingDataSourceAttr is autoscaling in the data source: the same shape, read only.
func autoscalingDataSourceAttr() dschema.ListNestedAttribute {
	count := func(desc string) dschema.Int64Attribute {
		return dschema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	return dschema.ListNestedAttribute{
		Computed: true, MarkdownDescription: "The cluster autoscaler's settings for the pool: one element when autoscaling is on, none when it is off. " +
			"The pair of limits in use is set, the other pair is null.",
		NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
			"min_node_count":       count("Fewest nodes per zone."),
			"max_node_count":       count("Most nodes per zone."),
			"total_min_node_count": count("Fewest nodes in the whole pool."),
			"total_max_node_count": count("Most nodes in the whole pool."),
			"location_policy":      computedString("`BALANCED` or `ANY`."),
		}},
	}
}

// usesTotal says whether a configuration sets the whole-pool limits.
func (a autoscalingModel) usesTotal() bool {
	return !a.TotalMinNodeCount.IsNull() || !a.TotalMaxNodeCount.IsNull()
}

// autoscalingValidator checks autoscaling's limits at plan time (R-CA-3).
type autoscalingValidator struct{}

func (autoscalingValidator) Description(context.Context) string {
	return "checks that autoscaling sets one valid pair of limits"
}
func (v autoscalingValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (autoscalingValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	as, ok := blockList[autoscalingModel](ctx, req.Config.GetAttribute, autoscalingPath, &resp.Diagnostics)
	if !ok || len(as) == 0 {
		return
	}
	a, at := as[0], autoscalingPath.AtListIndex(0)
	fail := func(name, summary, detail string, args ...any) {
		p := at
		if name != "" {
			p = at.AtName(name)
		}
		resp.Diagnostics.AddAttributeError(p, summary, fmt.Sprintf(detail, args...))
	}
	for _, c := range []struct {
		name string
		v    types.Int64
	}{{"min_node_count", a.MinNodeCount}, {"max_node_count", a.MaxNodeCount}, {"total_min_node_count", a.TotalMinNodeCount}, {"total_max_node_count", a.TotalMaxNodeCount}} {
		if set(c.v) && c.v.ValueInt64() < 0 {
			fail(c.name, "Negative node count", "autoscaling.%s is %d; node counts must be 0 or more.", c.name, c.v.ValueInt64())
		}
	}
	perZone := !a.MinNodeCount.IsNull() || !a.MaxNodeCount.IsNull()
	total := a.usesTotal()
	// limits checks one pair: a maximum of 1 to most, and min <= max.
	limits := func(minName, maxName string, min, max types.Int64, most int64, where string) {
		switch {
		case max.IsNull():
			fail(maxName, "No autoscaling maximum",
				"autoscaling sets %s but not %s: the autoscaler needs a maximum (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/cluster-autoscaler#r-ca-3). Set %s (1 to %d, %s), or remove the autoscaling block to turn autoscaling off.",
				minName, maxName, maxName, most, where)
		case !set(max):
		case max.ValueInt64() < 1:
			fail(maxName, "No autoscaling maximum",
				"autoscaling.%s is %d: the maximum must be at least 1, or the autoscaler could never add a node (GKE reads 0 as no maximum). Remove the autoscaling block to turn autoscaling off.",
				maxName, max.ValueInt64())
		case max.ValueInt64() > most:
			fail(maxName, "Autoscaling maximum too large", "autoscaling.%s is %d; GKE allows at most %d (%s).", maxName, max.ValueInt64(), most, where)
		case set(min) && min.ValueInt64() > max.ValueInt64():
			fail(minName, "Autoscaling minimum above maximum", "autoscaling.%s (%d) must be less than or equal to %s (%d).",
				minName, min.ValueInt64(), maxName, max.ValueInt64())
		}
	}
	switch {
	case perZone && total:
		fail("", "Per-zone and total autoscaling limits together",
			"autoscaling sets both per-zone limits (min_node_count/max_node_count) and limits for the whole pool (total_min_node_count/total_max_node_count); "+
				"they are mutually exclusive (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/cluster-autoscaler#r-ca-3). Keep one pair.")
	case perZone:
		limits("min_node_count", "max_node_count", a.MinNodeCount, a.MaxNodeCount, maxNodesPerZone, "nodes per zone of a node pool")
	case total:
		limits("total_min_node_count", "total_max_node_count", a.TotalMinNodeCount, a.TotalMaxNodeCount, maxNodesPerCluster, "nodes in a cluster")
	default:
		fail("", "No autoscaling maximum",
			"autoscaling needs a maximum (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/cluster-autoscaler#r-ca-3): set max_node_count (per zone) or total_max_node_count (the whole pool). Remove the block to turn autoscaling off.")
	}
}

// planAutoscaling plans location_policy when the configuration leaves it out (the state's value
// when the block was there, else GKE's default for the pool), and warns where node_count and
// autoscaling meet.
func planAutoscaling(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	diags := &resp.Diagnostics
	cfgs, ok := blockList[autoscalingModel](ctx, req.Config.GetAttribute, autoscalingPath, diags)
	if !ok {
		return
	}
	ncs, ncOK := blockList[nodeConfigModel](ctx, req.Config.GetAttribute, path.Root("node_config"), diags)
	spot := types.BoolValue(false)
	if len(ncs) > 0 && !ncs[0].Spot.IsNull() {
		spot = ncs[0].Spot
	}
	var prior []autoscalingModel
	creating := req.State.Raw.IsNull()
	if !creating {
		// A change of spot replaces the pool (its location policy default with it).
		priorNC, _ := blockList[nodeConfigModel](ctx, req.State.GetAttribute, path.Root("node_config"), diags)
		creating = !ncOK || spot.IsUnknown() || spot.ValueBool() != (len(priorNC) > 0 && priorNC[0].Spot.ValueBool())
	}
	if !creating {
		prior, _ = blockList[autoscalingModel](ctx, req.State.GetAttribute, autoscalingPath, diags)
	}
	var nodeCount, initial types.Int64
	diags.Append(req.Config.GetAttribute(ctx, path.Root("node_count"), &nodeCount)...)
	diags.Append(req.Config.GetAttribute(ctx, path.Root("initial_node_count"), &initial)...)
	if diags.HasError() {
		return
	}
	if len(cfgs) == 0 {
		if len(prior) > 0 && set(nodeCount) {
			diags.AddAttributeWarning(path.Root("node_count"), "node_count takes the pool's size back",
				fmt.Sprintf("Autoscaling is turned off, so node_count owns the pool's size again: the apply resizes each zone to %d nodes "+
					"if the autoscaler changed the size (node_count kept its value in state while autoscaling was on).", nodeCount.ValueInt64()))
		}
		return
	}
	c := cfgs[0]
	if c.LocationPolicy.IsNull() {
		lp := types.StringUnknown()
		switch {
		case len(prior) > 0 && set(prior[0].LocationPolicy):
			lp = prior[0].LocationPolicy
		case !ncOK || spot.IsUnknown():
		case spot.ValueBool():
			lp = types.StringValue(locationPolicyAny) // R-CA-6: ANY for Spot
		default:
			lp = types.StringValue(locationPolicyBalanced)
		}
		diags.Append(resp.Plan.SetAttribute(ctx, autoscalingPath.AtListIndex(0).AtName("location_policy"), lp)...)
	}
	// R-CA-4: GKE takes a size outside the limits; say what the autoscaler will do with it.
	size, sizeName := nodeCount, "node_count"
	if !set(size) {
		size, sizeName = initial, "initial_node_count"
	}
	changed := creating || len(prior) == 0 || !prior[0].MinNodeCount.Equal(c.MinNodeCount) || !prior[0].MaxNodeCount.Equal(c.MaxNodeCount)
	if !changed && !req.State.Raw.IsNull() {
		var before types.Int64
		diags.Append(req.State.GetAttribute(ctx, path.Root("node_count"), &before)...)
		changed = !before.Equal(nodeCount) && set(nodeCount)
	}
	if !changed || !set(size) || c.usesTotal() {
		return
	}
	switch n := size.ValueInt64(); {
	case set(c.MinNodeCount) && n < c.MinNodeCount.ValueInt64():
		diags.AddAttributeWarning(path.Root(sizeName), "Pool size below the autoscaling minimum",
			fmt.Sprintf("%s (%d per zone) is below autoscaling.min_node_count (%d). GKE accepts it: the autoscaler adds nodes when pods are pending "+
				"and never removes one from a zone below its minimum, but it does not grow the pool to the minimum by itself (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/cluster-autoscaler#r-ca-4).", sizeName, n, c.MinNodeCount.ValueInt64()))
	case set(c.MaxNodeCount) && n > c.MaxNodeCount.ValueInt64():
		diags.AddAttributeWarning(path.Root(sizeName), "Pool size above the autoscaling maximum",
			fmt.Sprintf("%s (%d per zone) is above autoscaling.max_node_count (%d). GKE accepts it: the autoscaler adds no node to such a zone "+
				"and removes only nodes it can safely remove, so the pool may stay above the maximum (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/cluster-autoscaler#r-ca-4).", sizeName, n, c.MaxNodeCount.ValueInt64()))
	}
}

// nodeCountPlan is node_count's plan modifier: left out of the configuration it keeps the state's
// value, except when autoscaling is turned off: then it is the pool's size after the apply.
type nodeCountPlan struct{}

func (nodeCountPlan) Description(context.Context) string {
	return "keeps the current value unless autoscaling is turned off"
}
func (m nodeCountPlan) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (nodeCountPlan) PlanModifyInt64(ctx context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if !req.PlanValue.IsUnknown() || req.StateValue.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var before, after types.List
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, autoscalingPath, &before)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, autoscalingPath, &after)...)
	if resp.Diagnostics.HasError() || after.IsUnknown() {
		return
	}
	if len(before.Elements()) > 0 && len(after.Elements()) == 0 {
		return
	}
	resp.PlanValue = req.StateValue
}

// expandAutoscaling builds the NodePoolAutoscaling to send: the configured pair of limits (its
// minimum sent even when 0), or enabled=false without a block.
func expandAutoscaling(as []autoscalingModel) *container.NodePoolAutoscaling {
	if len(as) == 0 {
		return &container.NodePoolAutoscaling{ForceSendFields: []string{"Enabled"}}
	}
	a := as[0]
	out := &container.NodePoolAutoscaling{Enabled: true, LocationPolicy: unknownAsEmpty(a.LocationPolicy)}
	if a.usesTotal() {
		out.TotalMinNodeCount, out.TotalMaxNodeCount = a.TotalMinNodeCount.ValueInt64(), a.TotalMaxNodeCount.ValueInt64()
		out.ForceSendFields = []string{"TotalMinNodeCount"}
	} else {
		out.MinNodeCount, out.MaxNodeCount = a.MinNodeCount.ValueInt64(), a.MaxNodeCount.ValueInt64()
		out.ForceSendFields = []string{"MinNodeCount"}
	}
	return out
}

// flattenAutoscaling reads GKE's autoscaling: a block when it is enabled, none when it is off
// (GKE answers `"autoscaling": {}`). A count GKE omits (0) stays null where the configuration
// (prior) leaves it out; an import and the data source set the pair of limits in use.
func flattenAutoscaling(as *container.NodePoolAutoscaling, prior []autoscalingModel, mode blockMode) []autoscalingModel {
	if as == nil || !as.Enabled {
		if mode == blocksAlways {
			return []autoscalingModel{}
		}
		return nil
	}
	var p autoscalingModel
	if len(prior) > 0 {
		p = prior[0]
	}
	total := as.TotalMinNodeCount > 0 || as.TotalMaxNodeCount > 0
	count := func(v int64, prior types.Int64, inUse bool) types.Int64 {
		if v != 0 || !prior.IsNull() || (mode != blocksAsConfigured && inUse) {
			return types.Int64Value(v)
		}
		return types.Int64Null()
	}
	lp := types.StringNull()
	if as.LocationPolicy != "" {
		lp = types.StringValue(as.LocationPolicy)
	}
	return []autoscalingModel{{
		MinNodeCount:      count(as.MinNodeCount, p.MinNodeCount, !total),
		MaxNodeCount:      count(as.MaxNodeCount, p.MaxNodeCount, !total),
		TotalMinNodeCount: count(as.TotalMinNodeCount, p.TotalMinNodeCount, total),
		TotalMaxNodeCount: count(as.TotalMaxNodeCount, p.TotalMaxNodeCount, total),
		LocationPolicy:    lp,
	}}
}

// autoscalingOn says whether a pool GKE reports is under the autoscaler.
func autoscalingOn(np *container.NodePool) bool {
	return np.Autoscaling != nil && np.Autoscaling.Enabled
}
