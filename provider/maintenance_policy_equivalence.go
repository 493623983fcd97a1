package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// GKE stores a maintenance policy in a normal form: times in UTC (2026-11-19T05:00:00Z for
// 2026-11-19T00:00:00-05:00), "03:00" for "3:00", an RRULE as it likes it, exclusions as a map
// by name. A configuration that spells the same policy another way must plan nothing, after an
// apply (Read keeps the prior spelling: flattenMaintenancePolicy) and after an import, when
// there is no prior spelling to keep (the plan keeps the state's: equivalentToState and
// keepEquivalentExclusions). Terraform takes a planned value equal to the prior state as the
// configured one spelled another way.

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

// equivalentToState plans the prior value of a string that the configuration spells another
// way: the same value for GKE by same.
type equivalentToState struct {
	same func(a, b string) bool
	what string
}

func (m equivalentToState) Description(context.Context) string {
	return "keeps the current value while the configuration spells the same " + m.what + " another way"
}

func (m equivalentToState) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (m equivalentToState) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.StateValue.IsUnknown() || req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	if m.same(req.StateValue.ValueString(), req.PlanValue.ValueString()) {
		resp.PlanValue = req.StateValue
	}
}

var (
	sameInstantPlan    = equivalentToState{same: sameInstantText, what: "instant (another UTC offset)"}
	sameRecurrencePlan = equivalentToState{same: sameRecurrence, what: "RRULE"}
	sameDailyStartPlan = equivalentToState{same: sameDailyStart, what: "time of day"}
)

// keepEquivalentExclusions identifies exclusions by name, as GKE does: a planned exclusion that
// is the prior one of the same name spelled another way (times in another offset) is planned
// as the prior one. Terraform checks no more than the number of a set's blocks.
func keepEquivalentExclusions(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || resp.Plan.Raw.IsNull() {
		return
	}
	at := path.Root("maintenance_exclusion")
	var plannedSet types.Set
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, at, &plannedSet)...)
	if resp.Diagnostics.HasError() || plannedSet.IsUnknown() || plannedSet.IsNull() {
		return
	}
	var planned, prior []exclusionModel
	resp.Diagnostics.Append(plannedSet.ElementsAs(ctx, &planned, false)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, at, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	byName := map[string]exclusionModel{}
	for _, p := range prior {
		byName[p.ExclusionName.ValueString()] = p
	}
	changed := false
	for i, e := range planned {
		if p, ok := byName[e.ExclusionName.ValueString()]; ok && !e.ExclusionName.IsUnknown() && sameExclusion(e, p) && !exclusionEqual(e, p) {
			planned[i], changed = p, true
		}
	}
	if changed {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, at, planned)...)
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

// exclusionEqual says whether two exclusions are spelled alike.
func exclusionEqual(a, b exclusionModel) bool {
	return a.StartTime.Equal(b.StartTime) && a.EndTime.Equal(b.EndTime)
}
