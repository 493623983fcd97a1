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
