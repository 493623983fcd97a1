package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// lbCluster is a cluster with GKE subsetting and a pool of n nodes, and the workload web
// (replicas pods of 1 CPU, so that they spread over as many nodes).
func lbCluster(cluster string, n, replicas int) string {
	return clusterForPools(cluster, "enable_l4_ilb_subsetting = true") + fmt.Sprintf(`
resource "gkesim_node_pool" "a" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-a"
  node_count = %d
  node_config {
    machine_type = "e2-standard-4"
  }
}
resource "gkesim_workload" "web" {
  cluster        = gkesim_cluster.c.name
  name           = "web"
  replicas       = %d
  cpu            = "1"
  wait_for_ready = true
  depends_on     = [gkesim_node_pool.a]
}
`, n, replicas)
}

func lbServiceConfig(body string) string {
	return `
resource "gkesim_load_balancer_service" "web" {
  cluster  = gkesim_cluster.c.name
  name     = "web"
  selector = { "app.kubernetes.io/name" = gkesim_workload.web.name }
` + body + `
}
`
}

// An external Service (a target pool, R-LB-2) becomes internal (GKE subsetting: GCE_VM_IP
// NEGs) with externalTrafficPolicy Local (only the nodes with serving pods are endpoints and
// healthy, R-LB-3, R-LB-6); every step leaves an empty plan, and import reads it back.
func TestAccLoadBalancerService(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster = "acc-lb"
	config := func(body string) string { return providerConfig(ep) + lbCluster(cluster, 4, 2) + lbServiceConfig(body) }
	const addr = "gkesim_load_balancer_service.web"
	external := `
  port {
    port        = 80
    target_port = "8080"
  }`
	internalLocal := `
  internal                = true
  external_traffic_policy = "Local"
  annotations             = { "team" = "web" }
  port {
    port        = 80
    target_port = "8080"
  }`
	var firstIP string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkKubeGone(ep, "gkesim_load_balancer_service"),
		Steps: []resource.TestStep{
			{
				Config: config(external),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("load_balancer_kind"), knownvalue.StringExact("external-target-pool")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ip"), knownvalue.StringRegexp(regexp.MustCompile(`^35\.`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("backend_node_count"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("healthy_node_count"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("health_check_node_port"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"),
						knownvalue.StringExact("projects/"+testProject+"/locations/"+testZone+"/clusters/"+cluster+"/namespaces/default/services/web")),
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr(addr, "port.0.node_port", regexp.MustCompile(`^3[0-2]\d{3}$`)),
					resource.TestMatchResourceAttr(addr, "backend_resources.0", regexp.MustCompile(`^regions/us-central1/forwardingRules/a[0-9a-f]{31}$`)),
					func(s *terraform.State) error {
						firstIP = s.RootModule().Resources[addr].Primary.Attributes["ip"]
						return nil
					},
				),
			},
			{
				Config: config(internalLocal),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("ip")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("load_balancer_kind"), knownvalue.StringExact("internal-neg")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ip"), knownvalue.StringRegexp(regexp.MustCompile(`^10\.`))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("backend_node_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("healthy_node_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("annotations"), knownvalue.MapExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("web")})),
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr(addr, "health_check_node_port", regexp.MustCompile(`^3[0-2]\d{3}$`)),
					func(s *terraform.State) error {
						if ip := s.RootModule().Resources[addr].Primary.Attributes["ip"]; ip == firstIP {
							return fmt.Errorf("internal load balancer kept the external address %s", ip)
						}
						res := s.RootModule().Resources[addr].Primary.Attributes
						found := false
						for k, v := range res {
							if strings.HasPrefix(k, "backend_resources.") && strings.Contains(v, "/networkEndpointGroups/k8s2-") {
								found = true
							}
						}
						if !found {
							return fmt.Errorf("no NEG among the backend resources: %v", res)
						}
						return nil
					},
				),
			},
			{
				// A port added to the Service: its target and node ports are new, not the
				// (absent) state of a second port.
				Config: config(internalLocal[:strings.Index(internalLocal, "port {")] + `
  port {
    name        = "http"
    port        = 80
    target_port = "8080"
  }
  port {
    name = "https"
    port = 443
  }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "port.1.target_port", "443"),
					resource.TestMatchResourceAttr(addr, "port.1.node_port", regexp.MustCompile(`^3[0-2]\d{3}$`)),
				),
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				ResourceName: addr, ImportState: true, ImportStateVerify: true, ImportStateId: testZone + "/" + cluster + "/default/web",
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

// Mistakes local to the configuration fail at plan time.
func TestAccLoadBalancerService_planErrors(t *testing.T) {
	testPlanErrors(t, "gkesim_load_balancer_service", []planErrorCase{
		{`selector = { app = "web" }
  annotations = { "networking.gke.io/load-balancer-type" = "Internal" }
  port { port = 80 }`, `Set internal = true instead`},
		{`selector = { app = "web" }
  annotations = { "service.kubernetes.io/backend-service" = "x" }
  port { port = 80 }`, `GKE writes service.kubernetes.io/backend-service`},
		{`selector = { app = "web" }
  port { port = 80 }
  port { port = 443 }`, `needs a name for each`},
		{`selector = { app = "web" }
  health_check_node_port = 31000
  port { port = 80 }`, `health_check_node_port may only be set with`},
		{`selector = { app = "web" }
  external_traffic_policy = "Nearby"
  port { port = 80 }`, `value must be one of`},
		{`selector = { app = "web" }
  port {
    port      = 80
    node_port = 20000
  }`, `between 30000 and 32767`},
		{`selector = { app = "web" }
  port {
    port        = 80
    target_port = "99999"
  }`, `target_port 99999 must be between 1 and 65535`},
		{`selector = { app = "web" }
  port {
    port        = 80
    target_port = "Http_Port"
  }`, `neither a port number`},
	})
}
