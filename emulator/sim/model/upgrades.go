package model

import (
	"slices"
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

// BlueGreen is the state of a blue-green upgrade.
type BlueGreen struct {
	Phase      string `json:"phase"`
	Autoscaled bool   `json:"autoscaled,omitempty"`
	// Blue and Green are the instance group names of the old and new nodes.
	Blue  []string `json:"blue"`
	Green []string `json:"green,omitempty"`

	BatchSize    int           `json:"batchSize"`
	BatchSoak    time.Duration `json:"batchSoak"`
	PoolSoak     time.Duration `json:"poolSoak"`
	WaitForDrain time.Duration `json:"waitForDrain"`
	// Batches counts the batches drained; BatchOpen says one is draining now.
	Batches   int  `json:"batches"`
	BatchOpen bool `json:"batchOpen,omitempty"`
	// PhaseUntil is when the current soak or wait ends.
	PhaseUntil time.Time `json:"phaseUntil,omitempty"`
	// Soaked is the soak time spent so far, batch soaks and pool soak together; SoakFrom is
	// when the current soak began (zero when none is running). R-BG-4 caps Soaked at 7 days.
	Soaked        time.Duration `json:"soaked,omitempty"`
	SoakFrom      time.Time     `json:"soakFrom,omitempty"`
	SoakStart     time.Time     `json:"soakStart,omitempty"`
	DeletionStart time.Time     `json:"deletionStart,omitempty"`
	Deleting      bool          `json:"deleting,omitempty"`
}

func (bg *BlueGreen) IsBlue(group string) bool { return slices.Contains(bg.Blue, group) }

func (bg *BlueGreen) IsGreen(group string) bool { return slices.Contains(bg.Green, group) }

// SoakAhead is the soak time still ahead of a standard blue-green upgrade: the rest of the
// running soak, the batch soaks of the batches left and the pool soak, within what is left of
// the 7 days all soaks may take (R-BG-4).
func (bg *BlueGreen) SoakAhead(now time.Time, batchesLeft int) time.Duration {
	spent, ahead := bg.Soaked, time.Duration(batchesLeft)*bg.BatchSoak
	if !bg.SoakFrom.IsZero() {
		spent += now.Sub(bg.SoakFrom)
		ahead += max(bg.PhaseUntil.Sub(now), 0)
	}
	if bg.SoakStart.IsZero() {
		ahead += bg.PoolSoak
	}
	return min(ahead, max(MaxSoak-spent, 0))
}

// Blue-green phases (NodePool.UpdateInfo.BlueGreenInfo.Phase).
const (
	PhaseCreatingGreen  = "CREATING_GREEN_POOL"
	PhaseCordoningBlue  = "CORDONING_BLUE_POOL"
	PhaseDrainingBlue   = "DRAINING_BLUE_POOL"
	PhaseSoaking        = "NODE_POOL_SOAKING"
	PhaseDeletingBlue   = "DELETING_BLUE_POOL"
	PhaseRollback       = "ROLLBACK_STARTED"
	PhaseWaitingToDrain = "WAITING_TO_DRAIN_BLUE_POOL" // v1beta1 only
)
