package model

import (
	"time"
)

// LBBlock is why GKE's last attempt to build a load balancer or sync its instance groups
// failed (R-LB-5), and when it tries again.
type LBBlock struct {
	// Instance, Group and BackendService are paths: the node, the load-balanced group created
	// outside GKE that holds it, and a backend service that has that group as a backend.
	Instance       string    `json:"instance"`
	Group          string    `json:"group"`
	BackendService string    `json:"backendService"`
	Message        string    `json:"message"`
	Attempts       int       `json:"attempts"`
	Since          time.Time `json:"since"`
	RetryAt        time.Time `json:"retryAt"`
}
