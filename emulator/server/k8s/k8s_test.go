package k8s_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The Kubernetes-shaped API as the API server answers: Status bodies on errors, selectors,
// subresources, patches, server-side printing and the discovery documents kubectl reads.

// newEnv is servertest's bench around the emulator's server, which mounts this package.
func newEnv(t *testing.T) *servertest.Env { return newEnvWith(t, server.Options{}, servertest.World()) }

// newEnvWith is newEnv with the server's options and a world of its own options.
func newEnvWith(t *testing.T, opts server.Options, wopts sim.Options) *servertest.Env {
	t.Helper()
	return servertest.New(t, wopts, func(r *sim.Runner) (http.Handler, error) { return server.New(r, opts) })
}

func TestK8sErrorsAreStatusBodies(t *testing.T) {
	e := newEnv(t).WithBase()
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("web", 1, "10m"), nil)
	var d appsv1.Deployment
	e.K8sOK("GET", servertest.K8sDeploy+"/web", "", "", &d)

	stale := d.DeepCopy()
	stale.ResourceVersion = "1"
	staleJSON, _ := json.Marshal(stale)
	cases := []struct {
		name, method, path, contentType, body string
		code                                  int
		reason                                metav1.StatusReason
		fragments                             []string
	}{
		{"get missing", "GET", servertest.K8sDeploy + "/nope", "", "", 404, metav1.StatusReasonNotFound, []string{`deployments.apps "nope" not found`}},
		{"unknown resource", "GET", servertest.K8sBase + "/apis/batch/v1/namespaces/default/jobs", "", "", 404, metav1.StatusReasonNotFound,
			[]string{"the server could not find the requested resource"}},
		{"unknown cluster", "GET", "/k8s/projects/proj/locations/us-central1-a/clusters/nope/api/v1/nodes", "", "", 404, metav1.StatusReasonNotFound,
			[]string{`cluster "nope" not found`}},
		{"create twice", "POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("web", 1, "10m"), 409, metav1.StatusReasonAlreadyExists,
			[]string{`deployments.apps "web" already exists`}},
		{"invalid", "POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("bad", -1, "10m"), 422, metav1.StatusReasonInvalid,
			[]string{`Deployment.apps "bad" is invalid`, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"stale resourceVersion", "PUT", servertest.K8sDeploy + "/web", "application/json", string(staleJSON), 409, metav1.StatusReasonConflict,
			[]string{`Operation cannot be fulfilled on deployments.apps "web": the object has been modified`}},
		{"strict unknown field", "POST", servertest.K8sDeploy + "?fieldValidation=Strict", "application/json",
			strings.Replace(servertest.DeploymentJSON("typo", 1, "10m"), `"replicas"`, `"replica"`, 1), 400, metav1.StatusReasonBadRequest,
			[]string{`Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica"`}},
		{"field names are case-sensitive", "POST", servertest.K8sDeploy + "?fieldValidation=Strict", "application/json",
			strings.Replace(servertest.DeploymentJSON("case", 1, "10m"), `"replicas"`, `"Replicas"`, 1), 400, metav1.StatusReasonBadRequest,
			[]string{`unknown field "spec.Replicas"`}},
		{"bad fieldValidation", "POST", servertest.K8sDeploy + "?fieldValidation=Loud", "application/json",
			strings.Replace(servertest.DeploymentJSON("loud", 1, "10m"), `"replicas"`, `"replica"`, 1), 400, metav1.StatusReasonBadRequest,
			[]string{`fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"`}},
		{"not JSON", "POST", servertest.K8sDeploy, "application/json", `{"metadata": `, 400, metav1.StatusReasonBadRequest, []string{"cannot be handled as a Deployment"}},
		{"unsupported patch type", "PATCH", servertest.K8sDeploy + "/web", "application/yaml", `{}`, 415, metav1.StatusReasonUnsupportedMediaType,
			[]string{"application/merge-patch+json", "application/apply-patch+yaml"}},
		{"apply without a field manager", "PATCH", servertest.K8sDeploy + "/web", "application/apply-patch+yaml", `{}`, 400, metav1.StatusReasonBadRequest,
			[]string{"fieldManager: Required value: is required for apply patch"}},
		{"unsupported field selector", "GET", servertest.K8sPods + "?fieldSelector=spec.hostname%3Dx", "", "", 400, metav1.StatusReasonBadRequest,
			[]string{"field label not supported: spec.hostname"}},
		{"watch from a version that is not one", "GET", servertest.K8sPods + "?watch=true&resourceVersion=abc", "", "", 422, metav1.StatusReasonInvalid,
			[]string{`resourceVersion: Invalid value: "abc"`}},
		{"logs", "GET", servertest.K8sPods + "/web-x/log", "", "", 400, metav1.StatusReasonBadRequest, []string{"gkesim does not serve container logs"}},
		{"exec", "POST", servertest.K8sPods + "/web-x/exec?command=sh", "", "", 400, metav1.StatusReasonBadRequest, []string{"exec into containers"}},
		{"port-forward", "POST", servertest.K8sPods + "/web-x/portforward", "", "", 400, metav1.StatusReasonBadRequest, []string{"port forwarding"}},
		{"proxy", "GET", servertest.K8sBase + "/api/v1/namespaces/default/services/web:80/proxy/healthz", "", "", 400, metav1.StatusReasonBadRequest,
			[]string{"proxying to services"}},
		{"method not served", "DELETE", servertest.K8sBase + "/api/v1/nodes/x", "", "", 405, metav1.StatusReasonMethodNotAllowed, []string{"does not implement DELETE"}},
		{"node labels", "PATCH", servertest.K8sBase + "/api/v1/nodes/" + e.NodeNames()[0], "application/strategic-merge-patch+json",
			`{"metadata": {"labels": {"team": "a"}}}`, 422, metav1.StatusReasonInvalid,
			[]string{"metadata.labels: Forbidden: gkesim nodes take their labels", "node pool pool-a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := e.K8sCall(tc.method, tc.path, tc.contentType, "", tc.body)
			servertest.WantStatus(t, code, body, tc.code, tc.reason, tc.fragments...)
		})
	}

	// fieldValidation=Warn (the default) accepts the object and says what it dropped.
	code, h, body := e.K8sCall("POST", servertest.K8sDeploy, "application/json", "", strings.Replace(servertest.DeploymentJSON("warned", 1, "10m"), `"replicas"`, `"replica"`, 1))
	if code != http.StatusCreated || !slices.Contains(h.Values("Warning"), `299 - "unknown field \"spec.replica\""`) {
		t.Errorf("POST with an unknown field, default fieldValidation: HTTP %d, Warning %q: %s", code, h.Values("Warning"), body)
	}
}

func TestK8sListSelectors(t *testing.T) {
	e := newEnv(t).WithBase()
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("small", 2, "10m"), nil)
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("huge", 2, "4"), nil) // more than an e2-medium has
	e.Advance(time.Minute)

	pods := func(query string) []corev1.Pod {
		t.Helper()
		var l corev1.PodList
		e.K8sOK("GET", servertest.K8sBase+"/api/v1/pods?"+query, "", "", &l)
		return l.Items
	}
	small := pods("labelSelector=app%3Dsmall")
	if len(small) != 2 || small[0].Status.Phase != corev1.PodRunning || small[0].Spec.NodeName == "" {
		t.Fatalf("labelSelector app=small: %d pods, first %s on %q", len(small), small[0].Status.Phase, small[0].Spec.NodeName)
	}
	huge := pods("labelSelector=app%3Dhuge")
	if len(huge) != 2 || huge[0].Status.Phase != corev1.PodPending || !strings.Contains(huge[0].Status.Conditions[0].Message, "Insufficient cpu") {
		t.Fatalf("labelSelector app=huge: %+v", huge)
	}
	if got := pods("fieldSelector=status.phase%3DPending"); len(got) != 2 || got[0].Labels["app"] != "huge" {
		t.Errorf("fieldSelector status.phase=Pending: %d pods", len(got))
	}
	// What kubectl describe node asks for: the node's pods, without finished ones.
	node := small[0].Spec.NodeName
	onNode := pods("fieldSelector=spec.nodeName%3D" + node + "%2Cstatus.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed")
	if len(onNode) == 0 || !slices.ContainsFunc(onNode, func(p corev1.Pod) bool { return p.Name == small[0].Name }) {
		t.Errorf("pods on %s: %d, want %s among them", node, len(onNode), small[0].Name)
	}
	for _, p := range onNode {
		if p.Spec.NodeName != node {
			t.Errorf("pod %s on %s listed for node %s", p.Name, p.Spec.NodeName, node)
		}
	}
	if got := pods("fieldSelector=metadata.namespace%3Dkube-system%2Cstatus.phase%21%3DRunning"); len(got) != 0 {
		t.Errorf("kube-system pods not Running: %d, want 0", len(got))
	}
	// kubectl delete --wait lists by name.
	var dl appsv1.DeploymentList
	e.K8sOK("GET", servertest.K8sDeploy+"?fieldSelector=metadata.name%3Dsmall", "", "", &dl)
	if len(dl.Items) != 1 || dl.Items[0].Name != "small" {
		t.Errorf("deployments metadata.name=small: %d items", len(dl.Items))
	}
	var nl corev1.NodeList
	e.K8sOK("GET", servertest.K8sBase+"/api/v1/nodes?labelSelector=cloud.google.com%2Fgke-nodepool%3Dpool-a", "", "", &nl)
	e.K8sOK("GET", servertest.K8sBase+"/api/v1/nodes?labelSelector=cloud.google.com%2Fgke-nodepool%3Dother", "", "", &dl)
	if len(nl.Items) != 2 || len(dl.Items) != 0 {
		t.Errorf("nodes of pool-a: %d (want 2); of pool other: %d (want 0)", len(nl.Items), len(dl.Items))
	}
}

func TestK8sScaleAndPatches(t *testing.T) {
	e := newEnv(t).WithBase()
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("web", 2, "10m"), nil)

	var sc autoscalingv1.Scale
	e.K8sOK("GET", servertest.K8sDeploy+"/web/scale", "", "", &sc)
	if sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1" || sc.Spec.Replicas != 2 || sc.Status.Selector != "app=web" {
		t.Fatalf("GET scale: %+v", sc)
	}
	// kubectl scale sends a merge patch to the subresource.
	e.K8sOK("PATCH", servertest.K8sDeploy+"/web/scale", "application/merge-patch+json", `{"spec": {"replicas": 5}}`, &sc)
	if sc.Spec.Replicas != 5 {
		t.Errorf("scale after merge patch: %d replicas, want 5", sc.Spec.Replicas)
	}
	stale := sc
	stale.ResourceVersion, stale.Spec.Replicas = "1", 7
	body, _ := json.Marshal(&stale)
	code, _, b := e.K8sCall("PUT", servertest.K8sDeploy+"/web/scale", "application/json", "", string(body))
	servertest.WantStatus(t, code, b, 409, metav1.StatusReasonConflict, "the object has been modified")

	var d appsv1.Deployment
	e.K8sOK("PATCH", servertest.K8sDeploy+"/web", "application/merge-patch+json", `{"metadata": {"labels": {"tier": "front"}}}`, &d)
	if d.Labels["tier"] != "front" || d.Labels["app"] != "web" || *d.Spec.Replicas != 5 {
		t.Errorf("after merge patch: labels %v replicas %d", d.Labels, *d.Spec.Replicas)
	}
	// A strategic merge patch merges containers by name (a merge patch would replace the list).
	e.K8sOK("PATCH", servertest.K8sDeploy+"/web", "application/strategic-merge-patch+json",
		`{"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "nginx:1.28"}]}}}}`, &d)
	ct := d.Spec.Template.Spec.Containers
	if len(ct) != 1 || ct[0].Image != "nginx:1.28" || ct[0].Resources.Requests.Cpu().String() != "10m" {
		t.Errorf("after strategic merge patch: containers %+v", ct)
	}
	e.K8sOK("PATCH", servertest.K8sDeploy+"/web", "application/json-patch+json", `[{"op": "replace", "path": "/spec/replicas", "value": 3}]`, &d)
	if *d.Spec.Replicas != 3 {
		t.Errorf("after JSON patch: %d replicas, want 3", *d.Spec.Replicas)
	}

	// cordon and uncordon as kubectl sends them: the uncordon patch sets the field to null.
	node := e.NodeNames()[0]
	var n corev1.Node
	e.K8sOK("PATCH", servertest.K8sBase+"/api/v1/nodes/"+node, "application/strategic-merge-patch+json", `{"spec": {"unschedulable": true}}`, &n)
	if !n.Spec.Unschedulable || !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeUnschedulable }) {
		t.Errorf("after cordon: unschedulable %v taints %v", n.Spec.Unschedulable, n.Spec.Taints)
	}
	var un corev1.Node
	e.K8sOK("PATCH", servertest.K8sBase+"/api/v1/nodes/"+node, "application/strategic-merge-patch+json", `{"spec": {"unschedulable": null}}`, &un)
	if un.Spec.Unschedulable || len(un.Spec.Taints) != 0 {
		t.Errorf("after uncordon: unschedulable %v taints %v", un.Spec.Unschedulable, un.Spec.Taints)
	}
}

// table fetches path as a Table.
func table(e *servertest.Env, path string) metav1.Table {
	e.T.Helper()
	code, _, b := e.K8sCall("GET", path, "", servertest.TableV1, "")
	if code != http.StatusOK {
		e.T.Fatalf("GET %s as Table: HTTP %d: %s", path, code, b)
	}
	var t metav1.Table
	if err := json.Unmarshal(b, &t); err != nil {
		e.T.Fatal(err)
	}
	if t.Kind != "Table" || t.APIVersion != "meta.k8s.io/v1" {
		e.T.Fatalf("GET %s as Table: kind %s apiVersion %s", path, t.Kind, t.APIVersion)
	}
	return t
}

// columns are the headers kubectl prints: all, or with wide=false those of the default view.
func columns(t metav1.Table, wide bool) []string {
	var out []string
	for _, c := range t.ColumnDefinitions {
		if wide || c.Priority == 0 {
			out = append(out, strings.ToUpper(c.Name))
		}
	}
	return out
}

func TestK8sTables(t *testing.T) {
	e := newEnv(t).WithBase()
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("small", 2, "10m"), nil)
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("huge", 1, "4"), nil)
	e.K8sOK("POST", servertest.K8sBase+"/apis/policy/v1/namespaces/default/poddisruptionbudgets", "application/json",
		`{"metadata": {"name": "small"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "small"}}}}`, nil)
	e.Advance(time.Hour)

	cases := []struct {
		path       string
		cols, wide []string
	}{
		{"/api/v1/nodes", []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION"},
			[]string{"NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"}},
		{"/api/v1/namespaces/default/pods", []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"},
			[]string{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"}},
		{"/apis/apps/v1/namespaces/default/deployments", []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"},
			[]string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}},
		{"/apis/policy/v1/namespaces/default/poddisruptionbudgets", []string{"NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"}, nil},
		{"/api/v1/namespaces", []string{"NAME", "STATUS", "AGE"}, nil},
		{"/api/v1/namespaces/default/services", []string{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"}, nil},
		{"/apis/apps/v1/namespaces/kube-system/daemonsets", []string{"NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"}, nil},
	}
	tables := map[string]metav1.Table{}
	for _, tc := range cases {
		tb := table(e, servertest.K8sBase+tc.path)
		tables[tc.path] = tb
		if got := columns(tb, false); !slices.Equal(got, tc.cols) {
			t.Errorf("%s columns %q, want %q", tc.path, got, tc.cols)
		}
		if got := columns(tb, true); tc.wide != nil && !slices.Equal(got, tc.wide) {
			t.Errorf("%s -o wide columns %q, want %q", tc.path, got, tc.wide)
		}
		for _, r := range tb.Rows {
			if len(r.Cells) != len(tb.ColumnDefinitions) {
				t.Errorf("%s: row with %d cells for %d columns", tc.path, len(r.Cells), len(tb.ColumnDefinitions))
			}
		}
	}

	row := func(path, name string) []any {
		t.Helper()
		for _, r := range tables[path].Rows {
			if r.Cells[0] == name {
				return r.Cells
			}
		}
		t.Fatalf("%s: no row %s", path, name)
		return nil
	}
	nodes := tables["/api/v1/nodes"]
	if len(nodes.Rows) != 2 {
		t.Fatalf("nodes table: %d rows", len(nodes.Rows))
	}
	var cl struct{ CurrentMasterVersion string }
	e.OK("GET", servertest.Base, nil, &cl)
	// The nodes were created with the cluster an hour ago (emulated); AGE is on the emulated clock.
	if c := nodes.Rows[0].Cells; c[1] != "Ready" || c[2] != "<none>" || !strings.HasSuffix(c[3].(string), "m") || c[4] != "v"+cl.CurrentMasterVersion {
		t.Errorf("node row %v, want Ready <none> <age>m v%s", c, cl.CurrentMasterVersion)
	}
	if c := row("/apis/apps/v1/namespaces/default/deployments", "small"); c[1] != "2/2" || c[2] != 2.0 || c[3] != 2.0 || c[4] != "60m" ||
		c[5] != "app" || c[6] != "nginx:1.27" || c[7] != "app=small" {
		t.Errorf("deployment small row %v", c)
	}
	if c := row("/apis/apps/v1/namespaces/default/deployments", "huge"); c[1] != "0/1" || c[3] != 0.0 {
		t.Errorf("deployment huge row %v", c)
	}
	if c := row("/apis/policy/v1/namespaces/default/poddisruptionbudgets", "small"); c[1] != "1" || c[2] != "N/A" || c[3] != 1.0 || c[4] != "60m" {
		t.Errorf("pdb row %v, want 1 N/A 1 60m", c)
	}
	if c := row("/api/v1/namespaces", "default"); c[1] != "Active" {
		t.Errorf("namespace row %v", c)
	}
	if c := row("/apis/apps/v1/namespaces/kube-system/daemonsets", "kube-proxy"); c[1] != 2.0 || c[3] != 2.0 || c[6] != "<none>" {
		t.Errorf("kube-proxy daemonset row %v, want 2 desired, 2 ready", c)
	}
	var statuses []string
	for _, r := range tables["/api/v1/namespaces/default/pods"].Rows {
		statuses = append(statuses, r.Cells[2].(string))
		var pom metav1.PartialObjectMetadata
		if err := json.Unmarshal(r.Object.Raw, &pom); err != nil || pom.Kind != "PartialObjectMetadata" || pom.Name != r.Cells[0] || pom.Namespace != "default" {
			t.Errorf("pod row object %s (%v), want the pod's PartialObjectMetadata", r.Object.Raw, err)
		}
	}
	slices.Sort(statuses)
	if !slices.Equal(statuses, []string{"Pending", "Running", "Running"}) {
		t.Errorf("pod STATUS cells %v, want Pending Running Running", statuses)
	}

	// A deleted pod shows Terminating for its grace period.
	var running corev1.PodList
	e.K8sOK("GET", servertest.K8sPods+"?labelSelector=app%3Dsmall", "", "", &running)
	pod := running.Items[0].Name
	e.K8sOK("DELETE", servertest.K8sPods+"/"+pod, "application/json", `{}`, nil)
	tb := table(e, servertest.K8sPods+"?fieldSelector=metadata.name%3D"+pod)
	if len(tb.Rows) != 1 || tb.Rows[0].Cells[2] != "Terminating" {
		t.Errorf("pod %s just deleted: %v, want Terminating", pod, tb.Rows)
	}

	// includeObject: None leaves the object out, Object puts it in whole; one object is a one-row Table.
	code, _, b := e.K8sCall("GET", servertest.K8sDeploy+"/small?includeObject=None", "", servertest.TableV1, "")
	var one metav1.Table
	if err := json.Unmarshal(b, &one); err != nil || code != 200 || len(one.Rows) != 1 || one.Rows[0].Object.Raw != nil {
		t.Errorf("GET one deployment as Table, includeObject=None: HTTP %d %s", code, b)
	}
	_, _, b = e.K8sCall("GET", servertest.K8sDeploy+"/small?includeObject=Object", "", servertest.TableV1, "")
	var full struct {
		Rows []struct{ Object appsv1.Deployment } `json:"rows"`
	}
	if err := json.Unmarshal(b, &full); err != nil || len(full.Rows) != 1 || full.Rows[0].Object.Kind != "Deployment" || *full.Rows[0].Object.Spec.Replicas != 2 {
		t.Errorf("GET one deployment as Table, includeObject=Object: %s", b)
	}
	// Without the Table media type, plain JSON (kubectl get -o yaml|json).
	_, _, b = e.K8sCall("GET", servertest.K8sDeploy+"/small", "", "application/json", "")
	var d appsv1.Deployment
	if err := json.Unmarshal(b, &d); err != nil || d.Kind != "Deployment" || d.Name != "small" {
		t.Errorf("GET deployment as JSON: %s", b)
	}
}

func TestK8sDiscovery(t *testing.T) {
	e := newEnv(t).WithBase()
	var cl struct{ CurrentMasterVersion string }
	e.OK("GET", servertest.Base, nil, &cl)
	var v version.Info
	e.K8sOK("GET", servertest.K8sBase+"/version", "", "", &v)
	if v.GitVersion != "v"+cl.CurrentMasterVersion || v.Major != "1" || !strings.HasPrefix(cl.CurrentMasterVersion, "1."+v.Minor+".") {
		t.Errorf("/version %+v, want gitVersion v%s", v, cl.CurrentMasterVersion)
	}
	var av metav1.APIVersions
	e.K8sOK("GET", servertest.K8sBase+"/api", "", "", &av)
	if av.Kind != "APIVersions" || !slices.Equal(av.Versions, []string{"v1"}) {
		t.Errorf("/api: %+v", av)
	}
	var groups metav1.APIGroupList
	e.K8sOK("GET", servertest.K8sBase+"/apis", "", "", &groups)
	var names []string
	for _, g := range groups.Groups {
		names = append(names, g.PreferredVersion.GroupVersion)
	}
	if !slices.Equal(names, []string{"apps/v1", "coordination.k8s.io/v1", "policy/v1", "rbac.authorization.k8s.io/v1", "autoscaling/v2", "cloud.google.com/v1", "scheduling.k8s.io/v1"}) {
		t.Errorf("/apis groups %v", names)
	}
	resource := func(gv, name string) metav1.APIResource {
		t.Helper()
		var l metav1.APIResourceList
		e.K8sOK("GET", servertest.K8sBase+"/"+map[bool]string{true: "api", false: "apis"}[gv == "v1"]+"/"+gv, "", "", &l)
		for _, r := range l.APIResources {
			if r.Name == name {
				return r
			}
		}
		t.Fatalf("%s: no resource %s", gv, name)
		return metav1.APIResource{}
	}
	if r := resource("v1", "pods/eviction"); r.Group != "policy" || r.Version != "v1" || r.Kind != "Eviction" {
		t.Errorf("pods/eviction %+v, want policy/v1 Eviction (kubectl drain checks it)", r)
	}
	if r := resource("apps/v1", "deployments/scale"); r.Group != "autoscaling" || r.Kind != "Scale" || !slices.Contains(r.Verbs, "patch") {
		t.Errorf("deployments/scale %+v", r)
	}
	for gv, want := range map[string][2]string{"v1": {"nodes", "no"}, "apps/v1": {"deployments", "deploy"}, "policy/v1": {"poddisruptionbudgets", "pdb"}} {
		if r := resource(gv, want[0]); !slices.Contains(r.ShortNames, want[1]) {
			t.Errorf("%s %s short names %v, want %s", gv, want[0], r.ShortNames, want[1])
		}
	}
	if r := resource("v1", "nodes"); r.Namespaced || !slices.Equal(r.Verbs, metav1.Verbs{"get", "list", "patch", "watch"}) {
		t.Errorf("nodes %+v", r)
	}

	// The OpenAPI v3 index points at per-group-version documents in which kubectl finds the
	// fieldValidation parameter of each kind.
	var root struct {
		Paths map[string]struct{ ServerRelativeURL string }
	}
	e.K8sOK("GET", servertest.K8sBase+"/openapi/v3", "", "", &root)
	ref := root.Paths["apis/apps/v1"].ServerRelativeURL
	if ref != "/openapi/v3/apis/apps/v1" {
		t.Fatalf("openapi/v3 apis/apps/v1 at %q", ref)
	}
	var doc struct {
		Paths map[string]struct {
			Patch struct {
				Parameters []struct{ Name, In string }
				GVK        map[string]string `json:"x-kubernetes-group-version-kind"`
			}
		}
	}
	e.K8sOK("GET", servertest.K8sBase+ref, "", "", &doc)
	p := doc.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].Patch
	if p.GVK["kind"] != "Deployment" || p.GVK["group"] != "apps" || len(p.Parameters) != 1 || p.Parameters[0].Name != "fieldValidation" || p.Parameters[0].In != "query" {
		t.Errorf("PATCH deployment in the apps/v1 OpenAPI document: %+v", p)
	}
}

func TestK8sEventsAndDaemonSets(t *testing.T) {
	e := newEnv(t).WithBase()
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("web", 1, "10m"), nil)
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("huge", 1, "4"), nil)
	e.Advance(time.Minute)

	var pods corev1.PodList
	e.K8sOK("GET", servertest.K8sPods+"?labelSelector=app%3Dweb", "", "", &pods)
	p := pods.Items[0]
	// What kubectl describe pod asks for.
	var evs corev1.EventList
	e.K8sOK("GET", servertest.K8sBase+"/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D"+p.Name+
		"%2CinvolvedObject.namespace%3Ddefault%2CinvolvedObject.kind%3DPod%2CinvolvedObject.uid%3D"+string(p.UID), "", "", &evs)
	if len(evs.Items) != 1 {
		t.Fatalf("events of pod %s: %+v, want its Scheduled event", p.Name, evs.Items)
	}
	sched := evs.Items[0]
	if sched.Reason != "Scheduled" || sched.Type != corev1.EventTypeNormal || sched.Source.Component != "default-scheduler" ||
		!strings.Contains(sched.Message, "scheduled to "+p.Spec.NodeName) || sched.InvolvedObject.UID != p.UID || sched.LastTimestamp.IsZero() {
		t.Errorf("Scheduled event %+v", sched)
	}
	e.K8sOK("GET", servertest.K8sBase+"/api/v1/namespaces/default/events?fieldSelector=type%3DWarning%2Creason%3DFailedScheduling", "", "", &evs)
	if len(evs.Items) == 0 || evs.Items[0].InvolvedObject.Kind != "Pod" || !strings.Contains(evs.Items[0].Message, "Insufficient cpu") {
		t.Errorf("FailedScheduling warnings: %+v", evs.Items)
	}
	// What kubectl describe node asks for: node events live in default, with an empty involvedObject.namespace.
	node := e.NodeNames()[0]
	e.K8sOK("GET", servertest.K8sBase+"/api/v1/events?fieldSelector=involvedObject.kind%3DNode%2CinvolvedObject.name%3D"+node+"%2CinvolvedObject.namespace%3D", "", "", &evs)
	var reasons []string
	for _, ev := range evs.Items {
		reasons = append(reasons, ev.Reason)
		if ev.Namespace != "default" || ev.InvolvedObject.UID == "" {
			t.Errorf("node event %s in %q with uid %q", ev.Name, ev.Namespace, ev.InvolvedObject.UID)
		}
	}
	if !slices.Equal(reasons, []string{"NodeCreating", "NodeReady"}) {
		t.Errorf("events of node %s: %v", node, reasons)
	}
	var one corev1.Event
	e.K8sOK("GET", servertest.K8sBase+"/api/v1/namespaces/default/events/"+evs.Items[1].Name, "", "", &one)
	if one.Reason != "NodeReady" {
		t.Errorf("GET event %s: %+v", evs.Items[1].Name, one)
	}

	// kubectl drain looks up the DaemonSet of each DaemonSet pod.
	var ds appsv1.DaemonSet
	e.K8sOK("GET", servertest.K8sBase+"/apis/apps/v1/namespaces/kube-system/daemonsets/kube-proxy", "", "", &ds)
	if ds.Status.DesiredNumberScheduled != 2 || ds.Status.NumberReady != 2 || ds.Spec.Selector.MatchLabels["k8s-app"] != "kube-proxy" {
		t.Errorf("daemonset kube-proxy: %+v", ds.Status)
	}
	var sysPods corev1.PodList
	e.K8sOK("GET", servertest.K8sBase+"/api/v1/namespaces/kube-system/pods?labelSelector=k8s-app%3Dkube-proxy", "", "", &sysPods)
	if len(sysPods.Items) != 2 || sysPods.Items[0].OwnerReferences[0].UID != ds.UID {
		t.Errorf("kube-proxy pods %d, owner %+v, want 2 owned by uid %s", len(sysPods.Items), sysPods.Items[0].OwnerReferences, ds.UID)
	}
	code, _, b := e.K8sCall("GET", servertest.K8sBase+"/apis/apps/v1/namespaces/default/daemonsets/kube-proxy", "", "", "")
	servertest.WantStatus(t, code, b, 404, metav1.StatusReasonNotFound, `daemonsets.apps "kube-proxy" not found`)
	// Every cluster has the kubernetes Service at the first address of its services range.
	var svc corev1.Service
	e.K8sOK("GET", servertest.K8sBase+"/api/v1/namespaces/default/services/kubernetes", "", "", &svc)
	if svc.Spec.ClusterIP != "34.118.224.1" || svc.Spec.Ports[0].Port != 443 {
		t.Errorf("service kubernetes: %s", servertest.MustJSON(svc.Spec))
	}
}

// The Kubernetes routes refuse what kube-apiserver refuses, with its messages: object metadata
// (names by each kind's rule, label keys and values, annotations) and the pod fields the
// emulator simulates. The probes: restartPolicy "Sometimes", a 10,000-character label value, a
// label value with "/".
func TestK8sValidationAsTheAPIServer(t *testing.T) {
	e := newEnv(t).WithBase()
	pod := func(meta, spec string) string {
		return `{"metadata": {` + meta + `}, "spec": {` + spec + `}}`
	}
	ctr := `"containers": [{"name": "c", "image": "busybox"}]`
	k8sPDBs := servertest.K8sBase + "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	for _, tc := range []struct {
		name, path, body string
		want             string
	}{
		{"restart policy", servertest.K8sPods, pod(`"name": "p"`, ctr+`, "restartPolicy": "Sometimes"`),
			`Pod "p" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`},
		{"a 10,000-character label value", servertest.K8sPods, pod(`"name": "p", "labels": {"app": "`+strings.Repeat("a", 10000)+`"}`, ctr),
			`must be no more than 63 bytes`},
		{"a label value with a slash", servertest.K8sPods, pod(`"name": "p", "labels": {"app": "a/b"}`, ctr),
			`Pod "p" is invalid: metadata.labels: Invalid value: "a/b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`},
		{"a label key", servertest.K8sPods, pod(`"name": "p", "labels": {"-app": "a"}`, ctr),
			`Pod "p" is invalid: metadata.labels: Invalid value: "-app": name part must consist of alphanumeric characters`},
		{"an annotation key", servertest.K8sPods, pod(`"name": "p", "annotations": {"a b": "x"}`, ctr),
			`Pod "p" is invalid: metadata.annotations: Invalid value: "a b": name part must consist of alphanumeric characters`},
		{"a pod name", servertest.K8sPods, pod(`"name": "Bad_Name"`, ctr),
			`Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters`},
		{"no name", servertest.K8sPods, pod(``, ctr), `Pod "" is invalid: metadata.name: Required value: name or generateName is required`},
		{"duplicate container names", servertest.K8sPods, pod(`"name": "p"`, `"containers": [{"name": "c", "image": "a"}, {"name": "c", "image": "b"}]`),
			`Pod "p" is invalid: spec.containers[1].name: Duplicate value: "c"`},
		{"a container name", servertest.K8sPods, pod(`"name": "p"`, `"containers": [{"name": "C_1", "image": "a"}]`),
			`Pod "p" is invalid: spec.containers[0].name: Invalid value: "C_1": a lowercase RFC 1123 label must consist of`},
		{"requests above limits", servertest.K8sPods, pod(`"name": "p"`, `"containers": [{"name": "c", "image": "a", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]`),
			`Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`},
		{"a resource name", servertest.K8sPods, pod(`"name": "p"`, `"containers": [{"name": "c", "image": "a", "resources": {"requests": {"gpu": "1"}}}]`),
			`Pod "p" is invalid: spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers`},
		{"a toleration effect", servertest.K8sPods, pod(`"name": "p"`, ctr+`, "tolerations": [{"key": "k", "operator": "Exists", "effect": "Sometimes"}]`),
			`Pod "p" is invalid: spec.tolerations[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`},
		{"a node selector", servertest.K8sPods, pod(`"name": "p"`, ctr+`, "nodeSelector": {"pool": "a b"}`),
			`Pod "p" is invalid: spec.nodeSelector: Invalid value: "a b": a valid label must be an empty string`},
		{"node affinity", servertest.K8sPods, pod(`"name": "p"`, ctr+`, "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In"}]}]}}}`),
			`Pod "p" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when ` + "`operator`" + ` is 'In' or 'NotIn'`},
		{"several errors", servertest.K8sPods, pod(`"name": "p", "labels": {"app": "a/b"}`, `"containers": [{"name": "c"}], "restartPolicy": "Sometimes"`),
			`Pod "p" is invalid: [metadata.labels: Invalid value: "a/b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), spec.containers[0].image: Required value, spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"]`},
		{"a Deployment's pods restart always", servertest.K8sDeploy, strings.Replace(servertest.DeploymentJSON("never", 1, "10m"), `"containers"`, `"restartPolicy": "Never", "containers"`, 1),
			`Deployment.apps "never" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		{"a Deployment's label", servertest.K8sDeploy, strings.Replace(servertest.DeploymentJSON("lbl", 1, "10m"), `"labels": {"app": "lbl"}},`, `"labels": {"app": "lbl", "t": "x/y"}},`, 1),
			`Deployment.apps "lbl" is invalid: metadata.labels: Invalid value: "x/y"`},
		{"a budget above 100%", k8sPDBs, `{"metadata": {"name": "b"}, "spec": {"minAvailable": "150%", "selector": {"matchLabels": {"app": "a"}}}}`,
			`PodDisruptionBudget.policy "b" is invalid: spec.minAvailable: Invalid value: "150%": must not be greater than 100%`},
		{"a namespace name", servertest.K8sBase + "/api/v1/namespaces", `{"metadata": {"name": "Team"}}`,
			`Namespace "Team" is invalid: metadata.name: Invalid value: "Team": a lowercase RFC 1123 label must consist of`},
		{"a Service label", servertest.K8sSvcs, `{"metadata": {"name": "s", "labels": {"a": "b/c"}}, "spec": {"ports": [{"port": 80}]}}`,
			`Service "s" is invalid: metadata.labels: Invalid value: "b/c"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := e.K8sCall("POST", tc.path, "application/json", "", tc.body)
			servertest.WantStatus(t, code, body, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, tc.want)
		})
	}

	// The Status names the object and each cause with its field and type, as the API server's
	// does: kubectl prints `The Pod "p" is invalid: ...` from them.
	code, _, body := e.K8sCall("POST", servertest.K8sPods, "application/json", "",
		pod(`"name": "p", "labels": {"app": "a/b"}`, `"containers": [{"name": "c"}], "restartPolicy": "Sometimes"`))
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil || code != http.StatusUnprocessableEntity || st.Details == nil {
		t.Fatalf("invalid pod: HTTP %d, %v: %s", code, err, body)
	}
	want := []metav1.StatusCause{
		{Type: metav1.CauseTypeFieldValueInvalid, Field: "metadata.labels"},
		{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.containers[0].image", Message: "Required value"},
		{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.restartPolicy", Message: `Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`},
	}
	if st.Details.Kind != "Pod" || st.Details.Name != "p" || st.Details.Group != "" || len(st.Details.Causes) != len(want) {
		t.Fatalf("details %+v, want Pod p with %d causes", st.Details, len(want))
	}
	for i, w := range want {
		got := st.Details.Causes[i]
		if got.Type != w.Type || got.Field != w.Field || (w.Message != "" && got.Message != w.Message) {
			t.Errorf("cause %d: %+v, want %+v", i, got, w)
		}
	}
	code, _, body = e.K8sCall("POST", servertest.K8sDeploy, "application/json", "", servertest.DeploymentJSON("neg", -1, "10m"))
	st = metav1.Status{}
	if err := json.Unmarshal([]byte(body), &st); err != nil || code != http.StatusUnprocessableEntity || st.Details == nil ||
		st.Details.Group != "apps" || st.Details.Kind != "Deployment" || st.Details.Name != "neg" || len(st.Details.Causes) == 0 {
		t.Errorf("invalid Deployment: HTTP %d, details %+v, want apps Deployment neg with its causes: %s", code, st.Details, body)
	}

	// metadata.generateName gets a name as on the API server: the prefix and five characters.
	var p corev1.Pod
	e.K8sOK("POST", servertest.K8sPods, "application/json", pod(`"generateName": "job-"`, ctr), &p)
	if !strings.HasPrefix(p.Name, "job-") || len(p.Name) != 9 || p.Spec.RestartPolicy != corev1.RestartPolicyAlways || p.Spec.DNSPolicy != corev1.DNSClusterFirst {
		t.Errorf("generated pod: name %q, restartPolicy %q, dnsPolicy %q", p.Name, p.Spec.RestartPolicy, p.Spec.DNSPolicy)
	}

	// fieldValidation=Ignore drops unknown fields without a word; an unsupported value is refused
	// even when nothing is unknown.
	code, h, body := e.K8sCall("POST", servertest.K8sPods+"?fieldValidation=Ignore", "application/json", "", pod(`"name": "quiet"`, ctr+`, "restartPolicyy": "Never"`))
	if code != http.StatusCreated || len(h.Values("Warning")) != 0 {
		t.Errorf("fieldValidation=Ignore: HTTP %d, Warning %q: %s", code, h.Values("Warning"), body)
	}
	code, _, body = e.K8sCall("POST", servertest.K8sPods+"?fieldValidation=strict", "application/json", "", pod(`"name": "lower"`, ctr))
	servertest.WantStatus(t, code, body, http.StatusBadRequest, metav1.StatusReasonBadRequest, `fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"`)
}
