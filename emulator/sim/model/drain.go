package model

import (
	"time"
)

// DrainPolicy is how a caller wants a node drained.
type DrainPolicy struct {
	// RespectPDB evicts through PodDisruptionBudgets; false deletes pods directly (R-BG-5's
	// delete phase, node pool deletion).
	RespectPDB bool `json:"respectPdb,omitempty"`
	// PDBTimeout is how long blocked evictions are retried before the pods are deleted anyway.
	PDBTimeout time.Duration `json:"pdbTimeout,omitempty"`
	// GraceCap caps each pod's terminationGracePeriodSeconds (0: no cap).
	GraceCap time.Duration `json:"graceCap,omitempty"`
	// Settle ends the drain once every pod left is terminating or blocked for good by a
	// PodDisruptionBudget, without waiting for them: blue-green's drain phase, whose leftovers
	// are deleted in the delete phase (R-BG-5).
	Settle bool `json:"settle,omitempty"`
	// ProtectExtended keeps pods annotated safe-to-evict=false until they are 7 days old: GKE's
	// own evictions on Autopilot (R-EXT-1).
	ProtectExtended bool `json:"protectExtended,omitempty"`
}

// DrainState is a drain in progress on a node.
type DrainState struct {
	Policy DrainPolicy `json:"policy"`
	Start  time.Time   `json:"start"`
	Reason string      `json:"reason"`
	// Blocked lists pods whose blocked eviction was logged (once per pod).
	Blocked map[string]bool `json:"blocked,omitempty"`
	// Next is when the next attempt is scheduled, if any.
	Next time.Time `json:"next,omitempty"`
	// ExtendedUntil is when the next protected extended-duration pod may go.
	ExtendedUntil time.Time `json:"extendedUntil,omitempty"`
}
