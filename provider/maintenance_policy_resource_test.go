package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const maintClusterPath = "projects/" + testProject + "/locations/" + testZone + "/clusters/acc-maint"

// apiPolicy is the part of a cluster's maintenancePolicy the tests read from the emulator.
type apiPolicy struct {
	ResourceVersion string `json:"resourceVersion"`
	Window          *struct {
		DailyMaintenanceWindow *struct {
			StartTime string `json:"startTime"`
			Duration  string `json:"duration"`
		} `json:"dailyMaintenanceWindow"`
		RecurringWindow *struct {
			Window struct {
				StartTime string `json:"startTime"`
				EndTime   string `json:"endTime"`
			} `json:"window"`
			Recurrence string `json:"recurrence"`
		} `json:"recurringWindow"`
		MaintenanceExclusions map[string]struct {
			StartTime string          `json:"startTime"`
			EndTime   string          `json:"endTime"`
			Options   json.RawMessage `json:"maintenanceExclusionOptions"`
		} `json:"maintenanceExclusions"`
	} `json:"window"`
}

func readPolicy(endpoint, cluster string) (*apiPolicy, error) {
	var cl struct {
		MaintenancePolicy apiPolicy `json:"maintenancePolicy"`
	}
	if _, err := apiGet(endpoint, cluster, &cl); err != nil {
		return nil, err
	}
	return &cl.MaintenancePolicy, nil
}

// checkPolicy checks the cluster's policy as the emulator holds it.
func checkPolicy(endpoint string, check func(p *apiPolicy) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		p, err := readPolicy(endpoint, maintClusterPath)
		if err != nil {
			return err
		}
		return check(p)
	}
}

// setPolicyOutOfBand writes the cluster's policy behind Terraform's back, as the console or
// gcloud would: it reads the resourceVersion and sends the window.
func setPolicyOutOfBand(t *testing.T, endpoint, window string) {
	t.Helper()
	p, err := readPolicy(endpoint, maintClusterPath)
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"maintenancePolicy": {"resourceVersion": %q, "window": %s}}`, p.ResourceVersion, window)
	resp, err := http.Post(endpoint+"/v1/"+maintClusterPath+":setMaintenancePolicy", "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		t.Fatalf("setMaintenancePolicy: HTTP %d %s", resp.StatusCode, b.String())
	}
}

func compactJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return string(b)
	}
	return out.String()
}

const maintCluster = `
resource "gkesim_cluster" "c" {
  name               = "acc-maint"
  initial_node_count = 1
}
`

func maintPolicy(body string) string {
	return maintCluster + `
resource "gkesim_maintenance_policy" "test" {
  cluster = gkesim_cluster.c.name
` + body + `
}`
}

// Create, add and remove exclusions, switch between window kinds, import, delete: every step
// ends with an empty plan, though GKE hands back times in UTC, "03:00" for "3:00", no scope for
// NO_UPGRADES and, once the console touched it, FREQ=DAILY for the seven-day BYDAY form.
func TestAccMaintenancePolicy_lifecycle(t *testing.T) {
	ep := parallelEmulator(t)
	const res = "gkesim_maintenance_policy.test"
	daily := `
  daily_maintenance_window {
    start_time = "3:00"
  }`
	blackFriday := `
  maintenance_exclusion {
    exclusion_name = "black-friday"
    start_time     = "2026-11-26T00:00:00-05:00"
    end_time       = "2026-11-30T00:00:00-05:00"
  }`
	holidays := `
  maintenance_exclusion {
    exclusion_name = "holiday-minor"
    start_time     = "2026-11-10T00:00:00Z"
    end_time       = "2027-01-15T00:00:00Z"
    exclusion_options {
      scope = "NO_MINOR_UPGRADES"
    }
  }
  maintenance_exclusion {
    exclusion_name = "year-end"
    start_time     = "2026-12-20T00:00:00Z"
    end_time       = "2027-01-05T00:00:00Z"
    exclusion_options {
      scope = "NO_UPGRADES"
    }
  }`
	sevenDays := func(start, end string) string {
		return fmt.Sprintf(`
  recurring_window {
    start_time = %q
    end_time   = %q
    recurrence = "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU"
  }`, start, end)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_cluster"),
		Steps: []resource.TestStep{
			{
				Config: providerConfig(ep) + maintPolicy(daily+blackFriday),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("id"), knownvalue.StringExact(maintClusterPath)),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("daily_maintenance_window").AtSliceIndex(0).AtMapKey("start_time"), knownvalue.StringExact("3:00")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("daily_maintenance_window").AtSliceIndex(0).AtMapKey("duration"), knownvalue.StringExact("PT4H0M0S")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("maintenance_exclusion"), knownvalue.SetExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"exclusion_name": knownvalue.StringExact("black-friday"), "start_time": knownvalue.StringExact("2026-11-26T00:00:00-05:00"),
							"end_time": knownvalue.StringExact("2026-11-30T00:00:00-05:00"), "exclusion_options": knownvalue.ListSizeExact(0)}),
					})),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("resource_version"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{16}$`))),
				},
				Check: checkPolicy(ep, func(p *apiPolicy) error {
					ex := p.Window.MaintenanceExclusions["black-friday"]
					if p.Window.DailyMaintenanceWindow.StartTime != "03:00" || ex.StartTime != "2026-11-26T05:00:00Z" || ex.Options != nil {
						return fmt.Errorf("emulator holds daily %+v, exclusion %+v", p.Window.DailyMaintenanceWindow, ex)
					}
					return nil
				}),
			},
			{
				// Add two exclusions, one with the default scope spelled out.
				Config: providerConfig(ep) + maintPolicy(daily+blackFriday+holidays),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("maintenance_exclusion"), knownvalue.SetSizeExact(3)),
				},
				Check: checkPolicy(ep, func(p *apiPolicy) error {
					if got := compactJSON(p.Window.MaintenanceExclusions["year-end"].Options); got != "{}" {
						return fmt.Errorf("NO_UPGRADES options come back as %s, want {}", got)
					}
					if got := compactJSON(p.Window.MaintenanceExclusions["holiday-minor"].Options); got != `{"scope":"NO_MINOR_UPGRADES"}` {
						return fmt.Errorf("NO_MINOR_UPGRADES options come back as %s", got)
					}
					return nil
				}),
			},
			{
				// Remove one, and switch to a recurring window in the console's seven-day form.
				Config: providerConfig(ep) + maintPolicy(sevenDays("2026-11-02T01:00:00+01:00", "2026-11-02T05:00:00+01:00")+holidays),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("daily_maintenance_window"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("recurring_window").AtSliceIndex(0).AtMapKey("start_time"), knownvalue.StringExact("2026-11-02T01:00:00+01:00")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("maintenance_exclusion"), knownvalue.SetSizeExact(2)),
				},
				Check: checkPolicy(ep, func(p *apiPolicy) error {
					rw := p.Window.RecurringWindow
					if p.Window.DailyMaintenanceWindow != nil || rw == nil || rw.Window.StartTime != "2026-11-02T00:00:00Z" || len(p.Window.MaintenanceExclusions) != 2 {
						return fmt.Errorf("emulator holds %+v", p.Window)
					}
					return nil
				}),
			},
			{
				// The console rewrites the rule to FREQ=DAILY (and the resourceVersion moves):
				// the same rule, no diff.
				PreConfig: func() {
					setPolicyOutOfBand(t, ep, `{"recurringWindow": {"window": {"startTime": "2026-11-02T00:00:00Z", "endTime": "2026-11-02T04:00:00Z"}, "recurrence": "FREQ=DAILY"},
						"maintenanceExclusions": {"holiday-minor": {"startTime": "2026-11-10T00:00:00Z", "endTime": "2027-01-15T00:00:00Z", "maintenanceExclusionOptions": {"scope": "NO_MINOR_UPGRADES"}},
						"year-end": {"startTime": "2026-12-20T00:00:00Z", "endTime": "2027-01-05T00:00:00Z"}}}`)
				},
				Config:   providerConfig(ep) + maintPolicy(sevenDays("2026-11-02T01:00:00+01:00", "2026-11-02T05:00:00+01:00")+holidays),
				PlanOnly: true,
			},
			{
				// A change after that write: the provider reads the new resourceVersion first.
				Config: providerConfig(ep) + maintPolicy(sevenDays("2026-11-02T00:00:00Z", "2026-11-02T06:00:00Z")+holidays),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate)},
				},
				Check: checkPolicy(ep, func(p *apiPolicy) error {
					if rw := p.Window.RecurringWindow; rw.Window.EndTime != "2026-11-02T06:00:00Z" || rw.Recurrence != "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU" {
						return fmt.Errorf("emulator holds %+v", rw)
					}
					return nil
				}),
			},
			{
				ResourceName: res, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				ResourceName: res, ImportState: true, ImportStateId: "us-central1-a/acc-maint",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				// Back to a daily window; then destroying the resource clears the policy.
				Config: providerConfig(ep) + maintPolicy(daily),
			},
			{
				Config: providerConfig(ep) + maintCluster,
				Check: checkPolicy(ep, func(p *apiPolicy) error {
					if p.Window != nil || p.ResourceVersion == "" {
						return fmt.Errorf("after destroy the emulator holds %+v", p)
					}
					return nil
				}),
			},
		},
	})
}

// Rules a configuration breaks on its own fail the plan; rules that need the cluster come back
// from the emulator with its message, GKE's own for the availability rule.
func TestAccMaintenancePolicy_errors(t *testing.T) {
	ep := parallelEmulator(t)
	policy := func(body string) string {
		return providerConfig(ep) + "resource \"gkesim_maintenance_policy\" \"x\" {\n  cluster = \"some-cluster\"\n" + body + "\n}"
	}
	window := "daily_maintenance_window {\n start_time = \"03:00\"\n}\n"
	exclusion := func(name, start, end, options string) string {
		s := fmt.Sprintf("maintenance_exclusion {\n exclusion_name = %q\n start_time = %q\n", name, start)
		if end != "" {
			s += fmt.Sprintf(" end_time = %q\n", end)
		}
		return s + options + "}\n"
	}
	var steps []resource.TestStep
	for _, c := range []planErrorCase{
		{"", "Exactly one maintenance window is required"},
		{window + "recurring_window {\n start_time = \"2026-11-08T02:00:00Z\"\n end_time = \"2026-11-08T06:00:00Z\"\n recurrence = \"FREQ=DAILY\"\n}", "Exactly one maintenance window is required"},
		{"daily_maintenance_window {\n start_time = \"25:00\"\n}", "must be in the format HH:MM"},
		{"recurring_window {\n start_time = \"2026-11-08T02:00:00Z\"\n end_time = \"2026-11-08T06:00:00Z\"\n recurrence = \"FREQ=HOURLY\"\n}", "FREQ=HOURLY is not supported"},
		{"recurring_window {\n start_time = \"2026-11-08 02:00\"\n end_time = \"2026-11-08T06:00:00Z\"\n recurrence = \"FREQ=DAILY\"\n}", "is not an RFC 3339 time"},
		{"recurring_window {\n start_time = \"2026-11-08T06:00:00Z\"\n end_time = \"2026-11-08T02:00:00Z\"\n recurrence = \"FREQ=DAILY\"\n}", "must be after start_time"},
		{window + exclusion("x", "2026-12-01T00:00:00Z", "", ""), "set exactly one of end_time and"},
		{window + exclusion("x", "2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "exclusion_options {\n scope = \"NO_MINOR_UPGRADES\"\n end_time_behavior = \"UNTIL_END_OF_SUPPORT\"\n}\n"), "set exactly one of end_time and"},
		{window + exclusion("x", "2026-12-01T00:00:00Z", "", "exclusion_options {\n scope = \"NO_UPGRADES\"\n end_time_behavior = \"UNTIL_END_OF_SUPPORT\"\n}\n"), "needs scope NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES"},
		{window + exclusion("x", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", ""), "with scope NO_UPGRADES lasts at most 30 days"},
		{window + exclusion("a", "2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "") + exclusion("b", "2026-12-03T00:00:00Z", "2026-12-04T00:00:00Z", "") +
			exclusion("c", "2026-12-05T00:00:00Z", "2026-12-06T00:00:00Z", "") + exclusion("d", "2026-12-07T00:00:00Z", "2026-12-08T00:00:00Z", ""), "4 exclusions have scope NO_UPGRADES"},
		{window + exclusion("x", "2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "exclusion_options {\n scope = \"NO_PATCHES\"\n}\n"), "value must be one of"},
	} {
		// Terraform wraps long messages: any space may be a line break.
		want := strings.ReplaceAll(regexp.QuoteMeta(c.want), " ", `\s+`)
		steps = append(steps, resource.TestStep{Config: policy(c.body), ExpectError: regexp.MustCompile(want), PlanOnly: true})
	}
	// The emulator's rules.
	unenrolled := `
resource "gkesim_cluster" "c" {
  name               = "acc-maint"
  initial_node_count = 1
  release_channel {
    channel = "UNSPECIFIED"
  }
}
resource "gkesim_maintenance_policy" "test" {
  cluster = gkesim_cluster.c.name
`
	steps = append(steps,
		resource.TestStep{
			Config: providerConfig(ep) + unenrolled + `
  recurring_window {
    start_time = "2026-11-08T02:00:00Z"
    end_time   = "2026-11-08T06:00:00Z"
    recurrence = "FREQ=WEEKLY;BYDAY=SU"
  }
}`,
			ExpectError: regexp.MustCompile(`maintenance\s+policy\s+would\s+go\s+longer\s+than\s+32d\s+without\s+48h\s+maintenance\s+availability`),
		},
		resource.TestStep{
			Config:      providerConfig(ep) + unenrolled + window + exclusion("x", "2026-12-01T00:00:00Z", "2026-12-20T00:00:00Z", "exclusion_options {\n scope = \"NO_MINOR_UPGRADES\"\n}\n") + "}",
			ExpectError: regexp.MustCompile(`only\s+available\s+to\s+clusters\s+enrolled\s+in\s+a\s+release\s+channel`),
		},
	)
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, CheckDestroy: checkGone(ep, "gkesim_cluster"), Steps: steps})
}

// The schedule of a cluster under a NO_UPGRADES freeze: nothing may run now, each kind names
// the freeze, and the next open window is the first daily window after it.
func TestAccMaintenanceScheduleDataSource(t *testing.T) {
	ep := parallelEmulator(t)
	const ds = "data.gkesim_maintenance_schedule.s"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: providerConfig(ep) + maintPolicy(`
  daily_maintenance_window {
    start_time = "03:00"
  }
  maintenance_exclusion {
    exclusion_name = "freeze"
    start_time     = "2026-11-01T00:00:00Z"
    end_time       = "2026-11-20T00:00:00Z"
  }`) + `
data "gkesim_maintenance_schedule" "s" {
  cluster      = gkesim_maintenance_policy.test.id
  window_count = 3
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("windows"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{"start_time": knownvalue.StringExact("2026-11-20T03:00:00Z"), "end_time": knownvalue.StringExact("2026-11-20T07:00:00Z")}),
					knownvalue.ObjectExact(map[string]knownvalue.Check{"start_time": knownvalue.StringExact("2026-11-21T03:00:00Z"), "end_time": knownvalue.StringExact("2026-11-21T07:00:00Z")}),
					knownvalue.ObjectExact(map[string]knownvalue.Check{"start_time": knownvalue.StringExact("2026-11-22T03:00:00Z"), "end_time": knownvalue.StringExact("2026-11-22T07:00:00Z")}),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("upgrades"), knownvalue.ListSizeExact(6)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("upgrades").AtSliceIndex(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"kind": knownvalue.StringExact("CONTROL_PLANE_MINOR"), "allowed_now": knownvalue.Bool(false),
					"blocked_by":        knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("freeze")}),
					"next_allowed_time": knownvalue.StringExact("2026-11-20T03:00:00Z"),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("upgrades").AtSliceIndex(5), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"kind": knownvalue.StringExact("NODE_VM_DISRUPTION"), "allowed_now": knownvalue.Bool(false),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("end_of_standard_support"), knownvalue.StringRegexp(regexp.MustCompile(`^20\d\d-\d\d-\d\dT00:00:00Z$`))),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("project"), knownvalue.StringExact(testProject)),
			},
		}},
	})
}

// The console's rewrites of a recurrence are the same rule; other changes are not.
func TestSameRecurrence(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU", true},
		{"FREQ=WEEKLY;BYDAY=SU,SA,FR,TH,WE,TU,MO", "FREQ=DAILY", true},
		{"FREQ=WEEKLY;BYDAY=SA,SU", "BYDAY=SU,SA;FREQ=WEEKLY", true},
		{"FREQ=DAILY;INTERVAL=1", "FREQ=DAILY", true},
		{"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "FREQ=DAILY", false},
		{"FREQ=DAILY;INTERVAL=2", "FREQ=DAILY", false},
		{"FREQ=WEEKLY;BYDAY=SA", "FREQ=WEEKLY;BYDAY=SU", false},
	} {
		if got := sameRecurrence(tc.a, tc.b); got != tc.same {
			t.Errorf("sameRecurrence(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
