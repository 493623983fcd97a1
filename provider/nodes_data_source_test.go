package provider

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
)

// The data source shows what the Kubernetes API shows for each node, in its own units.
func TestAccNodesDataSource(t *testing.T) {
	ep := parallelEmulator(t)
	const cluster = "acc-nodes"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: providerConfig(ep) + `
resource "gkesim_cluster" "c" {
  name               = "` + cluster + `"
  initial_node_count = 2
}
data "gkesim_nodes" "all" {
  cluster = gkesim_cluster.c.id
}
data "gkesim_nodes" "none" {
  cluster   = gkesim_cluster.c.name
  node_pool = "no-such-pool"
}
data "gkesim_node_pool" "default" {
  cluster = gkesim_cluster.c.name
  name    = "default-pool"
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gkesim_nodes.all", tfjsonpath.New("location"), knownvalue.StringExact(testZone)),
				statecheck.ExpectKnownValue("data.gkesim_nodes.all", tfjsonpath.New("nodes"), knownvalue.ListSizeExact(2)),
				statecheck.ExpectKnownValue("data.gkesim_nodes.none", tfjsonpath.New("nodes"), knownvalue.ListSizeExact(0)),
				statecheck.CompareValuePairs("data.gkesim_nodes.all", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("version"),
					"data.gkesim_node_pool.default", tfjsonpath.New("version"), compare.ValuesSame()),
			},
			Check: checkNodesMatchAPI(ep, cluster, "data.gkesim_nodes.all"),
		}},
	})
}

// checkNodesMatchAPI compares every node of the data source with the Kubernetes API's Node.
func checkNodesMatchAPI(endpoint, cluster, addr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		var nodes corev1.NodeList
		if _, err := kubeGet(endpoint, cluster, "/api/v1/nodes", &nodes); err != nil {
			return err
		}
		attrs := s.RootModule().Resources[addr].Primary.Attributes
		for i, n := range nodes.Items {
			at := func(k string) string { return attrs["nodes."+strconv.Itoa(i)+"."+k] }
			want := map[string]string{
				"name":               n.Name,
				"node_pool":          "default-pool",
				"zone":               testZone,
				"machine_type":       "e2-medium",
				"state":              "Ready",
				"unschedulable":      "false",
				"allocatable_cpu":    fmt.Sprintf("%dm", n.Status.Allocatable.Cpu().MilliValue()),
				"allocatable_memory": fmt.Sprintf("%dMi", n.Status.Allocatable.Memory().Value()>>20),
				"requested_cpu":      n.Annotations[requestedCPUAnn],
				"requested_memory":   n.Annotations[requestedMemoryAnn],
				"pods":               n.Annotations[podsAnn],
			}
			for k, v := range want {
				if at(k) != v {
					return fmt.Errorf("nodes[%d].%s = %q, the API says %q", i, k, at(k), v)
				}
			}
		}
		return nil
	}
}
