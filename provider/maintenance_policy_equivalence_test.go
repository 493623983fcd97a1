package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Exclusions are the same for GKE when their instants, scope and end behaviour are, however
// their times are spelled.
func TestSameExclusion(t *testing.T) {
	exclusion := func(start, end, scope, behavior string) exclusionModel {
		e := exclusionModel{ExclusionName: types.StringValue("holidays"), StartTime: types.StringValue(start), EndTime: types.StringNull()}
		if end != "" {
			e.EndTime = types.StringValue(end)
		}
		if scope != "" {
			o := exclusionOptionsModel{Scope: types.StringValue(scope), EndTimeBehavior: types.StringNull()}
			if behavior != "" {
				o.EndTimeBehavior = types.StringValue(behavior)
			}
			e.ExclusionOptions = []exclusionOptionsModel{o}
		}
		return e
	}
	utc := exclusion("2026-11-19T05:00:00Z", "2026-12-04T05:00:00Z", "NO_MINOR_UPGRADES", "")
	for _, tc := range []struct {
		name  string
		other exclusionModel
		same  bool
	}{
		{"the same spelling", utc, true},
		{"another offset", exclusion("2026-11-19T00:00:00-05:00", "2026-12-04T00:00:00-05:00", "NO_MINOR_UPGRADES", ""), true},
		{"another start", exclusion("2026-11-19T00:00:00Z", "2026-12-04T05:00:00Z", "NO_MINOR_UPGRADES", ""), false},
		{"no end", exclusion("2026-11-19T05:00:00Z", "", "NO_MINOR_UPGRADES", untilEndOfSupport), false},
		{"another scope", exclusion("2026-11-19T05:00:00Z", "2026-12-04T05:00:00Z", "NO_UPGRADES", ""), false},
		{"no options", exclusion("2026-11-19T05:00:00Z", "2026-12-04T05:00:00Z", "", ""), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameExclusion(utc, tc.other); got != tc.same {
				t.Errorf("sameExclusion(%v, %v) = %v, want %v", utc, tc.other, got, tc.same)
			}
			if got := sameExclusion(tc.other, utc); got != tc.same {
				t.Errorf("sameExclusion(%v, %v) = %v, want %v", tc.other, utc, got, tc.same)
			}
		})
	}
	until := exclusion("2026-11-19T05:00:00Z", "", "NO_MINOR_UPGRADES", untilEndOfSupport)
	if !sameExclusion(until, exclusion("2026-11-19T06:00:00+01:00", "", "NO_MINOR_UPGRADES", untilEndOfSupport)) {
		t.Error("two UNTIL_END_OF_SUPPORT exclusions starting at the same instant differ")
	}
}
