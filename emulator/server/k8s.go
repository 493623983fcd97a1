package server

import (
	"strconv"

	"github.com/labstack/echo/v4"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The Kubernetes-shaped API of each cluster, under its endpoint prefix.

func (s *Server) k8sRoutes(g *echo.Group) {
	g.GET("/api/v1/nodes", s.listK8sNodes)
	g.GET("/api/v1/nodes/:name", s.getK8sNode)
}

// k8sCluster resolves the cluster of a Kubernetes-shaped request.
func k8sCluster(c echo.Context, w *sim.World) (*sim.Cluster, error) {
	cl := w.Cluster(c.Param("project"), c.Param("location"), c.Param("cluster"))
	if cl == nil {
		return nil, notFoundf("cluster %q not found in projects/%s/locations/%s", c.Param("cluster"), c.Param("project"), c.Param("location"))
	}
	return cl, nil
}

func (s *Server) listK8sNodes(c echo.Context) error {
	return s.do(c, func(w *sim.World) (any, error) {
		cl, err := k8sCluster(c, w)
		if err != nil {
			return nil, err
		}
		return &corev1.NodeList{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NodeList"},
			ListMeta: metav1.ListMeta{ResourceVersion: strconv.FormatInt(cl.RV, 10)},
			Items:    w.K8sNodes(cl),
		}, nil
	})
}

func (s *Server) getK8sNode(c echo.Context) error {
	return s.do(c, func(w *sim.World) (any, error) {
		cl, err := k8sCluster(c, w)
		if err != nil {
			return nil, err
		}
		n := cl.Nodes[c.Param("name")]
		if n == nil || n.State == sim.NodeProvisioning {
			return nil, notFoundf("nodes %q not found", c.Param("name"))
		}
		return w.RenderK8sNode(cl, n), nil
	})
}
