package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// maintenanceCluster is a zonal REGULAR cluster with one 2-node pool, created at start.
func maintenanceCluster(t *testing.T, start time.Time, mutate ...func(*api.Cluster)) (*World, *model.Cluster) {
	t.Helper()
	w := New(Options{Seed: 42, Start: start})
	in := &api.Cluster{Name: "c1", NodePools: []*api.NodePool{{Name: "pool-a", InitialNodeCount: 2}}}
	for _, m := range mutate {
		m(in)
	}
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: in})
	if err != nil {
		t.Fatalf("CreateCluster: %v", err)
	}
	runOp(t, w, op, time.Hour)
	return w, w.core.Cluster("proj", "us-central1-a", "c1")
}

// setPolicy sets a maintenance policy and waits for its operation.
func setPolicy(t *testing.T, w *World, c *model.Cluster, win *api.MaintenanceWindow) {
	t.Helper()
	op, err := w.gke.SetMaintenancePolicy(c.Project, c.Location, c.Name, &api.SetMaintenancePolicyRequest{
		MaintenancePolicy: &api.MaintenancePolicy{Window: win, ResourceVersion: c.PolicyVersion}})
	if err != nil {
		t.Fatalf("SetMaintenancePolicy: %v", err)
	}
	runOp(t, w, op, time.Minute)
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func exclusion(start, end, scope string) *api.TimeWindow {
	tw := &api.TimeWindow{StartTime: start, EndTime: end}
	if scope != "" {
		tw.MaintenanceExclusionOptions = &api.MaintenanceExclusionOptions{Scope: scope}
	}
	return tw
}

func recurring(start, end, rrule string) *api.RecurringTimeWindow {
	return &api.RecurringTimeWindow{Window: &api.TimeWindow{StartTime: start, EndTime: end}, Recurrence: rrule}
}

// holidayExclusions are R-EX-3's: NO_MINOR_UPGRADES Sep 30 - Jan 15, NO_UPGRADES Nov 19 - Dec 4
// and Dec 15 - Jan 5.
func holidayExclusions() map[string]*api.TimeWindow {
	return map[string]*api.TimeWindow{
		"holiday-season": exclusion("2026-09-30T00:00:00Z", "2027-01-15T00:00:00Z", api.ScopeNoMinorUpgrades),
		"black-friday":   exclusion("2026-11-19T00:00:00Z", "2026-12-04T00:00:00Z", api.ScopeNoUpgrades),
		"year-end":       exclusion("2026-12-15T00:00:00Z", "2027-01-05T00:00:00Z", ""),
	}
}

// R-EX-3: the holiday retailer's overlapping exclusions block and allow exactly the six
// upgrades of the worked example, each blocked by the exclusions the example names.
func TestHolidayRetailerExclusions(t *testing.T) {
	w, c := maintenanceCluster(t, ts("2026-09-01T00:00:00Z"))
	setPolicy(t, w, c, &api.MaintenanceWindow{MaintenanceExclusions: holidayExclusions()})

	for _, tc := range []struct {
		kind      model.UpgradeKind
		at        string
		allowed   bool
		blockedBy []string
	}{
		{model.NodePatch, "2026-11-25T12:00:00Z", false, []string{"black-friday"}},
		{model.ControlPlaneMinor, "2026-12-20T12:00:00Z", false, []string{"holiday-season", "year-end"}},
		{model.ControlPlanePatch, "2026-12-25T12:00:00Z", false, []string{"year-end"}},
		{model.NodeMinor, "2027-01-01T12:00:00Z", false, []string{"holiday-season", "year-end"}},
		{model.ControlPlanePatch, "2026-11-10T12:00:00Z", true, nil},
		{model.ControlPlaneDisruption, "2026-12-10T12:00:00Z", true, nil},
		{model.NodeDisruption, "2026-12-10T12:00:00Z", true, nil},
	} {
		at := ts(tc.at)
		allowed, reason := w.maintenance.MaintenanceAllows(c, tc.kind, at)
		names, _ := w.maintenance.BlockingExclusions(c, tc.kind, at)
		if allowed != tc.allowed || !slices.Equal(names, tc.blockedBy) {
			t.Errorf("%s on %s: allowed=%v blocked by %v (%s), want allowed=%v blocked by %v", tc.kind, tc.at, allowed, names, reason, tc.allowed, tc.blockedBy)
		}
	}
	// R-EX-2: once the exclusions expire they block nothing; a minor upgrade may run from Jan 15.
	if next := w.maintenance.NextAllowed(c, model.ControlPlaneMinor, ts("2026-12-20T12:00:00Z")); !next.Equal(ts("2027-01-15T00:00:00Z")) {
		t.Errorf("next control-plane minor upgrade after Dec 20: %s, want 2027-01-15T00:00:00Z", next)
	}
	if next := w.maintenance.NextAllowed(c, model.NodePatch, ts("2026-11-25T12:00:00Z")); !next.Equal(ts("2026-12-04T00:00:00Z")) {
		t.Errorf("next node patch after Nov 25: %s, want 2026-12-04T00:00:00Z", next)
	}
}

// R-EX-1: each scope blocks exactly its row of the table.
func TestScopeTable(t *testing.T) {
	want := map[string][]bool{ // CP minor, CP patch, CP VM, node minor, node patch, node VM
		api.ScopeNoUpgrades:            {true, true, true, true, true, true},
		api.ScopeNoMinorUpgrades:       {true, false, false, true, false, false},
		api.ScopeNoMinorOrNodeUpgrades: {true, false, false, true, true, true},
	}
	for scope, row := range want {
		for i, k := range maintenance.UpgradeKinds {
			if got := maintenance.ScopeBlocks(scope, k); got != row[i] {
				t.Errorf("%s blocks %s = %v, want %v", scope, k, got, row[i])
			}
		}
	}
}

// R-EX-4a: 48 hours of availability in every rolling 32 days, counting only stretches of at
// least 4 hours inside the window and outside NO_UPGRADES exclusions.
func TestAvailabilityRule(t *testing.T) {
	daily := &api.DailyMaintenanceWindow{StartTime: "03:00"}
	tenDays := map[string]*api.TimeWindow{
		"a": exclusion("2026-12-01T00:00:00Z", "2026-12-11T00:00:00Z", ""),
		"b": exclusion("2026-12-11T00:00:00Z", "2026-12-21T00:00:00Z", api.ScopeNoUpgrades),
		"c": exclusion("2026-12-21T00:00:00Z", "2026-12-31T00:00:00Z", ""),
	}
	elevenDays := map[string]*api.TimeWindow{
		"a": exclusion("2026-12-01T00:00:00Z", "2026-12-11T00:00:00Z", ""),
		"b": exclusion("2026-12-11T00:00:00Z", "2026-12-21T00:00:00Z", ""),
		"c": exclusion("2026-12-21T00:00:00Z", "2027-01-01T00:00:00Z", ""),
	}
	for _, tc := range []struct {
		name string
		win  *api.MaintenanceWindow
		// want is "" (accepted) or the availability the worst 32 days have.
		want string
	}{
		{"weekly Sunday 4h", &api.MaintenanceWindow{RecurringWindow: recurring("2026-11-08T02:00:00Z", "2026-11-08T06:00:00Z", "FREQ=WEEKLY;BYDAY=SU")}, "16h"},
		{"daily 4h", &api.MaintenanceWindow{RecurringWindow: recurring("2026-11-08T02:00:00Z", "2026-11-08T06:00:00Z", "FREQ=DAILY")}, ""},
		{"weekends 8h", &api.MaintenanceWindow{RecurringWindow: recurring("2026-11-07T01:00:00Z", "2026-11-07T09:00:00Z", "FREQ=WEEKLY;BYDAY=SA,SU")}, ""},
		{"weekends 3h (stretches under 4h do not count)", &api.MaintenanceWindow{RecurringWindow: recurring("2026-11-07T01:00:00Z", "2026-11-07T04:00:00Z", "FREQ=DAILY")}, "0h"},
		{"three 10-day NO_UPGRADES exclusions in a month, daily 4h window", &api.MaintenanceWindow{DailyMaintenanceWindow: daily, MaintenanceExclusions: tenDays}, "8h"},
		{"three 10-day NO_UPGRADES exclusions in a month, no window: 48h left", &api.MaintenanceWindow{MaintenanceExclusions: tenDays}, ""},
		{"NO_UPGRADES exclusions covering 31 days, no window: 24h left", &api.MaintenanceWindow{MaintenanceExclusions: elevenDays}, "24h"},
		{"daily window and R-EX-3's exclusions: 11 days of 4h between them", &api.MaintenanceWindow{DailyMaintenanceWindow: daily, MaintenanceExclusions: holidayExclusions()}, "44h"},
		{"8h weekday nights and R-EX-3's exclusions", &api.MaintenanceWindow{RecurringWindow: recurring("2026-11-02T22:00:00Z", "2026-11-03T06:00:00Z", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"), MaintenanceExclusions: holidayExclusions()}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, c := maintenanceCluster(t, testStart)
			_, err := w.gke.SetMaintenancePolicy("proj", "us-central1-a", "c1", &api.SetMaintenancePolicyRequest{
				MaintenancePolicy: &api.MaintenancePolicy{Window: tc.win}})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			e, ok := model.AsError(err)
			if !ok || e.HTTPCode != 400 || !strings.HasPrefix(e.Message, maintenance.AvailabilityMessage+":") || !strings.Contains(e.Message, " have "+tc.want+" of") {
				t.Fatalf("got %v, want a 400 %q with %s of availability", err, maintenance.AvailabilityMessage, tc.want)
			}
			if c.MaintenancePolicy != nil {
				t.Errorf("a rejected policy was stored")
			}
		})
	}
}

// R-EX-4 and the shapes of the API: each mistake is a 400 naming the field and the rule.
func TestMaintenancePolicyValidation(t *testing.T) {
	many := func(n int, scope string) map[string]*api.TimeWindow {
		out := map[string]*api.TimeWindow{}
		for i := range n {
			from := testStart.Add(time.Duration(i*6) * model.Day)
			out[string(rune('a'+i))] = exclusion(from.Format(time.RFC3339), from.Add(model.Day).Format(time.RFC3339), scope)
		}
		return out
	}
	only := func(tw *api.TimeWindow) *api.MaintenanceWindow {
		return &api.MaintenanceWindow{MaintenanceExclusions: map[string]*api.TimeWindow{"x": tw}}
	}
	const s, e = "2026-11-08T02:00:00Z", "2026-11-08T06:00:00Z"
	for _, tc := range []struct {
		name       string
		unenrolled bool
		win        *api.MaintenanceWindow
		want       string
	}{
		{"two windows", false, &api.MaintenanceWindow{DailyMaintenanceWindow: &api.DailyMaintenanceWindow{StartTime: "03:00"},
			RecurringWindow: recurring(s, e, "FREQ=DAILY")}, "set exactly one of them"},
		{"daily start 24:00", false, &api.MaintenanceWindow{DailyMaintenanceWindow: &api.DailyMaintenanceWindow{StartTime: "24:00"}},
			`"maintenancePolicy.window.dailyMaintenanceWindow.startTime": "24:00". Hours must be 00-23`},
		{"daily start 3pm", false, &api.MaintenanceWindow{DailyMaintenanceWindow: &api.DailyMaintenanceWindow{StartTime: "3pm"}}, "HH:MM"},
		{"hourly", false, &api.MaintenanceWindow{RecurringWindow: recurring(s, e, "FREQ=HOURLY")}, "FREQ=HOURLY is not supported"},
		{"minutely", false, &api.MaintenanceWindow{RecurringWindow: recurring(s, e, "FREQ=MINUTELY;INTERVAL=30")}, "FREQ=MINUTELY is not supported"},
		{"secondly", false, &api.MaintenanceWindow{RecurringWindow: recurring(s, e, "FREQ=SECONDLY")}, "FREQ=SECONDLY is not supported"},
		{"not an rrule", false, &api.MaintenanceWindow{RecurringWindow: recurring(s, e, "every day")}, "Not a valid RFC 5545 RRULE"},
		{"DTSTART in the rrule", false, &api.MaintenanceWindow{RecurringWindow: recurring(s, e, "DTSTART=20261108T020000Z;FREQ=DAILY")}, "the window's startTime is its start"},
		{"window ends before it starts", false, &api.MaintenanceWindow{RecurringWindow: recurring(e, s, "FREQ=DAILY")}, "must be after its start time"},
		{"window time not RFC 3339", false, &api.MaintenanceWindow{RecurringWindow: recurring("2026-11-08 02:00", e, "FREQ=DAILY")}, `"maintenancePolicy.window.recurringWindow.window.startTime"`},
		{"exclusion ends before it starts", false, only(exclusion("2026-12-10T00:00:00Z", "2026-12-01T00:00:00Z", "")), "must be after its start time"},
		{"exclusion without an end", false, only(exclusion("2026-12-10T00:00:00Z", "", api.ScopeNoMinorUpgrades)),
			"exactly one of endTime and maintenanceExclusionOptions.endTimeBehavior"},
		{"exclusion with both ends", false, only(&api.TimeWindow{StartTime: "2026-12-10T00:00:00Z", EndTime: "2026-12-20T00:00:00Z",
			MaintenanceExclusionOptions: &api.MaintenanceExclusionOptions{Scope: api.ScopeNoMinorUpgrades, EndTimeBehavior: api.EndTimeUntilEndOfSupport}}),
			"both endTime and endTimeBehavior"},
		{"bad scope", false, only(exclusion("2026-12-10T00:00:00Z", "2026-12-20T00:00:00Z", "NO_PATCHES")), `"NO_PATCHES" is not a valid enum value`},
		{"NO_UPGRADES over 30 days", false, only(exclusion("2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", "")),
			"NO_UPGRADES lasts at most 30 days (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/maintenance#r-ex-4); this one lasts 31 days"},
		{"NO_UPGRADES until end of support", false, only(&api.TimeWindow{StartTime: "2026-12-10T00:00:00Z",
			MaintenanceExclusionOptions: &api.MaintenanceExclusionOptions{EndTimeBehavior: api.EndTimeUntilEndOfSupport}}),
			"needs scope NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES"},
		{"four NO_UPGRADES", false, &api.MaintenanceWindow{MaintenanceExclusions: many(4, "")}, "at most 3 maintenance exclusions with scope NO_UPGRADES"},
		{"21 exclusions", false, &api.MaintenanceWindow{MaintenanceExclusions: many(21, api.ScopeNoMinorUpgrades)}, "at most 20 maintenance exclusions"},
		{"scope without a release channel", true, only(exclusion("2026-12-10T00:00:00Z", "2026-12-20T00:00:00Z", api.ScopeNoMinorOrNodeUpgrades)),
			"only available to clusters enrolled in a release channel"},
		{"scoped exclusion over 180 days ahead", false, only(exclusion("2026-12-10T00:00:00Z", testStart.Add(181*model.Day).Format(time.RFC3339), api.ScopeNoMinorUpgrades)),
			"ends at most 180 days after it is created, at or before 2027-05-01T"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, c := maintenanceCluster(t, testStart, func(in *api.Cluster) {
				if tc.unenrolled {
					in.ReleaseChannel = &api.ReleaseChannel{Channel: api.ChannelUnspecified}
				}
			})
			before := c.PolicyVersion
			_, err := w.gke.SetMaintenancePolicy("proj", "us-central1-a", "c1", &api.SetMaintenancePolicyRequest{MaintenancePolicy: &api.MaintenancePolicy{Window: tc.win}})
			e, ok := model.AsError(err)
			if !ok || e.HTTPCode != 400 || e.Status != "INVALID_ARGUMENT" || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("got %v, want a 400 INVALID_ARGUMENT containing %q", err, tc.want)
			}
			if c.PolicyVersion != before || c.MaintenancePolicy != nil {
				t.Errorf("a rejected policy changed the cluster")
			}
		})
	}
	// Without a release channel, NO_UPGRADES is still allowed, as the default scope.
	w, c := maintenanceCluster(t, testStart, func(in *api.Cluster) { in.ReleaseChannel = &api.ReleaseChannel{Channel: api.ChannelUnspecified} })
	setPolicy(t, w, c, only(exclusion("2026-12-10T00:00:00Z", "2026-12-20T00:00:00Z", "")))
	if got := c.MaintenancePolicy.Exclusions["x"].Scope; got != api.ScopeNoUpgrades {
		t.Errorf("default scope %q, want NO_UPGRADES", got)
	}
}

// R-EX-4: a scoped exclusion may not outlast the support of the cluster's minor; with
// UNTIL_END_OF_SUPPORT it lasts exactly that long, and moves with a minor upgrade.
func TestExclusionEndOfSupport(t *testing.T) {
	w, c := maintenanceCluster(t, testStart, func(in *api.Cluster) { in.InitialClusterVersion = "1.34" })
	eos := catalog.ScheduleOf(34).EndOfStandard // 2027-01-15, within 180 days of the start
	_, err := w.gke.SetMaintenancePolicy("proj", "us-central1-a", "c1", &api.SetMaintenancePolicyRequest{MaintenancePolicy: &api.MaintenancePolicy{
		Window: &api.MaintenanceWindow{MaintenanceExclusions: map[string]*api.TimeWindow{
			"hold": exclusion("2026-12-01T00:00:00Z", eos.Add(model.Day).Format(time.RFC3339), api.ScopeNoMinorUpgrades)}}}})
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, "past the end of support of the cluster's minor version 1.34 on "+eos.Format(time.RFC3339)) {
		t.Fatalf("exclusion past the end of support: got %v", err)
	}
	setPolicy(t, w, c, &api.MaintenanceWindow{MaintenanceExclusions: map[string]*api.TimeWindow{
		"hold": {StartTime: "2026-12-01T00:00:00Z", MaintenanceExclusionOptions: &api.MaintenanceExclusionOptions{
			Scope: api.ScopeNoMinorOrNodeUpgrades, EndTimeBehavior: api.EndTimeUntilEndOfSupport}}}})
	got := w.maintenance.RenderMaintenancePolicy(c).Window.MaintenanceExclusions["hold"]
	if got.EndTime != eos.Format(time.RFC3339) || got.MaintenanceExclusionOptions.EndTimeBehavior != api.EndTimeUntilEndOfSupport {
		t.Fatalf("UNTIL_END_OF_SUPPORT exclusion renders as %+v %+v, want end %s", got, got.MaintenanceExclusionOptions, eos.Format(time.RFC3339))
	}
	op, err := w.upgrade.UpgradeMaster(c, "1.35")
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	if got := w.maintenance.RenderMaintenancePolicy(c).Window.MaintenanceExclusions["hold"].EndTime; got != catalog.ScheduleOf(35).EndOfStandard.Format(time.RFC3339) {
		t.Errorf("after the upgrade to 1.35 the exclusion ends %s, want 1.35's end of support %s", got, catalog.ScheduleOf(35).EndOfStandard.Format(time.RFC3339))
	}
}

// The policy round-trips in GKE's shapes: UTC times, the daily window's duration, options only
// where given (scope NO_UPGRADES omitted), and a resourceVersion that changes with each set
// and rejects a stale write.
func TestMaintenancePolicyRenderAndResourceVersion(t *testing.T) {
	w, c := maintenanceCluster(t, testStart)
	rv0 := w.maintenance.RenderMaintenancePolicy(c).ResourceVersion
	setPolicy(t, w, c, &api.MaintenanceWindow{
		DailyMaintenanceWindow: &api.DailyMaintenanceWindow{StartTime: "3:30"},
		MaintenanceExclusions: map[string]*api.TimeWindow{
			"plain":  exclusion("2026-11-26T00:00:00-05:00", "2026-11-30T00:00:00-05:00", ""),
			"scoped": exclusion("2026-11-26T00:00:00Z", "2026-12-30T00:00:00Z", api.ScopeNoMinorUpgrades),
			"empty":  {StartTime: "2026-12-20T00:00:00Z", EndTime: "2026-12-22T00:00:00Z", MaintenanceExclusionOptions: &api.MaintenanceExclusionOptions{}},
		}})
	mp := w.maintenance.RenderMaintenancePolicy(c)
	if mp.ResourceVersion == rv0 || mp.ResourceVersion == "" {
		t.Errorf("resourceVersion %q after a set, was %q", mp.ResourceVersion, rv0)
	}
	d := mp.Window.DailyMaintenanceWindow
	if d.StartTime != "03:30" || d.Duration != "PT4H0M0S" {
		t.Errorf("daily window %+v, want 03:30 for PT4H0M0S", d)
	}
	ex := mp.Window.MaintenanceExclusions
	if p := ex["plain"]; p.StartTime != "2026-11-26T05:00:00Z" || p.EndTime != "2026-11-30T05:00:00Z" || p.MaintenanceExclusionOptions != nil {
		t.Errorf("plain exclusion %+v, want UTC times and no options", p)
	}
	if o := ex["scoped"].MaintenanceExclusionOptions; o == nil || o.Scope != api.ScopeNoMinorUpgrades {
		t.Errorf("scoped exclusion options %+v", o)
	}
	if o := ex["empty"].MaintenanceExclusionOptions; o == nil || o.Scope != "" {
		t.Errorf("NO_UPGRADES exclusion sent with options renders options %+v, want {}", o)
	}
	// A write based on the old resourceVersion is stale.
	_, err := w.gke.SetMaintenancePolicy("proj", "us-central1-a", "c1", &api.SetMaintenancePolicyRequest{MaintenancePolicy: &api.MaintenancePolicy{ResourceVersion: rv0}})
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 409 || e.Status != "ABORTED" || !strings.Contains(e.Message, "is stale") {
		t.Fatalf("stale resourceVersion: got %v, want 409 ABORTED", err)
	}
	// An empty policy with the current version clears it.
	setPolicy(t, w, c, nil)
	if mp := w.maintenance.RenderMaintenancePolicy(c); mp.Window != nil || c.MaintenancePolicy != nil {
		t.Errorf("cleared policy renders %+v", mp)
	}
}

// NextAllowed and MaintenanceAllowedUntil walk windows and exclusions: a daily 03:00 window,
// and a NO_UPGRADES exclusion that starts inside a window and cuts it short.
func TestNextAllowedAndAllowedUntil(t *testing.T) {
	w, c := maintenanceCluster(t, testStart)
	setPolicy(t, w, c, &api.MaintenanceWindow{DailyMaintenanceWindow: &api.DailyMaintenanceWindow{StartTime: "03:00"},
		MaintenanceExclusions: map[string]*api.TimeWindow{"freeze": exclusion("2026-11-10T05:00:00Z", "2026-11-12T04:00:00Z", "")}})
	for _, tc := range []struct {
		from, next, until string
	}{
		{"2026-11-05T12:00:00Z", "2026-11-06T03:00:00Z", "2026-11-06T07:00:00Z"},
		{"2026-11-06T04:00:00Z", "2026-11-06T04:00:00Z", "2026-11-06T07:00:00Z"},
		{"2026-11-10T03:30:00Z", "2026-11-10T03:30:00Z", "2026-11-10T05:00:00Z"}, // the exclusion cuts the window
		{"2026-11-10T06:00:00Z", "2026-11-12T04:00:00Z", "2026-11-12T07:00:00Z"}, // resumes mid-window after it
	} {
		next := w.maintenance.NextAllowed(c, model.NodePatch, ts(tc.from))
		until, ok := w.maintenance.MaintenanceAllowedUntil(c, model.NodePatch, next)
		if !next.Equal(ts(tc.next)) || !ok || !until.Equal(ts(tc.until)) {
			t.Errorf("from %s: next %s until %s (%v), want %s until %s", tc.from, next, until, ok, tc.next, tc.until)
		}
	}
	if _, ok := w.maintenance.MaintenanceAllowedUntil(c, model.NodePatch, ts("2026-11-05T12:00:00Z")); ok {
		t.Errorf("allowed outside the window")
	}
	if k := maintenance.NodeUpgradeKind(model.NodeSpec{Version: "1.36.5-gke.1101000"}, model.NodeSpec{Version: "1.37.1-gke.1124000"}); k != model.NodeMinor {
		t.Errorf("minor version change is %s", k)
	}
	if k := maintenance.NodeUpgradeKind(model.NodeSpec{Version: "1.36.5-gke.1101000", MachineType: "e2-medium"}, model.NodeSpec{Version: "1.36.5-gke.1101000", MachineType: "e2-standard-4"}); k != model.NodeDisruption {
		t.Errorf("machine type change is %s", k)
	}
}

// A policy given at creation (as terraform-provider-google sends maintenance_policy) is
// validated and applied like a setMaintenancePolicy; an invalid one creates nothing.
func TestCreateClusterWithMaintenancePolicy(t *testing.T) {
	w, c := maintenanceCluster(t, testStart, func(in *api.Cluster) {
		in.MaintenancePolicy = &api.MaintenancePolicy{Window: &api.MaintenanceWindow{
			DailyMaintenanceWindow: &api.DailyMaintenanceWindow{StartTime: "22:30"}}}
	})
	if mp := w.maintenance.RenderMaintenancePolicy(c); mp.Window == nil || mp.Window.DailyMaintenanceWindow.StartTime != "22:30" || mp.ResourceVersion == "" {
		t.Fatalf("created with %+v", mp)
	}
	w2 := New(Options{Seed: 42, Start: testStart})
	_, err := w2.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "c1", InitialNodeCount: 1,
		MaintenancePolicy: &api.MaintenancePolicy{Window: &api.MaintenanceWindow{RecurringWindow: recurring("2026-11-08T02:00:00Z", "2026-11-08T06:00:00Z", "FREQ=WEEKLY;BYDAY=SU")}}}})
	if e, ok := model.AsError(err); !ok || !strings.HasPrefix(e.Message, maintenance.AvailabilityMessage) || w2.core.Cluster("proj", "us-central1-a", "c1") != nil {
		t.Fatalf("create with a policy that breaks R-EX-4a: %v", err)
	}
}
