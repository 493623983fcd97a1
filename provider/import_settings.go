package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Some attributes are the provider's own settings, not GKE's: how an apply waits
// (gkesim_workload's wait_for_ready, gkesim_node_pool's blue_green_return_at_soak). GKE has
// nothing to read for them, so an import stores their defaults and marks the object in its
// private state. While the mark stands, a plan that differs from the prior state only in those
// settings keeps the prior state: the configuration's values take effect with the next change
// that updates the object, and that update clears the mark.

// importedSettingsKey is the private-state key of the mark.
const importedSettingsKey = "imported_settings"

// markImported marks an object just imported (from ImportState).
func markImported(ctx context.Context, private interface {
	SetKey(context.Context, string, []byte) diag.Diagnostics
}, diags *diag.Diagnostics) {
	diags.Append(private.SetKey(ctx, importedSettingsKey, []byte(`true`))...)
}

// keepImportedSettings is a ModifyPlan step for resources with settings of their own: for an
// imported object whose plan changes nothing but those settings, the plan is the prior state;
// any other update clears the mark.
func keepImportedSettings(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, settings ...string) {
	if req.State.Raw.IsNull() || resp.Plan.Raw.IsNull() {
		return
	}
	mark, d := req.Private.GetKey(ctx, importedSettingsKey)
	resp.Diagnostics.Append(d...)
	if len(mark) == 0 {
		return
	}
	ignored := map[string]bool{}
	for _, s := range settings {
		ignored[tftypes.NewAttributePath().WithAttributeName(s).String()] = true
	}
	if samePlan(req.State.Raw, resp.Plan.Raw, func(p *tftypes.AttributePath) bool { return ignored[p.String()] }) {
		resp.Plan.Raw = req.State.Raw
		return
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, importedSettingsKey, nil)...)
}

// samePlan says whether a plan is the prior state once the values at the ignored paths and the
// values marked "known after apply" are taken from the prior state.
func samePlan(prior, plan tftypes.Value, ignore func(*tftypes.AttributePath) bool) bool {
	filled, err := tftypes.Transform(plan, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() && !ignore(p) {
			return v, nil
		}
		if was, _, err := tftypes.WalkAttributePath(prior, p); err == nil {
			if was, ok := was.(tftypes.Value); ok {
				return was, nil
			}
		}
		return v, nil
	})
	return err == nil && filled.Equal(prior)
}
