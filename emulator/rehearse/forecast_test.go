package rehearse

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// A forecast runs a change on a copy of the live simulation; the live simulation then makes the
// same change. The two must agree to the second and the pod: duration, phases, zones and batches,
// every drain and what held it, forced and pending pods, peak VMs, pauses for the window. For
// surge (default-pool), blue-green (db-pool) and GKE's automatic upgrade, which waits for the
// 03:00 window (the snapshot is from 02:39:30).
func TestForecastAgreesWithTheChange(t *testing.T) {
	cases := []struct {
		name string
		o    Options
	}{
		{"surge", Options{Pool: "default-pool"}},
		{"blue-green", Options{Pool: "db-pool"}},
		{"automatic, waits for the window", Options{Pool: "default-pool", Automatic: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			live := sim.New(sim.Options{Seed: 3, Start: shopSnapshot(t).Time()})
			sum, err := live.ImportSnapshot("shop-project", "", shopSnapshot(t))
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
			forecast, err := Forecast(fork, c.Project, c.Location, c.Name, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if after, _ := json.Marshal(live.State()); string(after) != string(before) {
				t.Fatal("the forecast changed the live simulation")
			}
			actual, err := upgradeIn(live, c, tc.o, &Report{SnapshotTime: live.Now(), Forecast: true})
			if err != nil {
				t.Fatal(err)
			}
			f, _ := json.MarshalIndent(forecast, "", " ")
			a, _ := json.MarshalIndent(actual, "", " ")
			if string(f) != string(a) {
				t.Fatalf("the forecast and the change differ:\nforecast %s\nchange   %s", f, a)
			}
			if !forecast.Finished || forecast.DurationSeconds <= 0 || len(forecast.Drains) == 0 {
				t.Fatalf("forecast: finished %v after %gs, %d drains; want a finished upgrade that drained nodes", forecast.Finished, forecast.DurationSeconds, len(forecast.Drains))
			}
			if tc.o.Automatic && forecast.Started.Before(forecast.SnapshotTime.Truncate(24*time.Hour).Add(3*time.Hour)) {
				t.Errorf("the automatic upgrade's forecast starts at %s, before the 03:00 window", forecast.Started)
			}
			t.Logf("%s: %s, %d drains, %d forced, peak %d VMs", tc.name, dur(forecast.DurationSeconds), len(forecast.Drains), len(forecast.Forced), forecast.VMs.Peak)
		})
	}
}
