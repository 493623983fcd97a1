package model

import (
	"slices"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
)

// Clusters, node pools, instance groups, nodes and operations.

// Cluster statuses (Cluster.Status).
const (
	ClusterProvisioning = "PROVISIONING"
	ClusterRunning      = "RUNNING"
	ClusterReconciling  = "RECONCILING"
	ClusterStopping     = "STOPPING"
	ClusterError        = "ERROR"
)

// Node pool statuses (NodePool.Status).
const (
	PoolProvisioning = "PROVISIONING"
	PoolRunning      = "RUNNING"
	PoolReconciling  = "RECONCILING"
	PoolStopping     = "STOPPING"
	PoolError        = "ERROR"
)

// NodeState is where a node is in its life.
type NodeState string

const (
	NodeProvisioning NodeState = "provisioning"
	NodeReady        NodeState = "ready"
	NodeCordoned     NodeState = "cordoned"
	NodeDraining     NodeState = "draining"
	NodeDeleting     NodeState = "deleting"
)

// Cluster is a GKE cluster and everything in it.
type Cluster struct {
	Project  string `json:"project"`
	Location string `json:"location"`
	Name     string `json:"name"`
	ID       string `json:"id"`

	Description      string            `json:"description,omitempty"`
	Locations        []string          `json:"locations"`
	MasterVersion    string            `json:"masterVersion"`
	InitialVersion   string            `json:"initialVersion"`
	ReleaseChannel   string            `json:"releaseChannel"`
	Autopilot        bool              `json:"autopilot,omitempty"`
	Status           string            `json:"status"`
	StatusMessage    string            `json:"statusMessage,omitempty"`
	CreateTime       time.Time         `json:"createTime"`
	Network          string            `json:"network"`
	Subnetwork       string            `json:"subnetwork"`
	ClusterIPv4CIDR  string            `json:"clusterIpv4Cidr"`
	ServicesIPv4CIDR string            `json:"servicesIpv4Cidr"`
	NodeIPBase       uint32            `json:"nodeIpBase"`
	NextNodeIP       uint32            `json:"nextNodeIp"`
	NextPodIP        uint32            `json:"nextPodIp"`
	ResourceLabels   map[string]string `json:"resourceLabels,omitempty"`

	AutoscalingProfile string    `json:"autoscalingProfile"`
	AutoscalingExtra   api.Extra `json:"autoscalingExtra,omitempty"`
	L4ILBSubsetting    bool      `json:"l4IlbSubsetting,omitempty"`
	NetworkExtra       api.Extra `json:"networkExtra,omitempty"`
	PolicyVersion      string    `json:"policyVersion"`
	// MaintenancePolicy is the maintenance window and exclusions (maintenance.go); nil: none.
	MaintenancePolicy *MaintenancePolicy `json:"maintenancePolicy,omitempty"`
	// AutoMaintenance is the state of automatic upgrades and repairs (autoupgrade/channel_upgrades.go).
	AutoMaintenance *AutoMaintenance `json:"autoMaintenance,omitempty"`

	InitialNodeCount int32 `json:"initialNodeCount,omitempty"`
	// Kubernetes objects (kubernetes.go); RV is the cluster's resourceVersion counter.
	Namespaces  map[string]*Namespace  `json:"namespaces"`
	Deployments map[string]*Deployment `json:"deployments"`
	Pods        map[string]*Pod        `json:"pods"`
	PDBs        map[string]*PDB        `json:"pdbs"`
	Services    map[string]*Service    `json:"services,omitempty"`
	RV          int64                  `json:"rv"`
	// DaemonSetStates are GKE's DaemonSets as their controller reports them (workloads/daemonsets_gke.go).
	DaemonSetStates map[string]*DaemonSetState `json:"daemonSetStates,omitempty"`
	// Objects are the kinds the API stores without simulating them (ConfigMaps, Secrets,
	// RBAC, ...), by resource and namespace/name (kubernetes.go; kubeapi/k8s_stored.go serves them).
	Objects map[string]map[string]*StoredObject `json:"objects,omitempty"`

	ControlPlaneReady bool `json:"controlPlaneReady,omitempty"`
	// AutoscalerNext is when the cluster autoscaler's next pass is scheduled.
	AutoscalerNext time.Time `json:"autoscalerNext,omitempty"`
	MasterTarget   string    `json:"masterTarget,omitempty"`

	Pools []*NodePool      `json:"pools"`
	Nodes map[string]*Node `json:"nodes"`
	Extra api.Extra        `json:"extra,omitempty"`
	Etag  string           `json:"etag"`
	// OpenOps are the ids of the cluster's operations that are not done, oldest first.
	OpenOps []string `json:"openOps,omitempty"`

	// An imported cluster (clusterimport/import.go) keeps what the real one's nodes reported per machine type
	// (imported.go) and runs the real cluster's DaemonSets instead of GKE's built-in ones.
	MachineShapes map[string]*MachineShape `json:"machineShapes,omitempty"`
	DaemonSets    map[string]*DaemonSet    `json:"daemonSets,omitempty"`
	Imported      *ImportRecord            `json:"imported,omitempty"`
	// key caches Key(): every event and log line names the cluster.
	key string
}

// Key is the cluster's resource name: projects/P/locations/L/clusters/C.
func (c *Cluster) Key() string {
	if c.key == "" {
		c.key = ClusterKey(c.Project, c.Location, c.Name)
	}
	return c.key
}

// ClusterKey builds a cluster's resource name.
func ClusterKey(project, location, name string) string {
	return "projects/" + project + "/locations/" + location + "/clusters/" + name
}

// Zonal says whether the cluster is zonal: its control plane is one replica in one zone (a
// regional cluster's is three, in three zones of its region).
func (c *Cluster) Zonal() bool {
	l, ok := catalog.ParseLocation(c.Location)
	return ok && l.Zonal
}

// Pool finds a node pool by name.
func (c *Cluster) Pool(name string) *NodePool {
	for _, p := range c.Pools {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// NodeSpec is what makes a node what it is; changing any of it recreates the node (R-UPG-1).
type NodeSpec struct {
	Version     string `json:"version"`
	MachineType string `json:"machineType"`
	DiskType    string `json:"diskType"`
	DiskSizeGb  int32  `json:"diskSizeGb"`
	ImageType   string `json:"imageType"`
	Spot        bool   `json:"spot,omitempty"`
	Preemptible bool   `json:"preemptible,omitempty"`
	// Settings fingerprints the node settings outside these fields that only a new VM can take
	// (gVNIC, image streaming, kubelet and Linux node configuration, Confidential nodes; see
	// recreatingSettings): "" when none is set.
	Settings string `json:"settings,omitempty"`
}

// Taint is a node taint (GKE enum spelling of the effect).
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// NodePool is a GKE node pool: one instance group per zone, each with its nodes.
type NodePool struct {
	Name             string                  `json:"name"`
	Spec             NodeSpec                `json:"spec"`
	Labels           map[string]string       `json:"labels,omitempty"`
	Taints           []Taint                 `json:"taints,omitempty"`
	ConfigExtra      api.Extra               `json:"configExtra,omitempty"`
	InitialNodeCount int32                   `json:"initialNodeCount"`
	Locations        []string                `json:"locations"`
	Status           string                  `json:"status"`
	StatusMessage    string                  `json:"statusMessage,omitempty"`
	AutoUpgrade      bool                    `json:"autoUpgrade"`
	AutoRepair       bool                    `json:"autoRepair"`
	Autoscaling      api.NodePoolAutoscaling `json:"autoscaling"`
	UpgradeSettings  api.UpgradeSettings     `json:"upgradeSettings"`
	MaxPodsPerNode   int64                   `json:"maxPodsPerNode"`
	PodIPv4CIDRSize  int32                   `json:"podIpv4CidrSize"`
	Groups           []*InstanceGroup        `json:"groups"`
	Extra            api.Extra               `json:"extra,omitempty"`
	CreateTime       time.Time               `json:"createTime"`
	Etag             string                  `json:"etag"`
	// FlexStart and QueuedProvisioning pools run short-lived nodes (ShortLived) and upgrade
	// with the SHORT_LIVED strategy (R-UPG-3, R-SL-1).
	FlexStart          bool `json:"flexStart,omitempty"`
	QueuedProvisioning bool `json:"queuedProvisioning,omitempty"`
	ShortLived         bool `json:"shortLived,omitempty"`
	// Upgrade is the node-recreating change in progress (or paused by a cancel), if any.
	Upgrade *Upgrade `json:"upgrade,omitempty"`
	// LastUpgrade is how the previous upgrade ended (rollback needs a cancelled one).
	LastUpgrade *UpgradeRecord `json:"lastUpgrade,omitempty"`
	// CapacityRetry is when the pool, waiting for capacity (CapacityWhy), tries again.
	CapacityRetry time.Time `json:"capacityRetry,omitempty"`
	CapacityWhy   string    `json:"capacityWhy,omitempty"`
	// NodeLabels are labels GKE put on every node of an imported pool beyond the ones gkesim
	// renders; ZoneLabels the keys whose value was each node's zone (imported.go).
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`
	ZoneLabels []string          `json:"zoneLabels,omitempty"`
}

// Group finds the pool's instance group in a zone.
func (p *NodePool) Group(zone string) *InstanceGroup {
	for _, g := range p.Groups {
		if g.Zone == zone {
			return g
		}
	}
	return nil
}

// InstanceGroup is the managed instance group of a pool in one zone.
type InstanceGroup struct {
	Name       string   `json:"name"`
	Zone       string   `json:"zone"`
	Hash       string   `json:"hash"`
	TargetSize int      `json:"targetSize"`
	Nodes      []string `json:"nodes"`
}

// Node is a GKE node (a Compute Engine VM registered with the cluster).
type Node struct {
	Name          string      `json:"name"`
	Pool          string      `json:"pool"`
	Zone          string      `json:"zone"`
	Group         string      `json:"group"`
	Spec          NodeSpec    `json:"spec"`
	State         NodeState   `json:"state"`
	Unschedulable bool        `json:"unschedulable,omitempty"`
	UpgradeRole   UpgradeRole `json:"upgradeRole,omitempty"`
	Drain         *DrainState `json:"drain,omitempty"`
	// UnneededSince is since when the autoscaler has found the node removable; ScaleDownBlock
	// is why it last found the node not removable.
	UnneededSince  time.Time `json:"unneededSince,omitempty"`
	ScaleDownBlock string    `json:"scaleDownBlock,omitempty"`
	CreateTime     time.Time `json:"createTime"`
	ReadyTime      time.Time `json:"readyTime,omitempty"`
	InternalIP     string    `json:"internalIp"`
	// RV is the node's resourceVersion and ChangeTime when it last changed (its kubelet's
	// heartbeat as the API shows it), both set by touchNode.
	RV         int64     `json:"rv,omitempty"`
	ChangeTime time.Time `json:"changeTime,omitempty"`
	// Own is what an imported node had of its own (imported.go).
	Own *NodeOwn `json:"own,omitempty"`
	// IndexSlot is the node's handle in its cluster's pod index (1 + the place of its entry
	// there, 0 for none; core.PodIndex.OnNode), derived and not saved.
	IndexSlot int32 `json:"-"`
	// gone marks a node that has left the cluster, for the derived lists that still hold it.
	Gone bool
}

// Operation is a GKE long-running operation.
type Operation struct {
	ID            string    `json:"id"`
	Type          string    `json:"type"`
	Project       string    `json:"project"`
	Location      string    `json:"location"`
	Cluster       string    `json:"cluster"`
	Pool          string    `json:"pool,omitempty"`
	Status        string    `json:"status"`
	Detail        string    `json:"detail,omitempty"`
	StatusMessage string    `json:"statusMessage,omitempty"`
	StartTime     time.Time `json:"startTime"`
	EndTime       time.Time `json:"endTime,omitempty"`
	Metrics       []Metric  `json:"metrics,omitempty"`
	ErrorCode     int32     `json:"errorCode,omitempty"`
	// Holds says the operation locks its cluster against other mutations.
	Holds bool `json:"holds,omitempty"`
	// Seq orders operations by creation.
	Seq int64 `json:"seq"`
}

// ClusterKey is the resource name of the operation's cluster.
func (o *Operation) ClusterKey() string { return ClusterKey(o.Project, o.Location, o.Cluster) }

// Metric is one OperationProgress metric.
type Metric struct {
	Name  string `json:"name"`
	Int   int64  `json:"int,omitempty"`
	IsInt bool   `json:"isInt,omitempty"`
	Str   string `json:"str,omitempty"`
}

// ValidateEnum checks a proto enum value; "" means unset.
func ValidateEnum(field, value string, allowed ...string) error {
	if value == "" || slices.Contains(allowed, value) {
		return nil
	}
	return InvalidArgument("Invalid value at %q: %q is not a valid enum value. Allowed values: %s.", field, value, strings.Join(allowed, ", "))
}

// TargetPool is the pool a cluster-level node update applies to: the named one, or the only one.
func (c *Cluster) TargetPool(id string) (*NodePool, error) {
	if id == "" {
		if len(c.Pools) == 1 {
			return c.Pools[0], nil
		}
		return nil, InvalidArgument("The cluster has %d node pools; set update.desiredNodePoolId to the pool to change.", len(c.Pools))
	}
	p := c.Pool(id)
	if p == nil {
		return nil, NotFound("node pool %q not found.", id)
	}
	return p, nil
}

// CheckManagement applies GKE's rule that clusters in a release channel keep auto-upgrade and
// auto-repair on.
func (c *Cluster) CheckManagement(autoUpgrade, autoRepair bool) error {
	if c.ReleaseChannel == api.ChannelUnspecified || c.ReleaseChannel == "" {
		return nil
	}
	if !autoUpgrade || !autoRepair {
		return InvalidArgument("Auto_upgrade and auto_repair cannot be false when release_channel %s is set. Set management.autoUpgrade and management.autoRepair to true, or use release channel UNSPECIFIED.", c.ReleaseChannel)
	}
	return nil
}

// DrainPolicy is how a caller wants a node drained.
type DrainPolicy struct {
	// RespectPDB evicts through PodDisruptionBudgets; false deletes pods directly (R-BG-5's
	// delete phase, node pool deletion).
	RespectPDB bool `json:"respectPdb,omitempty"`
	// PDBTimeout is how long blocked evictions are retried before the pods are deleted anyway.
	PDBTimeout time.Duration `json:"pdbTimeout,omitempty"`
	// GraceCap caps each pod's terminationGracePeriodSeconds (0: no cap).
	GraceCap time.Duration `json:"graceCap,omitempty"`
	// Settle ends the drain once every pod left is terminating or blocked for good by a
	// PodDisruptionBudget, without waiting for them: blue-green's drain phase, whose leftovers
	// are deleted in the delete phase (R-BG-5).
	Settle bool `json:"settle,omitempty"`
	// ProtectExtended keeps pods annotated safe-to-evict=false until they are 7 days old: GKE's
	// own evictions on Autopilot (R-EXT-1).
	ProtectExtended bool `json:"protectExtended,omitempty"`
}

// DrainState is a drain in progress on a node.
type DrainState struct {
	Policy DrainPolicy `json:"policy"`
	Start  time.Time   `json:"start"`
	Reason string      `json:"reason"`
	// Blocked lists pods whose blocked eviction was logged (once per pod).
	Blocked map[string]bool `json:"blocked,omitempty"`
	// Next is when the next attempt is scheduled, if any.
	Next time.Time `json:"next,omitempty"`
	// ExtendedUntil is when the next protected extended-duration pod may go.
	ExtendedUntil time.Time `json:"extendedUntil,omitempty"`
}
