package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

const (
	fixtureCluster = "../../testdata/snapshot/shop-cluster.json"
	fixtureObjects = "../../testdata/snapshot/shop-objects.json"
)

// gkesim import recreates the fixture's cluster; rehearse upgrade rehearses on it without
// changing it, from the emulator or from the files alike.
func TestImportAndRehearseCommands(t *testing.T) {
	run := shopEmulatorCLI(t)
	out := run("import", "--cluster-json", fixtureCluster, "--objects-json", fixtureObjects)
	for _, want := range []string{"Imported projects/shop-prod/locations/europe-west1/clusters/shop", "11 Node", "78 Pod", "1 StatefulSet",
		"Approximations:", "StatefulSet default/db", "Node gke-shop-default-pool-3f9a6c2e-7k2p (disktype)"} {
		if !strings.Contains(out, want) {
			t.Errorf("gkesim import printed no %q:\n%s", want, out)
		}
	}
	if got := run("container", "clusters", "list"); !strings.Contains(got, "shop  europe-west1  1.34.1-gke.1829001") {
		t.Errorf("clusters list:\n%s", got)
	}

	fromEmulator := run("rehearse", "upgrade", "--cluster", "shop", "--location", "europe-west1", "--node-pool", "default-pool")
	fromFiles := run("rehearse", "upgrade", "--cluster-json", fixtureCluster, "--objects-json", fixtureObjects, "--node-pool", "default-pool")
	if fromEmulator != fromFiles {
		t.Errorf("the rehearsal on the emulator's cluster and on the files differ:\n%s\n%s", fromEmulator, fromFiles)
	}
	for _, want := range []string{"Done: 6 nodes of default-pool in 3h14m23s", "held 1h0m0s by default/payments", "left Pending: ssd-cache-"} {
		if !strings.Contains(fromEmulator, want) {
			t.Errorf("rehearse upgrade printed no %q:\n%s", want, fromEmulator)
		}
	}
	// Nothing changed in the emulator: the pool still runs its old version.
	if got := run("container", "node-pools", "list", "--cluster", "shop", "--location", "europe-west1"); !strings.Contains(got, "1.33.5-gke.1308000") {
		t.Errorf("node-pools list after the rehearsal:\n%s", got)
	}

	var reports []map[string]any
	js := run("rehearse", "upgrade", "--cluster", "shop", "--location", "europe-west1", "--node-pool", "default-pool",
		"--compare", "--strategy", "surge:1/0", "--strategy", "surge:3/0", "--strategy", "blue-green:25%", "--format", "json")
	if err := json.Unmarshal([]byte(js), &reports); err != nil || len(reports) != 3 {
		t.Fatalf("--compare --format json: %v\n%s", err, js)
	}
	if reports[1]["label"] != "surge 3/0" || reports[2]["vms"].(map[string]any)["peakExtra"].(float64) != 6 {
		t.Errorf("reports %v / %v", reports[1]["label"], reports[2]["vms"])
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if got := run("rehearse", "upgrade", "--cluster", "shop", "--location", "europe-west1", "--node-pool", "db-pool", "--format", "html", "--output", page); !strings.Contains(got, "wrote "+page) {
		t.Errorf("--output: %s", got)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "DELETING_BLUE_POOL") {
		t.Errorf("report.html: %v", err)
	}
}

// The objects sent to the emulator keep what the import reads and drop the rest: a Secret
// goes by kind and name only (its data never leaves the machine), managed fields go.
func TestImportSendsWhatItReads(t *testing.T) {
	doc := `{"apiVersion":"v1","kind":"List","items":[
	{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"default","managedFields":[{"manager":"x"}]},"data":{"password":"aHVudGVyMg=="}},
	{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"default"},"data":{"big":"xxxxxxxx"}},
	{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","managedFields":[{"manager":"kubectl"}],
	  "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{...}","keep":"me"}},"spec":{"nodeName":"n"}}]}`
	typed := `{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"n1"},"spec":{}}]}`
	got, err := compactObjects([][]byte{[]byte(doc), []byte(typed)})
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, gone := range []string{"aHVudGVyMg", "xxxxxxxx", "managedFields", "last-applied-configuration"} {
		if strings.Contains(s, gone) {
			t.Errorf("%q was sent: %s", gone, s)
		}
	}
	for _, kept := range []string{`"kind":"Secret"`, `"name":"db"`, `"keep":"me"`, `"nodeName":"n"`, `"kind":"Node"`, `"name":"n1"`} {
		if !strings.Contains(s, kept) {
			t.Errorf("%q was not sent: %s", kept, s)
		}
	}
}

// shopEmulatorCLI starts an emulator frozen at the shop fixture's morning (2026-03-10 02:00 UTC)
// and returns a function that runs gkesim's CLI against it (project shop-prod) and returns
// what it printed, failing the test on an error.
func shopEmulatorCLI(t *testing.T) func(args ...string) string {
	_, url := emulatortest.Start(t, emulator.Options{TimeScale: 0, Seed: 3, Start: time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC)})
	return func(args ...string) string {
		t.Helper()
		var out strings.Builder
		cmd := newRootCmd(&out, &out)
		cmd.SetArgs(append([]string{"--endpoint", url, "--project", "shop-prod"}, args...))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("gkesim %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
}
