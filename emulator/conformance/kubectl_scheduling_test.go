package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/kubeconfig"
)

// R-SCHED-1, R-SCHED-3, R-SCHED-4 through kubectl: the system PriorityClasses are listed with
// kubectl's columns, a pod naming a class gets its value in spec.priority and, pinned by
// kubernetes.io/hostname, runs on that node; a preferred node affinity with the operator Equal
// is refused with the API server's message.
func TestKubectlSchedulingHostnameAndPriority(t *testing.T) {
	t.Parallel()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH: this test drives the real kubectl against the emulator")
	}
	dir := t.TempDir()
	k := kubectlOnNewCluster(t, path, zone, dir, &container.Cluster{
		Name:      "sched",
		NodePools: []*container.NodePool{{Name: "default-pool", InitialNodeCount: 3, Config: &container.NodeConfig{MachineType: "e2-standard-4"}}},
	})

	out := k.ok("get", "priorityclasses")
	if h := strings.Fields(strings.SplitN(out, "\n", 2)[0]); strings.Join(h, " ") != "NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY" {
		t.Errorf("kubectl get priorityclasses header: %v", h)
	}
	pcs := rows(out)
	if len(pcs) != 2 || pcs[0][0] != "system-cluster-critical" || pcs[0][1] != "2000000000" || pcs[0][2] != "false" ||
		pcs[1][0] != "system-node-critical" || pcs[1][1] != "2000001000" || pcs[1][4] != "PreemptLowerPriority" {
		t.Errorf("kubectl get priorityclasses: %v", pcs)
	}

	var nodes corev1.NodeList
	k.json(&nodes, "get", "nodes")
	if len(nodes.Items) != 3 {
		t.Fatalf("%d nodes, want 3", len(nodes.Items))
	}
	target := nodes.Items[2].Name
	manifest := filepath.Join(dir, "pinned.yaml")
	if err := os.WriteFile(manifest, []byte(`apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Pod
metadata: {name: pinned}
spec:
  priorityClassName: high
  nodeSelector: {kubernetes.io/hostname: `+target+`}
  containers: [{name: app, image: nginx}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := k.ok("apply", "-f", manifest); got != "priorityclass.scheduling.k8s.io/high created\npod/pinned created\n" {
		t.Errorf("kubectl apply: %q", got)
	}
	var pod corev1.Pod
	for i := 0; ; i++ {
		k.json(&pod, "get", "pod", "pinned")
		if pod.Spec.NodeName != "" {
			break
		}
		if i == 100 {
			t.Fatal("pod pinned not scheduled after 100 polls")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if pod.Spec.NodeName != target || pod.Spec.Priority == nil || *pod.Spec.Priority != 1000 {
		t.Errorf("pod pinned on %s with priority %v, want %s and 1000", pod.Spec.NodeName, pod.Spec.Priority, target)
	}

	bad := filepath.Join(dir, "equal.yaml")
	if err := os.WriteFile(bad, []byte(`apiVersion: v1
kind: Pod
metadata: {name: equal}
spec:
  containers: [{name: app, image: nginx}]
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        preference:
          matchExpressions: [{key: topology.kubernetes.io/zone, operator: Equal, values: [`+zone+`]}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := k.run("apply", "-f", bad)
	// kubectl reads the Status's details, as from a real API server: "The Pod ... is invalid".
	want := `The Pod "equal" is invalid: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator: Invalid value: "Equal": not a valid selector operator`
	if err == nil || !strings.Contains(stderr, want) {
		t.Errorf("kubectl apply of Equal: %v\n%s\nwant %s", err, stderr, want)
	}
}

// R-SCHED-5 and R-EXT-4 through kubectl on an Autopilot cluster: a pod asking for 10m CPU is
// stored with Autopilot's 50m minimum, an extended-duration one with 500m, kubectl prints GKE's
// warning for each, and the pods carry the adjustment annotation.
func TestKubectlAutopilotRequests(t *testing.T) {
	t.Parallel()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH: this test drives the real kubectl against the emulator")
	}
	dir := t.TempDir()
	k := kubectlOnNewCluster(t, path, "us-central1", dir, &container.Cluster{Name: "auto", Autopilot: &container.Autopilot{Enabled: true}})
	manifest := filepath.Join(dir, "pods.yaml")
	if err := os.WriteFile(manifest, []byte(`apiVersion: v1
kind: Pod
metadata: {name: small}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 10m, memory: 64Mi, ephemeral-storage: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: long
  annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: "false"}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 10m, memory: 64Mi, ephemeral-storage: 1Gi}}}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := k.run("apply", "-f", manifest)
	if err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, stderr)
	}
	for _, name := range []string{"small", "long"} {
		want := "Warning: autopilot-default-resources-mutator:Autopilot updated Pod default/" + name + ": adjusted resources to meet requirements for containers [app] (see http://g.co/gke/autopilot-resources)"
		if !strings.Contains(stderr, want) {
			t.Errorf("kubectl apply's stderr:\n%s\nwant %q", stderr, want)
		}
	}
	for name, cpu := range map[string]string{"small": "50m", "long": "500m"} {
		var p corev1.Pod
		k.json(&p, "get", "pod", name)
		if got := p.Spec.Containers[0].Resources.Requests.Cpu().String(); got != cpu || !strings.Contains(p.Annotations["autopilot.gke.io/resource-adjustment"], `"cpu":"10m"`) {
			t.Errorf("pod %s: CPU request %s, annotations %v; want %s and the adjustment from 10m recorded", name, got, p.Annotations, cpu)
		}
	}
}

// kubectlOnNewCluster starts an emulator, creates cl in location through the GKE API, waits for
// it, and returns the real kubectl configured for it (a kubeconfig of its own in dir).
func kubectlOnNewCluster(t *testing.T, path, location, dir string, cl *container.Cluster) *kubectl {
	t.Helper()
	_, url := startEmulator(t)
	svc := goClient(t, url)
	loc := "projects/" + project + "/locations/" + location
	op, err := svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: cl}).Do()
	if err != nil {
		t.Fatalf("clusters.create: %v", err)
	}
	waitOperation(t, svc, op)
	created := getCluster(t, svc, loc+"/clusters/"+cl.Name)
	kc := filepath.Join(dir, "config")
	server, err := kubeconfig.ServerURL(url, created.Endpoint, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubeconfig.Write(kc, kubeconfig.Cluster{Project: project, Location: location, Name: created.Name, Server: server}); err != nil {
		t.Fatal(err)
	}
	return newKubectl(t, path, kc)
}
