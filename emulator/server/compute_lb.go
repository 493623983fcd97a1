package server

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// What GKE creates in Compute Engine for LoadBalancer Services (R-LB-2), read-only, at the
// Compute API's regional, zonal and global paths; and the emulator's own views of a load
// balancer: its status and the path of a packet through it (R-LB-7).

func (s *Server) computeLBRoutes(g *echo.Group) {
	list := func(kind, scope string, items func(w *sim.World, c echo.Context) any) echo.HandlerFunc {
		return func(c echo.Context) error {
			return s.do(c, func(w *sim.World) (any, error) {
				p, where := c.Param("project"), c.Param(scope)
				path := "projects/" + p + "/" + scope + "s/" + where + "/" + c.Path()[len("/compute/v1/projects/:project/"+scope+"s/:"+scope+"/"):]
				if scope == "global" {
					where = "global"
					path = "projects/" + p + "/global/" + c.Path()[len("/compute/v1/projects/:project/global/"):]
				}
				return &api.ComputeList{Kind: "compute#" + kind, Id: "projects/" + p + "/" + where, Items: items(w, c), SelfLink: links(c).Compute("%s", path)}, nil
			})
		}
	}
	one := s.computeDo

	g.GET("/regions/:region/forwardingRules", list("forwardingRuleList", "region", func(w *sim.World, c echo.Context) any {
		return w.ForwardingRules(c.Param("project"), c.Param("region"), links(c))
	}))
	g.GET("/regions/:region/forwardingRules/:name", one(func(w *sim.World, c echo.Context) (any, error) {
		return w.ForwardingRule(c.Param("project"), c.Param("region"), c.Param("name"), links(c))
	}))
	g.GET("/regions/:region/backendServices", list("backendServiceList", "region", func(w *sim.World, c echo.Context) any {
		return w.BackendServices(c.Param("project"), c.Param("region"), links(c))
	}))
	g.GET("/regions/:region/backendServices/:name", one(func(w *sim.World, c echo.Context) (any, error) {
		return w.BackendService(c.Param("project"), c.Param("region"), c.Param("name"), links(c))
	}))
	g.POST("/regions/:region/backendServices/:name/getHealth", computeWithBody(s, func(w *sim.World, c echo.Context, req *api.ResourceGroupReference) (any, error) {
		return w.BackendServiceHealth(c.Param("project"), c.Param("region"), c.Param("name"), req.Group, links(c))
	}))
	g.GET("/regions/:region/targetPools", list("targetPoolList", "region", func(w *sim.World, c echo.Context) any {
		return w.TargetPools(c.Param("project"), c.Param("region"), links(c))
	}))
	g.GET("/regions/:region/targetPools/:name", one(func(w *sim.World, c echo.Context) (any, error) {
		return w.TargetPool(c.Param("project"), c.Param("region"), c.Param("name"), links(c))
	}))
	g.POST("/regions/:region/targetPools/:name/getHealth", computeWithBody(s, func(w *sim.World, c echo.Context, req *api.InstanceReference) (any, error) {
		return w.TargetPoolHealth(c.Param("project"), c.Param("region"), c.Param("name"), req.Instance, links(c))
	}))
	g.GET("/regions/:region/healthChecks", list("healthCheckList", "region", func(w *sim.World, c echo.Context) any {
		return w.HealthChecks(c.Param("project"), "healthChecks", c.Param("region"), links(c))
	}))
	g.GET("/regions/:region/healthChecks/:name", one(func(w *sim.World, c echo.Context) (any, error) {
		return w.HealthCheck(c.Param("project"), "healthChecks", c.Param("region"), c.Param("name"), links(c))
	}))
	for _, coll := range []struct{ path, kind string }{{"healthChecks", "healthCheckList"}, {"httpHealthChecks", "httpHealthCheckList"}} {
		g.GET("/global/"+coll.path, list(coll.kind, "global", func(w *sim.World, c echo.Context) any {
			return w.HealthChecks(c.Param("project"), coll.path, "", links(c))
		}))
		g.GET("/global/"+coll.path+"/:name", one(func(w *sim.World, c echo.Context) (any, error) {
			return w.HealthCheck(c.Param("project"), coll.path, "", c.Param("name"), links(c))
		}))
	}
	g.GET("/global/firewalls", list("firewallList", "global", func(w *sim.World, c echo.Context) any {
		return w.Firewalls(c.Param("project"), links(c))
	}))
	g.GET("/global/firewalls/:name", one(func(w *sim.World, c echo.Context) (any, error) {
		return w.Firewall(c.Param("project"), c.Param("name"), links(c))
	}))
	g.GET("/zones/:zone/networkEndpointGroups", list("networkEndpointGroupList", "zone", func(w *sim.World, c echo.Context) any {
		return w.NetworkEndpointGroups(c.Param("project"), c.Param("zone"), links(c))
	}))
	g.GET("/zones/:zone/networkEndpointGroups/:name", one(func(w *sim.World, c echo.Context) (any, error) {
		return w.NetworkEndpointGroup(c.Param("project"), c.Param("zone"), c.Param("name"), links(c))
	}))
	g.POST("/zones/:zone/networkEndpointGroups/:name/listNetworkEndpoints", computeWithBody(s, func(w *sim.World, c echo.Context, req *api.ListNetworkEndpointsRequest) (any, error) {
		return w.NetworkEndpoints(c.Param("project"), c.Param("zone"), c.Param("name"), req.HealthStatus == "SHOW", links(c))
	}))
	g.GET("/zones/:zone/instanceGroups", list("instanceGroupList", "zone", func(w *sim.World, c echo.Context) any {
		return w.InstanceGroups(c.Param("project"), c.Param("zone"), links(c))
	}))
	g.GET("/zones/:zone/instanceGroups/:name", one(func(w *sim.World, c echo.Context) (any, error) {
		return w.InstanceGroup(c.Param("project"), c.Param("zone"), c.Param("name"), links(c))
	}))
	g.POST("/zones/:zone/instanceGroups/:name/listInstances", one(func(w *sim.World, c echo.Context) (any, error) {
		return w.InstanceGroupInstances(c.Param("project"), c.Param("zone"), c.Param("name"), links(c))
	}))
}

// emulatorLBRoutes are the emulator's views of load balancers (not GKE).
func (s *Server) emulatorLBRoutes() {
	g := s.e.Group("/emulator/v1/projects/:project/locations/:location/clusters/:cluster")
	cluster := func(w *sim.World, c echo.Context) (*sim.Cluster, error) {
		return w.GetCluster(c.Param("project"), c.Param("location"), c.Param("cluster"))
	}
	g.GET("/loadBalancers", func(c echo.Context) error {
		return s.do(c, func(w *sim.World) (any, error) {
			cl, err := cluster(w, c)
			if err != nil {
				return nil, err
			}
			return &api.LoadBalancerList{LoadBalancers: w.LoadBalancers(cl)}, nil
		})
	})
	g.GET("/loadBalancers/:namespace/:name", func(c echo.Context) error {
		return s.do(c, func(w *sim.World) (any, error) {
			cl, err := cluster(w, c)
			if err != nil {
				return nil, err
			}
			return w.GetLoadBalancer(cl, c.Param("namespace"), c.Param("name"))
		})
	})
	g.GET("/trace", func(c echo.Context) error {
		req := sim.TraceRequest{IP: c.QueryParam("ip"), Protocol: c.QueryParam("protocol"), Client: c.QueryParam("clientIp")}
		for _, p := range []struct {
			name string
			into *int32
		}{{"port", &req.Port}, {"clientPort", &req.ClientPort}} {
			v := c.QueryParam(p.name)
			if v == "" {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return httpio.BadRequest("Invalid value for parameter %q: %q. It must be a port number.", p.name, v)
			}
			*p.into = int32(n)
		}
		return s.do(c, func(w *sim.World) (any, error) {
			cl, err := cluster(w, c)
			if err != nil {
				return nil, err
			}
			return w.TracePacket(cl, req)
		})
	})
}
