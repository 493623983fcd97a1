package server

import (
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Maintenance: GKE's clusters.setMaintenancePolicy and clusters.fetchClusterUpgradeInfo (routed
// from the cluster routes in gke.go), and the emulator's own maintenance views and fault:
//
//	GET  /emulator/v1/versions                                               versions per channel with support dates
//	GET  /emulator/v1/projects/P/locations/L/clusters/C/maintenanceSchedule  next windows, per-kind answers
//	POST /emulator/v1/projects/P/locations/L/clusters/C/nodes/N:fail          fail a node (auto-repair fixes it)

// maxScheduleWindows bounds ?windows= of the maintenance schedule.
const maxScheduleWindows = 100

func (s *Server) maintenanceRoutes() {
	s.e.GET("/emulator/v1/versions", s.versionSchedule)
	cl := "/emulator/v1/projects/:project/locations/:location/clusters/:cluster"
	s.e.GET(cl+"/maintenanceSchedule", s.maintenanceSchedule)
	s.e.POST(cl+"/nodes/:node", s.nodeVerb)
}

func (s *Server) setMaintenancePolicy(c echo.Context, p gkePath) error {
	var req api.SetMaintenancePolicyRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	return s.operation(c, func(w *sim.World) (*sim.Operation, error) {
		return w.SetMaintenancePolicy(p.project, p.location, p.cluster, &req)
	})
}

func (s *Server) fetchClusterUpgradeInfo(c echo.Context, p gkePath) error {
	return s.do(c, func(w *sim.World) (any, error) {
		return w.ClusterUpgradeInfo(p.project, p.location, p.cluster)
	})
}

func (s *Server) versionSchedule(c echo.Context) error {
	return s.do(c, func(w *sim.World) (any, error) { return w.VersionSchedule(), nil })
}

func (s *Server) maintenanceSchedule(c echo.Context) error {
	p := params(c)
	n := 5
	if v := c.QueryParam("windows"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > maxScheduleWindows {
			return httpio.BadRequest("Invalid value for query parameter \"windows\": %q. Ask for 1 to %d windows.", v, maxScheduleWindows)
		}
	}
	return s.do(c, func(w *sim.World) (any, error) {
		return w.MaintenanceSchedule(p.project, p.location, p.cluster, n)
	})
}

func (s *Server) nodeVerb(c echo.Context) error {
	p := params(c)
	node, verb := splitVerb(c.Param("node"))
	if verb != "fail" {
		return httpio.NotFoundf("Method %q is not supported on nodes; only fail is (POST .../nodes/NAME:fail).", verb)
	}
	return s.do(c, func(w *sim.World) (any, error) {
		n, err := w.FailNode(p.project, p.location, p.cluster, node)
		if err != nil {
			return nil, err
		}
		cl := w.Cluster(p.project, p.location, p.cluster)
		np := cl.Pool(n.Pool)
		return &api.FailNodeResponse{Node: n.Name, NodePool: n.Pool, FailedAt: w.Now().Format(time.RFC3339),
			AutoRepair: np != nil && np.AutoRepair}, nil
	})
}
