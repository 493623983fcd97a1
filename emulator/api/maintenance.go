package api

// Maintenance policies: GKE's setMaintenancePolicy request and fetchClusterUpgradeInfo answer,
// and the emulator's own maintenance views under /emulator/v1 (not GKE).

// Exclusion scopes (MaintenanceExclusionOptions.scope); NO_UPGRADES is the proto default and is
// omitted from responses.
const (
	ScopeNoUpgrades            = "NO_UPGRADES"
	ScopeNoMinorUpgrades       = "NO_MINOR_UPGRADES"
	ScopeNoMinorOrNodeUpgrades = "NO_MINOR_OR_NODE_UPGRADES"
	EndTimeBehaviorUnspecified = "END_TIME_BEHAVIOR_UNSPECIFIED"
	EndTimeUntilEndOfSupport   = "UNTIL_END_OF_SUPPORT"
)

type SetMaintenancePolicyRequest struct {
	MaintenancePolicy *MaintenancePolicy `json:"maintenancePolicy,omitempty"`
	Name              string             `json:"name,omitempty"`
	ProjectId         string             `json:"projectId,omitempty"`
	Zone              string             `json:"zone,omitempty"`
	ClusterId         string             `json:"clusterId,omitempty"`
}

// ClusterUpgradeInfo is the answer of GET clusters/{c}:fetchClusterUpgradeInfo.
type ClusterUpgradeInfo struct {
	AutoUpgradeStatus             []string          `json:"autoUpgradeStatus,omitempty"`
	PausedReason                  []string          `json:"pausedReason,omitempty"`
	EndOfStandardSupportTimestamp string            `json:"endOfStandardSupportTimestamp,omitempty"`
	EndOfExtendedSupportTimestamp string            `json:"endOfExtendedSupportTimestamp,omitempty"`
	MinorTargetVersion            string            `json:"minorTargetVersion,omitempty"`
	PatchTargetVersion            string            `json:"patchTargetVersion,omitempty"`
	UpgradeDetails                []*UpgradeDetails `json:"upgradeDetails,omitempty"`
}

type UpgradeDetails struct {
	State          string `json:"state,omitempty"`
	StartTime      string `json:"startTime,omitempty"`
	EndTime        string `json:"endTime,omitempty"`
	InitialVersion string `json:"initialVersion,omitempty"`
	TargetVersion  string `json:"targetVersion,omitempty"`
	StartType      string `json:"startType,omitempty"`
}

// MaintenanceSchedule is the answer of GET /emulator/v1/projects/P/locations/L/clusters/C/
// maintenanceSchedule: when the cluster's policy lets each kind of upgrade run.
type MaintenanceSchedule struct {
	// Now is the emulated time the schedule was computed at.
	Now string `json:"now"`
	// ResourceVersion is the policy's resourceVersion.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Windows are the next open maintenance windows (window occurrences minus NO_UPGRADES
	// exclusions; from now on, the first one may already be open).
	Windows []*ScheduleWindow `json:"windows"`
	// Upgrades says, per upgrade kind, whether it may run now and when it next may.
	Upgrades []*ScheduleUpgrade `json:"upgrades"`
	// EndOfStandardSupport and EndOfExtendedSupport are those of the control plane's minor.
	EndOfStandardSupport string `json:"endOfStandardSupport,omitempty"`
	EndOfExtendedSupport string `json:"endOfExtendedSupport,omitempty"`
}

type ScheduleWindow struct {
	StartTime string `json:"startTime"`
	EndTime   string `json:"endTime"`
}

type ScheduleUpgrade struct {
	// Kind is CONTROL_PLANE_MINOR, CONTROL_PLANE_PATCH, CONTROL_PLANE_VM_DISRUPTION,
	// NODE_MINOR, NODE_PATCH or NODE_VM_DISRUPTION.
	Kind       string `json:"kind"`
	AllowedNow bool   `json:"allowedNow"`
	// NextAllowedTime is the first time at or after now it may run (empty: not within two years).
	NextAllowedTime string `json:"nextAllowedTime,omitempty"`
	// BlockedBy names the exclusions that block it now.
	BlockedBy []string `json:"blockedBy,omitempty"`
	// Reason says why it may not run now.
	Reason string `json:"reason,omitempty"`
}

// VersionSchedule is the answer of GET /emulator/v1/versions: each release channel's versions
// at the current emulated time with the support dates of their minors.
type VersionSchedule struct {
	Now      string                    `json:"now"`
	Channels []*ChannelVersionSchedule `json:"channels"`
}

type ChannelVersionSchedule struct {
	Channel              string          `json:"channel"`
	DefaultVersion       string          `json:"defaultVersion,omitempty"`
	UpgradeTargetVersion string          `json:"upgradeTargetVersion,omitempty"`
	ValidVersions        []string        `json:"validVersions,omitempty"`
	Minors               []*MinorSupport `json:"minors,omitempty"`
	// NextTargetChange is when the channel's upgrade target next changes.
	NextTargetChange string `json:"nextTargetChange,omitempty"`
}

type MinorSupport struct {
	Minor                string `json:"minor"`
	ChannelEntry         string `json:"channelEntry"`
	EndOfStandardSupport string `json:"endOfStandardSupport"`
	EndOfExtendedSupport string `json:"endOfExtendedSupport"`
	// EndOfSupport is when the minor leaves this channel (extended support for EXTENDED).
	EndOfSupport string `json:"endOfSupport"`
}

// FailNodeResponse is the answer of POST /emulator/v1/projects/P/locations/L/clusters/C/
// nodes/N:fail.
type FailNodeResponse struct {
	Node     string `json:"node"`
	NodePool string `json:"nodePool"`
	FailedAt string `json:"failedAt"`
	// AutoRepair says whether the node pool will repair it.
	AutoRepair bool `json:"autoRepair"`
}
