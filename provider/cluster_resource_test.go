package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccCluster_basic(t *testing.T) {
	ep := parallelEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_cluster"),
		Steps: []resource.TestStep{
			{
				Config: providerConfig(ep) + `
resource "gkesim_cluster" "test" {
  name               = "acc-basic"
  initial_node_count = 2
}`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("id"), knownvalue.StringExact("projects/acc-project/locations/us-central1-a/clusters/acc-basic")),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("status"), knownvalue.StringExact("RUNNING")),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("location"), knownvalue.StringExact(testZone)),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("project"), knownvalue.StringExact(testProject)),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("node_locations"), knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(testZone)})),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("master_version"), knownvalue.StringRegexp(regexp.MustCompile(`^1\.\d+\.\d+-gke\.\d+$`))),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("endpoint"), knownvalue.StringRegexp(regexp.MustCompile(`/k8s/projects/acc-project/locations/us-central1-a/clusters/acc-basic$`))),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("enable_l4_ilb_subsetting"), knownvalue.Bool(false)),
				},
			},
			{
				// GKE reports the release channel and an import takes it; this configuration
				// leaves the block out.
				ResourceName:            "gkesim_cluster.test",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "release_channel"},
			},
			{
				ResourceName:      "gkesim_cluster.test",
				ImportState:       true,
				ImportStateId:     "acc-project/us-central1-a/acc-basic",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "release_channel"},
			},
			{
				ResourceName:      "gkesim_cluster.test",
				ImportState:       true,
				ImportStateId:     "us-central1-a/acc-basic",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "release_channel"},
			},
		},
	})
}

func TestAccCluster_update(t *testing.T) {
	ep := parallelEmulator(t)
	config := func(channel, profile string, subsetting bool, zones string, labels string) string {
		return providerConfig(ep) + fmt.Sprintf(`
resource "gkesim_cluster" "test" {
  name                     = "acc-update"
  location                 = "us-central1"
  node_locations           = %s
  enable_l4_ilb_subsetting = %v
  resource_labels          = %s
  release_channel {
    channel = %q
  }
  cluster_autoscaling {
    autoscaling_profile = %q
  }
}`, zones, subsetting, labels, channel, profile)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_cluster"),
		Steps: []resource.TestStep{
			{
				Config: config("REGULAR", "BALANCED", false, `["us-central1-a", "us-central1-b"]`, `{ team = "a" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("node_locations"), knownvalue.SetSizeExact(2)),
				},
			},
			{
				Config: config("RAPID", "OPTIMIZE_UTILIZATION", true, `["us-central1-a", "us-central1-b", "us-central1-c"]`, `{ team = "b", env = "test" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gkesim_cluster.test", plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("release_channel").AtSliceIndex(0).AtMapKey("channel"), knownvalue.StringExact("RAPID")),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("cluster_autoscaling").AtSliceIndex(0).AtMapKey("autoscaling_profile"), knownvalue.StringExact("OPTIMIZE_UTILIZATION")),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("enable_l4_ilb_subsetting"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("node_locations"), knownvalue.SetSizeExact(3)),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("resource_labels"), knownvalue.MapExact(map[string]knownvalue.Check{
						"team": knownvalue.StringExact("b"), "env": knownvalue.StringExact("test")})),
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("status"), knownvalue.StringExact("RUNNING")),
				},
			},
			{
				// R-LB-4: subsetting cannot be disabled in place, so turning it off replaces the cluster.
				Config: config("RAPID", "OPTIMIZE_UTILIZATION", false, `["us-central1-a", "us-central1-b", "us-central1-c"]`, `{ team = "b", env = "test" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gkesim_cluster.test", plancheck.ResourceActionReplace)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("enable_l4_ilb_subsetting"), knownvalue.Bool(false)),
				},
			},
			{
				ResourceName: "gkesim_cluster.test", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}

func TestAccCluster_masterUpgrade(t *testing.T) {
	ep := parallelEmulator(t)
	versions := serverVersions(t, ep)
	from, to := versions[1], versions[0]
	config := func(v string) string {
		return providerConfig(ep) + fmt.Sprintf(`
resource "gkesim_cluster" "test" {
  name               = "acc-master"
  min_master_version = %q
}`, v)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_cluster"),
		Steps: []resource.TestStep{
			{
				Config: config(from),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("master_version"), knownvalue.StringExact(from)),
				},
			},
			{
				Config: config(to),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("gkesim_cluster.test", plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue("gkesim_cluster.test", tfjsonpath.New("master_version")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gkesim_cluster.test", tfjsonpath.New("master_version"), knownvalue.StringExact(to)),
				},
			},
		},
	})
}

func TestAccCluster_removeDefaultNodePool(t *testing.T) {
	ep := parallelEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGone(ep, "gkesim_cluster"),
		Steps: []resource.TestStep{{
			Config: providerConfig(ep) + `
resource "gkesim_cluster" "test" {
  name                     = "acc-nodefault"
  remove_default_node_pool = true
}
data "gkesim_cluster" "test" {
  name       = gkesim_cluster.test.name
  depends_on = [gkesim_cluster.test]
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gkesim_cluster.test", tfjsonpath.New("node_pool_names"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.gkesim_cluster.test", tfjsonpath.New("release_channel").AtSliceIndex(0).AtMapKey("channel"), knownvalue.StringExact("REGULAR")),
				statecheck.ExpectKnownValue("data.gkesim_cluster.test", tfjsonpath.New("cluster_autoscaling").AtSliceIndex(0).AtMapKey("autoscaling_profile"), knownvalue.StringExact("BALANCED")),
				statecheck.ExpectKnownValue("data.gkesim_cluster.test", tfjsonpath.New("status"), knownvalue.StringExact("RUNNING")),
			},
		}},
	})
}

func TestAccCluster_invalid(t *testing.T) {
	ep := parallelEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Local rule: caught at plan time, before any request.
				Config:      providerConfig(ep) + `resource "gkesim_cluster" "test" { name = "Bad_Name" }`,
				ExpectError: regexp.MustCompile(`must be 1-40 characters of lowercase letters`),
			},
			{
				Config: providerConfig(ep) + `
resource "gkesim_cluster" "test" {
  name = "acc-bad-channel"
  release_channel {
    channel = "NIGHTLY"
  }
}`,
				ExpectError: regexp.MustCompile(`(?s)value must be one of.*"RAPID"`),
			},
			{
				// Needs the emulator's state: its message is shown verbatim.
				Config: providerConfig(ep) + `
resource "gkesim_cluster" "test" {
  name               = "acc-bad-version"
  min_master_version = "1.2.3-gke.4"
}`,
				ExpectError: regexp.MustCompile(`Master version\s+"1.2.3-gke.4"\s+is\s+unsupported`),
			},
			{
				Config: providerConfig(ep) + `
resource "gkesim_cluster" "test" {
  name     = "acc-bad-zone"
  location = "mars-north1"
}`,
				ExpectError: regexp.MustCompile(`Location\s+"mars-north1"\s+does\s+not\s+exist`),
			},
		},
	})
}
