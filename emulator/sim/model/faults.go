package model

import (
	"fmt"
	"time"
)

// Fault is one injected fault.
type Fault struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Project string `json:"project,omitempty"` // "" applies to every project
	// STOCKOUT: no VM of MachineFamily ("" = any, e.g. "e2", "n2") can be created in Zone.
	Zone          string `json:"zone,omitempty"`
	MachineFamily string `json:"machineFamily,omitempty"`
	// QUOTA: at most CPUs vCPUs of nodes in Region.
	Region string `json:"region,omitempty"`
	CPUs   int64  `json:"cpus,omitempty"`
	// API_ERROR: a share Rate (0..1] of requests whose path starts with PathPrefix ("" = all
	// GKE, Kubernetes and Compute requests) fail with HTTP Code (429, 500 or 503).
	Code       int     `json:"code,omitempty"`
	Rate       float64 `json:"rate,omitempty"`
	PathPrefix string  `json:"pathPrefix,omitempty"`
	// LATENCY: every such request is delayed by Latency (a Go or proto duration), wall time.
	Latency string `json:"latency,omitempty"`

	CreateTime time.Time `json:"createTime"`
}

func ParseLatency(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > 30*time.Second {
		return 0, fmt.Errorf("bad latency %q", s)
	}
	return d, nil
}

// Latency is how long a LATENCY fault delays requests.
func (f *Fault) LatencyDuration() time.Duration {
	d, _ := ParseLatency(f.Latency)
	return d
}
