package console_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// The scenario the browser test (and `make screenshots`) drives: a regional cluster "shop" in
// the middle of a blue-green upgrade of its "web" pool (3 zones x 8 nodes, batches of 4 with
// 10-minute soaks, a PodDisruptionBudget on the pods), while the cluster autoscaler has grown
// its "batch" pool for pending pods up to the pool's maximum; a LoadBalancer Service on the web
// pods; a daily maintenance window and a NO_UPGRADES exclusion. A second, small cluster "edge"
// runs in another project. The emulator's clock is frozen: only the scenario moves it, so
// every figure is the same on every run.

const (
	project = "retail-prod"
	region  = "us-central1"
)

var scenarioStart = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

// client calls the emulator's HTTP API and fails the test on any error.
type client struct {
	t    testing.TB
	base string
	// token is the emulator's auth token, if it has one.
	token string
}

func (c *client) call(method, path string, body, out any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		c.t.Fatalf("%s %s: %s: %s", method, path, res.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

func (c *client) get(path string, out any) { c.t.Helper(); c.call(http.MethodGet, path, nil, out) }

func (c *client) advance(d time.Duration) {
	c.t.Helper()
	c.call(http.MethodPost, "/emulator/v1/clock:advance", map[string]string{"duration": fmt.Sprintf("%ds", int(d.Seconds()))}, nil)
}

// wait advances the clock a minute at a time until the operation is done.
func (c *client) wait(location string, op *api.Operation) {
	c.t.Helper()
	for i := 0; i < 240; i++ {
		var got api.Operation
		c.get("/v1/projects/"+project+"/locations/"+location+"/operations/"+op.Name, &got)
		if got.Status == api.OpStatusDone {
			if got.StatusMessage != "" {
				c.t.Fatalf("operation %s (%s) failed: %s", op.Name, op.OperationType, got.StatusMessage)
			}
			return
		}
		c.advance(time.Minute)
	}
	c.t.Fatalf("operation %s is not done after 4 emulated hours", op.Name)
}

func (c *client) k8s(cluster, path string, obj any) {
	c.t.Helper()
	c.call(http.MethodPost, "/k8s/projects/"+project+"/locations/"+region+"/clusters/"+cluster+path, obj, nil)
}

// versions returns two node versions of one minor in the REGULAR channel: from < to.
func (c *client) versions() (from, to string) {
	c.t.Helper()
	var vs api.VersionSchedule
	c.get("/emulator/v1/versions", &vs)
	for _, ch := range vs.Channels {
		if ch.Channel != api.ChannelRegular || len(ch.ValidVersions) < 2 {
			continue
		}
		to = ch.ValidVersions[0]
		minor := to[:strings.LastIndexByte(to[:strings.IndexByte(to, '-')], '.')]
		for _, v := range ch.ValidVersions[1:] {
			if strings.HasPrefix(v, minor+".") {
				return v, to
			}
		}
	}
	c.t.Fatalf("no two REGULAR versions of one minor in %+v", vs)
	return "", ""
}

// scenario is what the scenario built, for the test to check the console against.
type scenario struct {
	Cluster   string // the shop cluster's resource name
	UpgradeOp string // the web pool's blue-green upgrade
	From, To  string
}

func deployment(name, pool string, replicas int, cpu string) map[string]any {
	labels := map[string]string{"app": name}
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": map[string]any{
				"nodeSelector": map[string]string{"cloud.google.com/gke-nodepool": pool},
				"containers":   []any{map[string]any{"name": "app", "image": "nginx", "resources": map[string]any{"requests": map[string]string{"cpu": cpu}}}}}}}}
}

func buildScenario(t testing.TB, base string) *scenario {
	c := &client{t: t, base: base}
	from, to := c.versions()
	batch := int32(4)
	zones := []string{region + "-a", region + "-b", region + "-c"}
	var op api.Operation
	c.call(http.MethodPost, "/v1/projects/"+project+"/locations/"+region+"/clusters", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "shop", InitialClusterVersion: to, Locations: zones,
		ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified},
		NodePools: []*api.NodePool{
			{Name: "web", InitialNodeCount: 8, Version: from, Config: &api.NodeConfig{MachineType: "e2-standard-4"},
				UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
					StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchNodeCount: &batch, BatchSoakDuration: "600s"},
					NodePoolSoakDuration:  "3600s"}}},
			{Name: "batch", InitialNodeCount: 1, Version: to, Config: &api.NodeConfig{MachineType: "e2-standard-4"},
				Autoscaling: &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 4}},
		},
	}}, &op)
	c.wait(region, &op)
	c.call(http.MethodPost, "/v1/projects/"+project+"/locations/europe-west1-b/clusters", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "edge", ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelRegular},
		NodePools: []*api.NodePool{{Name: "default-pool", InitialNodeCount: 3}},
	}}, &op)
	c.wait("europe-west1-b", &op)
	name := "projects/" + project + "/locations/" + region + "/clusters/shop"
	c.call(http.MethodPost, "/v1/"+name+":setMaintenancePolicy", &api.SetMaintenancePolicyRequest{MaintenancePolicy: &api.MaintenancePolicy{
		Window: &api.MaintenanceWindow{
			DailyMaintenanceWindow: &api.DailyMaintenanceWindow{StartTime: "03:00"},
			MaintenanceExclusions: map[string]*api.TimeWindow{
				"black-friday": {StartTime: "2026-11-26T00:00:00Z", EndTime: "2026-12-01T00:00:00Z",
					MaintenanceExclusionOptions: &api.MaintenanceExclusionOptions{Scope: api.ScopeNoUpgrades}},
			}}}}, &op)
	c.wait(region, &op)

	c.k8s("shop", "/apis/apps/v1/namespaces/default/deployments", deployment("web", "web", 24, "1"))
	c.k8s("shop", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
		"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"maxUnavailable": 1, "selector": map[string]any{"matchLabels": map[string]string{"app": "web"}}}})
	c.k8s("shop", "/api/v1/namespaces/default/services", map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"type": "LoadBalancer", "externalTrafficPolicy": "Local", "selector": map[string]string{"app": "web"},
			"ports": []any{map[string]any{"port": 80, "targetPort": 8080}}}})
	c.k8s("shop", "/api/v1/namespaces/default/services", map[string]any{"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "checkout", "annotations": map[string]string{"networking.gke.io/load-balancer-type": "Internal"}},
		"spec":     map[string]any{"type": "LoadBalancer", "selector": map[string]string{"app": "web"}, "ports": []any{map[string]any{"port": 443, "targetPort": 8443}}}})
	c.advance(5 * time.Minute)
	// Jobs that need more than the batch pool's 4 nodes per zone can hold: it grows to its
	// maximum and some pods stay pending (NotTriggerScaleUp).
	c.k8s("shop", "/apis/apps/v1/namespaces/default/deployments", deployment("jobs", "batch", 28, "1500m"))
	c.advance(4 * time.Minute)

	c.call(http.MethodPut, "/v1/"+name+"/nodePools/web", &api.UpdateNodePoolRequest{NodeVersion: to}, &op)
	c.advance(27 * time.Minute)
	return &scenario{Cluster: name, UpgradeOp: op.Name, From: from, To: to}
}
