package k8s

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The discovery documents kubectl reads before anything else: /version, the legacy /api and
// /apis lists (kubectl asks for aggregated discovery first and falls back to these when the
// answer is plain application/json), one APIResourceList per group version, and a minimal
// OpenAPI v3 index.

// k8sGroupVersion is a group version the cluster serves and its resources, with the verbs
// gkesim implements.
type k8sGroupVersion struct {
	group, version string
	resources      []metav1.APIResource
}

func (gv k8sGroupVersion) String() string {
	if gv.group == "" {
		return gv.version
	}
	return gv.group + "/" + gv.version
}

// path is where the group version is served: api/v1 or apis/{group}/{version}.
func (gv k8sGroupVersion) path() string {
	if gv.group == "" {
		return "api/" + gv.version
	}
	return "apis/" + gv.group + "/" + gv.version
}

var (
	verbsCRUD     = metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}
	verbsReadOnly = metav1.Verbs{"get", "list", "watch"}
	// verbsRefused are the subresources gkesim answers with a Status (stored.go).
	verbsRefused = metav1.Verbs{"create", "get"}
)

// k8sGroupVersions are the group versions and resources discovery lists: the simulated kinds,
// then the stored ones (sim.StoredKinds).
var k8sGroupVersions = func() []k8sGroupVersion {
	gvs := []k8sGroupVersion{
		{"", "v1", []metav1.APIResource{
			{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event", Verbs: verbsReadOnly, ShortNames: []string{"ev"}},
			{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: verbsCRUD, ShortNames: []string{"ns"}},
			{Name: "nodes", SingularName: "node", Kind: "Node", Verbs: metav1.Verbs{"get", "list", "patch", "watch"}, ShortNames: []string{"no"}},
			{Name: "nodes/proxy", Kind: "NodeProxyOptions", Verbs: verbsRefused},
			{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod", Verbs: verbsCRUD,
				ShortNames: []string{"po"}, Categories: []string{"all"}},
			{Name: "pods/attach", Namespaced: true, Kind: "PodAttachOptions", Verbs: verbsRefused},
			// kubectl drain checks that pods/eviction is served, and in which group version, before it evicts.
			{Name: "pods/eviction", Namespaced: true, Group: "policy", Version: "v1", Kind: "Eviction", Verbs: metav1.Verbs{"create"}},
			{Name: "pods/exec", Namespaced: true, Kind: "PodExecOptions", Verbs: verbsRefused},
			{Name: "pods/log", Namespaced: true, Kind: "Pod", Verbs: metav1.Verbs{"get"}},
			{Name: "pods/portforward", Namespaced: true, Kind: "PodPortForwardOptions", Verbs: verbsRefused},
			{Name: "pods/proxy", Namespaced: true, Kind: "PodProxyOptions", Verbs: verbsRefused},
			{Name: "services", SingularName: "service", Namespaced: true, Kind: "Service", Verbs: verbsCRUD,
				ShortNames: []string{"svc"}, Categories: []string{"all"}},
			{Name: "services/proxy", Namespaced: true, Kind: "ServiceProxyOptions", Verbs: verbsRefused},
		}},
		{"apps", "v1", []metav1.APIResource{
			{Name: "daemonsets", SingularName: "daemonset", Namespaced: true, Kind: "DaemonSet", Verbs: verbsReadOnly,
				ShortNames: []string{"ds"}, Categories: []string{"all"}},
			{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", Verbs: verbsCRUD,
				ShortNames: []string{"deploy"}, Categories: []string{"all"}},
			// kubectl scale finds the Scale kind of the subresource here.
			{Name: "deployments/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: metav1.Verbs{"get", "patch", "update"}},
			{Name: "replicasets", SingularName: "replicaset", Namespaced: true, Kind: "ReplicaSet", Verbs: verbsReadOnly,
				ShortNames: []string{"rs"}, Categories: []string{"all"}},
			// An imported cluster's StatefulSets, listed as their stand-ins run them (sim/workloads/standins.go).
			{Name: "statefulsets", SingularName: "statefulset", Namespaced: true, Kind: "StatefulSet", Verbs: metav1.Verbs{"list"},
				ShortNames: []string{"sts"}, Categories: []string{"all"}},
		}},
		{"coordination.k8s.io", "v1", []metav1.APIResource{
			{Name: "leases", SingularName: "lease", Namespaced: true, Kind: "Lease", Verbs: verbsReadOnly},
		}},
		{"policy", "v1", []metav1.APIResource{
			{Name: "poddisruptionbudgets", SingularName: "poddisruptionbudget", Namespaced: true, Kind: "PodDisruptionBudget",
				Verbs: verbsCRUD, ShortNames: []string{"pdb"}},
		}},
	}
	for _, k := range sim.StoredKinds {
		r := metav1.APIResource{Name: k.Resource, SingularName: strings.ToLower(k.Kind), Namespaced: k.Namespaced, Kind: k.Kind,
			Verbs: verbsCRUD, ShortNames: k.ShortNames, Categories: k.Categories}
		i := slices.IndexFunc(gvs, func(gv k8sGroupVersion) bool { return gv.group == k.Group && gv.version == k.Version })
		if i < 0 {
			gvs = append(gvs, k8sGroupVersion{group: k.Group, version: k.Version})
			i = len(gvs) - 1
		}
		gvs[i].resources = append(gvs[i].resources, r)
	}
	for _, gv := range gvs {
		slices.SortFunc(gv.resources, func(a, b metav1.APIResource) int { return strings.Compare(a.Name, b.Name) })
	}
	return gvs
}()

func (s *Server) k8sDiscoveryRoutes(g *echo.Group) {
	g.GET("/version", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return versionInfo(cl.MasterVersion), nil
	}))
	g.GET("/api", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: serverAddress(c)}}}, nil
	}))
	g.GET("/apis", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		out := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "APIGroupList"}}
		for _, gv := range k8sGroupVersions {
			if gv.group == "" {
				continue // the core group is listed under /api
			}
			v := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.version}
			out.Groups = append(out.Groups, metav1.APIGroup{Name: gv.group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v})
		}
		return out, nil
	}))
	for _, gv := range k8sGroupVersions {
		g.GET("/"+gv.path(), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			return &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "APIResourceList"},
				GroupVersion: gv.String(), APIResources: gv.resources}, nil
		}))
		g.GET("/openapi/v3/"+gv.path(), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			return openAPIv3(gv, cl.MasterVersion), nil
		}))
	}
	g.GET("/openapi/v3", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		paths := map[string]any{}
		for _, gv := range k8sGroupVersions {
			paths[gv.path()] = map[string]string{"serverRelativeURL": "/openapi/v3/" + gv.path()}
		}
		return map[string]any{"paths": paths}, nil
	}))
}

// serverAddress is the host and port of the request's base URL: the address the API server
// gives in /api's serverAddressByClientCIDRs.
func serverAddress(c echo.Context) string {
	if u, err := url.Parse(httpio.BaseURL(c)); err == nil {
		return u.Host
	}
	return ""
}

// versionInfo is /version for a control plane on GKE version v (1.36.6-gke.2078000).
func versionInfo(v string) *version.Info {
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	h := fnv.New128a()
	h.Write([]byte(v))
	info := &version.Info{
		Major: major, Minor: minor, EmulationMajor: major, EmulationMinor: minor, MinCompatibilityMajor: major,
		GitVersion: "v" + v, GitCommit: fmt.Sprintf("%x", h.Sum(nil)), GitTreeState: "clean",
		GoVersion: runtime.Version(), Compiler: "gc", Platform: "linux/amd64",
	}
	if m, err := strconv.Atoi(minor); err == nil && m > 0 {
		info.MinCompatibilityMinor = strconv.Itoa(m - 1)
	}
	return info
}

// openAPIv3 is the OpenAPI v3 document of a group version, reduced to what kubectl reads from
// it: for each kind, a PATCH operation tagged with the kind that declares the fieldValidation
// query parameter. Finding it, kubectl create/apply/replace leave schema validation to the
// server (which decodes strictly under fieldValidation=Strict, see decodeK8s) instead of
// downloading the OpenAPI v2 schemas, which gkesim does not serve.
func openAPIv3(gv k8sGroupVersion, masterVersion string) map[string]any {
	paths := map[string]any{}
	fieldValidation := map[string]any{"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"},
		"description": "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (the default) or Strict."}
	for _, r := range gv.resources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		p := "/" + gv.path() + "/" + r.Name + "/{name}"
		if r.Namespaced {
			p = "/" + gv.path() + "/namespaces/{namespace}/" + r.Name + "/{name}"
		}
		paths[p] = map[string]any{"patch": map[string]any{
			"operationId":                     "patch" + r.Kind,
			"parameters":                      []any{fieldValidation},
			"responses":                       map[string]any{"200": map[string]string{"description": "OK"}},
			"x-kubernetes-action":             "patch",
			"x-kubernetes-group-version-kind": map[string]string{"group": gv.group, "version": gv.version, "kind": r.Kind},
		}}
	}
	return map[string]any{"openapi": "3.0.0", "info": map[string]string{"title": "Kubernetes", "version": "v" + masterVersion}, "paths": paths}
}

// k8sNotFound is the API server's 404 for a resource gkesim does not hold objects of.
func k8sNotFound(resource, name string) error {
	return &sim.Error{HTTPCode: http.StatusNotFound, Status: "NotFound", KubeReason: "NotFound", Message: fmt.Sprintf("%s %q not found", resource, name)}
}
