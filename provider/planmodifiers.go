package provider

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

// Plan modifiers that keep plans exact: a computed value is "known after apply" only when a
// change that moves it is planned.

// stateUnlessChanged keeps the prior state's value of a computed attribute unless one of the
// named attributes is changing.
type stateUnlessChanged struct {
	watch []path.Path
}

func useStateUnlessChanged(watch ...string) stateUnlessChanged {
	m := stateUnlessChanged{}
	for _, w := range watch {
		m.watch = append(m.watch, path.Root(w))
	}
	return m
}

func (m stateUnlessChanged) Description(context.Context) string {
	var names []string
	for _, p := range m.watch {
		names = append(names, p.String())
	}
	return fmt.Sprintf("keeps the current value unless %s changes", strings.Join(names, " or "))
}

func (m stateUnlessChanged) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

// keep decides whether the prior value stands.
func (m stateUnlessChanged) keep(ctx context.Context, state tfsdk.State, plan tfsdk.Plan, stateValue attr.Value) bool {
	if state.Raw.IsNull() || stateValue.IsNull() {
		return false
	}
	for _, p := range m.watch {
		var before, after attr.Value
		if d := state.GetAttribute(ctx, p, &before); d.HasError() {
			return false
		}
		if d := plan.GetAttribute(ctx, p, &after); d.HasError() {
			return false
		}
		if after.IsUnknown() || !after.Equal(before) {
			return false
		}
	}
	return true
}

func (m stateUnlessChanged) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.PlanValue.IsUnknown() && m.keep(ctx, req.State, req.Plan, req.StateValue) {
		resp.PlanValue = req.StateValue
	}
}

func (m stateUnlessChanged) PlanModifyList(ctx context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	if req.PlanValue.IsUnknown() && m.keep(ctx, req.State, req.Plan, req.StateValue) {
		resp.PlanValue = req.StateValue
	}
}

func (m stateUnlessChanged) PlanModifyInt64(ctx context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if req.PlanValue.IsUnknown() && m.keep(ctx, req.State, req.Plan, req.StateValue) {
		resp.PlanValue = req.StateValue
	}
}

func (m stateUnlessChanged) PlanModifySet(ctx context.Context, req planmodifier.SetRequest, resp *planmodifier.SetResponse) {
	if req.PlanValue.IsUnknown() && m.keep(ctx, req.State, req.Plan, req.StateValue) {
		resp.PlanValue = req.StateValue
	}
}

// keepKnownState is UseStateForUnknown for attributes of a nested block: it copies the prior
// value only when there is one. UseStateForUnknown would copy null when the block is new (a
// node_config block added to a pool created without one, a port added to a Service), and the
// apply would then contradict the plan with what the server filled in.
type keepKnownState struct{}

func (keepKnownState) Description(context.Context) string {
	return "The value does not change unless the configuration changes it."
}

func (m keepKnownState) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (keepKnownState) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.StateValue.IsNull() && req.PlanValue.IsUnknown() && !req.ConfigValue.IsUnknown() {
		resp.PlanValue = req.StateValue
	}
}

func (keepKnownState) PlanModifyInt64(_ context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if !req.StateValue.IsNull() && req.PlanValue.IsUnknown() && !req.ConfigValue.IsUnknown() {
		resp.PlanValue = req.StateValue
	}
}

// sameCluster keeps the prior value of a `cluster` reference when the configuration names the
// same cluster another way: its name where the state holds its id
// (projects/{project}/locations/{location}/clusters/{name}), or the other way round. Terraform
// lets a provider keep a prior value that is equivalent to the configured one. Without it an
// import, which stores the name, would replace every object whose configuration writes
// `cluster = gkesim_cluster.x.id`, as the docs do.
//
// A name means the object's own project and location: the configured ones, else those in the
// state (the ones the object was created or imported with).
type sameCluster struct{}

func (sameCluster) Description(context.Context) string {
	return "a cluster name and the cluster's id are the same reference"
}

func (m sameCluster) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (sameCluster) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.PlanValue.IsNull() || req.PlanValue.IsUnknown() || req.PlanValue.Equal(req.StateValue) {
		return
	}
	scope := func(from interface {
		GetAttribute(context.Context, path.Path, any) diag.Diagnostics
	}) (string, string) {
		var project, location types.String
		from.GetAttribute(ctx, path.Root("project"), &project)
		from.GetAttribute(ctx, path.Root("location"), &location)
		return project.ValueString(), location.ValueString()
	}
	stateProject, stateLocation := scope(req.State)
	configProject, configLocation := scope(req.Config)
	resolve := func(ref, project, location string) string {
		if p, l, name := clusterRef(ref); p != "" {
			return client.ClusterName(p, l, name)
		}
		return client.ClusterName(project, location, ref)
	}
	planProject, planLocation := cmp.Or(configProject, stateProject), cmp.Or(configLocation, stateLocation)
	if resolve(req.StateValue.ValueString(), stateProject, stateLocation) == resolve(req.PlanValue.ValueString(), planProject, planLocation) {
		resp.PlanValue = req.StateValue
	}
}

// keepStateIfUnchanged is the last step of a ModifyPlan: when the plan differs from the prior
// state only in values marked "known after apply", nothing configured changes (the
// configuration merely spells a value another way, such as a cluster's id for its name, which
// makes the framework mark computed values unknown), so the plan is the prior state: no
// update, and no value recomputed.
func keepStateIfUnchanged(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || resp.Plan.Raw.IsNull() || resp.Plan.Raw.IsFullyKnown() {
		return
	}
	if samePlan(req.State.Raw, resp.Plan.Raw, func(*tftypes.AttributePath) bool { return false }) {
		resp.Plan.Raw = req.State.Raw
	}
}
