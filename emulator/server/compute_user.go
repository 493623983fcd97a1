package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The Compute API's writes for what users create outside GKE: regional backend services and
// zonal unmanaged instance groups, at the real paths (regionBackendServices.insert/update/
// patch/delete, instanceGroups.insert/delete/addInstances/removeInstances). Each answers with a zonal or
// regional Operation, already DONE, that zoneOperations.get / regionOperations.get (and wait)
// find again. Compute's rule of one load-balanced instance group per VM holds (R-LB-5).

func (s *Server) computeUserRoutes(g *echo.Group) {
	p := func(c echo.Context) string { return c.Param("project") }
	g.POST("/regions/:region/backendServices", computeWithBody(s, func(w *sim.World, c echo.Context, in *api.BackendService) (any, error) {
		return w.InsertBackendService(p(c), c.Param("region"), in, links(c))
	}))
	for _, m := range []struct {
		method string
		patch  bool
	}{{http.MethodPut, false}, {http.MethodPatch, true}} {
		g.Add(m.method, "/regions/:region/backendServices/:name", computeWithBody(s, func(w *sim.World, c echo.Context, in *api.BackendService) (any, error) {
			return w.UpdateBackendService(p(c), c.Param("region"), c.Param("name"), in, m.patch, links(c))
		}))
	}
	g.DELETE("/regions/:region/backendServices/:name", s.computeDo(func(w *sim.World, c echo.Context) (any, error) {
		return w.DeleteBackendService(p(c), c.Param("region"), c.Param("name"), links(c))
	}))
	g.POST("/zones/:zone/instanceGroups", computeWithBody(s, func(w *sim.World, c echo.Context, in *api.InstanceGroup) (any, error) {
		return w.InsertInstanceGroup(p(c), c.Param("zone"), in, links(c))
	}))
	g.DELETE("/zones/:zone/instanceGroups/:name", s.computeDo(func(w *sim.World, c echo.Context) (any, error) {
		return w.DeleteInstanceGroup(p(c), c.Param("zone"), c.Param("name"), links(c))
	}))
	g.POST("/zones/:zone/instanceGroups/:name/addInstances", computeWithBody(s, func(w *sim.World, c echo.Context, in *api.InstanceGroupsInstancesRequest) (any, error) {
		return w.AddInstances(p(c), c.Param("zone"), c.Param("name"), in.Instances, links(c))
	}))
	g.POST("/zones/:zone/instanceGroups/:name/removeInstances", computeWithBody(s, func(w *sim.World, c echo.Context, in *api.InstanceGroupsInstancesRequest) (any, error) {
		return w.RemoveInstances(p(c), c.Param("zone"), c.Param("name"), in.Instances, links(c))
	}))
	for _, scope := range []struct{ collection, param string }{{"zones", "zone"}, {"regions", "region"}} {
		op := s.computeDo(func(w *sim.World, c echo.Context) (any, error) {
			return w.ComputeOperation(p(c), scope.collection+"/"+c.Param(scope.param), c.Param("operation"), links(c))
		})
		path := "/" + scope.collection + "/:" + scope.param + "/operations/:operation"
		g.GET(path, op)
		g.POST(path+"/wait", op)
	}
}
