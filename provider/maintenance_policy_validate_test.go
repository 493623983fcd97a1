package provider

import (
	"context"
	"strings"
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform validates a module before its variables have values, so a dynamic
// maintenance_exclusion block whose for_each comes from a variable is unknown then (the
// examples/terraform-test module has one): validation passes, and checks the rest.
func TestMaintenancePolicyValidateUnknownBlocks(t *testing.T) {
	ctx := context.Background()
	r := NewMaintenancePolicyResource()
	var sr fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	config := func(daily, exclusions tftypes.Value) tfsdk.Config {
		vals := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			vals[name] = tftypes.NewValue(at, nil)
		}
		vals["cluster"] = tftypes.NewValue(tftypes.String, "c")
		vals["daily_maintenance_window"] = daily
		vals["maintenance_exclusion"] = exclusions
		return tfsdk.Config{Schema: sr.Schema, Raw: tftypes.NewValue(typ, vals)}
	}
	dailyT := typ.AttributeTypes["daily_maintenance_window"].(tftypes.List)
	window := tftypes.NewValue(dailyT, []tftypes.Value{tftypes.NewValue(dailyT.ElementType, map[string]tftypes.Value{
		"start_time": tftypes.NewValue(tftypes.String, "03:00"), "duration": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)})})
	unknownExclusions := tftypes.NewValue(typ.AttributeTypes["maintenance_exclusion"], tftypes.UnknownValue)

	for _, tc := range []struct {
		name   string
		config tfsdk.Config
		want   string // "" for no error
	}{
		{"unknown exclusions", config(window, unknownExclusions), ""},
		{"unknown window", config(tftypes.NewValue(dailyT, tftypes.UnknownValue), unknownExclusions), ""},
		{"no window, unknown exclusions", config(tftypes.NewValue(dailyT, nil), unknownExclusions), "Exactly one maintenance window is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var resp fwresource.ValidateConfigResponse
			r.(fwresource.ResourceWithValidateConfig).ValidateConfig(ctx, fwresource.ValidateConfigRequest{Config: tc.config}, &resp)
			got := ""
			for _, d := range resp.Diagnostics.Errors() {
				got += d.Summary() + ": " + d.Detail() + "\n"
			}
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("errors:\n%s\nwant %q", got, tc.want)
			}
		})
	}
}
