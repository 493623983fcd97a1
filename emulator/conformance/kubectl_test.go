package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/kubeconfig"
)

// kubectlTimeout bounds one kubectl command; kubectl drain polls deletions once a wall second.
const kubectlTimeout = 30 * time.Second

// kubectl runs the real kubectl against a kubeconfig of its own, with a HOME of its own so
// that its discovery cache starts empty and the user's settings stay out.
type kubectl struct{ *cli }

func newKubectl(t *testing.T, path, kubeconfigFile string) *kubectl {
	return &kubectl{&cli{t: t, name: "kubectl", path: path, timeout: kubectlTimeout,
		env: append(environWithout("KUBECONFIG=", "HOME="), "KUBECONFIG="+kubeconfigFile, "HOME="+t.TempDir())}}
}

// json runs a command with -o json and decodes its output into v.
func (k *kubectl) json(v any, args ...string) {
	k.t.Helper()
	out := k.ok(append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		k.t.Fatalf("kubectl %s -o json: %v:\n%s", strings.Join(args, " "), err, out)
	}
}

// rows splits kubectl's table output into the fields of each line after the header.
func rows(out string) [][]string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var rs [][]string
	for _, l := range lines[1:] {
		rs = append(rs, strings.Fields(l))
	}
	return rs
}

// The manifests the README's kubectl section uses.
const (
	webDeployment = "../../examples/kubectl/deployment.yaml"
	webPDB        = "../../examples/kubectl/pdb.yaml"
)

// The example through kubectl: 40 pods of 500m CPU on three e2-standard-4 nodes; as
// many run as fit, the rest stay Pending for want of CPU.
func TestKubectlAgainstClusterEndpoint(t *testing.T) {
	t.Parallel()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH: this test drives the real kubectl against the emulator")
	}
	_, url := startEmulator(t)
	svc := goClient(t, url)
	loc := "projects/" + project + "/locations/" + zone
	op, err := svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: "kubectl",
		NodePools: []*container.NodePool{{Name: "default-pool", InitialNodeCount: 3,
			Config: &container.NodeConfig{MachineType: "e2-standard-4"}}},
	}}).Do()
	if err != nil {
		t.Fatalf("clusters.create: %v", err)
	}
	waitOperation(t, svc, op)
	cl := getCluster(t, svc, loc+"/clusters/kubectl")

	// get-credentials merges into an existing kubeconfig and makes the cluster's context current.
	dir := t.TempDir()
	kc := filepath.Join(dir, "config")
	other := "apiVersion: v1\nkind: Config\nclusters:\n- name: other\n  cluster: {server: 'https://127.0.0.1:6443'}\n" +
		"users:\n- name: other\n  user: {token: x}\ncontexts:\n- name: other\n  context: {cluster: other, user: other}\ncurrent-context: other\n"
	if err := os.WriteFile(kc, []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	server, err := kubeconfig.ServerURL(url, cl.Endpoint, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubeconfig.Write(kc, kubeconfig.Cluster{Project: project, Location: zone, Name: cl.Name, Server: server}); err != nil {
		t.Fatal(err)
	}
	k := newKubectl(t, path, kc)
	ctxName := "gke_" + project + "_" + zone + "_kubectl"
	if got := strings.TrimSpace(k.ok("config", "current-context")); got != ctxName {
		t.Errorf("current context %q, want %q", got, ctxName)
	}
	if got := k.ok("config", "get-contexts", "-o", "name"); got != ctxName+"\nother\n" {
		t.Errorf("contexts after get-credentials:\n%s\nwant %s and other", got, ctxName)
	}
	if got := k.ok("version", "-o", "json"); !strings.Contains(got, `"gitVersion": "v`+cl.CurrentMasterVersion+`"`) {
		t.Errorf("kubectl version: server gitVersion is not v%s:\n%s", cl.CurrentMasterVersion, got)
	}

	// Nodes: three, Ready, on the cluster's version.
	nodes := rows(k.ok("get", "nodes"))
	if len(nodes) != 3 {
		t.Fatalf("kubectl get nodes: %d nodes, want 3: %v", len(nodes), nodes)
	}
	for _, n := range nodes {
		if n[1] != "Ready" || n[2] != "<none>" || n[4] != "v"+cl.CurrentMasterVersion {
			t.Errorf("node row %v, want Ready <none> AGE v%s", n, cl.CurrentMasterVersion)
		}
	}
	wide := k.ok("get", "nodes", "-o", "wide")
	if h := strings.Fields(strings.SplitN(wide, "\n", 2)[0]); strings.Join(h, " ") !=
		"NAME STATUS ROLES AGE VERSION INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME" {
		t.Errorf("kubectl get nodes -o wide header: %v", h)
	}
	var nodeList corev1.NodeList
	k.json(&nodeList, "get", "nodes")
	if len(nodeList.Items) != 3 || nodeList.Items[0].Status.Allocatable.Cpu().MilliValue() != 3920 {
		t.Fatalf("kubectl get nodes -o json: %d nodes, allocatable cpu %v", len(nodeList.Items), nodeList.Items[0].Status.Allocatable.Cpu())
	}

	// 40 x 500m: what fits runs, the rest is Pending with "Insufficient cpu".
	if got := k.ok("create", "-f", webDeployment); got != "deployment.apps/web created\n" {
		t.Errorf("kubectl create -f: %q", got)
	}
	var ready, pending int
	var pods corev1.PodList
	for i := 0; ; i++ {
		var d appsv1.Deployment
		k.json(&d, "get", "deployment", "web")
		k.json(&pods, "get", "pods", "-l", "app=web")
		ready, pending = int(d.Status.ReadyReplicas), 0
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodPending && p.Spec.NodeName == "" && len(p.Status.Conditions) == 1 &&
				strings.Contains(p.Status.Conditions[0].Message, "Insufficient cpu") {
				pending++
			}
		}
		if ready+pending == 40 {
			break
		}
		if i == 100 {
			t.Fatalf("deployment web: %d ready + %d pending for lack of CPU after 100 polls, want 40", ready, pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// As many run as the nodes have room for: what each node has left after everything else
	// on it, in whole 500m slices.
	var all corev1.PodList
	k.json(&all, "get", "pods", "--all-namespaces")
	fit := 0
	for _, n := range nodeList.Items {
		free := n.Status.Allocatable.Cpu().MilliValue()
		for _, p := range all.Items {
			if p.Spec.NodeName == n.Name && p.Labels["app"] != "web" {
				for _, c := range p.Spec.Containers {
					free -= c.Resources.Requests.Cpu().MilliValue()
				}
			}
		}
		fit += int(free / 500)
	}
	t.Logf("deployment web: %d of 40 pods running, %d pending (Insufficient cpu)", ready, pending)
	if ready != fit || pending != 40-fit || pending == 0 {
		t.Errorf("deployment web: %d ready, %d pending; the nodes have room for %d", ready, pending, fit)
	}
	if d := rows(k.ok("get", "deployments")); len(d) != 1 || d[0][0] != "web" || d[0][1] != strconv.Itoa(ready)+"/40" || d[0][2] != "40" || d[0][3] != strconv.Itoa(ready) {
		t.Errorf("kubectl get deployments: %v, want web %d/40 40 %d", d, ready, ready)
	}
	statuses := map[string]int{}
	for _, r := range rows(k.ok("get", "pods", "-l", "app=web")) {
		statuses[r[2]]++
	}
	if statuses["Running"] != ready || statuses["Pending"] != pending {
		t.Errorf("kubectl get pods STATUS column: %v, want %d Running, %d Pending", statuses, ready, pending)
	}

	// Scale down to what fits.
	if got := k.ok("scale", "deployment", "web", "--replicas", "10"); got != "deployment.apps/web scaled\n" {
		t.Errorf("kubectl scale: %q", got)
	}
	for i := 0; ; i++ {
		var d appsv1.Deployment
		k.json(&d, "get", "deployment", "web")
		if *d.Spec.Replicas == 10 && d.Status.Replicas == 10 && d.Status.ReadyReplicas == 10 {
			break
		}
		if i == 100 {
			t.Fatalf("after scaling to 10: spec %d, status %d replicas, %d ready", *d.Spec.Replicas, d.Status.Replicas, d.Status.ReadyReplicas)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A PodDisruptionBudget: 10 healthy, 8 must stay, so 2 may go.
	k.ok("create", "-f", webPDB)
	if p := rows(k.ok("get", "pdb", "web")); len(p) != 1 || strings.Join(p[0][:4], " ") != "web 8 N/A 2" {
		t.Errorf("kubectl get pdb web: %v, want MIN AVAILABLE 8, MAX UNAVAILABLE N/A, ALLOWED DISRUPTIONS 2", p)
	}

	// cordon / uncordon.
	k.json(&pods, "get", "pods", "-l", "app=web")
	node := pods.Items[0].Spec.NodeName
	k.ok("cordon", node)
	if n := rows(k.ok("get", "node", node)); n[0][1] != "Ready,SchedulingDisabled" {
		t.Errorf("after kubectl cordon: %v", n)
	}
	k.ok("uncordon", node)
	if n := rows(k.ok("get", "node", node)); n[0][1] != "Ready" {
		t.Errorf("after kubectl uncordon: %v", n)
	}

	// describe node: the pods on it, what they request, and the node's events.
	desc := k.ok("describe", "node", node)
	for _, want := range []string{"Name:               " + node, "Allocated resources:", pods.Items[0].Name, "kube-proxy-" + node,
		"Allocatable:", "HolderIdentity:  " + node, "NodeReady", "NodeCordoned", "NodeUncordoned"} {
		if !strings.Contains(desc, want) {
			t.Errorf("kubectl describe node %s does not show %q:\n%s", node, want, desc)
		}
	}
	desc = k.ok("describe", "pod", pods.Items[0].Name)
	if !regexp.MustCompile(`(?m)^Status:\s+Running$`).MatchString(desc) {
		t.Errorf("kubectl describe pod %s does not show its status Running:\n%s", pods.Items[0].Name, desc)
	}
	for _, want := range []string{"Controlled By:  ReplicaSet/web-", "Scheduled", "scheduled to " + node} {
		if !strings.Contains(desc, want) {
			t.Errorf("kubectl describe pod %s does not show %q:\n%s", pods.Items[0].Name, want, desc)
		}
	}

	// drain: DaemonSet pods stay, the rest is evicted and rescheduled elsewhere. (Without the
	// PDB: kubectl retries a refused eviction only every 5 wall seconds.)
	k.ok("delete", "pdb", "web")
	out := k.ok("drain", node, "--ignore-daemonsets", "--timeout=20s")
	if !strings.Contains(out, "node/"+node+" drained") {
		t.Errorf("kubectl drain %s: %s", node, out)
	}
	k.json(&all, "get", "pods", "--all-namespaces", "--field-selector", "spec.nodeName="+node)
	for _, p := range all.Items {
		if p.OwnerReferences[0].Kind != "DaemonSet" {
			t.Errorf("after drain, %s/%s (owned by %s) is still on %s", p.Namespace, p.Name, p.OwnerReferences[0].Kind, node)
		}
	}
	if len(all.Items) != 4 {
		t.Errorf("after drain, %d pods on %s, want its 4 DaemonSet pods", len(all.Items), node)
	}
	k.ok("uncordon", node)

	// -o yaml, a LoadBalancer Service (kubectl expose), delete -f.
	if y := k.ok("get", "deployment", "web", "-o", "yaml"); !strings.Contains(y, "kind: Deployment") || !strings.Contains(y, "replicas: 10") {
		t.Errorf("kubectl get deployment web -o yaml:\n%s", y)
	}
	if got := k.ok("expose", "deployment", "web", "--type", "LoadBalancer", "--port", "80", "--target-port", "8080"); got != "service/web exposed\n" {
		t.Errorf("kubectl expose: %q", got)
	}
	ip := ""
	for i := 0; i < 20 && ip == ""; i++ { // provisioning takes about a minute of emulated time
		ip = k.ok("get", "service", "web", "-o", "jsonpath={.status.loadBalancer.ingress[0].ip}")
	}
	svcs := rows(k.ok("get", "services"))
	if len(svcs) != 2 || svcs[0][0] != "kubernetes" || svcs[1][0] != "web" || svcs[1][1] != "LoadBalancer" || svcs[1][3] != ip || !strings.HasPrefix(svcs[1][4], "80:3") {
		t.Errorf("kubectl get services (load balancer IP %q): %v", ip, svcs)
	}
	if got := k.ok("delete", "service", "web"); got != `service "web" deleted`+"\n" {
		t.Errorf("kubectl delete service: %q", got)
	}
	if got := k.ok("delete", "-f", webDeployment); got != `deployment.apps "web" deleted`+"\n" {
		t.Errorf("kubectl delete -f: %q", got)
	}
	if _, errOut, err := k.run("get", "deployment", "web"); err == nil || !strings.Contains(errOut, `deployments.apps "web" not found`) {
		t.Errorf("kubectl get deployment web after delete: %v %s", err, errOut)
	}
}
