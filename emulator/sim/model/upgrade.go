package model

import (
	"time"
)

// Upgrade is a node-recreating change in progress on a pool, or paused by a cancel.
type Upgrade struct {
	Op        string    `json:"op"`
	Strategy  string    `json:"strategy"`
	From      NodeSpec  `json:"from"`
	Target    NodeSpec  `json:"target"`
	StartTime time.Time `json:"startTime"`
	Total     int       `json:"total"`
	Done      int       `json:"done"`
	// Stopping: a cancel was asked; nodes mid-upgrade finish, nothing new starts.
	Stopping bool `json:"stopping,omitempty"`
	// Paused: a cancelled blue-green upgrade waiting to be resumed or rolled back (R-BG-7).
	Paused bool `json:"paused,omitempty"`
	// Rollback: this upgrade takes the pool back to From (Target is the old spec).
	Rollback bool `json:"rollback,omitempty"`
	// Resumed: the upgrade continues after a pause, under a new operation.
	Resumed bool `json:"resumed,omitempty"`
	// Auto: GKE started it (node auto-upgrade), not the user.
	Auto bool `json:"auto,omitempty"`
	// Drain is how replaced nodes are drained.
	Drain DrainPolicy `json:"drain"`
	// Policy, when set, is the kind of maintenance this upgrade is: it respects the cluster's
	// maintenance policy (upgrade/upgrade_window.go). Deferred: it has not begun, waiting for a window
	// (R-MW-5). OpenUntil caches until when maintenance is allowed; WaitingUntil is when a
	// paused or deferred upgrade looks again (R-MW-3).
	Policy       UpgradeKind `json:"policy,omitempty"`
	Deferred     bool        `json:"deferred,omitempty"`
	OpenUntil    time.Time   `json:"openUntil,omitempty"`
	WaitingUntil time.Time   `json:"waitingUntil,omitempty"`

	// Surge.
	MaxSurge       int      `json:"maxSurge,omitempty"`
	MaxUnavailable int      `json:"maxUnavailable,omitempty"`
	Zones          []string `json:"zones,omitempty"`
	Zone           int      `json:"zone,omitempty"`
	ZoneSize       int      `json:"zoneSize,omitempty"`

	// Blue-green.
	BG *BlueGreen `json:"bg,omitempty"`
}

// UpgradeRecord remembers how a pool's last upgrade ended, for rollback and resume.
type UpgradeRecord struct {
	Strategy  string   `json:"strategy"`
	From      NodeSpec `json:"from"`
	Target    NodeSpec `json:"target"`
	Cancelled bool     `json:"cancelled,omitempty"`
}

// UpgradeRole marks what a node is doing for an upgrade.
type UpgradeRole string

const (
	RoleNone     UpgradeRole = ""
	RoleSurge    UpgradeRole = "surge"    // a new node created beyond the pool's size
	RoleReplaced UpgradeRole = "replaced" // an old node retired for a ready surge node
	RoleRecreate UpgradeRole = "recreate" // an old node drained to be recreated in place
	RoleBlue     UpgradeRole = "blue"     // a blue node being drained in a batch; kept afterwards
	RoleDrained  UpgradeRole = "drained"  // a blue node its batch has drained
)
