package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/rehearse"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
)

// A forecast answers what a change of a node pool would do, from a copy: the pool, its
// operations and the clock are as they were; a change that replaces no node says so; a wrong
// cluster, pool or verb gets GKE's error envelope.
func TestForecastNodePoolChange(t *testing.T) {
	e := newEnv(t).WithBase()
	const forecast = "/emulator/v1/projects/proj/locations/us-central1-a/clusters/base/nodePools/pool-a:forecast"
	var before api.NodePool
	e.OK("GET", servertest.PoolA, nil, &before)
	clock := e.Advance(0).Now

	code, body := e.Call("POST", forecast, `{"update": {"machineType": "e2-standard-8", "upgradeSettings": {"maxSurge": 2}}}`)
	if code != http.StatusOK {
		t.Fatalf("forecast: HTTP %d %s", code, body)
	}
	var r rehearse.Report
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	want := "machine type " + before.Config.MachineType + " -> e2-standard-8"
	if !r.Forecast || !r.RecreatesNodes || !r.Finished || r.Nodes != 2 || len(r.Reasons) != 1 || r.Reasons[0] != want ||
		r.VMs.Peak != 4 || r.DurationSeconds <= 0 {
		t.Errorf("forecast: forecast %v, recreates %v (%q), finished %v, %d nodes, peak %d VMs, %gs; want 2 nodes recreated for %q, surge 2 (peak 4 VMs)",
			r.Forecast, r.RecreatesNodes, r.Reasons, r.Finished, r.Nodes, r.VMs.Peak, r.DurationSeconds, want)
	}
	var after api.NodePool
	e.OK("GET", servertest.PoolA, nil, &after)
	if after.Config.MachineType != before.Config.MachineType || after.Status != before.Status || e.Advance(0).Now != clock {
		t.Errorf("after the forecast the pool is %s %s, clock %s; want it untouched (%s %s, %s)", after.Config.MachineType, after.Status,
			e.Advance(0).Now, before.Config.MachineType, before.Status, clock)
	}
	var ops api.ListOperationsResponse
	e.OK("GET", servertest.LocPath+"/operations", nil, &ops)
	for _, op := range ops.Operations {
		if op.OperationType != api.OpCreateCluster {
			t.Errorf("the forecast left operation %s (%s)", op.Name, op.OperationType)
		}
	}

	code, body = e.Call("POST", forecast, `{"update": {"labels": {"labels": {"team": "a"}}}}`)
	if err := json.Unmarshal(body, &r); code != http.StatusOK || err != nil || r.RecreatesNodes || len(r.Reasons) != 1 || !strings.Contains(r.Reasons[0], "recreates none") {
		t.Errorf("a labels-only change: HTTP %d, recreates %v, reasons %q; want an answer that no node is recreated", code, r.RecreatesNodes, r.Reasons)
	}

	code, body = e.Call("POST", forecast, `{"nodeCount": 3}`)
	if err := json.Unmarshal(body, &r); code != http.StatusOK || err != nil || r.RecreatesNodes || !r.Finished || r.VMs.Before != 2 || r.VMs.Peak != 3 {
		t.Errorf("a resize to 3: HTTP %d, recreates %v, finished %v, VMs %d then peak %d; want 2 VMs growing to 3, none recreated: %s", code, r.RecreatesNodes, r.Finished, r.VMs.Before, r.VMs.Peak, body)
	}
	// GKE's automatic upgrade to the control plane's version, which the pool runs already: the
	// answer is the auto-upgrade's own refusal (gkesim forecast's test forecasts one that runs).
	code, body = e.Call("POST", forecast, `{"automatic": true, "update": {"nodeVersion": "-"}}`)
	servertest.WantError(t, code, body, 400, "FAILED_PRECONDITION", "failedPrecondition", "already runs", "an automatic upgrade needs a version it does not run")
	code, body = e.Call("POST", forecast, `{"automatic": true, "update": {"machineType": "e2-standard-8"}}`)
	servertest.WantError(t, code, body, 400, "INVALID_ARGUMENT", "badRequest", "an automatic upgrade changes the version only")
	code, body = e.Call("POST", forecast, `{"nodeCount": 3, "update": {"machineType": "e2-standard-8"}}`)
	servertest.WantError(t, code, body, 400, "INVALID_ARGUMENT", "badRequest", "forecast one change at a time")

	for _, tc := range []struct {
		path    string
		code    int
		status  string
		reason  string
		message string
	}{
		{strings.Replace(forecast, "/base/", "/nope/", 1), 404, "NOT_FOUND", "notFound", "clusters/nope"},
		{strings.Replace(forecast, "pool-a", "pool-z", 1), 404, "NOT_FOUND", "notFound", `has no node pool "pool-z"`},
		{strings.Replace(forecast, ":forecast", ":rollback", 1), 404, "NOT_FOUND", "notFound", "supported: forecast"},
	} {
		code, body := e.Call("POST", tc.path, `{}`)
		servertest.WantError(t, code, body, tc.code, tc.status, tc.reason, tc.message)
	}
}
