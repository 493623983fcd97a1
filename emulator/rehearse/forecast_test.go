package rehearse

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// A forecast runs a change on a copy of the live simulation; the live simulation then makes the
// same change. The two must agree to the second and the pod: duration, phases, zones and batches,
// every drain and what held it, forced and pending pods, peak VMs, pauses for the window. For
// surge (default-pool), blue-green (db-pool), autoscaled blue-green (default-pool is
// autoscaled) and GKE's automatic upgrade, which waits for the 03:00 window (the snapshot is
// from 02:39:30) or, with the window moved to 01:00, is paused when it closes.
func TestForecastAgreesWithTheChange(t *testing.T) {
	autoscaledBG, err := ParseStrategy("autoscaled-blue-green:wait=1h")
	if err != nil {
		t.Fatal(err)
	}
	windowAt1 := func(c string) string { return strings.Replace(c, `"startTime": "03:00"`, `"startTime": "01:00"`, 1) }
	cases := []struct {
		name string
		o    Options
		edit func(cluster string) string
		// pauses is how many times the maintenance window holds the upgrade.
		pauses int
	}{
		{"surge", Options{Pool: "default-pool"}, nil, 0},
		{"blue-green", Options{Pool: "db-pool"}, nil, 0},
		{"autoscaled blue-green", Options{Pool: "default-pool", Strategy: autoscaledBG}, nil, 0},
		{"automatic, waits for the window", Options{Pool: "default-pool", Automatic: true}, nil, 1},
		{"automatic, paused when the window closes", Options{Pool: "default-pool", Automatic: true}, windowAt1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forecast := forecastThenChange(t, readFixture(t, tc.edit), tc.o, upgradeIn)
			if !forecast.Finished || forecast.DurationSeconds <= 0 || len(forecast.Drains) == 0 {
				t.Fatalf("forecast: finished %v after %gs, %d drains; want a finished upgrade that drained nodes", forecast.Finished, forecast.DurationSeconds, len(forecast.Drains))
			}
			if len(forecast.Pauses) != tc.pauses {
				t.Errorf("the forecast shows %d pauses for the maintenance window (%+v), want %d", len(forecast.Pauses), forecast.Pauses, tc.pauses)
			}
			if tc.pauses == 1 && tc.edit == nil && forecast.Started.Before(forecast.SnapshotTime.Truncate(24*time.Hour).Add(3*time.Hour)) {
				t.Errorf("the automatic upgrade's forecast starts at %s, before the 03:00 window", forecast.Started)
			}
			if tc.edit != nil && (len(forecast.Pauses) == 0 || forecast.Pauses[0].BeforeStart || forecast.Pauses[0].Done == 0) {
				t.Errorf("pauses %+v: want one in the middle of the upgrade, when the window closes", forecast.Pauses)
			}
			t.Logf("%s: %s, %d drains, %d forced, peak %d VMs", tc.name, dur(forecast.DurationSeconds), len(forecast.Drains), len(forecast.Forced), forecast.VMs.Peak)
		})
	}
}

// Changing the upgrade settings of a pool that is upgrading: GKE refuses any update of the
// cluster's pools while an operation upgrades it, and the forecast says so rather than
// inventing an outcome.
func TestForecastOfNewSettingsMidUpgrade(t *testing.T) {
	snap := shopSnapshot(t)
	live := sim.New(sim.Options{Seed: 3, Start: snap.Time()})
	if _, err := live.ImportSnapshot("shop-project", "", snap); err != nil {
		t.Fatal(err)
	}
	c := live.Cluster("shop-project", "europe-west1", "shop")
	if _, err := live.UpdateNodePool(c.Project, c.Location, c.Name, "default-pool", &api.UpdateNodePoolRequest{NodeVersion: "-"}); err != nil {
		t.Fatal(err)
	}
	live.RunUntil(live.Now().Add(30 * time.Minute))
	if c.Pool("default-pool").Upgrade == nil {
		t.Fatal("the upgrade is over before the settings change")
	}
	faster, err := ParseStrategy("surge:3/0")
	if err != nil {
		t.Fatal(err)
	}
	fork, err := live.Fork()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Forecast(fork, c.Project, c.Location, c.Name, Options{Pool: "default-pool", Update: &api.UpdateNodePoolRequest{UpgradeSettings: faster.Settings}})
	if err == nil || !strings.Contains(err.Error(), "the change of node pool default-pool cannot start: ") || !strings.Contains(err.Error(), "is currently upgrading cluster shop") {
		t.Fatalf("a forecast of new settings mid-upgrade: %v; want GKE's refusal while the upgrade runs", err)
	}
}

// Forecasts of a pool's size and autoscaling: they recreate no node, and agree with the change
// made right after. Shrinking default-pool from two nodes per zone to one drains three nodes
// (payments' maxUnavailable-0 budget holds one of them the full hour); growing it to three per
// zone adds three VMs; capping its autoscaling at one node per zone makes the autoscaler remove
// a node within the hour.
func TestForecastOfSizeAndAutoscaling(t *testing.T) {
	one, three := int32(1), int32(3)
	for _, tc := range []struct {
		name string
		o    Options
		// drains (at least) and peak are what the forecast must show.
		drains, peak int
	}{
		{"shrink", Options{Pool: "default-pool", Size: &one}, 3, 6},
		{"grow", Options{Pool: "default-pool", Size: &three}, 0, 9},
		{"autoscaling capped", Options{Pool: "default-pool", Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 1}}, 1, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forecast := forecastThenChange(t, shopSnapshot(t), tc.o, resizeIn)
			if forecast.RecreatesNodes || !forecast.Finished || len(forecast.Drains) < tc.drains || forecast.VMs.Peak != tc.peak {
				t.Errorf("%s: recreates %v, finished %v, %d drains, peak %d VMs; want no node recreated, finished, at least %d drains, peak %d",
					tc.name, forecast.RecreatesNodes, forecast.Finished, len(forecast.Drains), forecast.VMs.Peak, tc.drains, tc.peak)
			}
			var text strings.Builder
			if err := forecast.WriteText(&text); err != nil || !strings.Contains(text.String(), "Forecast of a change of node pool default-pool") {
				t.Errorf("text report (%v):\n%s", err, text.String())
			}
			t.Logf("%s: %s, %d drains, peak %d VMs, %d left pending", tc.name, dur(forecast.DurationSeconds), len(forecast.Drains), forecast.VMs.Peak, len(forecast.LeftPending))
		})
	}
	if _, err := Forecast(nil, "p", "l", "c", Options{Pool: "x", Size: new(int32), Update: &api.UpdateNodePoolRequest{}}); err == nil {
		t.Error("a forecast of two changes at once was not refused")
	}
}

// forecastThenChange imports snap into a live simulation, lets it settle a minute, forecasts o
// on a copy, checks that the forecast left the live simulation as it was, then makes the same
// change in the live simulation (change: upgradeIn or resizeIn) and checks that it did exactly
// what the forecast said. It returns the forecast.
func forecastThenChange(t *testing.T, snap *sim.Snapshot, o Options, change func(*sim.World, *sim.Cluster, Options, *Report) (*Report, error)) *Report {
	t.Helper()
	live := sim.New(sim.Options{Seed: 3, Start: snap.Time()})
	sum, err := live.ImportSnapshot("shop-project", "", snap)
	if err != nil {
		t.Fatal(err)
	}
	live.RunUntil(live.Now().Add(time.Minute))
	c := live.Cluster("shop-project", "europe-west1", "shop")
	if c == nil {
		t.Fatalf("no cluster after the import: %s", sum.Cluster)
	}
	before, _ := json.Marshal(live.State())
	fork, err := live.Fork()
	if err != nil {
		t.Fatal(err)
	}
	forecast, err := Forecast(fork, c.Project, c.Location, c.Name, o)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := json.Marshal(live.State()); string(after) != string(before) {
		t.Fatal("the forecast changed the live simulation")
	}
	actual, err := change(live, c, o, &Report{SnapshotTime: live.Now(), Forecast: true})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := json.MarshalIndent(forecast, "", " ")
	a, _ := json.MarshalIndent(actual, "", " ")
	if string(f) != string(a) {
		t.Fatalf("the forecast and the change differ:\nforecast %s\nchange   %s", f, a)
	}
	return forecast
}
