package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kubeapi"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// autopilotCluster creates an Autopilot cluster (or a Standard one with a 2-node pool) and
// waits until it runs.
func autopilotCluster(t *testing.T, autopilot bool) (*World, *model.Cluster) {
	t.Helper()
	w := newTestWorld(t)
	cl := &api.Cluster{Name: "ap"}
	if autopilot {
		cl.Autopilot = &api.Autopilot{Enabled: true}
	} else {
		cl.NodePools = []*api.NodePool{{Name: "default-pool", InitialNodeCount: 2, Config: &api.NodeConfig{MachineType: "e2-standard-4"}}}
	}
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	return w, w.core.Cluster("proj", "us-central1-a", "ap")
}

// barePod is a one-container pod requesting what reqs says ("cpu=10m", "memory=64Mi"; none when
// empty).
func barePod(name string, mutate func(*corev1.Pod), reqs ...string) *corev1.Pod {
	rl := corev1.ResourceList{}
	for _, r := range reqs {
		k, v, _ := strings.Cut(r, "=")
		rl[corev1.ResourceName(k)] = resource.MustParse(v)
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: rl}}}}}
	if len(rl) == 0 {
		p.Spec.Containers[0].Resources.Requests = nil
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

// R-SCHED-5: Autopilot admits a pod with its class's defaults, minimums and ratio of memory to
// CPU applied, records what it changed, and refuses one above the class's maximum; Standard
// admits the same pods unchanged. R-EXT-4: an extended-duration pod's minimum is higher.
func TestAutopilotResourceRequests(t *testing.T) {
	extended := func(p *corev1.Pod) { p.Annotations = map[string]string{core.SafeToEvictAnnotation: "false"} }
	scaleOut := func(p *corev1.Pod) {
		p.Spec.NodeSelector = map[string]string{kubeapi.ComputeClassSelector: "Scale-Out"}
	}
	cases := []struct {
		name     string
		mutate   func(*corev1.Pod)
		reqs     []string
		cpu, mem string // what Autopilot stores
		warning  string
	}{
		{"tiny", nil, []string{"cpu=10m", "memory=64Mi"}, "50m", "64Mi", "adjusted resources to meet requirements for containers [app]"},
		{"none", nil, nil, "500m", "2Gi", "defaulted unspecified resources for containers [app]"},
		{"memory-heavy", nil, []string{"cpu=100m", "memory=2Gi"}, "308m", "2Gi", "adjusted"}, // at most 6.5 GiB per vCPU
		{"cpu-heavy", nil, []string{"cpu=2", "memory=512Mi"}, "2", "2Gi", "adjusted"},        // at least 1 GiB per vCPU
		{"fits", nil, []string{"cpu=250m", "memory=512Mi", "ephemeral-storage=1Gi"}, "250m", "512Mi", ""},
		{"no-storage", nil, []string{"cpu=250m", "memory=512Mi"}, "250m", "512Mi", "defaulted unspecified 'ephemeral-storage' resource for containers [app]"},
		{"scale-out", scaleOut, []string{"cpu=10m", "memory=64Mi"}, "250m", "1Gi", "adjusted"},
		{"scale-out-step", scaleOut, []string{"cpu=300m", "memory=1Gi"}, "500m", "2Gi", "adjusted"}, // 250m steps, then 4 GiB per vCPU
		{"general-no-step", nil, []string{"cpu=130m", "memory=200Mi", "ephemeral-storage=1Gi"}, "130m", "200Mi", ""},
		{"extended", extended, []string{"cpu=10m", "memory=64Mi"}, "500m", "512Mi", "adjusted"},
	}
	w, c := autopilotCluster(t, true)
	for _, tc := range cases {
		out, err := w.kubeapi.CreatePod(c, "default", barePod(tc.name, tc.mutate, tc.reqs...))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		warnings := strings.Join(w.TakeWarnings(), "\n")
		got := out.Spec.Containers[0].Resources.Requests
		if got.Cpu().String() != tc.cpu || got.Memory().String() != tc.mem {
			t.Errorf("%s: Autopilot stored %s CPU, %s memory; want %s, %s (R-SCHED-5)", tc.name, got.Cpu(), got.Memory(), tc.cpu, tc.mem)
		}
		want := resource.MustParse(tc.cpu)
		if p := c.Pods["default/"+tc.name]; p.Req.MilliCPU != want.MilliValue() {
			t.Errorf("%s: the scheduler sees %dm CPU, want %s", tc.name, p.Req.MilliCPU, tc.cpu)
		}
		ann := out.Annotations[kubeapi.AdjustmentAnnotation]
		if tc.warning == "" {
			if warnings != "" || ann != "" {
				t.Errorf("%s: within the rules, yet warned %q and annotated %q", tc.name, warnings, ann)
			}
			continue
		}
		if !strings.Contains(warnings, "autopilot-default-resources-mutator:Autopilot updated Pod default/"+tc.name+": "+tc.warning) {
			t.Errorf("%s: warnings %q, want GKE's %q", tc.name, warnings, tc.warning)
		}
		var adj struct {
			Input, Output struct {
				Containers []struct {
					Requests map[string]string `json:"requests"`
				} `json:"containers"`
			}
			Modified bool `json:"modified"`
		}
		if err := json.Unmarshal([]byte(ann), &adj); err != nil || !adj.Modified || adj.Output.Containers[0].Requests["cpu"] != tc.cpu {
			t.Errorf("%s: %s annotation %q (%v): want modified, output cpu %s", tc.name, kubeapi.AdjustmentAnnotation, ann, err, tc.cpu)
		}
		if len(tc.reqs) > 0 && adj.Input.Containers[0].Requests["cpu"] != strings.TrimPrefix(tc.reqs[0], "cpu=") {
			t.Errorf("%s: the annotation's input %v, want what was sent (%v)", tc.name, adj.Input.Containers[0].Requests, tc.reqs)
		}
	}
	if ev := mustEvents(w, "AutopilotResourcesAdjusted"); len(ev) != 8 || !strings.Contains(ev[0].Message, "Pod default/tiny: Autopilot set its requests to 50m CPU, 64Mi memory (asked 10m, 64Mi)") ||
		!strings.Contains(ev[0].Message, "raised to general-purpose's minimums and ratio (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/scheduling#r-sched-5)") {
		t.Errorf("AutopilotResourcesAdjusted events: %d (%s), want 8, the first for tiny", len(ev), messages(ev))
	}

	// Above the class's maximum: refused, nothing stored.
	_, err := w.kubeapi.CreatePod(c, "default", barePod("huge", nil, "cpu=40", "memory=100Gi"))
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 403 || !strings.Contains(e.Message, "at most 30000m CPU") || c.Pods["default/huge"] != nil {
		t.Errorf("a 40-CPU pod on general-purpose: %v; want 403 naming the 30-CPU maximum, nothing stored", err)
	}

	// A Deployment's template is rewritten once; sending it back changes nothing.
	d, err := w.kubeapi.CreateDeployment(c, "default", deployment("web", 2, "10m", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("64Mi")
	}))
	if err != nil {
		t.Fatal(err)
	}
	w.TakeWarnings()
	if cpu := d.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().String(); cpu != "50m" || d.Annotations[kubeapi.AdjustmentAnnotation] == "" {
		t.Fatalf("Deployment template CPU %s, annotations %v: want 50m and the adjustment recorded", cpu, d.Annotations)
	}
	advance(w, time.Minute)
	for _, p := range c.Pods {
		if p.Owner == "web" && p.Req.MilliCPU != 50 {
			t.Errorf("pod %s requests %dm, want the adjusted 50m", p.Key(), p.Req.MilliCPU)
		}
	}
	d, _ = w.kubeapi.GetDeployment(c, "default", "web")
	again, err := w.kubeapi.UpdateDeployment(c, "default", "web", d)
	if err != nil {
		t.Fatalf("PUT of what was read: %v", err)
	}
	if again.Generation != d.Generation || again.Annotations[kubeapi.AdjustmentAnnotation] != d.Annotations[kubeapi.AdjustmentAnnotation] || len(w.TakeWarnings()) != 0 {
		t.Errorf("PUT of what was read: generation %d -> %d; want no change, the adjustment still recorded, no warning", d.Generation, again.Generation)
	}

	// A request refused after admission (an immutable selector changed) rewrites nothing:
	// no warning, no entry in the event log.
	events := len(mustEvents(w, "AutopilotResourcesAdjusted"))
	bad := deployment("web", 2, "10m")
	bad.Spec.Selector.MatchLabels = map[string]string{"app": "other"}
	bad.Spec.Template.Labels = map[string]string{"app": "other"}
	if _, err := w.kubeapi.UpdateDeployment(c, "default", "web", bad); err == nil || !strings.Contains(err.Error(), "field is immutable") {
		t.Fatalf("a changed selector: %v, want the API server's refusal", err)
	}
	if n := len(mustEvents(w, "AutopilotResourcesAdjusted")); n != events || len(w.TakeWarnings()) != 0 {
		t.Errorf("a refused update logged %d AutopilotResourcesAdjusted entries (had %d) and warned: want nothing", n, events)
	}

	// Before Pod bursting (a 1.28 control plane, in 2023) general-purpose pods start at 250m
	// and 512 MiB and go in 250m steps.
	wo := New(Options{Seed: 42, Start: time.Date(2023, 9, 1, 0, 0, 0, 0, time.UTC)})
	op, err := wo.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{Name: "old", Autopilot: &api.Autopilot{Enabled: true}}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, wo, op, time.Hour)
	co := wo.core.Cluster("proj", "us-central1-a", "old")
	out, err := wo.kubeapi.CreatePod(co, "default", barePod("small", nil, "cpu=260m", "memory=64Mi"))
	if err != nil || co.MasterVersion >= "1.29" || out.Spec.Containers[0].Resources.Requests.Cpu().String() != "500m" || out.Spec.Containers[0].Resources.Requests.Memory().String() != "512Mi" {
		t.Errorf("a 260m/64Mi pod on Autopilot %s (before Pod bursting): %v, requests %v; want 500m (250m steps) and 512Mi", co.MasterVersion, err, out.Spec.Containers[0].Resources.Requests)
	}

	// Standard admits the same pods as they are.
	ws, cs := autopilotCluster(t, false)
	out, err = ws.kubeapi.CreatePod(cs, "default", barePod("tiny", nil, "cpu=10m", "memory=64Mi"))
	if err != nil || out.Spec.Containers[0].Resources.Requests.Cpu().String() != "10m" || out.Annotations[kubeapi.AdjustmentAnnotation] != "" || len(ws.TakeWarnings()) != 0 {
		t.Errorf("Standard: %v, requests %v; want 10m unchanged, no adjustment", err, out.Spec.Containers[0].Resources.Requests)
	}
}

// R-EXT-5: on Autopilot, extended-duration pods get nodes of their own: with room to spare on the
// node running the web pods, the extended pods wait for a node the autoscaler adds for them, and
// web pods created afterwards stay off it. Checked after every emulated event.
func TestExtendedDurationPodsOnTheirOwnNodes(t *testing.T) {
	w, c := autopilotCluster(t, true)
	extended := func(d *appsv1.Deployment) {
		d.Spec.Template.Annotations = map[string]string{core.SafeToEvictAnnotation: "false"}
	}
	mixed, events := 0, 0
	// run steps the world one event at a time for d, checking every node after each.
	run := func(d time.Duration) {
		deadline := w.engine.Now().Add(d)
		for events < 1_000_000 && w.runNext(deadline) {
			events++
			for _, n := range c.Nodes {
				kinds := map[bool]bool{}
				for _, p := range w.core.PodIndex(c).On(n.Name).Pods {
					if core.Separable(p) && !p.Terminating {
						kinds[core.IsExtended(p)] = true
					}
				}
				if len(kinds) == 2 {
					mixed++
				}
			}
		}
		w.RunUntil(deadline)
	}
	mustCreateDeployment(t, w, c, deployment("web", 3, "250m"))
	run(10 * time.Minute)
	if running, _ := podCounts(c, "web"); running != 3 || len(c.Nodes) != 1 {
		t.Fatalf("web: %d running on %d nodes; want 3 on the one node Autopilot added", running, len(c.Nodes))
	}
	mustCreateDeployment(t, w, c, deployment("batch", 2, "500m", extended))
	run(10 * time.Minute)
	mustCreateDeployment(t, w, c, deployment("web2", 2, "250m"))
	run(10 * time.Minute)
	for _, name := range []string{"batch", "web2"} {
		if running, pending := podCounts(c, name); running != 2 || pending != 0 {
			t.Fatalf("%s: %d running, %d pending; want 2 running", name, running, pending)
		}
	}
	batchNodes, webNodes := map[string]bool{}, map[string]bool{}
	for _, p := range c.Pods {
		if p.Owner == "batch" {
			batchNodes[p.Node] = true
		} else if strings.HasPrefix(p.Owner, "web") {
			webNodes[p.Node] = true
		}
	}
	for n := range batchNodes {
		if webNodes[n] {
			t.Errorf("node %s runs both extended-duration and web pods (R-EXT-5)", n)
		}
	}
	if mixed != 0 || len(c.Nodes) < 2 || events == 0 {
		t.Errorf("%d of %d event(s) saw a node mixing extended-duration and other pods; %d nodes: want none mixed, at least one node added for the extended pods", mixed, events, len(c.Nodes))
	}
	if ev := mustEvents(w, "FailedScheduling"); !strings.Contains(messages(ev), "batch-") || !strings.Contains(messages(ev), "0/1 nodes are available: 1 node(s) run Pods that Autopilot keeps apart from extended-duration Pods.") {
		t.Errorf("FailedScheduling events %s: want the extended pods' wait explained", messages(ev))
	}
}

// messages are the events' messages, one per line.
func messages(evs []*api.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("\n" + e.Message)
	}
	return b.String()
}
