package api

// The emulator's aggregate views under /emulator/v1 (not GKE), made for the web console and
// for anyone who wants the story of a cluster without reading every node: node counts per pool,
// zone, version and state; an operation's timeline; the autoscaler's and the load balancers'
// history; the maintenance calendar. Every answer is computed from the model and the event log
// in one pass; none of them lists objects one request per node.

// Console node states, in the order views draw them. A node is in exactly one.
const (
	NodeStateCreating = "creating"
	NodeStateReady    = "ready"
	NodeStateCordoned = "cordoned"
	NodeStateDraining = "draining"
	NodeStateDeleting = "deleting"
	NodeStateFailed   = "failed"
)

// NodeStates lists the console node states in drawing order.
var NodeStates = []string{NodeStateCreating, NodeStateReady, NodeStateCordoned, NodeStateDraining, NodeStateDeleting, NodeStateFailed}

// ClusterSummaryList is the answer of GET /emulator/v1/clusters: every cluster of every project.
type ClusterSummaryList struct {
	Now      string            `json:"now"`
	Clusters []*ClusterSummary `json:"clusters"`
}

// ClusterSummary is a cluster in a line.
type ClusterSummary struct {
	Project       string `json:"project"`
	Location      string `json:"location"`
	Name          string `json:"name"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	// Version is the control plane's; NodeVersions are the versions its nodes run, oldest first.
	Version        string   `json:"version"`
	NodeVersions   []string `json:"nodeVersions"`
	ReleaseChannel string   `json:"releaseChannel,omitempty"`
	Autopilot      bool     `json:"autopilot,omitempty"`
	NodePools      int      `json:"nodePools"`
	// CurrentNodeCount counts nodes as the cluster's currentNodeCount does (registered, not
	// being deleted); NodesByState counts every VM by console state.
	CurrentNodeCount int            `json:"currentNodeCount"`
	NodesByState     map[string]int `json:"nodesByState"`
	PendingPods      int            `json:"pendingPods"`
	// KubeAPIUnavailable says why the cluster's Kubernetes API refuses requests now (a zonal
	// cluster whose control plane is being upgraded, R-MW-6); empty while it serves.
	KubeAPIUnavailable string `json:"kubeApiUnavailable,omitempty"`
	// Operations are the cluster's operations that are not done, oldest first.
	Operations []*OperationSummary `json:"operations"`
}

// OperationSummary is an operation in a line.
type OperationSummary struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	NodePool  string `json:"nodePool,omitempty"`
	Detail    string `json:"detail,omitempty"`
	StartTime string `json:"startTime"`
	EndTime   string `json:"endTime,omitempty"`
	// Error is the status message of a failed or cancelled operation.
	Error string `json:"error,omitempty"`
}

// ClusterNodes is the answer of GET /emulator/v1/projects/P/locations/L/clusters/C/nodeSummary:
// each node pool as zones x nodes, counted by version and state, with its upgrade.
type ClusterNodes struct {
	Now     string          `json:"now"`
	Cluster *ClusterSummary `json:"cluster"`
	// Versions are every version a node of the cluster runs, oldest first.
	Versions []string     `json:"versions"`
	States   []string     `json:"states"`
	Pools    []*PoolNodes `json:"pools"`
	// Pending are the pods waiting for a node, grouped by the scheduler's message.
	Pending []*PendingGroup `json:"pending"`
}

// PoolNodes is a node pool's nodes, zone by zone.
type PoolNodes struct {
	Name        string               `json:"name"`
	Status      string               `json:"status"`
	Version     string               `json:"version"`
	MachineType string               `json:"machineType"`
	Spot        bool                 `json:"spot,omitempty"`
	Strategy    string               `json:"strategy"`
	Autoscaling *NodePoolAutoscaling `json:"autoscaling,omitempty"`
	// Nodes counts every VM of the pool, whatever its state.
	Nodes int          `json:"nodes"`
	Zones []*ZoneNodes `json:"zones"`
	// Upgrade is the node-recreating change in progress (or paused), if any.
	Upgrade *PoolUpgrade `json:"upgrade,omitempty"`
	// Operations are the pool's node upgrades and rollbacks, newest first (at most 10).
	Operations []*OperationSummary `json:"operations"`
}

// ZoneNodes counts a pool's nodes in one zone by version and state.
type ZoneNodes struct {
	Zone   string       `json:"zone"`
	Nodes  int          `json:"nodes"`
	Counts []*NodeCount `json:"counts"`
}

// NodeCount is how many nodes of a version are in a state.
type NodeCount struct {
	Version string `json:"version"`
	State   string `json:"state"`
	Count   int    `json:"count"`
}

// PoolUpgrade is where a node pool's upgrade is.
type PoolUpgrade struct {
	Operation string `json:"operation"`
	// Strategy is SURGE, BLUE_GREEN, AUTOSCALED_BLUE_GREEN or SHORT_LIVED.
	Strategy      string `json:"strategy"`
	Change        string `json:"change"`
	FromVersion   string `json:"fromVersion"`
	TargetVersion string `json:"targetVersion"`
	// Phase is the blue-green phase; Zone the zone a surge upgrade is in.
	Phase string `json:"phase,omitempty"`
	Zone  string `json:"zone,omitempty"`
	// PhaseUntil is when the current soak or wait ends.
	PhaseUntil            string `json:"phaseUntil,omitempty"`
	BluePoolDeletionStart string `json:"bluePoolDeletionStartTime,omitempty"`
	NodesDone             int    `json:"nodesDone"`
	NodesTotal            int    `json:"nodesTotal"`
	StartTime             string `json:"startTime"`
	ETA                   string `json:"eta,omitempty"`
	// Waiting says why the upgrade waits (a maintenance window, R-MW-3/5).
	Waiting  string `json:"waiting,omitempty"`
	Paused   bool   `json:"paused,omitempty"`
	Stopping bool   `json:"stopping,omitempty"`
	Rollback bool   `json:"rollback,omitempty"`
	Auto     bool   `json:"auto,omitempty"`
}

// PendingGroup is the pending pods that share the scheduler's message.
type PendingGroup struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	// Pods are up to 20 of them, namespace/name.
	Pods []string `json:"pods"`
}

// OperationTimeline is the answer of GET /emulator/v1/projects/P/locations/L/operations/OP/
// timeline: what the operation did over emulated time, a row per node, from the event log.
type OperationTimeline struct {
	Now       string            `json:"now"`
	Operation *OperationSummary `json:"operation"`
	Cluster   string            `json:"cluster"`
	// Start and End bound the timeline (End is now while the operation runs); every time
	// below is in seconds after Start.
	Start    string `json:"start"`
	End      string `json:"end"`
	Strategy string `json:"strategy,omitempty"`
	// Bands are the operation's stretches: blue-green phases, batches, soaks and waits, or
	// the zones of a surge upgrade.
	Bands []*TimelineBand `json:"bands"`
	// Marks are moments: started, cancelled, paused, resumed, rolled back, completed, done.
	Marks []*TimelineMark `json:"marks"`
	Nodes []*TimelineNode `json:"nodes"`
	// NodesOmitted counts rows left out over the limit.
	NodesOmitted int `json:"nodesOmitted,omitempty"`
}

// TimelineBand is a stretch of an operation. Kind is phase, batch, soak, wait or zone.
type TimelineBand struct {
	Kind  string  `json:"kind"`
	Label string  `json:"label"`
	From  float64 `json:"from"`
	To    float64 `json:"to"`
}

// TimelineMark is a moment of an operation or a node. Kind is the event type.
type TimelineMark struct {
	Kind    string  `json:"kind"`
	At      float64 `json:"at"`
	Message string  `json:"message"`
}

// TimelineNode is a node's row: its states as spans, and its marks (a PodDisruptionBudget
// holding its drain, the drain forced at the timeout).
type TimelineNode struct {
	Name string `json:"name"`
	Zone string `json:"zone"`
	// Role is old (the node existed when the operation began) or new.
	Role  string          `json:"role"`
	Spans []*TimelineSpan `json:"spans"`
	Marks []*TimelineMark `json:"marks,omitempty"`
}

// TimelineSpan is a node in a state from From to To. States are the console node states plus
// drained (empty, kept until deleted) and held (a drain a PodDisruptionBudget holds up).
type TimelineSpan struct {
	State string  `json:"state"`
	From  float64 `json:"from"`
	To    float64 `json:"to"`
}

// AutoscalerView is the answer of GET /emulator/v1/projects/P/locations/L/clusters/C/
// autoscaler: each pool's size over time against its limits, the pending pods, and the
// autoscaler's decisions with their reasons.
type AutoscalerView struct {
	Now     string `json:"now"`
	Since   string `json:"since"`
	Profile string `json:"profile"`
	// Series times are seconds after Since.
	Pools     []*AutoscalerPool     `json:"pools"`
	Pending   []*PendingGroup       `json:"pending"`
	Decisions []*AutoscalerDecision `json:"decisions"`
	// DecisionsOmitted counts older decisions left out over the limit.
	DecisionsOmitted int `json:"decisionsOmitted,omitempty"`
}

// AutoscalerPool is a pool's size over time. Min and Max are the pool's limits as totals
// (per-zone limits times zones, R-CA-3).
type AutoscalerPool struct {
	Name           string `json:"name"`
	Enabled        bool   `json:"enabled"`
	Min            int    `json:"min"`
	Max            int    `json:"max"`
	PerZone        bool   `json:"perZone"`
	Zones          int    `json:"zones"`
	LocationPolicy string `json:"locationPolicy,omitempty"`
	Size           int    `json:"size"`
	Ready          int    `json:"ready"`
	// Series is [seconds, VMs] at every change, starting at 0.
	Series [][2]float64 `json:"series"`
}

// AutoscalerDecision is a ScaleUp, ScaleDown, ScaleDownBlocked or NotTriggerScaleUp, with the
// nodes and pods it names.
type AutoscalerDecision struct {
	Seq     int64    `json:"seq"`
	Time    string   `json:"time"`
	Type    string   `json:"type"`
	Pool    string   `json:"nodePool,omitempty"`
	Message string   `json:"message"`
	Nodes   []string `json:"nodes,omitempty"`
	Pods    []string `json:"pods,omitempty"`
}

// LoadBalancerHistory is the answer of GET /emulator/v1/projects/P/locations/L/clusters/C/
// loadBalancerHistory: each load balancer's backends with their health over time.
type LoadBalancerHistory struct {
	Now           string                  `json:"now"`
	Since         string                  `json:"since"`
	LoadBalancers []*LoadBalancerTimeline `json:"loadBalancers"`
}

// LoadBalancerTimeline is one Service's load balancer over time. Times are seconds after
// Since.
type LoadBalancerTimeline struct {
	Service  string             `json:"service"`
	Backends []*BackendTimeline `json:"backends"`
	// Events are the load balancer's own log entries (built, synced, failed), oldest first.
	Events []*TimelineMark `json:"events"`
}

// BackendTimeline is a backend node's health over time: HEALTHY, UNHEALTHY, or unknown
// (before the first transition the log shows). Member says whether it backs the load balancer
// now.
type BackendTimeline struct {
	Node   string          `json:"node"`
	Zone   string          `json:"zone,omitempty"`
	Member bool            `json:"member"`
	Health string          `json:"health,omitempty"`
	Spans  []*TimelineSpan `json:"spans"`
}

// MaintenanceCalendar is the answer of GET /emulator/v1/projects/P/locations/L/clusters/C/
// maintenanceCalendar: the next days of windows and exclusions, the availability GKE counts
// (R-EX-4a), when each kind of upgrade may next run and the automatic upgrades so far.
type MaintenanceCalendar struct {
	Now  string `json:"now"`
	From string `json:"from"`
	To   string `json:"to"`
	// Window describes the maintenance window ("" when maintenance may run at any time).
	Window string `json:"window"`
	// Occurrences are the window's open stretches between From and To.
	Occurrences []*ScheduleWindow    `json:"occurrences"`
	Exclusions  []*CalendarExclusion `json:"exclusions"`
	// Available are the stretches in which upgrades may run at all (in the window, outside
	// NO_UPGRADES exclusions); Counted says whether each is long enough (4 h) to count.
	Available []*CalendarStretch `json:"available"`
	// Rolling is, for each day from From, the counted hours in the 32 days that start then;
	// RequiredHours is what GKE requires (48). WorstStart and WorstHours are the least
	// available 32-day period from now on, as setMaintenancePolicy checks it.
	Rolling       []*RollingAvailability `json:"rolling"`
	RequiredHours float64                `json:"requiredHours"`
	WorstStart    string                 `json:"worstStart"`
	WorstHours    float64                `json:"worstHours"`
	// Schedule is the maintenanceSchedule answer: per kind, now and next.
	Schedule *MaintenanceSchedule `json:"schedule"`
	// AutoUpgrades are the automatic upgrades that ran, and the log's account of those that
	// waited, each with its reason, oldest first.
	AutoUpgrades []*AutoUpgradeEntry `json:"autoUpgrades"`
	// Waiting is what the next automatic upgrade waits for, if anything.
	Waiting string `json:"waiting,omitempty"`
}

// CalendarExclusion is a maintenance exclusion.
type CalendarExclusion struct {
	Name              string `json:"name"`
	Scope             string `json:"scope"`
	StartTime         string `json:"startTime"`
	EndTime           string `json:"endTime"`
	UntilEndOfSupport bool   `json:"untilEndOfSupport,omitempty"`
	// Blocks lists the upgrade kinds it blocks (R-EX-1).
	Blocks []string `json:"blocks"`
}

// CalendarStretch is an open stretch of maintenance availability.
type CalendarStretch struct {
	StartTime string `json:"startTime"`
	EndTime   string `json:"endTime"`
	Counted   bool   `json:"counted"`
}

// RollingAvailability is the counted availability of the 32 days from Start.
type RollingAvailability struct {
	Start string  `json:"start"`
	Hours float64 `json:"hours"`
}

// AutoUpgradeEntry is an automatic upgrade that started, or a log entry saying why one waited
// or failed.
type AutoUpgradeEntry struct {
	Time     string `json:"time"`
	Type     string `json:"type"`
	NodePool string `json:"nodePool,omitempty"`
	// Operation, Kind, From and To are set for upgrades that started.
	Operation string `json:"operation,omitempty"`
	Kind      string `json:"kind,omitempty"`
	From      string `json:"from,omitempty"`
	To        string `json:"to,omitempty"`
	Message   string `json:"message"`
}
