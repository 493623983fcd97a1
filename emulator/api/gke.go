package api

// GKE v1 objects (google/container/v1/cluster_service.proto) in their proto3 JSON form.
// Only the members the emulator simulates are typed; the rest ride along in Extra.

type Cluster struct {
	Name                  string              `json:"name,omitempty"`
	Description           string              `json:"description,omitempty"`
	InitialNodeCount      int32               `json:"initialNodeCount,omitempty"`
	NodeConfig            *NodeConfig         `json:"nodeConfig,omitempty"`
	Network               string              `json:"network,omitempty"`
	Subnetwork            string              `json:"subnetwork,omitempty"`
	ClusterIpv4Cidr       string              `json:"clusterIpv4Cidr,omitempty"`
	NodePools             []*NodePool         `json:"nodePools,omitempty"`
	Locations             []string            `json:"locations,omitempty"`
	ResourceLabels        map[string]string   `json:"resourceLabels,omitempty"`
	LabelFingerprint      string              `json:"labelFingerprint,omitempty"`
	MaintenancePolicy     *MaintenancePolicy  `json:"maintenancePolicy,omitempty"`
	Autoscaling           *ClusterAutoscaling `json:"autoscaling,omitempty"`
	NetworkConfig         *NetworkConfig      `json:"networkConfig,omitempty"`
	ReleaseChannel        *ReleaseChannel     `json:"releaseChannel,omitempty"`
	Autopilot             *Autopilot          `json:"autopilot,omitempty"`
	InitialClusterVersion string              `json:"initialClusterVersion,omitempty"`

	// Output only.
	SelfLink             string   `json:"selfLink,omitempty"`
	Zone                 string   `json:"zone,omitempty"`
	Endpoint             string   `json:"endpoint,omitempty"`
	CurrentMasterVersion string   `json:"currentMasterVersion,omitempty"`
	CurrentNodeVersion   string   `json:"currentNodeVersion,omitempty"`
	CreateTime           string   `json:"createTime,omitempty"`
	Status               string   `json:"status,omitempty"`
	StatusMessage        string   `json:"statusMessage,omitempty"`
	NodeIpv4CidrSize     int32    `json:"nodeIpv4CidrSize,omitempty"`
	ServicesIpv4Cidr     string   `json:"servicesIpv4Cidr,omitempty"`
	InstanceGroupUrls    []string `json:"instanceGroupUrls,omitempty"`
	CurrentNodeCount     int32    `json:"currentNodeCount,omitempty"`
	Location             string   `json:"location,omitempty"`
	Id                   string   `json:"id,omitempty"`
	Etag                 string   `json:"etag,omitempty"`

	Extra Extra `json:"-"`
}

func (c *Cluster) UnmarshalJSON(b []byte) error {
	type plain Cluster
	return unmarshalKeepingExtra(b, (*plain)(c), &c.Extra)
}

func (c Cluster) MarshalJSON() ([]byte, error) {
	type plain Cluster
	return marshalWithExtra(plain(c), c.Extra)
}

type NodePool struct {
	Name              string               `json:"name,omitempty"`
	Config            *NodeConfig          `json:"config,omitempty"`
	InitialNodeCount  int32                `json:"initialNodeCount,omitempty"`
	Locations         []string             `json:"locations,omitempty"`
	Version           string               `json:"version,omitempty"`
	Autoscaling       *NodePoolAutoscaling `json:"autoscaling,omitempty"`
	Management        *NodeManagement      `json:"management,omitempty"`
	MaxPodsConstraint *MaxPodsConstraint   `json:"maxPodsConstraint,omitempty"`
	UpgradeSettings   *UpgradeSettings     `json:"upgradeSettings,omitempty"`
	// QueuedProvisioning pools get nodes through the Dynamic Workload Scheduler.
	QueuedProvisioning *QueuedProvisioning `json:"queuedProvisioning,omitempty"`

	// Output only.
	SelfLink          string      `json:"selfLink,omitempty"`
	InstanceGroupUrls []string    `json:"instanceGroupUrls,omitempty"`
	Status            string      `json:"status,omitempty"`
	StatusMessage     string      `json:"statusMessage,omitempty"`
	PodIpv4CidrSize   int32       `json:"podIpv4CidrSize,omitempty"`
	UpdateInfo        *UpdateInfo `json:"updateInfo,omitempty"`
	Etag              string      `json:"etag,omitempty"`

	Extra Extra `json:"-"`
}

func (p *NodePool) UnmarshalJSON(b []byte) error {
	type plain NodePool
	return unmarshalKeepingExtra(b, (*plain)(p), &p.Extra)
}

func (p NodePool) MarshalJSON() ([]byte, error) {
	type plain NodePool
	return marshalWithExtra(plain(p), p.Extra)
}

type NodeConfig struct {
	MachineType string            `json:"machineType,omitempty"`
	DiskSizeGb  int32             `json:"diskSizeGb,omitempty"`
	DiskType    string            `json:"diskType,omitempty"`
	ImageType   string            `json:"imageType,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Taints      []*NodeTaint      `json:"taints,omitempty"`
	Spot        bool              `json:"spot,omitempty"`
	Preemptible bool              `json:"preemptible,omitempty"`
	// FlexStart nodes are flex-start VMs (Dynamic Workload Scheduler); they upgrade with the
	// SHORT_LIVED strategy.
	FlexStart bool `json:"flexStart,omitempty"`

	Extra Extra `json:"-"`
}

func (c *NodeConfig) UnmarshalJSON(b []byte) error {
	type plain NodeConfig
	return unmarshalKeepingExtra(b, (*plain)(c), &c.Extra)
}

func (c NodeConfig) MarshalJSON() ([]byte, error) {
	type plain NodeConfig
	return marshalWithExtra(plain(c), c.Extra)
}

// NodeTaint effects.
const (
	EffectNoSchedule       = "NO_SCHEDULE"
	EffectPreferNoSchedule = "PREFER_NO_SCHEDULE"
	EffectNoExecute        = "NO_EXECUTE"
)

type NodeTaint struct {
	Key    string `json:"key,omitempty"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect,omitempty"`
}

type QueuedProvisioning struct {
	Enabled bool `json:"enabled,omitempty"`
}

type NodeManagement struct {
	AutoUpgrade    bool                `json:"autoUpgrade,omitempty"`
	AutoRepair     bool                `json:"autoRepair,omitempty"`
	UpgradeOptions *AutoUpgradeOptions `json:"upgradeOptions,omitempty"`
}

type AutoUpgradeOptions struct {
	AutoUpgradeStartTime string `json:"autoUpgradeStartTime,omitempty"`
	Description          string `json:"description,omitempty"`
}

type MaxPodsConstraint struct {
	MaxPodsPerNode Int64 `json:"maxPodsPerNode,omitempty"`
}

// NodePoolAutoscaling location policies.
const (
	LocationPolicyBalanced = "BALANCED"
	LocationPolicyAny      = "ANY"
)

type NodePoolAutoscaling struct {
	Enabled           bool   `json:"enabled,omitempty"`
	MinNodeCount      int32  `json:"minNodeCount,omitempty"`
	MaxNodeCount      int32  `json:"maxNodeCount,omitempty"`
	Autoprovisioned   bool   `json:"autoprovisioned,omitempty"`
	LocationPolicy    string `json:"locationPolicy,omitempty"`
	TotalMinNodeCount int32  `json:"totalMinNodeCount,omitempty"`
	TotalMaxNodeCount int32  `json:"totalMaxNodeCount,omitempty"`
}

// Node pool update strategies (NodePoolUpdateStrategy).
const (
	StrategyUnspecified = "NODE_POOL_UPDATE_STRATEGY_UNSPECIFIED"
	StrategyBlueGreen   = "BLUE_GREEN"
	StrategySurge       = "SURGE"
	StrategyShortLived  = "SHORT_LIVED"
)

type UpgradeSettings struct {
	MaxSurge          int32              `json:"maxSurge,omitempty"`
	MaxUnavailable    int32              `json:"maxUnavailable,omitempty"`
	Strategy          string             `json:"strategy,omitempty"`
	BlueGreenSettings *BlueGreenSettings `json:"blueGreenSettings,omitempty"`
}

// Clone copies s deeply (its rollout policies are pointers).
func (s UpgradeSettings) Clone() UpgradeSettings {
	if bg := s.BlueGreenSettings; bg != nil {
		c := *bg
		if p := bg.StandardRolloutPolicy; p != nil {
			sp := *p
			if p.BatchPercentage != nil {
				v := *p.BatchPercentage
				sp.BatchPercentage = &v
			}
			if p.BatchNodeCount != nil {
				v := *p.BatchNodeCount
				sp.BatchNodeCount = &v
			}
			c.StandardRolloutPolicy = &sp
		}
		if p := bg.AutoscaledRolloutPolicy; p != nil {
			ap := *p
			c.AutoscaledRolloutPolicy = &ap
		}
		s.BlueGreenSettings = &c
	}
	return s
}

type BlueGreenSettings struct {
	StandardRolloutPolicy   *StandardRolloutPolicy   `json:"standardRolloutPolicy,omitempty"`
	AutoscaledRolloutPolicy *AutoscaledRolloutPolicy `json:"autoscaledRolloutPolicy,omitempty"`
	NodePoolSoakDuration    string                   `json:"nodePoolSoakDuration,omitempty"`
}

// StandardRolloutPolicy's batch size is a oneof: a member set to 0 is present (and means "skip
// the drain phase", R-BG-3), so both are pointers.
type StandardRolloutPolicy struct {
	BatchPercentage   *float64 `json:"batchPercentage,omitempty"`
	BatchNodeCount    *int32   `json:"batchNodeCount,omitempty"`
	BatchSoakDuration string   `json:"batchSoakDuration,omitempty"`
}

type AutoscaledRolloutPolicy struct {
	WaitForDrainDuration string `json:"waitForDrainDuration,omitempty"`
}

type UpdateInfo struct {
	BlueGreenInfo *BlueGreenInfo `json:"blueGreenInfo,omitempty"`
}

type BlueGreenInfo struct {
	Phase                     string   `json:"phase,omitempty"`
	BlueInstanceGroupUrls     []string `json:"blueInstanceGroupUrls,omitempty"`
	GreenInstanceGroupUrls    []string `json:"greenInstanceGroupUrls,omitempty"`
	BluePoolDeletionStartTime string   `json:"bluePoolDeletionStartTime,omitempty"`
	GreenPoolVersion          string   `json:"greenPoolVersion,omitempty"`
}

// Cluster autoscaling profiles.
const (
	ProfileUnspecified         = "PROFILE_UNSPECIFIED"
	ProfileOptimizeUtilization = "OPTIMIZE_UTILIZATION"
	ProfileBalanced            = "BALANCED"
)

type ClusterAutoscaling struct {
	EnableNodeAutoprovisioning bool   `json:"enableNodeAutoprovisioning,omitempty"`
	AutoscalingProfile         string `json:"autoscalingProfile,omitempty"`

	Extra Extra `json:"-"`
}

func (a *ClusterAutoscaling) UnmarshalJSON(b []byte) error {
	type plain ClusterAutoscaling
	return unmarshalKeepingExtra(b, (*plain)(a), &a.Extra)
}

func (a ClusterAutoscaling) MarshalJSON() ([]byte, error) {
	type plain ClusterAutoscaling
	return marshalWithExtra(plain(a), a.Extra)
}

type NetworkConfig struct {
	Network               string `json:"network,omitempty"`
	Subnetwork            string `json:"subnetwork,omitempty"`
	EnableL4IlbSubsetting bool   `json:"enableL4ilbSubsetting,omitempty"`

	Extra Extra `json:"-"`
}

func (n *NetworkConfig) UnmarshalJSON(b []byte) error {
	type plain NetworkConfig
	return unmarshalKeepingExtra(b, (*plain)(n), &n.Extra)
}

func (n NetworkConfig) MarshalJSON() ([]byte, error) {
	type plain NetworkConfig
	return marshalWithExtra(plain(n), n.Extra)
}

// Release channels.
const (
	ChannelUnspecified = "UNSPECIFIED"
	ChannelRapid       = "RAPID"
	ChannelRegular     = "REGULAR"
	ChannelStable      = "STABLE"
	ChannelExtended    = "EXTENDED"
)

type ReleaseChannel struct {
	Channel string `json:"channel,omitempty"`
}

type Autopilot struct {
	Enabled bool `json:"enabled,omitempty"`
}

type MaintenancePolicy struct {
	Window          *MaintenanceWindow `json:"window,omitempty"`
	ResourceVersion string             `json:"resourceVersion,omitempty"`
}

type MaintenanceWindow struct {
	DailyMaintenanceWindow *DailyMaintenanceWindow `json:"dailyMaintenanceWindow,omitempty"`
	RecurringWindow        *RecurringTimeWindow    `json:"recurringWindow,omitempty"`
	MaintenanceExclusions  map[string]*TimeWindow  `json:"maintenanceExclusions,omitempty"`
}

type DailyMaintenanceWindow struct {
	StartTime string `json:"startTime,omitempty"`
	Duration  string `json:"duration,omitempty"`
}

type RecurringTimeWindow struct {
	Window     *TimeWindow `json:"window,omitempty"`
	Recurrence string      `json:"recurrence,omitempty"`
}

type TimeWindow struct {
	MaintenanceExclusionOptions *MaintenanceExclusionOptions `json:"maintenanceExclusionOptions,omitempty"`
	StartTime                   string                       `json:"startTime,omitempty"`
	EndTime                     string                       `json:"endTime,omitempty"`
}

type MaintenanceExclusionOptions struct {
	Scope           string `json:"scope,omitempty"`
	EndTimeBehavior string `json:"endTimeBehavior,omitempty"`
}

// Requests.

type CreateClusterRequest struct {
	Cluster   *Cluster `json:"cluster,omitempty"`
	Parent    string   `json:"parent,omitempty"`
	ProjectId string   `json:"projectId,omitempty"`
	Zone      string   `json:"zone,omitempty"`
}

type UpdateClusterRequest struct {
	Update *ClusterUpdate `json:"update,omitempty"`
	Name   string         `json:"name,omitempty"`
}

// ClusterUpdate carries the desired* members; the ones the emulator does not simulate are kept
// in Extra and applied to the cluster's stored fields of the same name (desiredFoo -> foo).
type ClusterUpdate struct {
	DesiredNodeVersion           string               `json:"desiredNodeVersion,omitempty"`
	DesiredNodePoolId            string               `json:"desiredNodePoolId,omitempty"`
	DesiredImageType             string               `json:"desiredImageType,omitempty"`
	DesiredNodePoolAutoscaling   *NodePoolAutoscaling `json:"desiredNodePoolAutoscaling,omitempty"`
	DesiredLocations             []string             `json:"desiredLocations,omitempty"`
	DesiredClusterAutoscaling    *ClusterAutoscaling  `json:"desiredClusterAutoscaling,omitempty"`
	DesiredReleaseChannel        *ReleaseChannel      `json:"desiredReleaseChannel,omitempty"`
	DesiredL4ilbSubsettingConfig *ILBSubsettingConfig `json:"desiredL4ilbSubsettingConfig,omitempty"`
	DesiredMasterVersion         string               `json:"desiredMasterVersion,omitempty"`
	Etag                         string               `json:"etag,omitempty"`

	Extra Extra `json:"-"`
}

func (u *ClusterUpdate) UnmarshalJSON(b []byte) error {
	type plain ClusterUpdate
	return unmarshalKeepingExtra(b, (*plain)(u), &u.Extra)
}

func (u ClusterUpdate) MarshalJSON() ([]byte, error) {
	type plain ClusterUpdate
	return marshalWithExtra(plain(u), u.Extra)
}

type ILBSubsettingConfig struct {
	Enabled bool `json:"enabled,omitempty"`
}

// SetLabelsRequest is clusters.setResourceLabels: the new labels and the fingerprint of the
// labels they replace, as read with the cluster.
type SetLabelsRequest struct {
	ResourceLabels   map[string]string `json:"resourceLabels,omitempty"`
	LabelFingerprint string            `json:"labelFingerprint,omitempty"`
	Name             string            `json:"name,omitempty"`
	ProjectId        string            `json:"projectId,omitempty"`
	Zone             string            `json:"zone,omitempty"`
	ClusterId        string            `json:"clusterId,omitempty"`
}

type CreateNodePoolRequest struct {
	NodePool *NodePool `json:"nodePool,omitempty"`
	Parent   string    `json:"parent,omitempty"`
}

// UpdateNodePoolRequest: note the wrappers (labels {labels}, taints {taints}) that differ from
// NodeConfig. Members not simulated are kept in Extra and stored on the pool's config.
type UpdateNodePoolRequest struct {
	Name            string           `json:"name,omitempty"`
	NodePoolId      string           `json:"nodePoolId,omitempty"`
	NodeVersion     string           `json:"nodeVersion,omitempty"`
	ImageType       string           `json:"imageType,omitempty"`
	Locations       []string         `json:"locations,omitempty"`
	UpgradeSettings *UpgradeSettings `json:"upgradeSettings,omitempty"`
	Labels          *NodeLabels      `json:"labels,omitempty"`
	Taints          *NodeTaints      `json:"taints,omitempty"`
	MachineType     string           `json:"machineType,omitempty"`
	DiskType        string           `json:"diskType,omitempty"`
	DiskSizeGb      Int64            `json:"diskSizeGb,omitempty"`
	Etag            string           `json:"etag,omitempty"`
	ProjectId       string           `json:"projectId,omitempty"`
	Zone            string           `json:"zone,omitempty"`
	ClusterId       string           `json:"clusterId,omitempty"`

	Extra Extra `json:"-"`
}

func (r *UpdateNodePoolRequest) UnmarshalJSON(b []byte) error {
	type plain UpdateNodePoolRequest
	return unmarshalKeepingExtra(b, (*plain)(r), &r.Extra)
}

func (r UpdateNodePoolRequest) MarshalJSON() ([]byte, error) {
	type plain UpdateNodePoolRequest
	return marshalWithExtra(plain(r), r.Extra)
}

type NodeLabels struct {
	Labels map[string]string `json:"labels,omitempty"`
}

type NodeTaints struct {
	Taints []*NodeTaint `json:"taints,omitempty"`
}

type SetNodePoolSizeRequest struct {
	NodeCount int32  `json:"nodeCount,omitempty"`
	Name      string `json:"name,omitempty"`
}

type SetNodePoolManagementRequest struct {
	Management *NodeManagement `json:"management,omitempty"`
	Name       string          `json:"name,omitempty"`
}

type SetNodePoolAutoscalingRequest struct {
	Autoscaling *NodePoolAutoscaling `json:"autoscaling,omitempty"`
	Name        string               `json:"name,omitempty"`
}

type RollbackNodePoolUpgradeRequest struct {
	Name string `json:"name,omitempty"`
	// RespectPdb makes the rollback's drains respect PodDisruptionBudgets (default false).
	RespectPdb bool `json:"respectPdb,omitempty"`
}

type CompleteNodePoolUpgradeRequest struct {
	Name string `json:"name,omitempty"`
}

type CancelOperationRequest struct {
	Name string `json:"name,omitempty"`
}

// Responses.

type ListClustersResponse struct {
	Clusters     []*Cluster `json:"clusters,omitempty"`
	MissingZones []string   `json:"missingZones,omitempty"`
}

type ListNodePoolsResponse struct {
	NodePools []*NodePool `json:"nodePools,omitempty"`
}

type ListOperationsResponse struct {
	Operations   []*Operation `json:"operations,omitempty"`
	MissingZones []string     `json:"missingZones,omitempty"`
}

// Empty is google.protobuf.Empty.
type Empty struct{}

// Operation types and statuses (Operation.Type, Operation.Status).
const (
	OpCreateCluster         = "CREATE_CLUSTER"
	OpDeleteCluster         = "DELETE_CLUSTER"
	OpUpgradeMaster         = "UPGRADE_MASTER"
	OpUpgradeNodes          = "UPGRADE_NODES"
	OpRepairCluster         = "REPAIR_CLUSTER"
	OpUpdateCluster         = "UPDATE_CLUSTER"
	OpCreateNodePool        = "CREATE_NODE_POOL"
	OpDeleteNodePool        = "DELETE_NODE_POOL"
	OpSetNodePoolManagement = "SET_NODE_POOL_MANAGEMENT"
	OpAutoRepairNodes       = "AUTO_REPAIR_NODES"
	OpSetNodePoolSize       = "SET_NODE_POOL_SIZE"

	OpStatusPending  = "PENDING"
	OpStatusRunning  = "RUNNING"
	OpStatusDone     = "DONE"
	OpStatusAborting = "ABORTING"
)

type Operation struct {
	Name          string             `json:"name,omitempty"`
	Zone          string             `json:"zone,omitempty"`
	OperationType string             `json:"operationType,omitempty"`
	Status        string             `json:"status,omitempty"`
	Detail        string             `json:"detail,omitempty"`
	StatusMessage string             `json:"statusMessage,omitempty"`
	SelfLink      string             `json:"selfLink,omitempty"`
	TargetLink    string             `json:"targetLink,omitempty"`
	Location      string             `json:"location,omitempty"`
	StartTime     string             `json:"startTime,omitempty"`
	EndTime       string             `json:"endTime,omitempty"`
	Progress      *OperationProgress `json:"progress,omitempty"`
	Error         *Status            `json:"error,omitempty"`
}

type OperationProgress struct {
	Name    string               `json:"name,omitempty"`
	Status  string               `json:"status,omitempty"`
	Metrics []*Metric            `json:"metrics,omitempty"`
	Stages  []*OperationProgress `json:"stages,omitempty"`
}

type Metric struct {
	Name        string  `json:"name"`
	IntValue    *Int64  `json:"intValue,omitempty"`
	DoubleValue float64 `json:"doubleValue,omitempty"`
	StringValue string  `json:"stringValue,omitempty"`
}

// Status is google.rpc.Status, the Operation.error member.
type Status struct {
	Code    int32  `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

type ServerConfig struct {
	DefaultClusterVersion string                  `json:"defaultClusterVersion,omitempty"`
	ValidNodeVersions     []string                `json:"validNodeVersions,omitempty"`
	DefaultImageType      string                  `json:"defaultImageType,omitempty"`
	ValidImageTypes       []string                `json:"validImageTypes,omitempty"`
	ValidMasterVersions   []string                `json:"validMasterVersions,omitempty"`
	Channels              []*ReleaseChannelConfig `json:"channels,omitempty"`
}

type ReleaseChannelConfig struct {
	Channel              string   `json:"channel,omitempty"`
	DefaultVersion       string   `json:"defaultVersion,omitempty"`
	ValidVersions        []string `json:"validVersions,omitempty"`
	UpgradeTargetVersion string   `json:"upgradeTargetVersion,omitempty"`
}

// ErrorBody is the Google API error envelope:
// {"error":{"code":400,"message":"...","errors":[{...}],"status":"INVALID_ARGUMENT"}}.
type ErrorBody struct {
	Error *ErrorDetail `json:"error"`
}

type ErrorDetail struct {
	Code    int           `json:"code"`
	Message string        `json:"message"`
	Errors  []*ErrorEntry `json:"errors,omitempty"`
	Status  string        `json:"status"`
	Details []any         `json:"details,omitempty"`
}

// BadRequest is the google.rpc.BadRequest error detail.
type BadRequest struct {
	Type            string           `json:"@type"`
	FieldViolations []FieldViolation `json:"fieldViolations"`
}

// BadRequestType is the @type of BadRequest.
const BadRequestType = "type.googleapis.com/google.rpc.BadRequest"

type FieldViolation struct {
	Field       string `json:"field,omitempty"`
	Description string `json:"description"`
}

type ErrorEntry struct {
	Message string `json:"message"`
	Domain  string `json:"domain"`
	Reason  string `json:"reason"`
}
