package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

// Acceptance tests run terraform against an emulator started in-process on a loopback port.

const (
	testProject  = "acc-project"
	testZone     = "us-central1-a"
	testRegion   = "us-central1"
	testTimeStep = 5000 // emulated seconds per wall second: a cluster comes up in ~0.1 s
)

var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"gkesim": providerserver.NewProtocol6WithError(New("test")()),
}

// testEmulator starts an emulator for one test and returns its URL. Its clock runs from the
// start, at testTimeStep: a test that runs in parallel calls it only once it runs
// (parallelEmulator), never before t.Parallel().
func testEmulator(t *testing.T) string {
	t.Helper()
	_, url := emulatortest.Start(t, emulator.Options{TimeScale: testTimeStep, Seed: 11, Start: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)})
	return url
}

// parallelEmulator marks the test parallel, then starts its emulator. A parallel test waits at
// t.Parallel() for the package's sequential tests to end and then for a free -parallel slot,
// minutes in a full run; an emulator started before that wait would have run emulated weeks by
// the time the test's first step came (at 5000x, 13 emulated days are under four wall
// minutes), and GKE's auto-upgrade to the next Regular patch would change the pools under the
// test's feet. Such tests use resource.Test, not resource.ParallelTest, which would call
// t.Parallel() a second time.
func parallelEmulator(t *testing.T) string {
	t.Helper()
	t.Parallel()
	return testEmulator(t)
}

// providerConfig is the provider block every test configuration starts with.
func providerConfig(endpoint string) string {
	return fmt.Sprintf(`
provider "gkesim" {
  endpoint      = %q
  project       = %q
  location      = %q
  poll_interval = "20ms"
}
`, endpoint, testProject, testZone)
}

func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") == "" {
		fmt.Fprintln(os.Stderr, "provider acceptance tests are skipped without TF_ACC=1 (make test sets it)")
	}
	os.Exit(m.Run())
}

// apiGet reads a GKE resource (path after /v1/) from the emulator into out; it returns the
// HTTP status.
func apiGet(endpoint, path string, out any) (int, error) {
	resp, err := http.Get(endpoint + "/v1/" + path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == http.StatusOK {
		return resp.StatusCode, json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode, nil
}

// checkGone is a CheckDestroy that every resource of the given type is gone from the emulator.
func checkGone(endpoint, resourceType string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if rs.Type != resourceType {
				continue
			}
			code, err := apiGet(endpoint, rs.Primary.ID, nil)
			if err != nil {
				return err
			}
			if code != http.StatusNotFound {
				return fmt.Errorf("%s still exists (HTTP %d)", rs.Primary.ID, code)
			}
		}
		return nil
	}
}

// serverVersions returns node versions of the default minor at the emulator's current time,
// newest first, read from its serverConfig.
func serverVersions(t *testing.T, endpoint string) []string {
	t.Helper()
	var sc struct {
		DefaultClusterVersion string   `json:"defaultClusterVersion"`
		ValidNodeVersions     []string `json:"validNodeVersions"`
	}
	if _, err := apiGet(endpoint, "projects/"+testProject+"/locations/"+testZone+"/serverConfig", &sc); err != nil {
		t.Fatal(err)
	}
	minor := sc.DefaultClusterVersion[:strings.LastIndex(sc.DefaultClusterVersion[:strings.Index(sc.DefaultClusterVersion, "-")], ".")]
	var out []string
	for _, v := range sc.ValidNodeVersions {
		if strings.HasPrefix(v, minor+".") && compareVersionPrefix(v, sc.DefaultClusterVersion) <= 0 {
			out = append(out, v)
		}
	}
	if len(out) < 2 {
		t.Fatalf("need two node versions of minor %s at or below %s, server has %v", minor, sc.DefaultClusterVersion, sc.ValidNodeVersions)
	}
	return out
}

// nodeList is the part of a Kubernetes NodeList the tests read.
type nodeList struct {
	Items []struct {
		Metadata struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Status struct {
			NodeInfo struct {
				KubeletVersion string `json:"kubeletVersion"`
			} `json:"nodeInfo"`
		} `json:"status"`
	} `json:"items"`
}

// getNodes lists a zonal test cluster's nodes through its Kubernetes-shaped API.
func getNodes(endpoint, cluster string) (*nodeList, error) {
	var out nodeList
	_, err := kubeGet(endpoint, cluster, "/api/v1/nodes", &out)
	return &out, err
}

// kubeGet reads path (with its query) from a zonal test cluster's Kubernetes-shaped API into
// out; it returns the HTTP status.
func kubeGet(endpoint, cluster, path string, out any) (int, error) {
	resp, err := http.Get(endpoint + "/k8s/projects/" + testProject + "/locations/" + testZone + "/clusters/" + cluster + path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, json.NewDecoder(resp.Body).Decode(out)
}

// kubeAPIPrefix is the API group path of the collections in Kubernetes object ids.
var kubeAPIPrefix = map[string]string{"deployments": "/apis/apps/v1", "poddisruptionbudgets": "/apis/policy/v1", "services": "/api/v1"}

// checkKubeGone is a CheckDestroy that every Kubernetes object of a resource type is gone:
// its id projects/P/locations/L/clusters/C/namespaces/NS/{collection}/NAME answers 404.
func checkKubeGone(endpoint, resourceType string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if rs.Type != resourceType {
				continue
			}
			parts := strings.Split(rs.Primary.ID, "/")
			if len(parts) != 10 {
				return fmt.Errorf("%s: unexpected id %q", resourceType, rs.Primary.ID)
			}
			url := endpoint + "/k8s/" + strings.Join(parts[:6], "/") + kubeAPIPrefix[parts[8]] + "/" + strings.Join(parts[6:], "/")
			resp, err := http.Get(url)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				return fmt.Errorf("%s still exists (HTTP %d)", rs.Primary.ID, resp.StatusCode)
			}
		}
		return nil
	}
}

// planErrorCase is a body of a resource (besides cluster and name) and the error it must give.
type planErrorCase struct{ body, want string }

// testPlanErrors checks that each body fails at plan time with its error: mistakes local to
// the configuration, caught before any request.
func testPlanErrors(t *testing.T, resourceType string, cases []planErrorCase) {
	ep := parallelEmulator(t)
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      providerConfig(ep) + fmt.Sprintf("resource %q \"x\" {\n  cluster = \"some-cluster\"\n  name    = \"web\"\n%s\n}", resourceType, c.body),
			ExpectError: regexp.MustCompile(c.want), PlanOnly: true,
		})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProtoV6ProviderFactories, Steps: steps})
}

// Against an emulator started with an auth token, the provider sends the token it is given
// (auth_token, else GKESIM_AUTH_TOKEN) on the GKE and the Kubernetes calls alike; without it
// the emulator's 401 is shown.
func TestAccProviderAuthToken(t *testing.T) {
	const token = "acc-token"
	_, ep := emulatortest.Start(t, emulator.Options{TimeScale: testTimeStep, Seed: 11, Start: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), AuthToken: token})
	withToken := func(tok string) string {
		cfg := providerConfig(ep)
		if tok == "" {
			return cfg
		}
		return strings.Replace(cfg, "endpoint ", fmt.Sprintf("auth_token    = %q\n  endpoint ", tok), 1)
	}
	resources := `
resource "gkesim_cluster" "c" {
  name               = "acc-auth"
  initial_node_count = 1
}
data "gkesim_nodes" "all" {
  cluster = gkesim_cluster.c.id
}`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { t.Setenv("GKESIM_AUTH_TOKEN", "") },
				Config:      withToken("") + `data "gkesim_server_config" "all" {}`,
				ExpectError: regexp.MustCompile(`Request had invalid authentication credentials`),
			},
			{
				Config: withToken(token) + resources,
				Check:  resource.TestCheckResourceAttr("data.gkesim_nodes.all", "nodes.#", "1"),
			},
			{
				PreConfig: func() { t.Setenv("GKESIM_AUTH_TOKEN", token) },
				Config:    withToken("") + resources,
				Check:     resource.TestCheckResourceAttr("data.gkesim_nodes.all", "nodes.#", "1"),
			},
		},
	})
}
