package model

import (
	"time"
)

// AutoMaintenance is the state of a cluster's automatic maintenance: upgrades and repairs.
type AutoMaintenance struct {
	// RolloutTarget is the channel's upgrade target as of the last rollout that reached the
	// cluster; NextRollout is when the next change of target reaches it.
	RolloutTarget string    `json:"rolloutTarget"`
	NextRollout   time.Time `json:"nextRollout,omitempty"`
	// Due: the cluster has automatic upgrades left towards RolloutTarget.
	Due bool `json:"due,omitempty"`
	// LastMinorUpgrade is when the last automatic control-plane minor upgrade started.
	LastMinorUpgrade time.Time `json:"lastMinorUpgrade,omitempty"`
	// NextCheck is when the pending maintenance.check event is due; other ones are stale.
	NextCheck time.Time `json:"nextCheck,omitempty"`
	// Waiting is what the next automatic upgrade waits for, as last logged.
	Waiting string `json:"waiting,omitempty"`
	// History lists the automatic upgrades, oldest first.
	History []AutoUpgradeRecord `json:"history,omitempty"`
	// Repairs are the node auto-repairs in progress, by node (maintenance_repair.go).
	Repairs map[string]*NodeRepair `json:"repairs,omitempty"`
}

// AutoUpgradeRecord is one automatic upgrade.
type AutoUpgradeRecord struct {
	Op    string      `json:"op"`
	Kind  UpgradeKind `json:"kind"`
	Pool  string      `json:"pool,omitempty"`
	From  string      `json:"from"`
	To    string      `json:"to"`
	Start time.Time   `json:"start"`
}
