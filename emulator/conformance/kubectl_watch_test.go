package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/kubeconfig"
)

// kubectlOnCluster creates a zonal cluster of three e2-standard-4 nodes and returns kubectl
// on the kubeconfig get-credentials writes for it, the GKE client and the pool's name.
func kubectlOnCluster(t *testing.T, name string) (*kubectl, *container.Service, string) {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH: this test drives the real kubectl against the emulator")
	}
	_, url := startEmulator(t)
	svc := goClient(t, url)
	loc := "projects/" + project + "/locations/" + zone
	op, err := svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: name, NodePools: []*container.NodePool{{Name: "default-pool", InitialNodeCount: 3,
			Config: &container.NodeConfig{MachineType: "e2-standard-4"}}},
	}}).Do()
	if err != nil {
		t.Fatalf("clusters.create: %v", err)
	}
	waitOperation(t, svc, op)
	cl := getCluster(t, svc, loc+"/clusters/"+name)
	kc := filepath.Join(t.TempDir(), "config")
	server, err := kubeconfig.ServerURL(url, cl.Endpoint, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubeconfig.Write(kc, kubeconfig.Cluster{Project: project, Location: zone, Name: cl.Name, Server: server}); err != nil {
		t.Fatal(err)
	}
	return newKubectl(t, path, kc), svc, loc + "/clusters/" + name + "/nodePools/default-pool"
}

// lockedBuffer is a command's output, read while the command writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// background starts a long-running kubectl command (a watch) and returns its output so far;
// it is stopped when the test ends.
func (k *kubectl) background(args ...string) *lockedBuffer {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, k.path, args...)
	cmd.Env = k.env
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		cancel()
		k.t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	k.t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return out
}

// eventually waits (30 wall seconds at most) for cond about a running command's output.
func eventually(t *testing.T, what string, out *lockedBuffer, cond func(string) bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond(out.String()) {
			return
		}
	}
	t.Fatalf("%s: not seen in 30 s; the output was:\n%s", what, out.String())
}

// watchEvents decodes what `kubectl get -w --output-watch-events -o json` printed so far: a
// WatchEvent per object of the first list (ADDED) and per change, as type and name.
func watchEvents(out string) (events [][2]string) {
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if dec.Decode(&ev) != nil {
			return events
		}
		events = append(events, [2]string{ev.Type, ev.Object.Metadata.Name})
	}
}

// kubectl get -w sees every node of a surge upgrade come and go: the pool's three nodes are
// replaced (a machine-type change recreates them, R-UPG-1) and the watch started before shows
// each new node ADDED once and each old one DELETED once, as the event log has them.
func TestKubectlWatchesASurgeUpgrade(t *testing.T) {
	t.Parallel()
	k, svc, pool := kubectlOnCluster(t, "watch")
	var before corev1.NodeList
	k.json(&before, "get", "nodes")
	out := k.background("get", "nodes", "--watch", "--output-watch-events", "-o", "json")
	eventually(t, "the watch's first list", out, func(s string) bool { return len(watchEvents(s)) >= 3 })

	op, err := svc.Projects.Locations.Clusters.NodePools.Update(pool, &container.UpdateNodePoolRequest{MachineType: "e2-standard-8"}).Do()
	if err != nil {
		t.Fatalf("nodePools.update: %v", err)
	}
	waitOperation(t, svc, op)
	var after corev1.NodeList
	k.json(&after, "get", "nodes")
	var oldNames, newNames []string
	for _, n := range before.Items {
		oldNames = append(oldNames, n.Name)
	}
	for _, n := range after.Items {
		newNames = append(newNames, n.Name)
		if n.Labels["node.kubernetes.io/instance-type"] != "e2-standard-8" || slices.Contains(oldNames, n.Name) {
			t.Fatalf("node %s after the upgrade: %s, want a new e2-standard-8 node", n.Name, n.Labels["node.kubernetes.io/instance-type"])
		}
	}
	eventually(t, "every old node DELETED", out, func(s string) bool {
		n := 0
		for _, e := range watchEvents(s) {
			if e[0] == "DELETED" {
				n++
			}
		}
		return n >= len(oldNames)
	})
	count := map[[2]string]int{}
	for _, e := range watchEvents(out.String()) {
		count[e]++
	}
	for _, n := range oldNames {
		if count[[2]string{"ADDED", n}] != 1 || count[[2]string{"DELETED", n}] != 1 {
			t.Errorf("old node %s: ADDED %d times, DELETED %d times, want once each (the first list, then its deletion)",
				n, count[[2]string{"ADDED", n}], count[[2]string{"DELETED", n}])
		}
	}
	for _, n := range newNames {
		if count[[2]string{"ADDED", n}] != 1 || count[[2]string{"DELETED", n}] != 0 {
			t.Errorf("new node %s: ADDED %d times, DELETED %d times, want ADDED once", n, count[[2]string{"ADDED", n}], count[[2]string{"DELETED", n}])
		}
	}
	if len(count) == 0 || t.Failed() {
		t.Logf("the watch saw %v", watchEvents(out.String()))
	}
}

// An ordinary app manifest through kubectl as a pipeline would drive it: apply (client-side,
// then server-side), rollout status until the rollout is done, wait for Ready, a new image and
// its rollout, rollout history and undo, describe, delete and wait for the pods to be gone.
func TestKubectlApplyRolloutWaitDelete(t *testing.T) {
	t.Parallel()
	k, _, _ := kubectlOnCluster(t, "apps")
	const app = "../../examples/kubectl/app.yaml"
	out := k.ok("apply", "-f", app)
	for _, want := range []string{"configmap/shop-config created", "serviceaccount/shop created", "deployment.apps/shop created", "service/shop created"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl apply -f: no %q in\n%s", want, out)
		}
	}
	if out := k.ok("rollout", "status", "deployment/shop", "--timeout=60s"); !strings.Contains(out, `deployment "shop" successfully rolled out`) {
		t.Fatalf("kubectl rollout status:\n%s", out)
	}
	if out := k.ok("wait", "--for=condition=Ready", "pod", "-l", "app=shop", "--timeout=60s"); strings.Count(out, "condition met") != 3 {
		t.Fatalf("kubectl wait --for=condition=Ready: want 3 pods, got\n%s", out)
	}
	if out := k.ok("apply", "--server-side", "-f", app); strings.Count(out, "serverside-applied") != 4 {
		t.Errorf("kubectl apply --server-side: want 4 objects applied, got\n%s", out)
	}

	k.ok("set", "image", "deployment/shop", "shop=nginx:1.28")
	if out := k.ok("rollout", "status", "deployment/shop", "--timeout=60s"); !strings.Contains(out, `deployment "shop" successfully rolled out`) {
		t.Fatalf("kubectl rollout status after set image:\n%s", out)
	}
	var history [][]string // REVISION CHANGE-CAUSE rows, after a title and a header
	for _, r := range rows(k.ok("rollout", "history", "deployment/shop")) {
		if len(r) > 0 && r[0] != "REVISION" {
			history = append(history, r)
		}
	}
	if len(history) != 2 || history[0][0] != "1" || history[1][0] != "2" {
		t.Errorf("kubectl rollout history: %v, want revisions 1 and 2", history)
	}
	var pods corev1.PodList
	k.json(&pods, "get", "pods", "-l", "app=shop")
	if len(pods.Items) != 3 {
		t.Fatalf("%d pods after the rollout, want 3", len(pods.Items))
	}
	for _, p := range pods.Items {
		if p.Spec.Containers[0].Image != "nginx:1.28" {
			t.Errorf("pod %s runs %s after the rollout, want nginx:1.28", p.Name, p.Spec.Containers[0].Image)
		}
	}
	// rollout undo goes back to revision 1's template, which becomes revision 3.
	k.ok("rollout", "undo", "deployment/shop")
	if out := k.ok("rollout", "status", "deployment/shop", "--timeout=60s"); !strings.Contains(out, `deployment "shop" successfully rolled out`) {
		t.Fatalf("kubectl rollout status after undo:\n%s", out)
	}
	var undone corev1.PodList
	k.json(&undone, "get", "pods", "-l", "app=shop")
	for _, p := range undone.Items {
		if p.Spec.Containers[0].Image != "nginx:1.27" {
			t.Errorf("pod %s runs %s after rollout undo, want nginx:1.27 again", p.Name, p.Spec.Containers[0].Image)
		}
	}
	history = nil
	for _, r := range rows(k.ok("rollout", "history", "deployment/shop")) {
		if len(r) > 0 && r[0] != "REVISION" {
			history = append(history, r)
		}
	}
	if len(history) != 2 || history[0][0] != "2" || history[1][0] != "3" {
		t.Errorf("kubectl rollout history after undo: %v, want revisions 2 and 3", history)
	}
	pods = undone
	describe := k.ok("describe", "deployment", "shop")
	for _, want := range []string{"Replicas:", "3 desired | 3 updated | 3 total | 3 available | 0 unavailable", "Conditions:", "NewReplicaSet:", "shop-"} {
		if !strings.Contains(describe, want) {
			t.Errorf("kubectl describe deployment: no %q in\n%s", want, describe)
		}
	}

	k.ok("delete", "-f", app)
	args := []string{"wait", "--for=delete", "--timeout=60s"}
	for _, p := range pods.Items {
		args = append(args, "pod/"+p.Name)
	}
	k.ok(args...)
	if out := k.ok("get", "pods", "-l", "app=shop", "-o", "name"); strings.TrimSpace(out) != "" {
		t.Errorf("pods left after kubectl delete and wait --for=delete:\n%s", out)
	}
}
