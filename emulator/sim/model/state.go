package model

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/eventq"
)

// Event is a scheduled simulation step. It is data (a kind plus references), not a closure,
// so that the queue can be persisted and replayed.
type Event struct {
	Kind    string `json:"kind"`
	Cluster string `json:"cluster,omitempty"`
	Pool    string `json:"pool,omitempty"`
	Node    string `json:"node,omitempty"`
	Op      string `json:"op,omitempty"`
	// Service is namespace/name of a Service (load balancer events).
	Service string `json:"service,omitempty"`
}

// State is everything the simulation knows. A store saves and restores it whole.
type State struct {
	Now        time.Time             `json:"now"`
	Seed       uint64                `json:"seed"`
	Rand       []byte                `json:"rand"`
	Clusters   map[string]*Cluster   `json:"clusters"`
	Operations map[string]*Operation `json:"operations"`
	OpSeq      int64                 `json:"opSeq"`
	Faults     []*Fault              `json:"faults,omitempty"`
	FaultSeq   int                   `json:"faultSeq,omitempty"`
	Queue      eventq.Queue[Event]   `json:"queue"`
	Log        EventLog              `json:"log"`
	// Compute is what users created in Compute Engine outside GKE (compute_user.go).
	Compute *UserCompute `json:"compute,omitempty"`
}

// InitMaps makes a cluster's object maps non-nil (new clusters, and states saved without them).
func (c *Cluster) InitMaps() {
	if c.Nodes == nil {
		c.Nodes = map[string]*Node{}
	}
	if c.Namespaces == nil {
		c.Namespaces = map[string]*Namespace{}
	}
	if c.Deployments == nil {
		c.Deployments = map[string]*Deployment{}
	}
	if c.Pods == nil {
		c.Pods = map[string]*Pod{}
	}
	if c.PDBs == nil {
		c.PDBs = map[string]*PDB{}
	}
	// Empty maps are not saved (omitempty): a restored load balancer gets them back.
	for _, s := range c.Services {
		if lb := s.LB; lb != nil {
			if lb.Members == nil {
				lb.Members = map[string]string{}
			}
			if lb.Health == nil {
				lb.Health = map[string]*BackendHealth{}
			}
			if lb.Warned == nil {
				lb.Warned = map[string]bool{}
			}
		}
	}
}

// Day is an emulated day.
const Day = 24 * time.Hour
