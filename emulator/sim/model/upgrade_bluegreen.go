package model

import (
	"time"
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

func (bg *BlueGreen) IsBlue(group string) bool { return Contains(bg.Blue, group) }

func (bg *BlueGreen) IsGreen(group string) bool { return Contains(bg.Green, group) }

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
