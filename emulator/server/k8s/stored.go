package k8s

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The kinds the API stores without simulating them (sim/kubeapi/k8s_stored.go): ConfigMaps, Secrets,
// ServiceAccounts, RBAC, HorizontalPodAutoscalers, GKE's ComputeClass and PriorityClasses, each with create,
// get, list, watch, update, patch (server-side apply included) and delete, as the API server
// serves them.

func (s *Server) k8sStoredRoutes(g *echo.Group) {
	for _, k := range sim.StoredKinds {
		prefix := "/api/" + k.Version
		if k.Group != "" {
			prefix = "/apis/" + k.Group + "/" + k.Version
		}
		list := s.k8sList(k.Resource, func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
			return w.ListStored(cl, k, o.Namespace)
		})
		get := func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			return w.GetStored(cl, k, c.Param("ns"), c.Param("name"))
		}
		create := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
			return w.CreateStored(cl, k, c.Param("ns"), in.(runtime.Object))
		}
		update := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
			return w.UpdateStored(cl, k, c.Param("ns"), c.Param("name"), in.(runtime.Object))
		}
		collection := prefix + "/" + k.Resource
		if k.Namespaced {
			g.GET(collection, list) // every namespace
			collection = prefix + "/namespaces/:ns/" + k.Resource
		}
		item := collection + "/:name"
		g.GET(collection, list)
		g.POST(collection, s.k8sCreate(k.New(), create))
		g.GET(item, s.k8s(get))
		g.PUT(item, s.k8sUpdate(k.New(), get, update))
		g.PATCH(item, s.k8sPatch(k.New(), get, update, create))
		g.DELETE(item, s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			return w.DeleteStored(cl, k, c.Param("ns"), c.Param("name"))
		}))
	}
}

// refusedRoutes are the paths gkesim answers only with a Status, because it runs no containers
// and carries no traffic: logs, exec, attach, port-forward and the proxies.
var refusedRoutes = map[string]string{
	"/api/v1/namespaces/:ns/pods/:name/log":         "container logs (kubectl logs)",
	"/api/v1/namespaces/:ns/pods/:name/exec":        "exec into containers (kubectl exec)",
	"/api/v1/namespaces/:ns/pods/:name/attach":      "attaching to containers (kubectl attach)",
	"/api/v1/namespaces/:ns/pods/:name/portforward": "port forwarding (kubectl port-forward)",
	"/api/v1/namespaces/:ns/pods/:name/proxy":       "proxying to pods (kubectl proxy)",
	"/api/v1/namespaces/:ns/pods/:name/proxy/*":     "proxying to pods (kubectl proxy)",
	"/api/v1/namespaces/:ns/services/:name/proxy":   "proxying to services (kubectl proxy)",
	"/api/v1/namespaces/:ns/services/:name/proxy/*": "proxying to services (kubectl proxy)",
	"/api/v1/nodes/:name/proxy":                     "proxying to the kubelet (kubectl top, kubectl debug node)",
	"/api/v1/nodes/:name/proxy/*":                   "proxying to the kubelet (kubectl top, kubectl debug node)",
}

// Refused says whether a route under a cluster's endpoint prefix is one of those gkesim answers
// only with a Status, because it runs no containers (logs, exec, attach, port-forward, proxies).
func Refused(path string) bool {
	_, ok := refusedRoutes[path]
	return ok
}

// k8sUnsupportedRoutes answers the refused routes with the API server's Status and what to do
// instead: logs and exec are GETs (exec, attach and port-forward upgrade a GET over WebSocket
// or a POST over SPDY), proxies take any method.
func (s *Server) k8sUnsupportedRoutes(g *echo.Group) {
	for path, what := range refusedRoutes {
		refuse := func(c echo.Context) error {
			return &sim.Error{HTTPCode: http.StatusBadRequest, Status: "BadRequest", KubeReason: "BadRequest",
				Message: fmt.Sprintf("gkesim does not serve %s: it simulates pods without running their containers "+
					"(kubectl describe and kubectl get events show what happened to them)", what)}
		}
		methods := []string{http.MethodGet, http.MethodPost}
		if strings.Contains(path, "/proxy") {
			methods = append(methods, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions)
		}
		for _, m := range methods {
			g.Add(m, path, refuse)
		}
	}
}
