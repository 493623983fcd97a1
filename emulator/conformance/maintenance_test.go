package conformance

import (
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// The official Go client sets and reads a maintenance policy (setMaintenancePolicy), is refused a
// stale resourceVersion and a policy without enough availability, and reads the cluster's
// upgrade info; the emulator's maintenance views and node failure answer over HTTP.
func TestGoClientMaintenancePolicy(t *testing.T) {
	t.Parallel()
	emu, url := startEmulator(t)
	svc := goClient(t, url)
	loc := "projects/" + project + "/locations/" + zone
	name := loc + "/clusters/conf-maint"
	waitOperation(t, svc, must(svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: "conf-maint", InitialNodeCount: 2, ReleaseChannel: &container.ReleaseChannel{Channel: "REGULAR"}}}).Do()))

	cl := getCluster(t, svc, name)
	rv := cl.MaintenancePolicy.ResourceVersion
	if rv == "" || cl.MaintenancePolicy.Window != nil {
		t.Fatalf("fresh cluster maintenancePolicy %+v, want only a resourceVersion", cl.MaintenancePolicy)
	}
	policy := &container.MaintenancePolicy{ResourceVersion: rv, Window: &container.MaintenanceWindow{
		RecurringWindow: &container.RecurringTimeWindow{Recurrence: "FREQ=WEEKLY;BYDAY=SA,SU",
			Window: &container.TimeWindow{StartTime: "2026-11-07T03:00:00+01:00", EndTime: "2026-11-07T11:00:00+01:00"}},
		MaintenanceExclusions: map[string]container.TimeWindow{
			"freeze": {StartTime: "2026-11-26T00:00:00Z", EndTime: "2026-12-01T00:00:00Z",
				MaintenanceExclusionOptions: &container.MaintenanceExclusionOptions{Scope: "NO_UPGRADES"}},
			"hold-minor": {StartTime: "2026-11-02T00:00:00Z", EndTime: "2027-01-15T00:00:00Z",
				MaintenanceExclusionOptions: &container.MaintenanceExclusionOptions{Scope: "NO_MINOR_UPGRADES"}},
		}}}
	op := waitOperation(t, svc, must(svc.Projects.Locations.Clusters.SetMaintenancePolicy(name, &container.SetMaintenancePolicyRequest{MaintenancePolicy: policy}).Do()))
	if op.OperationType != "UPDATE_CLUSTER" {
		t.Errorf("setMaintenancePolicy operation type %s, want UPDATE_CLUSTER", op.OperationType)
	}
	cl = getCluster(t, svc, name)
	mp := cl.MaintenancePolicy
	if mp.ResourceVersion == rv || mp.Window == nil || mp.Window.RecurringWindow == nil {
		t.Fatalf("policy after set: %+v", mp)
	}
	if w := mp.Window.RecurringWindow.Window; w.StartTime != "2026-11-07T02:00:00Z" || w.EndTime != "2026-11-07T10:00:00Z" {
		t.Errorf("recurring window %+v, want its times in UTC (R-MW-2)", w)
	}
	if o := mp.Window.MaintenanceExclusions["freeze"].MaintenanceExclusionOptions; o == nil || o.Scope != "" {
		t.Errorf("NO_UPGRADES exclusion options %+v, want present and empty (scope NO_UPGRADES is the default, omitted)", o)
	}
	if o := mp.Window.MaintenanceExclusions["hold-minor"].MaintenanceExclusionOptions; o == nil || o.Scope != "NO_MINOR_UPGRADES" {
		t.Errorf("NO_MINOR_UPGRADES exclusion options %+v", o)
	}

	// A write based on the old resourceVersion is a stale read.
	_, err := svc.Projects.Locations.Clusters.SetMaintenancePolicy(name, &container.SetMaintenancePolicyRequest{MaintenancePolicy: policy}).Do()
	if ge := wantCode(t, err, http.StatusConflict); !strings.Contains(ge.Message, "is stale") {
		t.Errorf("stale resourceVersion: %s", ge.Message)
	}
	// R-EX-4a with GKE's own message.
	sunday := &container.MaintenancePolicy{ResourceVersion: mp.ResourceVersion, Window: &container.MaintenanceWindow{
		RecurringWindow: &container.RecurringTimeWindow{Recurrence: "FREQ=WEEKLY;BYDAY=SU",
			Window: &container.TimeWindow{StartTime: "2026-11-08T02:00:00Z", EndTime: "2026-11-08T06:00:00Z"}}}}
	_, err = svc.Projects.Locations.Clusters.SetMaintenancePolicy(name, &container.SetMaintenancePolicyRequest{MaintenancePolicy: sunday}).Do()
	if ge := wantCode(t, err, http.StatusBadRequest); !strings.HasPrefix(ge.Message, "maintenance policy would go longer than 32d without 48h maintenance availability") {
		t.Errorf("weekly Sunday 4h window: %s", ge.Message)
	}

	info, err := svc.Projects.Locations.Clusters.FetchClusterUpgradeInfo(name).Do()
	if err != nil {
		t.Fatalf("fetchClusterUpgradeInfo: %v", err)
	}
	if info.EndOfStandardSupportTimestamp == "" || info.EndOfExtendedSupportTimestamp <= info.EndOfStandardSupportTimestamp ||
		!slices.Equal(info.AutoUpgradeStatus, []string{"UPGRADE_PAUSED"}) ||
		!slices.Equal(info.PausedReason, []string{"MAINTENANCE_WINDOW", "MAINTENANCE_EXCLUSION_NO_MINOR_UPGRADES"}) {
		t.Errorf("upgrade info on a Monday inside the minor hold: %+v", info)
	}

	// The emulator's views.
	var sched api.MaintenanceSchedule
	getJSON(t, url+"/emulator/v1/"+name+"/maintenanceSchedule?windows=3", &sched)
	if len(sched.Windows) != 3 || sched.Windows[0].StartTime != "2026-11-07T02:00:00Z" || sched.Windows[0].EndTime != "2026-11-07T10:00:00Z" || len(sched.Upgrades) != 6 {
		t.Fatalf("schedule %+v", sched)
	}
	for _, u := range sched.Upgrades {
		if u.AllowedNow || u.NextAllowedTime == "" {
			t.Errorf("schedule on a weekday: %+v, want not allowed now, with a next time", u)
		}
		if u.Kind == "CONTROL_PLANE_MINOR" && (!slices.Equal(u.BlockedBy, []string{"hold-minor"}) || u.NextAllowedTime != "2027-01-16T02:00:00Z") {
			t.Errorf("control-plane minor: %+v, want blocked by hold-minor until the first weekend window after it", u)
		}
	}
	var vs api.VersionSchedule
	getJSON(t, url+"/emulator/v1/versions", &vs)
	if len(vs.Channels) != 4 || len(vs.Channels[1].Minors) == 0 || vs.Channels[1].Channel != "REGULAR" || vs.Channels[1].Minors[0].EndOfStandardSupport == "" {
		t.Errorf("version schedule %+v", vs)
	}

	// A failed node reads NotReady and auto-repair replaces it, with the clock advanced by hand.
	thaw := freeze(t, emu)
	defer thaw()
	node := k8sNodes(t, cl.Endpoint, "default-pool")[0].Name
	var failed api.FailNodeResponse
	postJSON(t, url+"/emulator/v1/"+name+"/nodes/"+node+":fail", &failed)
	if failed.Node != node || !failed.AutoRepair {
		t.Errorf("fail: %+v", failed)
	}
	if err := emu.Runner.Advance(t.Context(), 30*time.Minute); err != nil {
		t.Fatal(err)
	}
	ops, err := svc.Projects.Locations.Operations.List(loc).Do()
	if err != nil {
		t.Fatal(err)
	}
	repaired := false
	for _, o := range ops.Operations {
		repaired = repaired || (o.OperationType == "AUTO_REPAIR_NODES" && o.Status == "DONE" && strings.HasSuffix(o.TargetLink, "/nodePools/default-pool"))
	}
	nodes := k8sNodes(t, cl.Endpoint, "default-pool")
	if !repaired || len(nodes) != 2 || slices.ContainsFunc(nodes, func(n k8sNode) bool { return n.Name == node }) {
		t.Errorf("after auto-repair: repair op done=%v, nodes %v (failed %s)", repaired, nodes, node)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	call(t, http.MethodGet, url, out)
}

func postJSON(t *testing.T, url string, out any) {
	t.Helper()
	call(t, http.MethodPost, url, out)
}

func call(t *testing.T, method, url string, out any) {
	t.Helper()
	var body io.Reader
	if method != http.MethodGet {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d", method, url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// gcloud sets a maintenance window and adds a scoped exclusion: it reads the cluster for the
// resourceVersion and sends setMaintenancePolicy, as it does against GKE.
func TestGcloudMaintenanceWindowAndExclusion(t *testing.T) {
	t.Parallel()
	path, err := exec.LookPath("gcloud")
	if err != nil {
		t.Skipf("gcloud is not installed (%v): install the Google Cloud CLI to run the gcloud conformance test", err)
	}
	_, url := startEmulator(t)
	svc := goClient(t, url)
	loc := "projects/" + project + "/locations/" + zone
	waitOperation(t, svc, must(svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: "conf-gmaint", InitialNodeCount: 1}}).Do()))
	g := newGcloud(t, path, url)
	where := []string{"--zone", zone, "--quiet"}
	g.ok(append([]string{"container", "clusters", "update", "conf-gmaint",
		"--maintenance-window-start", "2026-11-02T22:00:00Z", "--maintenance-window-end", "2026-11-03T06:00:00Z",
		"--maintenance-window-recurrence", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}, where...)...)
	g.ok(append([]string{"container", "clusters", "update", "conf-gmaint",
		"--add-maintenance-exclusion-name", "holidays", "--add-maintenance-exclusion-start", "2026-12-15T00:00:00Z",
		"--add-maintenance-exclusion-end", "2027-01-05T00:00:00Z", "--add-maintenance-exclusion-scope", "no_minor_upgrades"}, where...)...)

	mp := getCluster(t, svc, loc+"/clusters/conf-gmaint").MaintenancePolicy
	if mp.Window == nil || mp.Window.RecurringWindow == nil || mp.Window.RecurringWindow.Recurrence != "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR" {
		t.Fatalf("policy after gcloud: %+v", mp)
	}
	ex, ok := mp.Window.MaintenanceExclusions["holidays"]
	if !ok || ex.StartTime != "2026-12-15T00:00:00Z" || ex.MaintenanceExclusionOptions == nil || ex.MaintenanceExclusionOptions.Scope != "NO_MINOR_UPGRADES" {
		t.Errorf("exclusion after gcloud: %+v", ex)
	}
}
