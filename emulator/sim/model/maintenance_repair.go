package model

import (
	"time"
)

// NodeRepair is a failed node and its repair.
type NodeRepair struct {
	FailedAt time.Time `json:"failedAt"`
	// Op is the AUTO_REPAIR_NODES operation, once the repair started.
	Op string `json:"op,omitempty"`
}

// NodeFailed says whether a node has failed and is not repaired yet.
func (c *Cluster) NodeFailed(name string) bool {
	return c.AutoMaintenance != nil && c.AutoMaintenance.Repairs[name] != nil
}
