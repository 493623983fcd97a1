package rehearse

import (
	"sort"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// Report is what a rehearsed upgrade did, read from the simulation's event log.
type Report struct {
	Cluster  string `json:"cluster"`
	Location string `json:"location"`
	Pool     string `json:"nodePool"`
	// From are the versions the pool's nodes ran; To the version they were upgraded to.
	From    []string `json:"fromVersions"`
	To      string   `json:"toVersion"`
	Control string   `json:"controlPlaneVersion"`
	// Strategy says how the nodes were replaced; Label is the strategy as it was asked for
	// ("pool" for the pool's own settings); Settings are the pool's upgrade settings.
	Strategy string              `json:"strategy"`
	Label    string              `json:"label"`
	Settings api.UpgradeSettings `json:"upgradeSettings"`
	// Automatic: rehearsed as GKE's node auto-upgrade, which respects the maintenance policy.
	Automatic bool `json:"automatic"`
	// Forecast: run on a copy of a running emulator's simulation (Forecast), not on an import.
	Forecast bool   `json:"forecast,omitempty"`
	Seed     uint64 `json:"seed"`

	SnapshotTime time.Time `json:"snapshotTime"`
	// Requested is when the upgrade was asked for; Started when its first node was touched
	// (later when it waited for a maintenance window); Done when it finished.
	Requested time.Time `json:"requested"`
	Started   time.Time `json:"started"`
	Done      time.Time `json:"done"`
	// Finished says the upgrade finished within the rehearsal's limit.
	Finished bool `json:"finished"`
	// DurationSeconds is from Started to Done (or the end of the rehearsal).
	DurationSeconds float64 `json:"durationSeconds"`
	// Nodes is the number of nodes upgraded.
	Nodes int `json:"nodes"`
	// RecreatesNodes says the change replaces the pool's nodes; Reasons say why (what of their
	// settings changes), or, when it does not, that it does not.
	RecreatesNodes bool     `json:"recreatesNodes"`
	Reasons        []string `json:"reasons,omitempty"`

	Zones   []*ZoneReport  `json:"zones,omitempty"`
	Phases  []*PhaseReport `json:"phases,omitempty"`
	Batches []*BatchReport `json:"batches,omitempty"`
	Drains  []*Drain       `json:"drains"`
	PDBs    []*PDBHolds    `json:"podDisruptionBudgets,omitempty"`
	// Forced are the pods that did not leave by eviction: deleted at the 1 h PDB timeout, killed
	// at a drain's deadline, or deleted in a blue pool's deletion (grace capped at 60 minutes).
	Forced []*ForcedPod `json:"forcedPods,omitempty"`
	// Pending are the pods that waited for a node; PeakPending how many at once; LeftPending
	// those still waiting when the rehearsal ended.
	Pending     []*PendingPod `json:"pendingPods,omitempty"`
	PeakPending int           `json:"peakPending"`
	LeftPending []*PendingPod `json:"leftPending,omitempty"`
	// VMs counts the pool's VMs (in any state) before, at the peak and what they cost.
	VMs VMUsage `json:"vms"`
	// Pauses are the times a maintenance policy held the upgrade.
	Pauses []*Pause `json:"pauses,omitempty"`
	// LoadBalancers are the backend changes of each load balancer.
	LoadBalancers []*LBChanges `json:"loadBalancers,omitempty"`
	// Timeline is each node's life during the rehearsal (for the HTML timeline).
	Timeline []*NodeLane `json:"timeline,omitempty"`
	// Import is what the import of the snapshot said.
	Import *api.ImportSummary `json:"import,omitempty"`
	// Events counts the event log entries read; Log holds them when asked for (KeepLog).
	Events int          `json:"events"`
	Log    []*api.Event `json:"log,omitempty"`
}

// ZoneReport is one zone of a surge upgrade (zones go one at a time).
type ZoneReport struct {
	Zone            string    `json:"zone"`
	Start           time.Time `json:"start"`
	End             time.Time `json:"end"`
	DurationSeconds float64   `json:"durationSeconds"`
	Nodes           int       `json:"nodes"`
}

// PhaseReport is one phase of a blue-green upgrade.
type PhaseReport struct {
	Phase           string    `json:"phase"`
	Start           time.Time `json:"start"`
	End             time.Time `json:"end"`
	DurationSeconds float64   `json:"durationSeconds"`
}

// BatchReport is one batch of a blue-green drain phase.
type BatchReport struct {
	Batch           int       `json:"batch"`
	Nodes           []string  `json:"nodes"`
	Start           time.Time `json:"start"`
	Drained         time.Time `json:"drained"`
	DurationSeconds float64   `json:"durationSeconds"`
	SoakSeconds     float64   `json:"soakSeconds"`
}

// Drain is one node's drain.
type Drain struct {
	Node            string    `json:"node"`
	Zone            string    `json:"zone"`
	Start           time.Time `json:"start"`
	End             time.Time `json:"end"`
	DurationSeconds float64   `json:"durationSeconds"`
	Evicted         int       `json:"evicted"`
	// Deleting: the drain deletes pods without eviction (a blue pool's deletion) rather than
	// evicting them through their PodDisruptionBudgets.
	Deleting bool `json:"deleting,omitempty"`
	// Holds are the PodDisruptionBudgets that held pods of the node, and for how long.
	Holds []*Hold `json:"holds,omitempty"`
	// Forced counts the node's pods that did not leave by eviction.
	Forced int `json:"forced"`
	// Finished is false when the rehearsal ended first.
	Finished bool `json:"finished"`
}

// Hold is a PodDisruptionBudget holding a drain: from the first refused eviction of one of its
// pods on the node to the last of them leaving.
type Hold struct {
	PDB             string    `json:"pdb"`
	Pods            []string  `json:"pods"`
	From            time.Time `json:"from"`
	Until           time.Time `json:"until"`
	DurationSeconds float64   `json:"durationSeconds"`
	// Forced: the hold ended with pods forced out (at the timeout, or with the blue pool)
	// rather than evicted; Ended says how it ended: evicted, pdb-timeout, blue-deletion,
	// grace-capped, deadline, or "held" when the rehearsal ended first.
	Forced bool   `json:"forced"`
	Ended  string `json:"ended"`
}

// PDBHolds sums what one PodDisruptionBudget did to the upgrade.
type PDBHolds struct {
	PDB                    string  `json:"pdb"`
	Drains                 int     `json:"drains"`
	TotalSeconds           float64 `json:"totalSeconds"`
	LongestSeconds         float64 `json:"longestSeconds"`
	ForcedAtTimeout        int     `json:"forcedAtTimeout"`
	DeletedWithoutEviction int     `json:"deletedWithoutEviction"`
}

// Why a pod was forced out.
const (
	ForcedPDBTimeout   = "pdb-timeout"   // deleted when the drain's PDB timeout (1 h) passed
	ForcedDeadline     = "deadline"      // still terminating at the drain's deadline: killed
	ForcedBlueDeletion = "blue-deletion" // deleted without eviction in the blue pool's deletion
	ForcedGraceCapped  = "grace-capped"  // ... and its grace period cut to 60 minutes
)

// ForcedPod is a pod that did not leave its node by eviction.
type ForcedPod struct {
	Pod  string    `json:"pod"`
	Node string    `json:"node"`
	At   time.Time `json:"at"`
	Why  string    `json:"why"`
	// PDB is the budget that held it, if one did.
	PDB string `json:"pdb,omitempty"`
	// Grace is the grace period it got (and OwnGrace its own, when capped).
	Grace    string `json:"grace,omitempty"`
	OwnGrace string `json:"ownGrace,omitempty"`
}

// PendingPod is a pod that waited for a node.
type PendingPod struct {
	Pod             string    `json:"pod"`
	Since           time.Time `json:"since"`
	Until           time.Time `json:"until,omitzero"`
	DurationSeconds float64   `json:"durationSeconds"`
	Reason          string    `json:"reason"`
}

// VMUsage is the pool's VMs over the rehearsal.
type VMUsage struct {
	Before     int       `json:"before"`
	Peak       int       `json:"peak"`
	PeakExtra  int       `json:"peakExtra"`
	PeakAt     time.Time `json:"peakAt"`
	VMHours    float64   `json:"vmHours"`
	ExtraHours float64   `json:"extraVmHours"`
	// ExtraCostUSD prices the extra VM-hours at the machine type's on-demand list price (0 when
	// unknown); Spot VMs at 30% of it.
	ExtraCostUSD float64 `json:"extraCostUsd"`
	// Samples are the VM count after each change, for the timeline.
	Samples []VMSample `json:"samples,omitempty"`
}

// VMSample is the pool's VM count from a time on.
type VMSample struct {
	At  time.Time `json:"at"`
	VMs int       `json:"vms"`
}

// Pause is a time the maintenance policy held the upgrade.
type Pause struct {
	From time.Time `json:"from"`
	// Until is when it went on (zero: it had not by the end of the rehearsal).
	Until time.Time `json:"until,omitzero"`
	Why   string    `json:"why"`
	// BeforeStart: the upgrade had not begun (it waited for a window); otherwise it paused
	// after Done nodes.
	BeforeStart bool `json:"beforeStart"`
	Done        int  `json:"nodesDone"`
}

// LBChanges sums the backend changes of one load balancer.
type LBChanges struct {
	Service string `json:"service"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Syncs   int    `json:"syncs"`
}

// NodeLane is one node's life during the rehearsal.
type NodeLane struct {
	Node  string     `json:"node"`
	Zone  string     `json:"zone"`
	New   bool       `json:"new"`
	Spans []NodeSpan `json:"spans"`
}

// NodeSpan is a stretch of a node's life: creating, ready, draining (held when a budget held
// it), deleting.
type NodeSpan struct {
	State string    `json:"state"`
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
}

// seconds is a duration as the report gives it.
func seconds(d time.Duration) float64 { return d.Round(time.Second).Seconds() }

// dur reads a report's seconds back as a duration.
func dur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// sortedPDBs orders budgets by the time they held drains, longest first.
func sortedPDBs(m map[string]*PDBHolds) []*PDBHolds {
	out := make([]*PDBHolds, 0, len(m))
	for _, h := range m {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].TotalSeconds != out[j].TotalSeconds {
			return out[i].TotalSeconds > out[j].TotalSeconds
		}
		return out[i].PDB < out[j].PDB
	})
	return out
}

// HeldDrains counts the drains a PodDisruptionBudget held.
func (r *Report) HeldDrains() int {
	n := 0
	for _, d := range r.Drains {
		if len(d.Holds) > 0 {
			n++
		}
	}
	return n
}

// ForcedBy counts the forced pods for a reason.
func (r *Report) ForcedBy(why string) int {
	n := 0
	for _, f := range r.Forced {
		if f.Why == why {
			n++
		}
	}
	return n
}

// Duration is how long the upgrade ran.
func (r *Report) Duration() time.Duration { return dur(r.DurationSeconds) }

// LBTotals sums the backends added and removed over every load balancer.
func (r *Report) LBTotals() (added, removed int) {
	for _, l := range r.LoadBalancers {
		added += l.Added
		removed += l.Removed
	}
	return added, removed
}

// shortPod is a pod's key without the namespace when it is default.
func shortPod(k string) string { return strings.TrimPrefix(k, "default/") }
