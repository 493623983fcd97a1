package model

import (
	"sort"
	"time"
)

// MaintenancePolicy is a cluster's maintenance window and exclusions. Times are in UTC (R-MW-2).
// At most one of Daily and Recurring is set; with neither, maintenance may run at any time.
type MaintenancePolicy struct {
	Daily      *DailyWindow          `json:"daily,omitempty"`
	Recurring  *RecurringWindow      `json:"recurring,omitempty"`
	Exclusions map[string]*Exclusion `json:"exclusions,omitempty"`
}

// DailyWindow is a 4-hour window starting every day at StartTime ("HH:MM", UTC).
type DailyWindow struct {
	StartTime string `json:"startTime"`
}

// RecurringWindow is a window from Start to End that recurs by an RFC 5545 RRULE, evaluated in
// UTC (R-MW-2).
type RecurringWindow struct {
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	Recurrence string    `json:"recurrence"`
}

// Exclusion is a one-off period in which the upgrades its scope names may not run (R-EX-1).
type Exclusion struct {
	Start time.Time `json:"start"`
	// End is zero when UntilEndOfSupport: the exclusion then ends with the support of the
	// cluster's current minor version, and moves with it on a minor upgrade.
	End               time.Time `json:"end,omitempty"`
	Scope             string    `json:"scope"`
	UntilEndOfSupport bool      `json:"untilEndOfSupport,omitempty"`
	// HasOptions: the request carried maintenanceExclusionOptions; GKE then answers with the
	// member (empty for NO_UPGRADES) and without it otherwise.
	HasOptions bool `json:"hasOptions,omitempty"`
	// Created is when the exclusion was first set; scoped exclusions end at most 180 days later.
	Created time.Time `json:"created"`
}

// Empty says the policy has neither a window nor exclusions (GKE's cleared policy).
func (p *MaintenancePolicy) Empty() bool {
	return p == nil || (p.Daily == nil && p.Recurring == nil && len(p.Exclusions) == 0)
}

// ExclusionNames lists the exclusions by name, for stable iteration.
func (p *MaintenancePolicy) ExclusionNames() []string {
	if p == nil {
		return nil
	}
	names := make([]string, 0, len(p.Exclusions))
	for n := range p.Exclusions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (p *MaintenancePolicy) Exclusion(name string) *Exclusion {
	if p == nil {
		return nil
	}
	return p.Exclusions[name]
}

// UpgradeKind is a kind of maintenance as exclusion scopes tell them apart (R-EX-1).
type UpgradeKind string

const (
	ControlPlaneMinor      UpgradeKind = "CONTROL_PLANE_MINOR"
	ControlPlanePatch      UpgradeKind = "CONTROL_PLANE_PATCH"
	ControlPlaneDisruption UpgradeKind = "CONTROL_PLANE_VM_DISRUPTION"
	NodeMinor              UpgradeKind = "NODE_MINOR"
	NodePatch              UpgradeKind = "NODE_PATCH"
	NodeDisruption         UpgradeKind = "NODE_VM_DISRUPTION"
)

// IsNode says whether the kind changes nodes (rather than the control plane).
func (k UpgradeKind) IsNode() bool { return k == NodeMinor || k == NodePatch || k == NodeDisruption }

func (k UpgradeKind) Describe() string {
	return map[UpgradeKind]string{
		ControlPlaneMinor: "control-plane minor upgrades", ControlPlanePatch: "control-plane patch upgrades",
		ControlPlaneDisruption: "control-plane VM disruption", NodeMinor: "node minor upgrades",
		NodePatch: "node patch upgrades", NodeDisruption: "node VM disruption",
	}[k]
}

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
	// Repairs are the node auto-repairs in progress, by node (autoupgrade/auto_repair.go).
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
