package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// clusterForPools is a zonal cluster without its default pool, for node pool tests.
func clusterForPools(name, extra string) string {
	return fmt.Sprintf(`
resource "gkesim_cluster" "c" {
  name                     = %q
  remove_default_node_pool = true
  %s
}
`, name, extra)
}

// checkNodesOnVersion checks through the cluster's Kubernetes-shaped API that every node of a
// pool runs a version and machine type.
func checkNodesOnVersion(endpoint, cluster, pool, version, machineType string, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		resp, err := getNodes(endpoint, cluster)
		if err != nil {
			return err
		}
		n := 0
		for _, node := range resp.Items {
			if node.Metadata.Labels["cloud.google.com/gke-nodepool"] != pool {
				continue
			}
			n++
			if node.Status.NodeInfo.KubeletVersion != "v"+version || node.Metadata.Labels["node.kubernetes.io/instance-type"] != machineType {
				return fmt.Errorf("node %s runs %s on %s, want v%s on %s", node.Metadata.Name,
					node.Status.NodeInfo.KubeletVersion, node.Metadata.Labels["node.kubernetes.io/instance-type"], version, machineType)
			}
		}
		if n != want {
			return fmt.Errorf("pool %s has %d nodes, want %d", pool, n, want)
		}
		return nil
	}
}

func TestAccNodePool_basic(t *testing.T) {
	ep := parallelEmulator(t)
	config := func(count int, labels, taint string) string {
		return providerConfig(ep) + clusterForPools("acc-np", "") + fmt.Sprintf(`
resource "gkesim_node_pool" "test" {
  cluster    = gkesim_cluster.c.name
  name       = "pool-a"
  node_count = %d
  node_config {
    machine_type = "e2-standard-4"
    disk_size_gb = 50
    image_type   = "cos_containerd"
    labels       = %s
    %s
  }
}`, count, labels, taint)
	}
	const taint = `taint {
      key    = "dedicated"
      value  = "batch"
      effect = "NO_SCHEDULE"
    }`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_node_pool"),
		Steps: []resource.TestStep{
			{
				Config: config(2, `{ team = "a" }`, taint),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("id"), knownvalue.StringExact("projects/acc-project/locations/us-central1-a/clusters/acc-np/nodePools/pool-a")),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("node_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("initial_node_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("status"), knownvalue.StringExact("RUNNING")),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("instance_group_urls"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("node_config").AtSliceIndex(0).AtMapKey("disk_type"), knownvalue.StringExact("pd-balanced")),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("node_config").AtSliceIndex(0).AtMapKey("image_type"), knownvalue.StringExact("cos_containerd")),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("node_config").AtSliceIndex(0).AtMapKey("taint"), knownvalue.ListSizeExact(1)),
				},
				Check: func(s *terraform.State) error {
					v := s.RootModule().Resources["gkesim_node_pool.test"].Primary.Attributes["version"]
					return checkNodesOnVersion(ep, "acc-np", "pool-a", v, "e2-standard-4", 2)(s)
				},
			},
			{
				// Resize, relabel and untaint: in place, no node is recreated.
				Config: config(3, `{ team = "b" }`, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gkesim_node_pool.test", plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("node_count"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("node_config").AtSliceIndex(0).AtMapKey("labels"), knownvalue.MapExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("b")})),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("node_config").AtSliceIndex(0).AtMapKey("taint"), knownvalue.ListSizeExact(0)),
				},
			},
			{
				// GKE reports the pool's management and an import takes it; this configuration
				// leaves the block out.
				ResourceName: "gkesim_node_pool.test", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"timeouts", "node_config.0.image_type", "management"},
			},
			{
				ResourceName: "gkesim_node_pool.test", ImportState: true, ImportStateId: "acc-project/us-central1-a/acc-np/pool-a",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "node_config.0.image_type", "management"},
			},
			{
				ResourceName: "gkesim_node_pool.test", ImportState: true, ImportStateId: "us-central1-a/acc-np/pool-a",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "node_config.0.image_type", "management"},
			},
		},
	})
}

// A version change and a machine type change recreate the nodes (R-UPG-1) and the apply waits
// until every node runs the new configuration.
func TestAccNodePool_upgrade(t *testing.T) {
	ep := parallelEmulator(t)
	versions := serverVersions(t, ep)
	from, to := versions[1], versions[0]
	// Without a machine type, no node_config block: GKE's defaults.
	config := func(version, machine string) string {
		block := ""
		if machine != "" {
			block = fmt.Sprintf("node_config {\n    machine_type = %q\n  }", machine)
		}
		return providerConfig(ep) + clusterForPools("acc-upgrade", fmt.Sprintf("min_master_version = %q", to)) + fmt.Sprintf(`
resource "gkesim_node_pool" "test" {
  cluster            = gkesim_cluster.c.id
  name               = "pool-a"
  initial_node_count = 3
  version            = %q
  %s
}`, version, block)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_node_pool"),
		Steps: []resource.TestStep{
			{
				Config: config(from, ""),
				Check:  checkNodesOnVersion(ep, "acc-upgrade", "pool-a", from, "e2-medium", 3),
			},
			{
				Config: config(to, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gkesim_node_pool.test", plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("version"), knownvalue.StringExact(to)),
				},
				Check: checkNodesOnVersion(ep, "acc-upgrade", "pool-a", to, "e2-medium", 3),
			},
			{
				// Adding a node_config block to a pool created without one changes the machine
				// type in place (the nodes are recreated), it does not replace the pool: spot and
				// flex_start go from unset to their default false.
				Config: config(to, "n2-standard-2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gkesim_node_pool.test", plancheck.ResourceActionUpdate)},
				},
				Check: checkNodesOnVersion(ep, "acc-upgrade", "pool-a", to, "n2-standard-2", 3),
			},
		},
	})
}

// An alias in version does not diff against the full version GKE reports.
func TestAccNodePool_versionAlias(t *testing.T) {
	ep := parallelEmulator(t)
	versions := serverVersions(t, ep)
	minor := versions[0][:len("1.XX")]
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: providerConfig(ep) + clusterForPools("acc-alias", "") + fmt.Sprintf(`
resource "gkesim_node_pool" "test" {
  cluster = gkesim_cluster.c.name
  name    = "pool-a"
  version = %q
}`, minor),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("version"), knownvalue.StringExact(minor)),
				statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("node_count"), knownvalue.Int64Exact(1)),
			},
		}},
	})
}

func TestAccNodePool_regionalLocations(t *testing.T) {
	ep := parallelEmulator(t)
	config := func(zones string) string {
		return providerConfig(ep) + `
resource "gkesim_cluster" "c" {
  name                     = "acc-regional"
  location                 = "us-central1"
  remove_default_node_pool = true
  release_channel {
    channel = "UNSPECIFIED"
  }
}
resource "gkesim_node_pool" "test" {
  cluster        = gkesim_cluster.c.id
  name           = "pool-a"
  node_count     = 1
  node_locations = ` + zones + `
  management {
    auto_upgrade = false
  }
}
data "gkesim_node_pool" "test" {
  cluster = gkesim_cluster.c.id
  name    = gkesim_node_pool.test.name
}`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_cluster"),
		Steps: []resource.TestStep{
			{
				Config: config(`["us-central1-a", "us-central1-b"]`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("location"), knownvalue.StringExact(testRegion)),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("instance_group_urls"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("management").AtSliceIndex(0).AtMapKey("auto_upgrade"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("management").AtSliceIndex(0).AtMapKey("auto_repair"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("data.gkesim_node_pool.test", tfjsonpath.New("node_config").AtSliceIndex(0).AtMapKey("machine_type"), knownvalue.StringExact("e2-medium")),
					statecheck.ExpectKnownValue("data.gkesim_node_pool.test", tfjsonpath.New("node_count"), knownvalue.Int64Exact(1)),
				},
			},
			{
				Config: config(`["us-central1-a", "us-central1-b", "us-central1-c"]`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_node_pool.test", tfjsonpath.New("instance_group_urls"), knownvalue.ListSizeExact(3)),
					statecheck.ExpectKnownValue("data.gkesim_node_pool.test", tfjsonpath.New("node_locations"), knownvalue.SetSizeExact(3)),
				},
			},
			{
				ResourceName: "gkesim_node_pool.test", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"timeouts", "cluster"},
			},
		},
	})
}

func TestAccNodePool_invalid(t *testing.T) {
	ep := parallelEmulator(t)
	pool := func(body string) string {
		return providerConfig(ep) + `
resource "gkesim_node_pool" "test" {
  cluster = "some-cluster"
  name    = "pool-a"
` + body + "\n}"
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      pool("initial_node_count = 1\nnode_count = 2"),
				ExpectError: regexp.MustCompile(`(?s)cannot be configured together.*initial_node_count,node_count`),
			},
			{
				Config:      pool("node_config {\ndisk_size_gb = 5\n}"),
				ExpectError: regexp.MustCompile(`(?s)disk_size_gb.*must be at least 10`),
			},
			{
				Config:      pool("node_config {\ntaint {\nkey = \"a\"\neffect = \"NoSchedule\"\n}\n}"),
				ExpectError: regexp.MustCompile(`(?s)effect.*value must be one of`),
			},
			{
				Config:      pool("node_count = -1"),
				ExpectError: regexp.MustCompile(`(?s)node_count.*must be between 0 and 1000`),
			},
			{
				Config: providerConfig(ep) + clusterForPools("acc-bad-np", "") + `
resource "gkesim_node_pool" "test" {
  cluster = gkesim_cluster.c.name
  name    = "pool-a"
  node_config {
    machine_type = "z9-mega-1"
  }
}`,
				ExpectError: regexp.MustCompile(`(?s)Unknown\s+machine\s+type`),
			},
		},
	})
}
