package k8s

import (
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Services (core/v1) of a cluster's Kubernetes-shaped API: ClusterIP, NodePort and
// LoadBalancer Services, with the API server's allocation and validation; GKE builds the load
// balancers of LoadBalancer Services (sim/loadbalancers/loadbalancer.go).

func (s *Server) k8sServiceRoutes(g *echo.Group) {
	svc := func(path string) string { return "/api/v1/namespaces/:ns/services" + path }
	list := s.k8sList("services", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListServices(cl, o)
	})
	get := func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetService(cl, c.Param("ns"), c.Param("name"))
	}
	update := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.UpdateService(cl, c.Param("ns"), c.Param("name"), in.(*corev1.Service))
	}
	g.GET("/api/v1/services", list)
	g.GET(svc(""), list)
	create := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.CreateService(cl, c.Param("ns"), in.(*corev1.Service))
	}
	g.POST(svc(""), s.k8sCreate(&corev1.Service{}, create))
	g.GET(svc("/:name"), s.k8s(get))
	g.PUT(svc("/:name"), s.k8sUpdate(&corev1.Service{}, get, update))
	g.PATCH(svc("/:name"), s.k8sPatch(&corev1.Service{}, get, update, create))
	g.DELETE(svc("/:name"), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.DeleteService(cl, c.Param("ns"), c.Param("name"))
	}))
}

// serviceSubject finds the Service a log entry is about: the load balancer controller names it
// "service ns/name".
var serviceSubject = regexp.MustCompile(`(?:^|\s)service ([a-z0-9][-a-z0-9.]*)/([a-z0-9][-a-z0-9.]*)`)

// serviceWarnings are the load balancer events kubectl shows as Warning.
var serviceWarnings = map[string]bool{"LoadBalancerBackendUnhealthy": true, "LoadBalancerNodeLimitWarning": true}

// serviceExternalIP is kubectl's EXTERNAL-IP column: the load balancer's addresses, <pending>
// while a LoadBalancer Service has none, <none> for other types.
func serviceExternalIP(svc *corev1.Service) string {
	var ips []string
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		for _, in := range svc.Status.LoadBalancer.Ingress {
			ips = append(ips, in.IP)
		}
	}
	ips = append(ips, svc.Spec.ExternalIPs...)
	switch {
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	case len(ips) > 0:
		return strings.Join(ips, ",")
	case svc.Spec.Type == corev1.ServiceTypeLoadBalancer:
		return "<pending>"
	}
	return "<none>"
}
