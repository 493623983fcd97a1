package server

import (
	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// GKE v1 routes: projects.locations.clusters, .clusters.nodePools, .operations, serverConfig.
// Custom methods (":setSize") arrive as part of the last path parameter and are split off.

func (s *Server) gkeRoutes(g *echo.Group) {
	loc := "/projects/:project/locations/:location"
	g.GET(loc+"/clusters", s.listClusters)
	g.POST(loc+"/clusters", s.createCluster)
	g.GET(loc+"/clusters/:cluster", s.getCluster)
	g.PUT(loc+"/clusters/:cluster", s.updateCluster)
	g.DELETE(loc+"/clusters/:cluster", s.deleteCluster)
	g.POST(loc+"/clusters/:cluster", s.clusterVerb)

	np := loc + "/clusters/:cluster/nodePools"
	g.GET(np, s.listNodePools)
	g.POST(np, s.createNodePool)
	g.GET(np+"/:pool", s.getNodePool)
	g.PUT(np+"/:pool", s.updateNodePool)
	g.DELETE(np+"/:pool", s.deleteNodePool)
	g.POST(np+"/:pool", s.nodePoolVerb)

	g.GET(loc+"/operations", s.listOperations)
	g.GET(loc+"/operations/:op", s.getOperation)
	g.POST(loc+"/operations/:op", s.operationVerb)
	g.GET(loc+"/serverConfig", s.serverConfig)
}

// path parameters of a GKE request.
type gkePath struct {
	project, location, cluster, pool, verb string
}

func params(c echo.Context) gkePath {
	p := gkePath{project: c.Param("project"), location: c.Param("location")}
	p.cluster, p.verb = splitVerb(c.Param("cluster"))
	if pool := c.Param("pool"); pool != "" {
		p.pool, p.verb = splitVerb(pool)
	}
	return p
}

// noVerb rejects a custom method on a route that takes none.
func (p gkePath) noVerb(c echo.Context) error {
	if p.verb != "" {
		return httpio.NotFoundf("Method %q is not supported by %s %s.", p.verb, c.Request().Method, c.Request().URL.Path)
	}
	return nil
}

func (s *Server) listClusters(c echo.Context) error {
	p := params(c)
	return s.read(c, func(w *sim.World) (any, error) {
		cls, err := w.ListClusters(p.project, p.location)
		if err != nil {
			return nil, err
		}
		out := &api.ListClustersResponse{}
		for _, cl := range cls {
			out.Clusters = append(out.Clusters, s.renderCluster(w, cl, c))
		}
		return out, nil
	})
}

func (s *Server) createCluster(c echo.Context) error {
	p := params(c)
	var req api.CreateClusterRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	return s.do(c, func(w *sim.World) (any, error) {
		op, err := w.CreateCluster(p.project, p.location, &req)
		if err != nil {
			return nil, err
		}
		return w.RenderOperation(op, links(c)), nil
	})
}

func (s *Server) getCluster(c echo.Context) error {
	p := params(c)
	if p.verb == "fetchClusterUpgradeInfo" {
		return s.fetchClusterUpgradeInfo(c, p)
	}
	if err := p.noVerb(c); err != nil {
		return err
	}
	return s.read(c, func(w *sim.World) (any, error) {
		cl, err := w.GetCluster(p.project, p.location, p.cluster)
		if err != nil {
			return nil, err
		}
		return s.renderCluster(w, cl, c), nil
	})
}

func (s *Server) updateCluster(c echo.Context) error {
	p := params(c)
	if err := p.noVerb(c); err != nil {
		return err
	}
	var req api.UpdateClusterRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
		return w.UpdateCluster(p.project, p.location, p.cluster, &req)
	})
}

func (s *Server) deleteCluster(c echo.Context) error {
	p := params(c)
	if err := p.noVerb(c); err != nil {
		return err
	}
	return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
		return w.DeleteCluster(p.project, p.location, p.cluster)
	})
}

// clusterVerb serves the cluster custom methods. The ones that only set a stored field are
// applied as the equivalent ClusterUpdate, as GKE does.
func (s *Server) clusterVerb(c echo.Context) error {
	p := params(c)
	var update *api.ClusterUpdate
	switch p.verb {
	case "updateMaster":
		var req struct {
			MasterVersion string `json:"masterVersion"`
		}
		if err := decode(c, &req); err != nil {
			return err
		}
		update = &api.ClusterUpdate{DesiredMasterVersion: req.MasterVersion}
	case "setLocations":
		var req struct {
			Locations []string `json:"locations"`
		}
		if err := decode(c, &req); err != nil {
			return err
		}
		update = &api.ClusterUpdate{DesiredLocations: req.Locations}
	case "setResourceLabels":
		return s.setResourceLabels(c, p)
	case "setLogging", "setMonitoring", "setAddons", "setLegacyAbac", "setNetworkPolicy", "setMasterAuth":
		return s.setStoredField(c, p)
	case "setMaintenancePolicy":
		return s.setMaintenancePolicy(c, p)
	default:
		return httpio.NotFoundf("Method %q is not supported on clusters by gkesim; supported: updateMaster, setLocations, setLogging, setMonitoring, setAddons, setLegacyAbac, setNetworkPolicy, setResourceLabels, setMasterAuth, setMaintenancePolicy.", p.verb)
	}
	return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
		return w.UpdateCluster(p.project, p.location, p.cluster, &api.UpdateClusterRequest{Update: update})
	})
}

// storedFieldVerbs maps the cluster custom methods that set one stored (not simulated) field
// to that field.
var storedFieldVerbs = map[string]struct{ member, field string }{
	"setLogging":       {"loggingService", "loggingService"},
	"setMonitoring":    {"monitoringService", "monitoringService"},
	"setAddons":        {"addonsConfig", "addonsConfig"},
	"setLegacyAbac":    {"enabled", "legacyAbac"},
	"setNetworkPolicy": {"networkPolicy", "networkPolicy"},
	"setMasterAuth":    {"update", "masterAuth"},
}

func (s *Server) setStoredField(c echo.Context, p gkePath) error {
	var req map[string]rawJSON
	if err := decode(c, &req); err != nil {
		return err
	}
	m := storedFieldVerbs[p.verb]
	value, ok := req[m.member]
	if !ok {
		return httpio.BadRequest("Required field %q is missing from the %s request.", m.member, p.verb)
	}
	if p.verb == "setLegacyAbac" {
		value = rawJSON(`{"enabled":` + string(value) + `}`)
	}
	return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
		return w.SetClusterField(p.project, p.location, p.cluster, m.field, []byte(value))
	})
}

// setResourceLabels serves clusters.setResourceLabels: the labels and the labelFingerprint
// the client read with the cluster.
func (s *Server) setResourceLabels(c echo.Context, p gkePath) error {
	var req api.SetLabelsRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
		return w.SetResourceLabels(p.project, p.location, p.cluster, req.ResourceLabels, req.LabelFingerprint)
	})
}

// operation runs fn and renders the operation it returns.
func (s *Server) operation(c echo.Context, fn func(w *sim.World) (*sim.Operation, error)) error {
	return s.do(c, func(w *sim.World) (any, error) {
		op, err := fn(w)
		if err != nil {
			return nil, err
		}
		return w.RenderOperation(op, links(c)), nil
	})
}

func (s *Server) listNodePools(c echo.Context) error {
	p := params(c)
	return s.read(c, func(w *sim.World) (any, error) {
		cl, err := w.GetCluster(p.project, p.location, p.cluster)
		if err != nil {
			return nil, err
		}
		out := &api.ListNodePoolsResponse{}
		for _, np := range cl.Pools {
			out.NodePools = append(out.NodePools, w.RenderNodePool(cl, np, links(c)))
		}
		return out, nil
	})
}

func (s *Server) createNodePool(c echo.Context) error {
	p := params(c)
	var req api.CreateNodePoolRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
		return w.CreateNodePool(p.project, p.location, p.cluster, &req)
	})
}

func (s *Server) getNodePool(c echo.Context) error {
	p := params(c)
	if err := p.noVerb(c); err != nil {
		return err
	}
	return s.read(c, func(w *sim.World) (any, error) {
		cl, np, err := w.GetNodePool(p.project, p.location, p.cluster, p.pool)
		if err != nil {
			return nil, err
		}
		return w.RenderNodePool(cl, np, links(c)), nil
	})
}

func (s *Server) updateNodePool(c echo.Context) error {
	p := params(c)
	if err := p.noVerb(c); err != nil {
		return err
	}
	var req api.UpdateNodePoolRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
		return w.UpdateNodePool(p.project, p.location, p.cluster, p.pool, &req)
	})
}

func (s *Server) deleteNodePool(c echo.Context) error {
	p := params(c)
	if err := p.noVerb(c); err != nil {
		return err
	}
	return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
		return w.DeleteNodePool(p.project, p.location, p.cluster, p.pool)
	})
}

func (s *Server) nodePoolVerb(c echo.Context) error {
	p := params(c)
	switch p.verb {
	case "setSize":
		var req api.SetNodePoolSizeRequest
		if err := decode(c, &req); err != nil {
			return err
		}
		return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
			return w.SetNodePoolSize(p.project, p.location, p.cluster, p.pool, &req)
		})
	case "setManagement":
		var req api.SetNodePoolManagementRequest
		if err := decode(c, &req); err != nil {
			return err
		}
		return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
			return w.SetNodePoolManagement(p.project, p.location, p.cluster, p.pool, &req)
		})
	case "setAutoscaling":
		var req api.SetNodePoolAutoscalingRequest
		if err := decode(c, &req); err != nil {
			return err
		}
		return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
			return w.SetNodePoolAutoscaling(p.project, p.location, p.cluster, p.pool, &req)
		})
	case "rollback":
		var req api.RollbackNodePoolUpgradeRequest
		if err := decode(c, &req); err != nil {
			return err
		}
		return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
			return w.RollbackNodePool(p.project, p.location, p.cluster, p.pool, &req)
		})
	case "completeUpgrade":
		var req api.CompleteNodePoolUpgradeRequest
		if err := decode(c, &req); err != nil {
			return err
		}
		return s.do(c, func(w *sim.World) (any, error) {
			if err := w.CompleteNodePoolUpgrade(p.project, p.location, p.cluster, p.pool); err != nil {
				return nil, err
			}
			return &api.Empty{}, nil
		})
	}
	return httpio.NotFoundf("Method %q is not supported on node pools by gkesim; supported: setSize, setManagement, setAutoscaling, rollback, completeUpgrade.", p.verb)
}

func (s *Server) listOperations(c echo.Context) error {
	p := params(c)
	return s.read(c, func(w *sim.World) (any, error) {
		out := &api.ListOperationsResponse{}
		for _, op := range w.ListOperations(p.project, p.location) {
			out.Operations = append(out.Operations, w.RenderOperation(op, links(c)))
		}
		return out, nil
	})
}

func (s *Server) getOperation(c echo.Context) error {
	p := params(c)
	id, verb := splitVerb(c.Param("op"))
	if verb != "" {
		return httpio.NotFoundf("Method %q is not supported by GET on operations.", verb)
	}
	return s.read(c, func(w *sim.World) (any, error) {
		op, err := w.GetOperation(p.project, p.location, id)
		if err != nil {
			return nil, err
		}
		return w.RenderOperation(op, links(c)), nil
	})
}

func (s *Server) operationVerb(c echo.Context) error {
	p := params(c)
	id, verb := splitVerb(c.Param("op"))
	if verb != "cancel" {
		return httpio.NotFoundf("Method %q is not supported on operations; only cancel is.", verb)
	}
	var req api.CancelOperationRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	return s.do(c, func(w *sim.World) (any, error) {
		if err := w.CancelOperation(p.project, p.location, id); err != nil {
			return nil, err
		}
		return &api.Empty{}, nil
	})
}

func (s *Server) serverConfig(c echo.Context) error {
	p := params(c)
	return s.do(c, func(w *sim.World) (any, error) {
		return w.ServerConfig(p.location)
	})
}
