package provider

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
)

// podsThatFit is how many more pods requesting cpu and memory the nodes of a pool can take,
// from each node's allocatable resources and the gkesim.io/requested-* annotations that show
// what its pods request (as the scheduler sees it).
func podsThatFit(t *testing.T, endpoint, cluster, pool, cpu, memory string) int {
	t.Helper()
	var nodes corev1.NodeList
	if _, err := kubeGet(endpoint, cluster, "/api/v1/nodes", &nodes); err != nil {
		t.Fatal(err)
	}
	podCPU, podMem := k8sresource.MustParse(cpu), k8sresource.MustParse(memory)
	total, seen := 0, 0
	for _, n := range nodes.Items {
		if n.Labels[nodePoolLabel] != pool {
			continue
		}
		seen++
		reqCPU, reqMem := k8sresource.MustParse(n.Annotations[requestedCPUAnn]), k8sresource.MustParse(n.Annotations[requestedMemoryAnn])
		freeCPU := n.Status.Allocatable.Cpu().MilliValue() - reqCPU.MilliValue()
		freeMem := n.Status.Allocatable.Memory().Value() - reqMem.Value()
		total += int(min(freeCPU/podCPU.MilliValue(), freeMem/podMem.Value()))
	}
	if seen == 0 {
		t.Fatalf("pool %s of cluster %s has no nodes", pool, cluster)
	}
	return total
}

// podsOf lists the pods of a workload in the default namespace through the Kubernetes API,
// optionally only those in a phase.
func podsOf(endpoint, cluster, workload, phase string) ([]corev1.Pod, error) {
	q := url.Values{"labelSelector": {nameLabel + "=" + workload}}
	if phase != "" {
		q.Set("fieldSelector", "status.phase="+phase)
	}
	var pods corev1.PodList
	_, err := kubeGet(endpoint, cluster, "/api/v1/namespaces/default/pods?"+q.Encode(), &pods)
	return pods.Items, err
}

// checkRunning checks through the Kubernetes API that want pods of a workload run (the
// others are Pending) and that each requests cpu.
func checkRunning(endpoint, cluster, workload string, want func() int, cpu string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		running, err := podsOf(endpoint, cluster, workload, string(corev1.PodRunning))
		if err != nil {
			return err
		}
		if len(running) != want() {
			return fmt.Errorf("%d pods of %s are Running, want %d", len(running), workload, want())
		}
		for _, p := range running {
			if got := p.Spec.Containers[0].Resources.Requests.Cpu(); got.Cmp(k8sresource.MustParse(cpu)) != 0 {
				return fmt.Errorf("pod %s requests %s CPU, want %s", p.Name, got, cpu)
			}
		}
		return nil
	}
}

// poolsAB is a cluster with two e2-standard-4 node pools, pool-a of a nodes and pool-b of b,
// and a gkesim_nodes data source per pool (data.gkesim_nodes.a reads after the workload web).
func poolsAB(cluster string, a, b int) string {
	return clusterForPools(cluster, "") + fmt.Sprintf(`
resource "gkesim_node_pool" "a" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-a"
  node_count = %d
  node_config {
    machine_type = "e2-standard-4"
  }
}
resource "gkesim_node_pool" "b" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-b"
  node_count = %d
  node_config {
    machine_type = "e2-standard-4"
  }
}
data "gkesim_nodes" "b" {
  cluster   = gkesim_cluster.c.name
  node_pool = gkesim_node_pool.b.name
}
`, a, b)
}

// webOnPool is the workload web on one of poolsAB's pools, and the pool-a data source read after it.
func webOnPool(replicas int, cpu, pool string) string {
	return fmt.Sprintf(`
resource "gkesim_workload" "web" {
  cluster       = gkesim_cluster.c.name
  name          = "web"
  replicas      = %d
  cpu           = %q
  memory        = "256Mi"
  node_selector = { "cloud.google.com/gke-nodepool" = gkesim_node_pool.%s.name }
}
data "gkesim_nodes" "a" {
  cluster    = gkesim_cluster.c.name
  node_pool  = gkesim_node_pool.a.name
  depends_on = [gkesim_workload.web]
}
`, replicas, cpu, pool)
}

// The example: 40 pods of 500m CPU on a pool of three e2-standard-4 nodes. As many run
// as the nodes' free allocatable CPU allows (after GKE's system pods); the rest stay Pending.
func TestAccWorkload_scheduling(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster = "acc-wl"
	config := func(workload string) string { return providerConfig(ep) + poolsAB(cluster, 3, 1) + workload }
	fit := 0 // pods of 500m that pool-a can take, read before the workload exists
	running := func() int { return min(fit, 40) }
	const addr = "gkesim_workload.web"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkKubeGone(ep, "gkesim_workload"),
		Steps: []resource.TestStep{
			{Config: config("")},
			{
				PreConfig: func() {
					fit = podsThatFit(t, ep, cluster, "pool-a", "500m", "256Mi")
					if fit >= 40 || fit == 0 {
						t.Fatalf("three e2-standard-4 nodes take %d pods of 500m: the example needs some but not all 40 to fit", fit)
					}
					t.Logf("pool-a has room for %d of the 40 pods", fit)
				},
				Config: config(webOnPool(40, "500m", "a")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("projects/acc-project/locations/us-central1-a/clusters/acc-wl/namespaces/default/deployments/web")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("namespace"), knownvalue.StringExact("default")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("image"), knownvalue.StringExact(defaultImage)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ready_replicas"), knownvalue.Int64Func(expectInt(running))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("available_replicas"), knownvalue.Int64Func(expectInt(running))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_replicas"), knownvalue.Int64Func(expectInt(func() int { return 40 - running() }))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("nodes"), knownvalue.SetSizeExact(3)),
					onPool(addr, 0, "data.gkesim_nodes.a"), onPool(addr, 1, "data.gkesim_nodes.a"), onPool(addr, 2, "data.gkesim_nodes.a"),
					statecheck.ExpectKnownValue("data.gkesim_nodes.a", tfjsonpath.New("nodes"), knownvalue.ListSizeExact(3)),
					statecheck.ExpectKnownValue("data.gkesim_nodes.a", tfjsonpath.New("nodes").AtSliceIndex(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"node_pool":       knownvalue.StringExact("pool-a"),
						"zone":            knownvalue.StringExact(testZone),
						"machine_type":    knownvalue.StringExact("e2-standard-4"),
						"state":           knownvalue.StringExact("Ready"),
						"unschedulable":   knownvalue.Bool(false),
						"allocatable_cpu": knownvalue.StringExact("3920m"),
						"requested_cpu":   knownvalue.StringRegexp(regexp.MustCompile(`^3[0-9]{3}m$`)),
					})),
				},
				Check: resource.ComposeTestCheckFunc(
					checkRunning(ep, cluster, "web", running, "500m"),
					checkNodesFull(ep, cluster, "pool-a", "500m"),
				),
			},
			{
				// Scale down: a replicas-only change (the scale subresource); every pod runs.
				Config: config(webOnPool(10, "500m", "a")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("ready_replicas")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.NotNull()),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ready_replicas"), knownvalue.Int64Exact(10)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_replicas"), knownvalue.Int64Exact(0)),
				},
				Check: checkRunning(ep, cluster, "web", func() int { return 10 }, "500m"),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				ResourceName: addr, ImportState: true, ImportStateId: "us-central1-a/acc-wl/default/web",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

// A new CPU request rolls the pods out; a new node selector moves them to another pool.
func TestAccWorkload_rollout(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster = "acc-wl-rollout"
	config := func(replicas int, cpu, pool string) string {
		return providerConfig(ep) + poolsAB(cluster, 1, 1) + webOnPool(replicas, cpu, pool)
	}
	const addr = "gkesim_workload.web"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(4, "500m", "a"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ready_replicas"), knownvalue.Int64Exact(4)),
					onPool(addr, 0, "data.gkesim_nodes.a"),
				},
			},
			{
				Config: config(4, "0.25", "a"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectUnknownValue(addr, tfjsonpath.New("nodes"))},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("cpu"), knownvalue.StringExact("0.25")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ready_replicas"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("pending_replicas"), knownvalue.Int64Exact(0)),
				},
				Check: checkRunning(ep, cluster, "web", func() int { return 4 }, "250m"),
			},
			{
				Config: config(4, "0.25", "b"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ready_replicas"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("nodes"), knownvalue.SetSizeExact(1)),
					onPool(addr, 0, "data.gkesim_nodes.b"),
				},
				Check: checkRunning(ep, cluster, "web", func() int { return 4 }, "250m"),
			},
			{
				// An import reads cpu as the API spells it (250m for 0.25).
				ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "cpu"},
			},
		},
	})
}

// wrappedText matches text as Terraform prints it in a diagnostic, wrapped at any space.
func wrappedText(text string) *regexp.Regexp {
	words := strings.Fields(text)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(strings.Join(words, `\s+`))
}

// onPool checks that the i-th node a workload runs on is one of a gkesim_nodes data source's.
func onPool(workload string, i int, nodes string) statecheck.StateCheck {
	return statecheck.CompareValueCollection(nodes, []tfjsonpath.Path{tfjsonpath.New("nodes"), tfjsonpath.New("name")},
		workload, tfjsonpath.New("nodes").AtSliceIndex(i), compare.ValuesSame())
}

func expectInt(want func() int) func(int64) error {
	return func(v int64) error {
		if v != int64(want()) {
			return fmt.Errorf("got %d, want %d", v, want())
		}
		return nil
	}
}

// checkNodesFull checks that no node of a pool could take one more pod requesting cpu: the
// Pending pods are Pending for want of CPU, not for a scheduling error.
func checkNodesFull(endpoint, cluster, pool, cpu string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var nodes corev1.NodeList
		if _, err := kubeGet(endpoint, cluster, "/api/v1/nodes", &nodes); err != nil {
			return err
		}
		need := k8sresource.MustParse(cpu)
		for _, n := range nodes.Items {
			if n.Labels[nodePoolLabel] != pool {
				continue
			}
			req := k8sresource.MustParse(n.Annotations[requestedCPUAnn])
			if free := n.Status.Allocatable.Cpu().MilliValue() - req.MilliValue(); free >= need.MilliValue() {
				return fmt.Errorf("node %s has %dm CPU free, enough for another %s pod", n.Name, free, cpu)
			}
		}
		return nil
	}
}

// Every pod template attribute reaches the Deployment, reads back without a diff and imports.
func TestAccWorkload_podTemplate(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster = "acc-wl-tmpl"
	config := func(team string, safe bool) string {
		return providerConfig(ep) + fmt.Sprintf(`
resource "gkesim_cluster" "c" {
  name = %q
}
resource "gkesim_workload" "batch" {
  cluster                          = gkesim_cluster.c.id
  name                             = "batch"
  replicas                         = 2
  image                            = "busybox:1.37"
  cpu                              = "10m"
  memory                           = "0.5Gi"
  labels                           = { team = %q }
  annotations                      = { "example.com/owner" = "data" }
  priority                         = 100
  termination_grace_period_seconds = 120
  safe_to_evict                    = %t
  toleration {
    key      = "dedicated"
    value    = "batch"
    effect   = "NoSchedule"
  }
  toleration {
    key      = "example.com/gpu"
    operator = "Exists"
  }
}
resource "gkesim_workload" "spot" {
  cluster  = gkesim_cluster.c.name
  name     = "spot"
  replicas = 2
  spot     = true
}
`, cluster, team, safe)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("data", false),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_workload.batch", tfjsonpath.New("location"), knownvalue.StringExact(testZone)),
					statecheck.ExpectKnownValue("gkesim_workload.batch", tfjsonpath.New("ready_replicas"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("gkesim_workload.batch", tfjsonpath.New("memory"), knownvalue.StringExact("0.5Gi")),
					statecheck.ExpectKnownValue("gkesim_workload.batch", tfjsonpath.New("toleration").AtSliceIndex(0).AtMapKey("operator"), knownvalue.StringExact("Equal")),
					// No node is a Spot node: the Spot workload's pods wait.
					statecheck.ExpectKnownValue("gkesim_workload.spot", tfjsonpath.New("pending_replicas"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("gkesim_workload.spot", tfjsonpath.New("ready_replicas"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue("gkesim_workload.spot", tfjsonpath.New("nodes"), knownvalue.SetSizeExact(0)),
					statecheck.ExpectKnownValue("gkesim_workload.spot", tfjsonpath.New("node_selector"), knownvalue.Null()),
				},
				Check: checkTemplate(ep, cluster, func(d *appsv1.Deployment) error {
					tmpl := d.Spec.Template
					s := tmpl.Spec
					switch {
					case tmpl.Labels["team"] != "data" || tmpl.Labels[nameLabel] != "batch" || d.Spec.Selector.MatchLabels[nameLabel] != "batch":
						return fmt.Errorf("labels %v, selector %v", tmpl.Labels, d.Spec.Selector.MatchLabels)
					case tmpl.Annotations[safeToEvictAnnotation] != "false" || tmpl.Annotations["example.com/owner"] != "data":
						return fmt.Errorf("annotations %v", tmpl.Annotations)
					case s.Priority == nil || *s.Priority != 100 || *s.TerminationGracePeriodSeconds != 120 || len(s.Tolerations) != 2:
						return fmt.Errorf("pod spec %+v", s)
					case s.Containers[0].Image != "busybox:1.37" || s.Containers[0].Resources.Requests.Memory().Value() != 512<<20:
						return fmt.Errorf("container %+v", s.Containers[0])
					}
					return nil
				}),
			},
			{
				// A label change rolls out in place; safe_to_evict = true drops the annotation.
				Config: config("analytics", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gkesim_workload.batch", plancheck.ResourceActionUpdate)},
				},
				Check: checkTemplate(ep, cluster, func(d *appsv1.Deployment) error {
					if a := d.Spec.Template.Annotations; a[safeToEvictAnnotation] != "" || d.Spec.Template.Labels["team"] != "analytics" {
						return fmt.Errorf("template metadata %+v", d.Spec.Template.ObjectMeta)
					}
					return nil
				}),
			},
			{
				ResourceName: "gkesim_workload.batch", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"timeouts", "cluster", "memory"}, // 0.5Gi imports as 512Mi
			},
			{
				ResourceName: "gkesim_workload.spot", ImportState: true, ImportStateVerify: true,
				ImportStateId:           "acc-project/us-central1-a/acc-wl-tmpl/default/spot",
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

// checkTemplate reads the batch Deployment through the Kubernetes API and checks it.
func checkTemplate(endpoint, cluster string, check func(*appsv1.Deployment) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var d appsv1.Deployment
		if code, err := kubeGet(endpoint, cluster, "/apis/apps/v1/namespaces/default/deployments/batch", &d); err != nil || code != 200 {
			return fmt.Errorf("read deployment: HTTP %d: %v", code, err)
		}
		return check(&d)
	}
}

// Mistakes local to the configuration fail at plan time, before any request.
func TestAccWorkload_invalid(t *testing.T) {
	testPlanErrors(t, "gkesim_workload", []planErrorCase{
		{`cpu = "half"`, `(?s)Invalid quantity.*"half" is not a valid quantity`},
		{`memory = "-1Gi"`, `(?s)Invalid quantity.*"-1Gi"`},
		{"priority = 10\npriority_class_name = \"system-cluster-critical\"", `(?s)cannot be configured together`},
		{`labels = { "bad key!" = "x" }`, `(?s)Invalid key.*"bad key!"`},
		{`labels = { "app.kubernetes.io/name" = "other" }`, `(?s)Label reserved for the workload's selector`},
		{`annotations = { "cluster-autoscaler.kubernetes.io/safe-to-evict" = "false" }`, `(?s)Set safe_to_evict = false`},
		{`node_selector = { "cloud.google.com/gke-spot" = "true" }`, `(?s)Set spot = true`},
		{"toleration {\nkey = \"dedicated\"\neffect = \"NO_SCHEDULE\"\n}", `(?s)effect.*value must be one of`},
		{`replicas = -1`, `(?s)replicas.*must be at least 0`},
		{`namespace = "Not_A_Label"`, `(?s)Invalid Kubernetes name`},
	})
}

// What needs the cluster's state fails at apply time with the API server's message verbatim;
// wait_for_ready reports why replicas are not ready when its timeout passes.
func TestAccWorkload_apiErrors(t *testing.T) {
	ep := parallelEmulator(t)
	config := func(workload string) string {
		return providerConfig(ep) + `
resource "gkesim_cluster" "c" {
  name = "acc-wl-err"
}
` + workload
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("")},
			{
				Config: config(`
resource "gkesim_workload" "w" {
  cluster   = gkesim_cluster.c.name
  namespace = "x"
  name      = "web"
}`),
				ExpectError: wrappedText(`Creating Deployment x/web in cluster projects/acc-project/locations/us-central1-a/clusters/acc-wl-err: namespaces "x" not found`),
			},
			{
				Config: config(`
resource "gkesim_workload" "w" {
  cluster        = gkesim_cluster.c.name
  name           = "huge"
  cpu            = "64"
  wait_for_ready = true
  timeouts {
    create = "2s"
  }
}`),
				ExpectError: wrappedText("context deadline exceeded waiting for every replica to be ready; last seen: 0 of 1 ready, 1 Pending (0/1 nodes are available: 1 Insufficient cpu)"),
			},
		},
	})
}
