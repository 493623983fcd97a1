package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
	"github.com/gkesim/terraform-provider-gkesim/emulator/kubeconfig"
	"github.com/gkesim/terraform-provider-gkesim/emulator/rehearse"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
)

const roundTripWorkloads = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 256Mi}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: payments}
spec:
  replicas: 2
  selector: {matchLabels: {app: payments}}
  template:
    metadata: {labels: {app: payments}, annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: "false"}}
    spec:
      terminationGracePeriodSeconds: 120
      containers:
      - {name: payments, image: payments, resources: {requests: {cpu: 250m, memory: 128Mi}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: payments}
spec:
  maxUnavailable: 0
  selector: {matchLabels: {app: payments}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`

// exportCommand is what a user runs to print a cluster's objects for gkesim import.
var exportCommand = []string{"get", "nodes,pods,deployments,replicasets,statefulsets,daemonsets,pdb,services", "-A", "-o", "json"}

// The round trip: a cluster made in one emulator is printed with gcloud and kubectl themselves,
// imported into a fresh emulator, and printed again: the two prints hold the same objects, and
// an upgrade rehearsed from either gives the same event log.
func TestImportRoundTripThroughGcloudAndKubectl(t *testing.T) {
	gcloudPath, err := exec.LookPath("gcloud")
	if err != nil {
		t.Skipf("gcloud is not installed (%v): this test prints the cluster with the real gcloud", err)
	}
	kubectlPath, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH: this test prints the objects with the real kubectl")
	}
	region := "us-central1"
	e1, url1 := startEmulator(t)
	svc := goClient(t, url1)
	vt := catalog.VersionsAt(start)
	master := vt.DefaultFor(api.ChannelRegular)
	older := ""
	for _, v := range vt.Node {
		if v.Minor == master.Minor-1 && older == "" {
			older = v.String()
		}
	}
	op, err := svc.Projects.Locations.Clusters.Create("projects/"+project+"/locations/"+region, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: "trip", InitialClusterVersion: master.String(),
		NodePools: []*container.NodePool{
			{Name: "default-pool", InitialNodeCount: 1, Version: older, Config: &container.NodeConfig{MachineType: "e2-standard-4"},
				Management: &container.NodeManagement{AutoUpgrade: true, AutoRepair: true}},
			{Name: "spot", InitialNodeCount: 1, Version: older, Config: &container.NodeConfig{MachineType: "e2-standard-2", Spot: true},
				Management: &container.NodeManagement{AutoUpgrade: true, AutoRepair: true}},
		},
	}}).Do()
	if err != nil {
		t.Fatalf("clusters.create: %v", err)
	}
	waitOperation(t, svc, op)
	cl := getCluster(t, svc, "projects/"+project+"/locations/"+region+"/clusters/trip")

	// The workloads, with kubectl.
	dir := t.TempDir()
	kubectl := func(url string, name string) *kubectl {
		server, err := kubeconfig.ServerURL(url, strings.Replace(cl.Endpoint, strings.TrimPrefix(url1, "http://"), strings.TrimPrefix(url, "http://"), 1), false)
		if err != nil {
			t.Fatal(err)
		}
		kc := filepath.Join(dir, name+".kubeconfig")
		if _, err := kubeconfig.Write(kc, kubeconfig.Cluster{Project: project, Location: region, Name: "trip", Server: server}); err != nil {
			t.Fatal(err)
		}
		return newKubectl(t, kubectlPath, kc)
	}
	k1 := kubectl(url1, "one")
	manifest := filepath.Join(dir, "workloads.yaml")
	if err := os.WriteFile(manifest, []byte(roundTripWorkloads), 0o600); err != nil {
		t.Fatal(err)
	}
	k1.ok("create", "-f", manifest)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var pods struct {
			Items []struct {
				Status struct{ Phase string } `json:"status"`
			} `json:"items"`
		}
		k1.json(&pods, "get", "pods", "-l", "app in (web,payments)")
		running := 0
		for _, p := range pods.Items {
			if p.Status.Phase == "Running" {
				running++
			}
		}
		if running == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 6 pods running after 30 s", running)
		}
	}
	freeze(t, e1)
	time.Sleep(50 * time.Millisecond) // let the load balancer's last sync land

	// Print it as a user would, and import it into a fresh emulator at the same emulated time.
	g := newGcloud(t, gcloudPath, url1)
	clusterJSON := g.ok("container", "clusters", "describe", "trip", "--region", region, "--format", "json")
	objects1 := k1.ok(exportCommand...)
	now := emulatorNow(t, url1)
	_, url2 := emulatortest.Start(t, emulator.Options{TimeScale: 0, Seed: 99, Start: now})
	sum := postImport(t, url2, clusterJSON, objects1)
	if sum.Cluster != "projects/"+project+"/locations/"+region+"/clusters/trip" || sum.ImportTime != now.Format(time.RFC3339) {
		t.Errorf("imported %s at %s, want at %s", sum.Cluster, sum.ImportTime, now.Format(time.RFC3339))
	}

	// The same objects, printed by kubectl from either emulator.
	objects2 := kubectl(url2, "two").ok(exportCommand...)
	want, got := normalizeKubectl(t, objects1), normalizeKubectl(t, objects2)
	if len(want) < 20 {
		t.Fatalf("only %d objects printed", len(want))
	}
	for _, key := range sortedMapKeys(want) {
		switch {
		case got[key] == "":
			t.Errorf("%s: missing after the import", key)
		case got[key] != want[key]:
			t.Errorf("%s differs after the import:\n%s", key, firstDifference(want[key], got[key]))
		}
	}
	for key := range got {
		if want[key] == "" {
			t.Errorf("%s: appeared with the import", key)
		}
	}

	// The same rehearsal from either print: the same event log, entry by entry.
	g.ok("config", "set", "api_endpoint_overrides/container", url2+"/")
	cluster2 := g.ok("container", "clusters", "describe", "trip", "--region", region, "--format", "json")
	logs := make([][]*api.Event, 2)
	for i, objs := range []struct{ cluster, objects string }{{clusterJSON, objects1}, {cluster2, objects2}} {
		snap, err := sim.ReadSnapshot(&api.ImportClusterRequest{Cluster: json.RawMessage(objs.cluster), Objects: json.RawMessage(objs.objects)})
		if err != nil {
			t.Fatal(err)
		}
		r, err := rehearse.Run(snap, rehearse.Options{Pool: "default-pool", Seed: 5, KeepLog: true})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Finished || r.Nodes != 3 || r.HeldDrains() != 1 || r.ForcedBy(rehearse.ForcedPDBTimeout) != 1 {
			t.Errorf("rehearsal %d: finished %v, %d nodes, %d held drains, %d forced", i+1, r.Finished, r.Nodes, r.HeldDrains(), r.ForcedBy(rehearse.ForcedPDBTimeout))
		}
		logs[i] = r.Log
	}
	if len(logs[0]) < 40 || len(logs[0]) != len(logs[1]) {
		t.Fatalf("event logs of %d and %d entries", len(logs[0]), len(logs[1]))
	}
	for i := range logs[0] {
		a, b := *logs[0][i], *logs[1][i]
		if a != b {
			t.Fatalf("the rehearsals' event logs part at entry %d:\n%+v\n%+v", i, a, b)
		}
	}
	t.Logf("%d objects, %d events of the rehearsal alike", len(want), len(logs[0]))
}

func emulatorNow(t *testing.T, url string) time.Time {
	t.Helper()
	var clock api.Clock
	getJSON(t, url+"/emulator/v1/clock", &clock)
	now, err := time.Parse(time.RFC3339Nano, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return now.UTC()
}

func postImport(t *testing.T, url, cluster, objects string) *api.ImportSummary {
	t.Helper()
	body, _ := json.Marshal(map[string]json.RawMessage{"cluster": json.RawMessage(cluster), "objects": json.RawMessage(objects)})
	req, _ := http.NewRequestWithContext(context.Background(), "POST", url+"/emulator/v1/projects/"+project+"/locations/us-central1/clusters:import", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("clusters:import: HTTP %d: %s", resp.StatusCode, raw)
	}
	var sum api.ImportSummary
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	return &sum
}

// normalizeKubectl keys kubectl's printed objects by kind and name, without their resource
// versions (counters of each emulator).
func normalizeKubectl(t *testing.T, out string) map[string]string {
	t.Helper()
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	res := map[string]string{}
	for _, it := range list.Items {
		md := it["metadata"].(map[string]any)
		delete(md, "resourceVersion")
		ns, _ := md["namespace"].(string)
		b, _ := json.Marshal(it)
		res[fmt.Sprintf("%s %s", it["kind"], strings.TrimPrefix(ns+"/"+md["name"].(string), "/"))] = string(b)
	}
	return res
}

func sortedMapKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-100, 0)
	return "want ..." + a[from:min(len(a), i+100)] + "\ngot  ..." + b[from:min(len(b), i+100)]
}
