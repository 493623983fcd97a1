package server

import (
	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The Compute Engine view (terraform-provider-google reads a node pool's size from its managed
// instance groups' targetSize); read-only but for what users create outside GKE (compute_user.go).

func (s *Server) computeRoutes(g *echo.Group) {
	g.GET("/zones/:zone/instanceGroupManagers", s.listIGMs)
	g.GET("/zones/:zone/instanceGroupManagers/:name", s.getIGM)
	g.POST("/zones/:zone/instanceGroupManagers/:name/listManagedInstances", s.listManagedInstances)
	s.computeLBRoutes(g)
	s.computeUserRoutes(g)
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

// computeDo runs fn on the simulation for a request without a body.
func (s *Server) computeDo(fn func(w *sim.World, c echo.Context) (any, error)) echo.HandlerFunc {
	return func(c echo.Context) error { return s.do(c, func(w *sim.World) (any, error) { return fn(w, c) }) }
}

// computeWithBody decodes a request body of type T and runs fn on the simulation.
func computeWithBody[T any](s *Server, fn func(w *sim.World, c echo.Context, in *T) (any, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		in := new(T)
		if err := decode(c, in); err != nil {
			return err
		}
		return s.do(c, func(w *sim.World) (any, error) { return fn(w, c, in) })
	}
}
