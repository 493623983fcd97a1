package server

import (
	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
)

// The one Service Usage call gcloud makes before creating a cluster ("is container.googleapis.com
// enabled?"). Point gcloud's api_endpoint_overrides/serviceusage at the emulator to answer it.

type serviceState struct {
	Name   string `json:"name"`
	Parent string `json:"parent"`
	State  string `json:"state"`
}

// emulatedServices are the APIs the emulator stands in for; they are always enabled.
var emulatedServices = map[string]bool{"container.googleapis.com": true, "compute.googleapis.com": true}

func (s *Server) serviceUsageRoutes() {
	s.e.GET("/v1/projects/:project/services/:service", func(c echo.Context) error {
		svc := c.Param("service")
		state := "DISABLED"
		if emulatedServices[svc] {
			state = "ENABLED"
		}
		parent := "projects/" + c.Param("project")
		return httpio.WriteJSON(c, 200, &serviceState{Name: parent + "/services/" + svc, Parent: parent, State: state})
	})
}
