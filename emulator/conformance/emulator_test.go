package conformance

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

const (
	project = "proj"
	zone    = "us-central1-a"
	// timeScale makes a zonal cluster (about five emulated minutes) come up in a fraction of
	// a wall second.
	timeScale = 2000
)

var start = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// TestMain lets up to six tests run at once (each has an emulator, and a gcloud configuration
// or kubectl home, of its own), unless -parallel says otherwise: the gcloud tests spend most of
// their time in gcloud's own five-second polls of operations, not on the CPU, so with go
// test's default of one test per CPU they would mostly wait one after another.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", "6")
	}
	os.Exit(m.Run())
}

// startEmulator runs an emulator in-process on a loopback port and returns it and its URL.
func startEmulator(t *testing.T) (*emulator.Emulator, string) {
	t.Helper()
	return emulatortest.Start(t, emulator.Options{TimeScale: timeScale, Seed: 11, Start: start})
}

// freeze stops the emulated clock until the returned function is called, so that an
// operation stays in flight for as long as a test needs it to.
func freeze(t *testing.T, e *emulator.Emulator) (thaw func()) {
	t.Helper()
	if err := e.Runner.SetTimeScale(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if err := e.Runner.SetTimeScale(context.Background(), timeScale); err != nil {
			t.Fatal(err)
		}
	}
}

// k8sNode is what the tests read of a Kubernetes Node.
type k8sNode struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}

// k8sNodes lists the nodes of a pool, sorted by name, through the cluster's Kubernetes-shaped
// endpoint (a bare host/path, as GKE's endpoint field is).
func k8sNodes(t *testing.T, endpoint, pool string) []k8sNode {
	t.Helper()
	resp, err := http.Get("http://" + endpoint + "/api/v1/nodes")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s/api/v1/nodes: HTTP %d", endpoint, resp.StatusCode)
	}
	var list struct {
		Items []struct {
			Metadata k8sNode `json:"metadata"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	var out []k8sNode
	for _, it := range list.Items {
		if it.Metadata.Labels["cloud.google.com/gke-nodepool"] == pool {
			out = append(out, it.Metadata)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
