package model

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// UserCompute is what users created in Compute Engine.
type UserCompute struct {
	// BackendServices by path: projects/P/regions/R/backendServices/N.
	BackendServices map[string]*UserBackendService `json:"backendServices,omitempty"`
	// InstanceGroups by path: projects/P/zones/Z/instanceGroups/N.
	InstanceGroups map[string]*UserInstanceGroup `json:"instanceGroups,omitempty"`
	// Operations are the newest write operations (at most maxComputeOps), oldest first.
	Operations []*ComputeOp `json:"operations,omitempty"`
	Seq        int64        `json:"seq"`
}

// UserBackendService is a regional backend service created outside GKE.
type UserBackendService struct {
	Project             string        `json:"project"`
	Region              string        `json:"region"`
	Name                string        `json:"name"`
	ID                  string        `json:"id"`
	Description         string        `json:"description,omitempty"`
	LoadBalancingScheme string        `json:"loadBalancingScheme"`
	Protocol            string        `json:"protocol"`
	SessionAffinity     string        `json:"sessionAffinity"`
	Network             string        `json:"network,omitempty"`
	HealthChecks        []string      `json:"healthChecks,omitempty"`
	Backends            []UserBackend `json:"backends,omitempty"`
	// TimeoutSec is 0 in states saved before it was kept: Compute's default, 30 s.
	TimeoutSec         int32     `json:"timeoutSec,omitempty"`
	DrainingTimeoutSec int32     `json:"drainingTimeoutSec,omitempty"`
	PortName           string    `json:"portName,omitempty"`
	CreateTime         time.Time `json:"createTime"`
}

// UserBackend is a backend of a user's backend service: an instance group, by path.
type UserBackend struct {
	Group         string `json:"group"`
	BalancingMode string `json:"balancingMode"`
}

// UserInstanceGroup is a zonal unmanaged instance group created outside GKE.
type UserInstanceGroup struct {
	Project     string          `json:"project"`
	Zone        string          `json:"zone"`
	Name        string          `json:"name"`
	ID          string          `json:"id"`
	Description string          `json:"description,omitempty"`
	Network     string          `json:"network,omitempty"`
	NamedPorts  []api.NamedPort `json:"namedPorts,omitempty"`
	// Instances are the member VMs (node names, all in Zone), sorted.
	Instances  []string  `json:"instances,omitempty"`
	CreateTime time.Time `json:"createTime"`
}

// ComputeOp is a finished Compute Engine write.
type ComputeOp struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	Project string `json:"project"`
	// Scope is zones/Z or regions/R.
	Scope    string    `json:"scope"`
	Type     string    `json:"type"`
	Target   string    `json:"target"`
	TargetID string    `json:"targetId"`
	Time     time.Time `json:"time"`
}

// Remove takes VMs out of the group.
func (ig *UserInstanceGroup) Remove(names ...string) {
	kept := ig.Instances[:0]
	for _, n := range ig.Instances {
		if !Contains(names, n) {
			kept = append(kept, n)
		}
	}
	ig.Instances = kept
}
