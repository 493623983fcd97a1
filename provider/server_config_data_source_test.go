package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccServerConfigDataSource(t *testing.T) {
	ep := parallelEmulator(t)
	versions := serverVersions(t, ep)
	parts := strings.SplitN(versions[0], ".", 3)
	prefix := parts[0] + "." + parts[1] + "." // "1.XX."
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: providerConfig(ep) + `
data "gkesim_server_config" "all" {}
data "gkesim_server_config" "minor" {
  location       = "us-central1"
  version_prefix = "` + prefix + `"
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gkesim_server_config.all", tfjsonpath.New("id"), knownvalue.StringExact("projects/acc-project/locations/us-central1-a")),
				statecheck.ExpectKnownValue("data.gkesim_server_config.all", tfjsonpath.New("default_image_type"), knownvalue.StringExact("COS_CONTAINERD")),
				statecheck.ExpectKnownValue("data.gkesim_server_config.all", tfjsonpath.New("release_channel_default_version"), knownvalue.MapSizeExact(4)),
				statecheck.ExpectKnownValue("data.gkesim_server_config.all", tfjsonpath.New("release_channel_default_version").AtMapKey("REGULAR"),
					knownvalue.StringRegexp(regexp.MustCompile(`^1\.\d+\.\d+-gke\.\d+$`))),
				statecheck.ExpectKnownValue("data.gkesim_server_config.all", tfjsonpath.New("minor_versions").AtSliceIndex(0).AtMapKey("minor"),
					knownvalue.StringRegexp(regexp.MustCompile(`^1\.\d+$`))),
				statecheck.ExpectKnownValue("data.gkesim_server_config.all", tfjsonpath.New("minor_versions").AtSliceIndex(0).AtMapKey("end_of_standard_support"),
					knownvalue.StringRegexp(regexp.MustCompile(`^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ$`))),
				statecheck.ExpectKnownValue("data.gkesim_server_config.all", tfjsonpath.New("minor_versions").AtSliceIndex(0).AtMapKey("end_of_extended_support"),
					knownvalue.StringRegexp(regexp.MustCompile(`^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ$`))),
				statecheck.ExpectKnownValue("data.gkesim_server_config.minor", tfjsonpath.New("latest_node_version"), knownvalue.StringRegexp(regexp.MustCompile("^"+regexp.QuoteMeta(prefix)))),
				statecheck.ExpectKnownValue("data.gkesim_server_config.minor", tfjsonpath.New("latest_master_version"), knownvalue.StringRegexp(regexp.MustCompile("^"+regexp.QuoteMeta(prefix)))),
			},
		}},
	})
}
