package provider

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

func standardModel(pct types.Float64, count types.Int64, soak string) upgradeSettingsModel {
	return upgradeSettingsModel{
		Strategy: types.StringValue(strategyBlueGreen), MaxSurge: types.Int64Value(1), MaxUnavailable: types.Int64Value(0),
		BlueGreenSettings: []blueGreenSettingsModel{{
			NodePoolSoakDuration:  types.StringValue("3600s"),
			StandardRolloutPolicy: []standardRolloutPolicyModel{{BatchPercentage: pct, BatchNodeCount: count, BatchSoakDuration: types.StringValue(soak)}},
		}},
	}
}

// The whole upgradeSettings goes: GKE's current one with the plan on top, the unused member of
// each oneof dropped, a batch size of 0 sent (it skips the drain phase, R-BG-3).
func TestExpandUpgradeSettings(t *testing.T) {
	current := &container.UpgradeSettings{Strategy: strategyBlueGreen, MaxSurge: 3, MaxUnavailable: 2, BlueGreenSettings: &container.BlueGreenSettings{
		NodePoolSoakDuration:  "7200s",
		StandardRolloutPolicy: &container.StandardRolloutPolicy{BatchNodeCount: 4, BatchSoakDuration: "60s"},
	}}
	cases := []struct {
		name    string
		plan    upgradeSettingsModel
		current *container.UpgradeSettings
		want    string
	}{
		{"percentage replaces the count", standardModel(types.Float64Value(0.25), types.Int64Null(), "0s"), current,
			`{"blueGreenSettings":{"nodePoolSoakDuration":"3600s","standardRolloutPolicy":{"batchPercentage":0.25,"batchSoakDuration":"0s"}},"maxSurge":1,"maxUnavailable":0,"strategy":"BLUE_GREEN"}`},
		{"a batch of 0 is sent", standardModel(types.Float64Null(), types.Int64Value(0), "0s"), nil,
			`{"blueGreenSettings":{"nodePoolSoakDuration":"3600s","standardRolloutPolicy":{"batchNodeCount":0,"batchSoakDuration":"0s"}},"maxSurge":1,"maxUnavailable":0,"strategy":"BLUE_GREEN"}`},
		{"no blue_green_settings block keeps GKE's", upgradeSettingsModel{Strategy: types.StringValue(strategyBlueGreen), MaxSurge: types.Int64Value(3), MaxUnavailable: types.Int64Value(2)}, current,
			`{"blueGreenSettings":{"nodePoolSoakDuration":"7200s","standardRolloutPolicy":{"batchNodeCount":4,"batchSoakDuration":"60s"}},"maxSurge":3,"maxUnavailable":2,"strategy":"BLUE_GREEN"}`},
		{"surge drops blue-green", upgradeSettingsModel{Strategy: types.StringValue(strategySurge), MaxSurge: types.Int64Value(0), MaxUnavailable: types.Int64Value(2)}, current,
			`{"maxSurge":0,"maxUnavailable":2,"strategy":"SURGE"}`},
		{"autoscaled drops the standard policy and the soak", upgradeSettingsModel{Strategy: types.StringValue(strategyBlueGreen), MaxSurge: types.Int64Value(1), MaxUnavailable: types.Int64Value(0),
			BlueGreenSettings: []blueGreenSettingsModel{{NodePoolSoakDuration: types.StringNull(),
				AutoscaledRolloutPolicy: []autoscaledRolloutPolicyModel{{WaitForDrainDuration: types.StringValue("600s")}}}}}, current,
			`{"blueGreenSettings":{"autoscaledRolloutPolicy":{"waitForDrainDuration":"600s"}},"maxSurge":1,"maxUnavailable":0,"strategy":"BLUE_GREEN"}`},
	}
	for _, tc := range cases {
		b, err := json.Marshal(expandUpgradeSettings(tc.plan, tc.current))
		if err != nil || string(b) != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.name, b, err, tc.want)
		}
	}
}

// The Go client reads a batch member set to 0 as absent: the member the configuration uses is
// the one that reads back; durations keep the configuration's spelling.
func TestFlattenUpgradeSettings(t *testing.T) {
	gke := &container.UpgradeSettings{Strategy: strategyBlueGreen, MaxSurge: 1, BlueGreenSettings: &container.BlueGreenSettings{
		NodePoolSoakDuration: "3600s", StandardRolloutPolicy: &container.StandardRolloutPolicy{BatchSoakDuration: "0s"}}}
	pct := flattenUpgradeSettings(gke, []upgradeSettingsModel{standardModel(types.Float64Value(0), types.Int64Null(), "0.0s")}, blocksAsConfigured)
	sp := pct[0].BlueGreenSettings[0].StandardRolloutPolicy[0]
	if !sp.BatchPercentage.Equal(types.Float64Value(0)) || !sp.BatchNodeCount.IsNull() || sp.BatchSoakDuration.ValueString() != "0.0s" {
		t.Errorf("batch_percentage = 0 read back as %+v", sp)
	}
	count := flattenUpgradeSettings(gke, []upgradeSettingsModel{standardModel(types.Float64Null(), types.Int64Value(0), "0s")}, blocksAsConfigured)
	if sp := count[0].BlueGreenSettings[0].StandardRolloutPolicy[0]; !sp.BatchNodeCount.Equal(types.Int64Value(0)) || !sp.BatchPercentage.IsNull() {
		t.Errorf("batch_node_count = 0 read back as %+v", sp)
	}
	// Without a configured block nothing is read, unless importing with non-default settings.
	def := &container.UpgradeSettings{Strategy: strategySurge, MaxSurge: 1}
	if got := flattenUpgradeSettings(def, nil, blocksOnImport); len(got) != 0 {
		t.Errorf("GKE's default settings imported as %+v, want no block", got)
	}
	if got := flattenUpgradeSettings(gke, nil, blocksAsConfigured); len(got) != 0 {
		t.Errorf("settings read without a block in the configuration: %+v", got)
	}
	if got := flattenUpgradeSettings(gke, nil, blocksOnImport); len(got) != 1 || len(got[0].BlueGreenSettings) != 1 || len(got[0].BlueGreenSettings[0].AutoscaledRolloutPolicy) != 0 {
		t.Errorf("blue-green settings imported as %+v", got)
	}
}

// The status of a pool from its updateInfo and operations: in the soak, paused, surging, at rest.
func TestUpgradeStatusFill(t *testing.T) {
	bgPool := &container.NodePool{UpgradeSettings: &container.UpgradeSettings{Strategy: strategyBlueGreen},
		UpdateInfo: &container.UpdateInfo{BlueGreenInfo: &container.BlueGreenInfo{Phase: phaseSoaking, GreenPoolVersion: "1.36.6-gke.2078000",
			BluePoolDeletionStartTime: "2026-11-03T10:00:00Z", BlueInstanceGroupUrls: []string{"b"}, GreenInstanceGroupUrls: []string{"g"}}}}
	bgOp := &container.Operation{Name: "operation-1", Status: "RUNNING", StartTime: "2026-11-02T09:00:00Z",
		Detail:   "Upgrading node pool web (version 1.36.5-gke.1101000 -> 1.36.6-gke.2078000, blue-green): 2 of 2 nodes done; NODE_POOL_SOAKING; ETA 2026-11-03T10:02:00Z",
		Progress: &container.OperationProgress{Metrics: []*container.Metric{{Name: "nodes done", IntValue: 2}, {Name: "nodes total", IntValue: 2}, {Name: "phase", StringValue: phaseSoaking}}}}
	cancelled := *bgOp
	cancelled.Status = "DONE"
	surgeOp := &container.Operation{Name: "operation-2", Status: "RUNNING",
		Detail:   "Upgrading node pool web (version 1.36.5-gke.1101000 -> 1.36.6-gke.2078000, surge): 1 of 3 nodes done; us-central1-b; ETA 2026-11-02T09:10:00Z",
		Progress: &container.OperationProgress{Metrics: []*container.Metric{{Name: "nodes done", IntValue: 1}, {Name: "nodes total", IntValue: 3}, {Name: "zone", StringValue: "us-central1-b"}}}}
	cases := []struct {
		name                        string
		pool                        *container.NodePool
		ops                         []*container.Operation
		inProgress, paused          bool
		phase, op, eta, zone, check string
	}{
		{"soaking", bgPool, []*container.Operation{bgOp}, true, false, phaseSoaking, "operation-1", "2026-11-03T10:02:00Z", "", "1.36.6-gke.2078000"},
		{"paused", bgPool, []*container.Operation{&cancelled}, false, true, phaseSoaking, "operation-1", "", "", "1.36.6-gke.2078000"},
		{"surge", &container.NodePool{}, []*container.Operation{{Name: "operation-0", Status: "DONE"}, surgeOp}, true, false, "", "operation-2", "2026-11-02T09:10:00Z", "us-central1-b", "1.36.6-gke.2078000"},
		{"at rest", &container.NodePool{}, []*container.Operation{{Name: "operation-0", Status: "DONE"}}, false, false, "", "", "", "", ""},
	}
	for _, tc := range cases {
		var m upgradeStatusModel
		var diags diag.Diagnostics
		m.fill(context.Background(), tc.pool, tc.ops, client.ZoneVersions{"us-central1-a": {"1.36.5-gke.1101000": 2}}, &diags)
		if diags.HasError() || m.InProgress.ValueBool() != tc.inProgress || m.Paused.ValueBool() != tc.paused || m.Phase.ValueString() != tc.phase ||
			m.Operation.ValueString() != tc.op || m.ETA.ValueString() != tc.eta || m.CurrentZone.ValueString() != tc.zone || m.TargetVersion.ValueString() != tc.check ||
			len(m.Zones) != 1 || m.NodesByVersion.Elements()["1.36.5-gke.1101000"] == nil {
			t.Errorf("%s: %+v %v", tc.name, m, diags)
		}
	}
}
