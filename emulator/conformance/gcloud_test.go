package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// gcloudTimeout bounds one gcloud command. gcloud polls operations every 5 wall seconds, so a
// mutation takes about 6 s however fast the emulated clock runs.
const gcloudTimeout = 60 * time.Second

// gcloud runs the real Google Cloud CLI under a configuration of its own.
type gcloud struct {
	*cli
	// kubeconfig is the file clusters create writes credentials to ($KUBECONFIG).
	kubeconfig string
}

// newGcloud points a fresh gcloud configuration (a temporary CLOUDSDK_CONFIG) at the emulator.
func newGcloud(t *testing.T, path, url string) *gcloud {
	t.Helper()
	dir := t.TempDir()
	g := &gcloud{kubeconfig: filepath.Join(dir, "kubeconfig")}
	g.cli = &cli{t: t, name: "gcloud", path: path, timeout: gcloudTimeout,
		env: append(environWithout("CLOUDSDK_", "KUBECONFIG="), "CLOUDSDK_CONFIG="+dir, "KUBECONFIG="+g.kubeconfig)}
	for _, kv := range [][2]string{
		{"api_endpoint_overrides/container", url + "/"},
		// clusters create first asks Service Usage whether the Kubernetes Engine API is enabled.
		{"api_endpoint_overrides/serviceusage", url + "/"},
		{"auth/disable_credentials", "true"},
		{"core/project", project},
		{"core/should_prompt_to_enable_api", "false"},
		{"component_manager/disable_update_check", "true"},
		{"core/disable_usage_reporting", "true"},
	} {
		g.ok("config", "set", kv[0], kv[1])
	}
	return g
}

// json runs a command with --format=json that must succeed and decodes its output into v.
func (g *gcloud) json(v any, args ...string) {
	g.t.Helper()
	out := g.ok(append(args, "--format=json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		g.t.Fatalf("gcloud %s: output is not the expected JSON (%v):\n%s", strings.Join(args, " "), err, out)
	}
}

// The parts of gcloud's JSON output the test reads.
type gcloudCluster struct {
	Name             string           `json:"name"`
	Status           string           `json:"status"`
	Location         string           `json:"location"`
	CurrentNodeCount int              `json:"currentNodeCount"`
	NodePools        []gcloudNodePool `json:"nodePools"`
}

type gcloudNodePool struct {
	Name             string `json:"name"`
	Status           string `json:"status"`
	InitialNodeCount int    `json:"initialNodeCount"`
	Version          string `json:"version"`
	Config           struct {
		MachineType string `json:"machineType"`
		DiskSizeGb  int    `json:"diskSizeGb"`
	} `json:"config"`
	InstanceGroupUrls []string `json:"instanceGroupUrls"`
}

func poolNamesOf(pools []gcloudNodePool) []string {
	var out []string
	for _, p := range pools {
		out = append(out, p.Name)
	}
	return out
}

// gcloud container clusters|node-pools against the emulator: gcloud waits for every operation
// itself, so each mutating command returns only once the emulator reports it DONE.
func TestGcloudContainerCommands(t *testing.T) {
	t.Parallel()
	path, err := exec.LookPath("gcloud")
	if err != nil {
		t.Skipf("gcloud is not installed (%v): install the Google Cloud CLI to run the gcloud conformance test", err)
	}
	_, url := startEmulator(t)
	g := newGcloud(t, path, url)
	where := []string{"--zone", zone}
	inCluster := append([]string{"--cluster", "conf-gcloud"}, where...)

	var created []gcloudCluster
	g.json(&created, append([]string{"container", "clusters", "create", "conf-gcloud", "--num-nodes", "2", "--machine-type", "e2-standard-4", "--quiet"}, where...)...)
	if len(created) != 1 || created[0].Name != "conf-gcloud" || created[0].Status != "RUNNING" || created[0].CurrentNodeCount != 2 {
		t.Fatalf("clusters create printed %+v, want conf-gcloud RUNNING with 2 nodes", created)
	}
	kubeconfig, err := os.ReadFile(g.kubeconfig)
	if err != nil || !bytes.Contains(kubeconfig, []byte("gke_"+project+"_"+zone+"_conf-gcloud")) {
		t.Errorf("clusters create did not write a kubeconfig entry into $KUBECONFIG (%v)", err)
	}

	var cl gcloudCluster
	g.json(&cl, append([]string{"container", "clusters", "describe", "conf-gcloud"}, where...)...)
	if cl.Status != "RUNNING" || cl.Location != zone || cl.CurrentNodeCount != 2 || len(cl.NodePools) != 1 ||
		cl.NodePools[0].Name != "default-pool" || cl.NodePools[0].InitialNodeCount != 2 || cl.NodePools[0].Config.MachineType != "e2-standard-4" {
		t.Fatalf("clusters describe: %+v", cl)
	}
	var list []gcloudCluster
	g.json(&list, "container", "clusters", "list")
	if len(list) != 1 || list[0].Name != "conf-gcloud" || list[0].CurrentNodeCount != 2 {
		t.Fatalf("clusters list: %+v", list)
	}

	var pools []gcloudNodePool
	g.json(&pools, append([]string{"container", "node-pools", "create", "pool-b", "--num-nodes", "1", "--machine-type", "e2-standard-2", "--quiet"}, inCluster...)...)
	if len(pools) != 1 || pools[0].Name != "pool-b" || pools[0].Status != "RUNNING" || pools[0].Config.MachineType != "e2-standard-2" {
		t.Fatalf("node-pools create printed %+v", pools)
	}
	var np gcloudNodePool
	g.json(&np, append([]string{"container", "node-pools", "describe", "pool-b"}, inCluster...)...)
	if np.Status != "RUNNING" || np.InitialNodeCount != 1 || np.Config.MachineType != "e2-standard-2" || np.Config.DiskSizeGb != 100 || len(np.InstanceGroupUrls) != 1 {
		t.Fatalf("node-pools describe: %+v", np)
	}
	g.json(&pools, append([]string{"container", "node-pools", "list"}, inCluster...)...)
	if names := poolNamesOf(pools); !slices.Equal(names, []string{"default-pool", "pool-b"}) {
		t.Fatalf("node-pools list: %v", names)
	}

	g.ok(append([]string{"container", "clusters", "resize", "conf-gcloud", "--node-pool", "pool-b", "--num-nodes", "3", "--quiet"}, where...)...)
	g.json(&cl, append([]string{"container", "clusters", "describe", "conf-gcloud"}, where...)...)
	if cl.CurrentNodeCount != 5 || cl.Status != "RUNNING" {
		t.Fatalf("after resizing pool-b to 3: cluster %s with %d nodes, want RUNNING with 2 + 3", cl.Status, cl.CurrentNodeCount)
	}

	g.ok(append([]string{"container", "node-pools", "delete", "pool-b", "--quiet"}, inCluster...)...)
	g.json(&pools, append([]string{"container", "node-pools", "list"}, inCluster...)...)
	if names := poolNamesOf(pools); !slices.Equal(names, []string{"default-pool"}) {
		t.Fatalf("node-pools list after delete: %v", names)
	}

	// gcloud reads the cluster's labelFingerprint and sends it with setResourceLabels, which
	// checks it as GKE does.
	g.ok(append([]string{"container", "clusters", "update", "conf-gcloud", "--update-labels", "team=platform", "--quiet"}, where...)...)
	var labelled struct {
		ResourceLabels   map[string]string `json:"resourceLabels"`
		LabelFingerprint string            `json:"labelFingerprint"`
	}
	g.json(&labelled, append([]string{"container", "clusters", "describe", "conf-gcloud"}, where...)...)
	if labelled.ResourceLabels["team"] != "platform" || len(labelled.LabelFingerprint) != 8 {
		t.Fatalf("after clusters update --update-labels: labels %v, labelFingerprint %q", labelled.ResourceLabels, labelled.LabelFingerprint)
	}

	// The emulator's validation reaches the user through gcloud, naming the field.
	_, stderr, err := g.run(append([]string{"container", "clusters", "create", "BadName", "--quiet"}, where...)...)
	if err == nil || !strings.Contains(stderr, "cluster.name") || !strings.Contains(stderr, "code=400") {
		t.Errorf("clusters create BadName: err %v, stderr:\n%s\nwant a failure naming cluster.name", err, stderr)
	}

	g.ok(append([]string{"container", "clusters", "delete", "conf-gcloud", "--quiet"}, where...)...)
	g.json(&list, "container", "clusters", "list")
	if len(list) != 0 {
		t.Fatalf("clusters list after delete: %+v", list)
	}
}

// `gcloud container clusters create-auto`, the documented way to create an Autopilot
// cluster, works: gcloud sends a default-pool beside autopilot.enabled, and the emulator (as
// GKE) accepts it and gives the cluster Autopilot's own default-pool; node pools of one's own
// are refused.
func TestGcloudCreateAutoAutopilot(t *testing.T) {
	t.Parallel()
	path, err := exec.LookPath("gcloud")
	if err != nil {
		t.Skipf("gcloud is not installed (%v): install the Google Cloud CLI to run the gcloud conformance test", err)
	}
	_, url := startEmulator(t)
	g := newGcloud(t, path, url)
	var created []struct {
		gcloudCluster
		Autopilot struct {
			Enabled bool `json:"enabled"`
		} `json:"autopilot"`
	}
	g.json(&created, "container", "clusters", "create-auto", "conf-auto", "--location", "us-central1", "--quiet")
	if len(created) != 1 || created[0].Status != "RUNNING" || !created[0].Autopilot.Enabled || created[0].Location != "us-central1" {
		t.Fatalf("clusters create-auto printed %+v, want conf-auto RUNNING in us-central1 with autopilot.enabled", created)
	}
	var pools []gcloudNodePool
	g.json(&pools, "container", "node-pools", "list", "--cluster", "conf-auto", "--location", "us-central1")
	if names := poolNamesOf(pools); !slices.Equal(names, []string{"default-pool"}) {
		t.Fatalf("node pools of the Autopilot cluster: %v, want Autopilot's default-pool", names)
	}
	_, stderr, err := g.run("container", "node-pools", "create", "mine", "--cluster", "conf-auto", "--location", "us-central1", "--quiet")
	if err == nil || !strings.Contains(stderr, "Autopilot") {
		t.Fatalf("node-pools create on Autopilot: err %v, stderr:\n%s\nwant refused", err, stderr)
	}
}
