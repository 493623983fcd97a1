package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// GKE stores a maintenance policy in a normal form: times in UTC (2026-11-19T05:00:00Z for
// 2026-11-19T00:00:00-05:00), "03:00" for "3:00", an RRULE as it likes it, exclusions as a map
// by name. A configuration that spells the same policy another way must plan nothing, after an
// apply (Read keeps the prior spelling: flattenMaintenancePolicy) and after an import, when
// there is no prior spelling to keep (the plan keeps the state's: keepEquivalentPolicy).

// sameInstant keeps the prior spelling of a time when it is the same instant as the API's.
func sameInstant(prior, got types.String) types.String {
	if sameInstantText(prior.ValueString(), got.ValueString()) && !prior.IsNull() && !prior.IsUnknown() {
		return prior
	}
	return got
}

// sameInstantText says whether two RFC 3339 times are the same instant, whatever their offsets.
func sameInstantText(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339, a)
	tb, errB := time.Parse(time.RFC3339, b)
	return errA == nil && errB == nil && ta.Equal(tb)
}

func sameDailyStart(a, b string) bool {
	var ha, ma, hb, mb int
	_, errA := fmt.Sscanf(a, "%d:%d", &ha, &ma)
	_, errB := fmt.Sscanf(b, "%d:%d", &hb, &mb)
	return errA == nil && errB == nil && ha == hb && ma == mb
}

// sameRecurrence compares two RRULEs as rules: parts in any order, BYDAY lists as sets, and
// FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU the same as FREQ=DAILY (the console rewrites one into
// the other).
func sameRecurrence(a, b string) bool {
	return normalizeRecurrence(a) == normalizeRecurrence(b)
}

func normalizeRecurrence(s string) string {
	parts := map[string]string{}
	for _, kv := range strings.Split(strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "RRULE:"), ";") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return s
		}
		if k == "BYDAY" {
			days := strings.Split(v, ",")
			sort.Strings(days)
			v = strings.Join(days, ",")
		}
		parts[k] = v
	}
	if parts["INTERVAL"] == "1" {
		delete(parts, "INTERVAL")
	}
	if parts["FREQ"] == "WEEKLY" && parts["BYDAY"] == "FR,MO,SA,SU,TH,TU,WE" {
		parts["FREQ"] = "DAILY"
		delete(parts, "BYDAY")
	}
	keys := make([]string, 0, len(parts))
	for k := range parts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, k+"="+parts[k])
	}
	return strings.Join(out, ";")
}

// keepEquivalentPolicy plans the prior state when the configuration spells the same policy
// another way: times at another offset, another form of the RRULE or of the daily start, the
// exclusions in another order (they are identified by name, as GKE does). When something else
// changes, the plan keeps the configuration's spelling, and so does the state after the apply.
// Terraform takes a planned value equal to the prior state as the configured one.
func keepEquivalentPolicy(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || resp.Plan.Raw.IsNull() {
		return
	}
	var plan, prior maintenancePolicyModel
	// A block list still unknown (a dynamic block) does not read into the model: nothing to keep.
	if resp.Plan.Get(ctx, &plan).HasError() || req.State.Get(ctx, &prior).HasError() {
		return
	}
	if len(plan.DailyMaintenanceWindow) == 1 && len(prior.DailyMaintenanceWindow) == 1 &&
		sameDailyStart(prior.DailyMaintenanceWindow[0].StartTime.ValueString(), plan.DailyMaintenanceWindow[0].StartTime.ValueString()) {
		plan.DailyMaintenanceWindow[0].StartTime = prior.DailyMaintenanceWindow[0].StartTime
	}
	if len(plan.RecurringWindow) == 1 && len(prior.RecurringWindow) == 1 {
		was, rw := prior.RecurringWindow[0], &plan.RecurringWindow[0]
		rw.StartTime, rw.EndTime = sameInstant(was.StartTime, rw.StartTime), sameInstant(was.EndTime, rw.EndTime)
		if sameRecurrence(was.Recurrence.ValueString(), rw.Recurrence.ValueString()) {
			rw.Recurrence = was.Recurrence
		}
	}
	byName := map[string]exclusionModel{}
	for _, p := range prior.MaintenanceExclusion {
		byName[p.ExclusionName.ValueString()] = p
	}
	for i, e := range plan.MaintenanceExclusion {
		if p, ok := byName[e.ExclusionName.ValueString()]; ok && !e.ExclusionName.IsUnknown() && sameExclusion(e, p) {
			plan.MaintenanceExclusion[i] = p
		}
	}
	candidate := tfsdk.Plan{Schema: resp.Plan.Schema, Raw: resp.Plan.Raw.Copy()}
	if candidate.Set(ctx, &plan).HasError() {
		return
	}
	if samePlan(req.State.Raw, candidate.Raw, func(*tftypes.AttributePath) bool { return false }) {
		resp.Plan.Raw = req.State.Raw
	}
}

// sameExclusion says whether two exclusions of the same name are the same for GKE.
func sameExclusion(a, b exclusionModel) bool {
	sameTime := func(x, y types.String) bool {
		if x.IsNull() || y.IsNull() {
			return x.IsNull() && y.IsNull()
		}
		return !x.IsUnknown() && !y.IsUnknown() && sameInstantText(x.ValueString(), y.ValueString())
	}
	if !sameTime(a.StartTime, b.StartTime) || !sameTime(a.EndTime, b.EndTime) || len(a.ExclusionOptions) != len(b.ExclusionOptions) {
		return false
	}
	for i := range a.ExclusionOptions {
		if !a.ExclusionOptions[i].Scope.Equal(b.ExclusionOptions[i].Scope) || !a.ExclusionOptions[i].EndTimeBehavior.Equal(b.ExclusionOptions[i].EndTimeBehavior) {
			return false
		}
	}
	return true
}
