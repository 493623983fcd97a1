package model

import (
	"time"
)

// LoadBalancer is what GKE built for a LoadBalancer Service.
type LoadBalancer struct {
	Kind     string `json:"kind"`
	Internal bool   `json:"internal"`
	// Gen tells this load balancer's scheduled events from those of one it replaced.
	Gen       int64     `json:"gen"`
	State     string    `json:"state"`
	IP        string    `json:"ip"`
	Start     time.Time `json:"start"`
	ReadyTime time.Time `json:"readyTime,omitempty"`
	// Failed says why GKE cannot build it (the Service keeps waiting).
	Failed string `json:"failed,omitempty"`
	// Blocked says why GKE's last attempt to build it or sync its instance groups failed, and
	// when it tries again (R-LB-5, loadbalancer_igs.go).
	Blocked *LBBlock `json:"blocked,omitempty"`
	// Members are the backend VMs: node -> zone.
	Members map[string]string         `json:"members,omitempty"`
	Health  map[string]*BackendHealth `json:"health,omitempty"`
	// Warned remembers the warnings already given (R-LB-3, R-LB-4), so each is given once.
	Warned map[string]bool `json:"warned,omitempty"`
}

// BackendHealth is a backend VM's health as the load balancer sees it.
type BackendHealth struct {
	State string `json:"state"`
	// Passing says whether its probes succeed now.
	Passing bool      `json:"passing"`
	Since   time.Time `json:"since"`
	// Due is when the state changes to what Passing says, if it will.
	Due time.Time `json:"due,omitempty"`
	// WasHealthy: it has been healthy once (later changes are logged).
	WasHealthy bool `json:"wasHealthy,omitempty"`
}
