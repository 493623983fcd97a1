package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// gkesim forecast upgrade prints what the upgrade of an imported cluster's pool would do, from a
// copy: the same report shape as rehearse upgrade, the pool unchanged afterwards; a change that
// recreates no node says so.
func TestForecastCommand(t *testing.T) {
	run := shopEmulatorCLI(t)
	run("import", "--cluster-json", fixtureCluster, "--objects-json", fixtureObjects)
	out := run("forecast", "upgrade", "--cluster", "shop", "--location", "europe-west1", "--node-pool", "default-pool")
	for _, want := range []string{"Forecast of the upgrade of node pool default-pool of cluster shop (europe-west1)",
		"Nodes recreated: version 1.33.5-gke.1308000 -> 1.34.1-gke.1829001", "Done: 6 nodes of default-pool in", "held 1h0m0s by default/payments"} {
		if !strings.Contains(out, want) {
			t.Errorf("forecast upgrade printed no %q:\n%s", want, out)
		}
	}
	if got := run("container", "node-pools", "list", "--cluster", "shop", "--location", "europe-west1"); !strings.Contains(got, "1.33.5-gke.1308000") {
		t.Errorf("node-pools list after the forecast:\n%s", got)
	}
	var r struct {
		RecreatesNodes bool     `json:"recreatesNodes"`
		Reasons        []string `json:"reasons"`
		VMs            struct {
			Peak int `json:"peak"`
		} `json:"vms"`
	}
	js := run("forecast", "upgrade", "--cluster", "shop", "--location", "europe-west1", "--node-pool", "default-pool",
		"--machine-type", "e2-standard-8", "--strategy", "surge:2/0", "--format", "json")
	// GKE's auto-upgrade waits for the 03:00 window (the snapshot is from 02:39:30).
	if got := run("forecast", "upgrade", "--cluster", "shop", "--location", "europe-west1", "--node-pool", "default-pool", "--automatic"); !strings.Contains(got, "Automatic (respects the maintenance policy) upgrade from 1.33.5-gke.1308000") ||
		!strings.Contains(got, "Maintenance policy") {
		t.Errorf("forecast of the automatic upgrade printed:\n%s", got)
	}
	if got := run("forecast", "upgrade", "--cluster", "shop", "--location", "europe-west1", "--node-pool", "default-pool", "--num-nodes", "1"); !strings.Contains(got, "it resizes node pool default-pool to 1 nodes per zone") ||
		!strings.Contains(got, "held 1h0m0s by default/payments") {
		t.Errorf("forecast of a resize printed:\n%s", got)
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil || !r.RecreatesNodes || len(r.Reasons) != 1 || r.Reasons[0] != "machine type e2-standard-4 -> e2-standard-8" || r.VMs.Peak != 8 {
		t.Errorf("forecast of a machine type change with surge 2/0 (%v): %+v; want the 6 nodes recreated for the machine type, peak 8 VMs\n%s", err, r, js)
	}
}
