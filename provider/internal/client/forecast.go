package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
)

// Forecasts of node-pool changes (gkesim's own API, not GKE's): POST
// /emulator/v1/projects/P/locations/L/clusters/C/nodePools/NP:forecast answers what a change
// would do if it were asked for now, from a copy of the emulator's simulation. Forecast is the
// part of the emulator's answer (a rehearsal report) the provider reads.

// ForecastRequest is the change to forecast.
type ForecastRequest struct {
	// Update is the change as an update of the node pool sends it: nodeVersion ("-" for the
	// control plane's), machineType, imageType, diskType, diskSizeGb, upgradeSettings.
	Update *container.UpdateNodePoolRequest `json:"update,omitempty"`
	// Automatic forecasts GKE's node auto-upgrade to Update.NodeVersion instead: it waits for
	// the maintenance window and pauses when the window closes.
	Automatic bool `json:"automatic,omitempty"`
	// NodeCount forecasts a resize of the pool to that many nodes per zone instead (alone).
	NodeCount *int32 `json:"nodeCount,omitempty"`
}

// Forecast is what the change would do.
type Forecast struct {
	RecreatesNodes bool     `json:"recreatesNodes"`
	Reasons        []string `json:"reasons"`
	// Strategy says how the nodes would be replaced.
	Strategy string `json:"strategy"`
	// Requested is now; Started when the first node would be touched (later when the change
	// waits for a maintenance window); Done when it would finish.
	Requested time.Time `json:"requested"`
	Started   time.Time `json:"started"`
	Done      time.Time `json:"done"`
	// Finished: the change finished within the forecast's limit.
	Finished        bool    `json:"finished"`
	DurationSeconds float64 `json:"durationSeconds"`
	Nodes           int     `json:"nodes"`

	Zones       []ForecastSpan    `json:"zones"`
	Phases      []ForecastSpan    `json:"phases"`
	Drains      []ForecastDrain   `json:"drains"`
	PDBs        []ForecastPDB     `json:"podDisruptionBudgets"`
	Forced      []ForecastPod     `json:"forcedPods"`
	Pending     []ForecastPod     `json:"pendingPods"`
	PeakPending int               `json:"peakPending"`
	LeftPending []ForecastPod     `json:"leftPending"`
	VMs         ForecastVMs       `json:"vms"`
	LBs         []ForecastLBDelta `json:"loadBalancers"`
}

// ForecastSpan is one zone of a surge upgrade (Zone, Nodes) or one phase of a blue-green one
// (Phase).
type ForecastSpan struct {
	Zone            string  `json:"zone"`
	Phase           string  `json:"phase"`
	Nodes           int     `json:"nodes"`
	DurationSeconds float64 `json:"durationSeconds"`
}

// ForecastDrain is one node's drain and the PodDisruptionBudgets that held it.
type ForecastDrain struct {
	Node  string `json:"node"`
	Holds []struct {
		PDB             string  `json:"pdb"`
		DurationSeconds float64 `json:"durationSeconds"`
	} `json:"holds"`
}

// ForecastPDB sums what one PodDisruptionBudget does to the change.
type ForecastPDB struct {
	PDB             string  `json:"pdb"`
	Drains          int     `json:"drains"`
	LongestSeconds  float64 `json:"longestSeconds"`
	ForcedAtTimeout int     `json:"forcedAtTimeout"`
}

// ForecastPod is a pod forced out of its node (Why: pdb-timeout, deadline, blue-deletion,
// grace-capped) or one that waits for a node.
type ForecastPod struct {
	Pod string `json:"pod"`
	Why string `json:"why"`
}

// ForcedPDBTimeout is the Why of a pod deleted when its drain's 1-hour PDB timeout passed.
const ForcedPDBTimeout = "pdb-timeout"

// ForecastVMs counts the pool's VMs: before the change, at its peak, and the VM-hours it uses.
type ForecastVMs struct {
	Before    int     `json:"before"`
	Peak      int     `json:"peak"`
	PeakExtra int     `json:"peakExtra"`
	VMHours   float64 `json:"vmHours"`
}

// ForecastLBDelta is the backend changes of one load balancer.
type ForecastLBDelta struct {
	Service string `json:"service"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// HeldDrains counts the drains a PodDisruptionBudget held.
func (f *Forecast) HeldDrains() int {
	n := 0
	for _, d := range f.Drains {
		if len(d.Holds) > 0 {
			n++
		}
	}
	return n
}

// LongestHold is the longest hold of a drain by a PodDisruptionBudget, and that budget.
func (f *Forecast) LongestHold() (pdb string, seconds float64) {
	for _, p := range f.PDBs {
		if p.LongestSeconds > seconds {
			pdb, seconds = p.PDB, p.LongestSeconds
		}
	}
	return pdb, seconds
}

// ForcedAtTimeout counts the pods deleted at the 1-hour PDB timeout.
func (f *Forecast) ForcedAtTimeout() int {
	n := 0
	for _, p := range f.Forced {
		if p.Why == ForcedPDBTimeout {
			n++
		}
	}
	return n
}

// LBBackendChanges counts the backends added to and removed from load balancers.
func (f *Forecast) LBBackendChanges() int {
	n := 0
	for _, l := range f.LBs {
		n += l.Added + l.Removed
	}
	return n
}

// Wait is how long the change waits for a maintenance window before it starts, in whole
// seconds (a change that starts at once touches its first node within the second).
func (f *Forecast) Wait() time.Duration {
	if f.Started.IsZero() || !f.Started.After(f.Requested) {
		return 0
	}
	return f.Started.Sub(f.Requested).Truncate(time.Second)
}

// ForecastNodePool asks the emulator what a change of a node pool would do. Errors carry the
// emulator's message (googleapi.Error, read with Message).
func (c *Client) ForecastNodePool(ctx context.Context, project, location, cluster, pool string, req ForecastRequest) (*Forecast, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	url := c.Endpoint + "/emulator/v1/" + NodePoolName(project, location, cluster, pool) + ":forecast"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := googleapi.CheckResponse(resp); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var f Forecast
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("read the forecast of %s: %w", pool, err)
	}
	return &f, nil
}
