package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
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
