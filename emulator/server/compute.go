package server

import (
	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The read-only Compute Engine view (terraform-provider-google reads a node pool's size from its
// managed instance groups' targetSize).

func (s *Server) computeRoutes(g *echo.Group) {
	g.GET("/zones/:zone/instanceGroupManagers", s.listIGMs)
	g.GET("/zones/:zone/instanceGroupManagers/:name", s.getIGM)
	g.POST("/zones/:zone/instanceGroupManagers/:name/listManagedInstances", s.listManagedInstances)
	s.computeLBRoutes(g)
}

func (s *Server) listIGMs(c echo.Context) error {
	return s.do(c, func(w *sim.World) (any, error) {
		items := w.InstanceGroupManagers(c.Param("project"), c.Param("zone"), links(c))
		return &api.InstanceGroupManagerList{Kind: "compute#instanceGroupManagerList", Id: c.Param("zone"), Items: items,
			SelfLink: links(c).Compute("projects/%s/zones/%s/instanceGroupManagers", c.Param("project"), c.Param("zone"))}, nil
	})
}

func (s *Server) getIGM(c echo.Context) error {
	return s.do(c, func(w *sim.World) (any, error) {
		return w.InstanceGroupManager(c.Param("project"), c.Param("zone"), c.Param("name"), links(c))
	})
}

func (s *Server) listManagedInstances(c echo.Context) error {
	return s.do(c, func(w *sim.World) (any, error) {
		return w.ManagedInstances(c.Param("project"), c.Param("zone"), c.Param("name"), links(c))
	})
}
