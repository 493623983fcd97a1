package server

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/internal/aliascheck"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/k8s"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Every answer of every route owns its memory: the handlers encode answers on the HTTP
// goroutine after the simulation goroutine let go of the model, so an answer that still points
// into the model (a pod's `Started: &p.Ready`, a pool's label map, a cluster's stored fields)
// is read while the simulation writes it. The test drives a world with every kind of object
// through every route the server registers and checks each answer against the model it was
// rendered from (aliascheck), on the simulation goroutine; it fails if a route was not driven
// to a successful answer, so a new route cannot escape it.
func TestAnswersDoNotAliasTheModel(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	aliases := map[string][]string{}
	e.srv.inspect = func(w *sim.World, out any) {
		if shared := aliascheck.Index(w).Shared(out); len(shared) > 0 {
			mu.Lock()
			aliases[w.Now().String()] = append(aliases[w.Now().String()], shared...)
			mu.Unlock()
		}
	}
	served := map[string]bool{}
	// Around the whole chain (the server's is built once, New): when the request is done, the
	// router has set its route and the answer its status.
	e.srv.e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			err := next(c)
			if err == nil && c.Response().Status < 300 {
				mu.Lock()
				served[c.Request().Method+" "+strings.Replace(c.Path(), "/v1beta1/", "/v1/", 1)] = true
				mu.Unlock()
			}
			return err
		}
	})
	driveEveryRoute(e)

	for at, shared := range aliases {
		t.Errorf("answers at %s share model memory:\n  %s", at, strings.Join(slices.Compact(shared), "\n  "))
	}
	var missed []string
	for _, r := range e.srv.e.Routes() {
		key := r.Method + " " + strings.Replace(r.Path, "/v1beta1/", "/v1/", 1)
		if k8s.Refused(strings.TrimPrefix(r.Path, "/k8s/projects/:project/locations/:location/clusters/:cluster")) {
			continue // answered with a Status only
		}
		if !served[key] && r.Path != "/healthz" && r.Path != "/readyz" {
			missed = append(missed, key)
		}
	}
	slices.Sort(missed)
	if missed = slices.Compact(missed); len(missed) > 0 {
		t.Errorf("routes not driven to a successful answer (add them to driveEveryRoute):\n  %s", strings.Join(missed, "\n  "))
	}
}

// driveEveryRoute builds two clusters with pools mid-upgrade, workloads, budgets, the four
// kinds of load balancer, objects created in Compute and faults, and calls every route once
// with a request it accepts.
func driveEveryRoute(e *env) {
	t := e.T
	t.Helper()
	const (
		emu     = "/emulator/v1/projects/proj/locations/us-central1-a/clusters/base"
		region  = computeProj + "/regions/us-central1"
		zone    = computeProj + "/zones/us-central1-a"
		subK8s  = "/k8s/projects/proj/locations/us-central1-a/clusters/sub"
		k8sPDBs = k8sBase + "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	)
	e.Mutate("POST", clusters, `{"cluster": {"name": "base", "resourceLabels": {"team": "a"}, "loggingService": "logging.googleapis.com/kubernetes",
		"nodePools": [{"name": "pool-a", "initialNodeCount": 2, "config": {"labels": {"tier": "web"}, "taints": [{"key": "k", "value": "v", "effect": "PREFER_NO_SCHEDULE"}],
			"shieldedInstanceConfig": {"enableSecureBoot": true}}, "locations": ["us-central1-a"]}]}}`)
	e.Mutate("POST", "/v1beta1/projects/proj/locations/us-central1-a/clusters", `{"cluster": {"name": "sub", "initialNodeCount": 1,
		"networkConfig": {"enableL4ilbSubsetting": true}}}`)
	e.Mutate("POST", pools, `{"nodePool": {"name": "pool-b", "initialNodeCount": 2, "upgradeSettings": {"strategy": "BLUE_GREEN",
		"blueGreenSettings": {"standardRolloutPolicy": {"batchNodeCount": 1, "batchSoakDuration": "60s"}, "nodePoolSoakDuration": "600s"}}}}`)
	e.Mutate("POST", base+":setMaintenancePolicy", `{"maintenancePolicy": {"window": {"recurringWindow": {"window": {"startTime": "2026-11-01T00:00:00Z",
		"endTime": "2026-11-01T12:00:00Z"}, "recurrence": "FREQ=DAILY"}, "maintenanceExclusions": {"freeze": {"startTime": "2026-12-20T00:00:00Z",
		"endTime": "2026-12-27T00:00:00Z", "maintenanceExclusionOptions": {"scope": "NO_MINOR_UPGRADES"}}}}}}`)
	var cl api.Cluster
	e.OK("GET", base, nil, &cl)
	e.Mutate("POST", base+":setResourceLabels", `{"resourceLabels": {"team": "b"}, "labelFingerprint": "`+cl.LabelFingerprint+`"}`)
	e.Mutate("PUT", base, `{"update": {"desiredClusterAutoscaling": {"autoscalingProfile": "OPTIMIZE_UTILIZATION"}}}`)
	e.Mutate("POST", poolA+":setManagement", `{"management": {"autoUpgrade": true, "autoRepair": true}}`)
	e.Mutate("POST", poolA+":setAutoscaling", `{"autoscaling": {"enabled": true, "minNodeCount": 1, "maxNodeCount": 4}}`)
	e.Mutate("POST", poolA+":setSize", `{"nodeCount": 3}`)

	// Workloads: a namespace, a Deployment, a bare pod, a budget, the four kinds of load balancer.
	e.K8sOK("POST", k8sBase+"/api/v1/namespaces", "application/json", `{"metadata": {"name": "team", "labels": {"x": "y"}}}`, nil)
	e.K8sOK("POST", k8sDeploy, "application/json", servertest.DeploymentJSON("web", 3, "10m"), nil)
	e.K8sOK("POST", k8sPods, "application/json", `{"metadata": {"name": "solo", "labels": {"app": "solo"}, "annotations": {"a": "b"}},
		"spec": {"nodeSelector": {"tier": "web"}, "tolerations": [{"key": "k", "operator": "Exists"}],
		"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}`, nil)
	e.K8sOK("POST", k8sPDBs, "application/json", `{"metadata": {"name": "web"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}`, nil)
	svc := func(name, annotations string) string {
		return `{"metadata": {"name": "` + name + `", "annotations": {` + annotations + `}}, "spec": {"type": "LoadBalancer",
			"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}}`
	}
	e.K8sOK("POST", k8sSvcs, "application/json", svc("web", ""), nil)
	e.K8sOK("POST", k8sSvcs, "application/json", svc("ilb", `"networking.gke.io/load-balancer-type": "Internal"`), nil)
	e.K8sOK("POST", k8sSvcs, "application/json", svc("rbs", `"cloud.google.com/l4-rbs": "enabled"`), nil)
	e.K8sOK("POST", subK8s+"/api/v1/namespaces/default/services", "application/json", svc("neg", `"networking.gke.io/load-balancer-type": "Internal"`), nil)
	e.Advance(3 * time.Minute)

	// Kubernetes reads, writes and discovery.
	// Every group version discovery lists, by the OpenAPI v3 index (its paths are theirs).
	var index struct {
		Paths map[string]any `json:"paths"`
	}
	e.K8sOK("GET", k8sBase+"/openapi/v3", "", "", &index)
	for gv := range index.Paths {
		e.K8sOK("GET", k8sBase+"/"+gv, "", "", nil)
		e.K8sOK("GET", k8sBase+"/openapi/v3/"+gv, "", "", nil)
	}
	for _, p := range []string{"/version", "/api", "/apis", "/openapi/v3",
		"/api/v1/namespaces", "/api/v1/namespaces/team", "/api/v1/nodes", "/api/v1/pods", "/api/v1/namespaces/default/pods",
		"/api/v1/namespaces/default/pods/solo", "/api/v1/services", "/api/v1/namespaces/default/services", "/api/v1/namespaces/default/services/web",
		"/api/v1/events", "/api/v1/namespaces/default/events", "/apis/apps/v1/deployments", "/apis/apps/v1/namespaces/default/deployments",
		"/apis/apps/v1/namespaces/default/deployments/web", "/apis/apps/v1/namespaces/default/deployments/web/scale",
		"/apis/apps/v1/daemonsets", "/apis/apps/v1/namespaces/kube-system/daemonsets", "/apis/policy/v1/poddisruptionbudgets",
		"/apis/policy/v1/namespaces/default/poddisruptionbudgets", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web",
		"/apis/coordination.k8s.io/v1/leases", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"} {
		e.K8sOK("GET", k8sBase+p, "", "", nil)
	}
	var events struct {
		Items []struct {
			Metadata struct{ Name, Namespace string }
		}
	}
	e.K8sOK("GET", k8sBase+"/api/v1/namespaces/default/events", "", "", &events)
	if len(events.Items) == 0 {
		t.Fatal("no Kubernetes events to get")
	}
	e.K8sOK("GET", k8sBase+"/api/v1/namespaces/default/events/"+events.Items[0].Metadata.Name, "", "", nil)
	// An imported cluster: its StatefulSets, ReplicaSets and DaemonSets of its own.
	cj, err := os.ReadFile("../testdata/snapshot/shop-cluster.json")
	if err != nil {
		t.Fatal(err)
	}
	oj, err := os.ReadFile("../testdata/snapshot/shop-objects.json")
	if err != nil {
		t.Fatal(err)
	}
	e.OK("POST", "/emulator/v1/projects/proj/locations/europe-west1/clusters:import", map[string]json.RawMessage{"cluster": cj, "objects": oj}, nil)
	e.OK("POST", "/emulator/v1/projects/proj/locations/europe-west1/clusters/shop/nodePools/default-pool:forecast", `{"update": {"nodeVersion": "-"}}`, nil)
	shop := "/k8s/projects/proj/locations/europe-west1/clusters/shop"
	for _, p := range []string{"/apis/apps/v1/statefulsets", "/apis/apps/v1/namespaces/default/statefulsets", "/apis/apps/v1/replicasets",
		"/apis/apps/v1/namespaces/default/replicasets", "/apis/apps/v1/namespaces/monitoring/daemonsets/node-exporter", "/api/v1/namespaces/default/pods/db-0"} {
		e.K8sOK("GET", shop+p, "", "", nil)
	}
	var dsList struct {
		Items []struct{ Metadata struct{ Name string } }
	}
	e.K8sOK("GET", k8sBase+"/apis/apps/v1/namespaces/kube-system/daemonsets", "", "", &dsList)
	e.K8sOK("GET", k8sBase+"/apis/apps/v1/namespaces/kube-system/daemonsets/"+dsList.Items[0].Metadata.Name, "", "", nil)
	node := e.NodeNames()[0]
	e.K8sOK("GET", k8sBase+"/api/v1/nodes/"+node, "", "", nil)
	e.K8sOK("GET", k8sBase+"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/"+node, "", "", nil)
	e.K8sOK("PATCH", k8sBase+"/api/v1/nodes/"+node, "application/strategic-merge-patch+json", `{"spec": {"unschedulable": true}}`, nil)
	e.K8sOK("PUT", k8sDeploy+"/web", "application/json", servertest.DeploymentJSON("web", 2, "20m"), nil)
	e.K8sOK("PATCH", k8sDeploy+"/web", "application/merge-patch+json", `{"metadata": {"labels": {"app": "web", "v": "2"}}}`, nil)
	e.K8sOK("PUT", k8sDeploy+"/web/scale", "application/json", `{"metadata": {"name": "web"}, "spec": {"replicas": 3}}`, nil)
	e.K8sOK("PATCH", k8sDeploy+"/web/scale", "application/merge-patch+json", `{"spec": {"replicas": 4}}`, nil)
	e.K8sOK("PUT", k8sPDBs+"/web", "application/json", `{"metadata": {"name": "web"}, "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}}`, nil)
	e.K8sOK("PATCH", k8sPDBs+"/web", "application/merge-patch+json", `{"metadata": {"labels": {"p": "q"}}}`, nil)
	e.K8sOK("PUT", k8sSvcs+"/web", "application/json", svc("web", `"x": "y"`), nil)
	e.K8sOK("PATCH", k8sSvcs+"/web", "application/merge-patch+json", `{"metadata": {"labels": {"s": "t"}}}`, nil)
	e.K8sOK("PUT", k8sBase+"/api/v1/namespaces/team", "application/json", `{"metadata": {"name": "team", "labels": {"x": "z"}}}`, nil)
	e.K8sOK("PATCH", k8sBase+"/api/v1/namespaces/team", "application/merge-patch+json", `{"metadata": {"annotations": {"a": "b"}}}`, nil)
	var solo corev1.Pod
	e.K8sOK("GET", k8sPods+"/solo", "", "", &solo)
	solo.Labels["v"] = "2"
	e.K8sOK("PUT", k8sPods+"/solo", "application/json", servertest.MustJSON(&solo), nil)
	e.K8sOK("PATCH", k8sPods+"/solo", "application/merge-patch+json", `{"metadata": {"annotations": {"c": "d"}}}`, nil)
	e.K8sOK("PATCH", k8sDeploy+"/web?fieldManager=test", "application/apply-patch+yaml",
		`{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"applied": "yes"}}}`, nil)
	var rsList struct {
		Items []struct{ Metadata struct{ Name string } }
	}
	e.K8sOK("GET", k8sBase+"/apis/apps/v1/replicasets", "", "", nil)
	e.K8sOK("GET", k8sBase+"/apis/apps/v1/namespaces/default/replicasets", "", "", &rsList)
	e.K8sOK("GET", k8sBase+"/apis/apps/v1/namespaces/default/replicasets/"+rsList.Items[0].Metadata.Name, "", "", nil)
	driveStoredKinds(e)
	e.K8sOK("GET", k8sPods+"?watch=true&timeoutSeconds=1&allowWatchBookmarks=true", "", "", nil)
	e.K8sOK("POST", k8sPods+"/solo/eviction", "application/json", `{"metadata": {"name": "solo", "namespace": "default"}}`, nil)
	e.K8sOK("POST", k8sPods, "application/json", `{"metadata": {"name": "solo2"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}`, nil)
	e.K8sOK("DELETE", k8sPods+"/solo2", "application/json", `{"gracePeriodSeconds": 0}`, nil)

	// The upgrade views: pool-b mid blue-green, its operation listed, got and cancelled.
	var op api.Operation
	e.OK("PUT", pools+"/pool-b", `{"machineType": "e2-standard-4"}`, &op)
	e.Advance(4 * time.Minute)
	for _, p := range []string{"/v1/projects/proj/locations/-/clusters", base, pools, pools + "/pool-b", "/v1/projects/proj/locations/-/operations",
		locPath + "/operations/" + op.Name, locPath + "/serverConfig", base + ":fetchClusterUpgradeInfo", "/v1beta1/projects/proj/locations/us-central1-a/clusters/sub",
		"/v1/projects/proj/services/container.googleapis.com"} {
		e.OK("GET", p, nil, nil)
	}
	e.OK("POST", locPath+"/operations/"+op.Name+":cancel", `{}`, nil)
	e.Mutate("POST", pools+"/pool-b:rollback", `{}`)

	// Compute: what GKE built, and what a user creates outside it.
	for _, p := range []string{"/regions/us-central1/forwardingRules", "/regions/us-central1/backendServices", "/regions/us-central1/targetPools",
		"/regions/us-central1/healthChecks", "/global/healthChecks", "/global/httpHealthChecks", "/global/firewalls",
		"/zones/us-central1-a/networkEndpointGroups", "/zones/us-central1-a/instanceGroups", "/zones/us-central1-a/instanceGroupManagers"} {
		var list struct{ Items []struct{ Name string } }
		e.OK("GET", computeProj+p, nil, &list)
		if len(list.Items) == 0 {
			t.Fatalf("GET %s: no items to get", p)
		}
		name := list.Items[0].Name
		e.OK("GET", computeProj+p+"/"+name, nil, nil)
		switch {
		case strings.HasSuffix(p, "/backendServices"):
			var bs api.BackendService
			e.OK("GET", computeProj+p+"/"+name, nil, &bs)
			e.OK("POST", computeProj+p+"/"+name+"/getHealth", `{"group": "`+bs.Backends[0].Group+`"}`, nil)
		case strings.HasSuffix(p, "/targetPools"):
			var tp api.TargetPool
			e.OK("GET", computeProj+p+"/"+name, nil, &tp)
			e.OK("POST", computeProj+p+"/"+name+"/getHealth", `{"instance": "`+tp.Instances[0]+`"}`, nil)
		case strings.HasSuffix(p, "/networkEndpointGroups"):
			e.OK("POST", computeProj+p+"/"+name+"/listNetworkEndpoints?returnPartialSuccess=true", `{"healthStatus": "SHOW"}`, nil)
		case strings.HasSuffix(p, "/instanceGroups"):
			e.OK("POST", computeProj+p+"/"+name+"/listInstances", `{}`, nil)
		case strings.HasSuffix(p, "/instanceGroupManagers"):
			e.OK("POST", computeProj+p+"/"+name+"/listManagedInstances", nil, nil)
		}
	}
	var cop api.ComputeOperation
	e.OK("POST", zone+"/instanceGroups", `{"name": "custom", "description": "mine"}`, &cop)
	e.OK("GET", zone+"/operations/"+cop.Name, nil, nil)
	e.OK("POST", zone+"/operations/"+cop.Name+"/wait", nil, nil)
	instance := `{"instances": [{"instance": "projects/proj/zones/us-central1-a/instances/` + node + `"}]}`
	e.OK("POST", zone+"/instanceGroups/custom/addInstances", instance, nil)
	e.OK("POST", zone+"/instanceGroups/custom/removeInstances", instance, nil)
	bs := `{"name": "user-bs", "loadBalancingScheme": "EXTERNAL", "protocol": "TCP", "timeoutSec": 30,
		"backends": [{"group": "projects/proj/zones/us-central1-a/instanceGroups/custom"}]}`
	e.OK("POST", region+"/backendServices", bs, &cop)
	e.OK("GET", region+"/operations/"+cop.Name, nil, nil)
	e.OK("POST", region+"/operations/"+cop.Name+"/wait", nil, nil)
	e.OK("PUT", region+"/backendServices/user-bs", bs, nil)
	e.OK("PATCH", region+"/backendServices/user-bs", `{"description": "patched"}`, nil)
	e.OK("DELETE", region+"/backendServices/user-bs", nil, nil)
	e.OK("DELETE", zone+"/instanceGroups/custom", nil, nil)

	// The emulator's own views and controls.
	for _, p := range []string{"/emulator/v1/clock", "/emulator/v1/events?limit=50", "/emulator/v1/versions", emu + "/maintenanceSchedule",
		emu + "/loadBalancers", emu + "/loadBalancers/default/web", "/emulator/v1/clusters", emu + "/nodeSummary", emu + "/autoscaler",
		emu + "/loadBalancerHistory", emu + "/maintenanceCalendar"} {
		e.OK("GET", p, nil, nil)
	}
	var ops api.ListOperationsResponse
	e.OK("GET", "/v1/projects/proj/locations/-/operations", nil, &ops)
	for _, op := range ops.Operations {
		e.OK("GET", "/emulator/v1/projects/proj/locations/"+op.Location+"/operations/"+op.Name+"/timeline", nil, nil)
	}
	var lb api.LoadBalancerStatus
	e.OK("GET", emu+"/loadBalancers/default/web", nil, &lb)
	e.OK("GET", emu+"/trace?ip="+lb.IP+"&port=80&clientIp=198.51.100.1", nil, nil)
	var f sim.Fault
	e.OK("POST", "/emulator/v1/faults", `{"kind": "STOCKOUT", "zone": "us-central1-b"}`, &f)
	e.OK("GET", "/emulator/v1/faults", nil, nil)
	e.OK("DELETE", "/emulator/v1/faults/"+f.ID, nil, nil)
	e.OK("PATCH", "/emulator/v1/clock", `{"timeScale": 0}`, nil)
	e.OK("POST", emu+"/nodes/"+node+":fail", nil, nil)
	code, _ := e.Call("GET", "/metrics", nil)
	if code != http.StatusOK {
		t.Fatalf("metrics: HTTP %d", code)
	}

	// Deletions answer with the object as it was.
	e.K8sOK("DELETE", k8sSvcs+"/rbs", "", "", nil)
	e.K8sOK("DELETE", k8sPDBs+"/web", "", "", nil)
	e.K8sOK("DELETE", k8sDeploy+"/web", "", "", nil)
	e.K8sOK("DELETE", k8sBase+"/api/v1/namespaces/team", "", "", nil)
	e.Advance(time.Hour)
	e.Mutate("DELETE", pools+"/pool-b", nil)
	e.Mutate("DELETE", "/v1/projects/proj/locations/us-central1-a/clusters/sub", nil)
}

// driveStoredKinds creates, reads, lists, replaces, patches (merge and server-side apply) and
// deletes an object of every stored kind.
func driveStoredKinds(e *env) {
	objects := map[string]string{
		"configmaps":               `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "b"}}`,
		"secrets":                  `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}, "stringData": {"a": "b"}}`,
		"serviceaccounts":          `{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "x"}}`,
		"roles":                    `{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "x"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}`,
		"rolebindings":             `{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "x"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "x"}, "subjects": [{"kind": "User", "name": "me"}]}`,
		"clusterroles":             `{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "x"}, "rules": [{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]}`,
		"clusterrolebindings":      `{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "x"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "x"}, "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "default"}]}`,
		"horizontalpodautoscalers": `{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "x"}, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5}}`,
		"computeclasses":           `{"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": {"name": "x"}, "spec": {"priorities": [{"machineFamily": "e2", "spot": true}]}}`,
		"priorityclasses":          `{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "x"}, "value": 1000}`,
	}
	for _, k := range sim.StoredKinds {
		prefix := k8sBase + "/api/" + k.Version
		if k.Group != "" {
			prefix = k8sBase + "/apis/" + k.Group + "/" + k.Version
		}
		collection := prefix + "/" + k.Resource
		if k.Namespaced {
			e.K8sOK("GET", collection, "", "", nil)
			collection = prefix + "/namespaces/default/" + k.Resource
		}
		body := objects[k.Resource]
		if body == "" {
			e.T.Fatalf("no object of %s to drive", k.Resource)
		}
		e.K8sOK("POST", collection, "application/json", body, nil)
		e.K8sOK("GET", collection, "", "", nil)
		var obj map[string]any
		e.K8sOK("GET", collection+"/x", "", "", &obj)
		obj["metadata"].(map[string]any)["labels"] = map[string]any{"v": "1"}
		e.K8sOK("PUT", collection+"/x", "application/json", servertest.MustJSON(obj), nil)
		e.K8sOK("PATCH", collection+"/x", "application/merge-patch+json", `{"metadata": {"annotations": {"p": "q"}}}`, nil)
		e.K8sOK("PATCH", collection+"/x?fieldManager=test", "application/apply-patch+yaml",
			`{"apiVersion": "`+k.APIVersion()+`", "kind": "`+k.Kind+`", "metadata": {"name": "x", "labels": {"applied": "yes"}}}`, nil)
		e.K8sOK("DELETE", collection+"/x", "", "", nil)
		e.K8sOK("PATCH", collection+"/x?fieldManager=test", "application/apply-patch+yaml", body, nil) // apply creates
	}
}
