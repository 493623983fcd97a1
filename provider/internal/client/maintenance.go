package client

import (
	"context"
	"fmt"
)

// MaintenanceSchedule is the emulator's answer to "when may each kind of upgrade run on this
// cluster?" (GET /emulator/v1/projects/P/locations/L/clusters/C/maintenanceSchedule; GKE has
// no such call).
type MaintenanceSchedule struct {
	Now                  string `json:"now"`
	ResourceVersion      string `json:"resourceVersion"`
	EndOfStandardSupport string `json:"endOfStandardSupport"`
	EndOfExtendedSupport string `json:"endOfExtendedSupport"`
	Windows              []struct {
		StartTime string `json:"startTime"`
		EndTime   string `json:"endTime"`
	} `json:"windows"`
	Upgrades []struct {
		Kind            string   `json:"kind"`
		AllowedNow      bool     `json:"allowedNow"`
		NextAllowedTime string   `json:"nextAllowedTime"`
		BlockedBy       []string `json:"blockedBy"`
		Reason          string   `json:"reason"`
	} `json:"upgrades"`
}

// MaintenanceSchedule reads a cluster's next n open maintenance windows and, per upgrade kind,
// when it may run.
func (c *Client) MaintenanceSchedule(ctx context.Context, project, location, cluster string, n int) (*MaintenanceSchedule, error) {
	var out MaintenanceSchedule
	url := fmt.Sprintf("%s/emulator/v1/%s/maintenanceSchedule?windows=%d", c.Endpoint, ClusterName(project, location, cluster), n)
	if err := c.GetJSON(ctx, url, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// VersionSchedule is the emulator's version table now: each release channel's versions and the
// support dates of their minors (GET /emulator/v1/versions; GKE's serverConfig has no dates).
type VersionSchedule struct {
	Now      string `json:"now"`
	Channels []struct {
		Channel string `json:"channel"`
		Minors  []struct {
			Minor                string `json:"minor"`
			EndOfStandardSupport string `json:"endOfStandardSupport"`
			EndOfExtendedSupport string `json:"endOfExtendedSupport"`
		} `json:"minors"`
	} `json:"channels"`
}

// VersionSchedule reads the emulator's version table with support dates.
func (c *Client) VersionSchedule(ctx context.Context) (*VersionSchedule, error) {
	var out VersionSchedule
	if err := c.GetJSON(ctx, c.Endpoint+"/emulator/v1/versions", &out); err != nil {
		return nil, err
	}
	return &out, nil
}
