package sim

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// What moved out of this package keeps its name here for the server, the store and the rehearsals.

type Event = model.Event
type State = model.State

// Now: see engine.Engine.Now.
func (w *World) Now() time.Time { return w.engine.Now() }

// NextEventAt: see engine.Engine.NextEventAt.
func (w *World) NextEventAt() (time.Time, bool) { return w.engine.NextEventAt() }

// PendingEvents: see engine.Engine.PendingEvents.
func (w *World) PendingEvents() int { return w.engine.PendingEvents() }

type UserCompute = model.UserCompute
type UserBackendService = model.UserBackendService
type UserBackend = model.UserBackend
type UserInstanceGroup = model.UserInstanceGroup
type ComputeOp = model.ComputeOp
type DrainPolicy = model.DrainPolicy
type DrainState = model.DrainState
type Error = model.Error

// KubeDetails: see model.KubeDetails.
type KubeDetails = model.KubeDetails

// AsError: see model.AsError.
func AsError(err error) (*Error, bool) { return model.AsError(err) }

const DefaultLogCapacity = model.DefaultLogCapacity

type LogEntry = model.LogEntry
type EventLog = model.EventLog

// LogChanged: see engine.Engine.LogChanged.
func (w *World) LogChanged() <-chan struct{} { return w.engine.LogChanged() }

type EventFilter = engine.EventFilter

// Events: see engine.Engine.Events.
func (w *World) Events(f EventFilter) ([]*api.Event, int64) { return w.engine.Events(f) }

type Fault = model.Fault
type ImportRecord = model.ImportRecord

const ResourceComputeClasses = model.ResourceComputeClasses

type DaemonSetState = model.DaemonSetState
type DaemonSet = model.DaemonSet
type MachineShape = model.MachineShape
type NodeOwn = model.NodeOwn
type Resources = model.Resources
type Namespace = model.Namespace
type Deployment = model.Deployment
type ReplicaSet = model.ReplicaSet

const PodPending = model.PodPending
const PodRunning = model.PodRunning
const OwnerDeployment = model.OwnerDeployment
const OwnerDaemonSet = model.OwnerDaemonSet

type Pod = model.Pod

const OptimizeUtilizationScheduler = model.OptimizeUtilizationScheduler

// PodUID: see model.PodUID.
func PodUID(c *Cluster, p *Pod) string { return model.PodUID(c, p) }

type PDB = model.PDB
type StoredObject = model.StoredObject
type LoadBalancer = model.LoadBalancer
type BackendHealth = model.BackendHealth
type LBBlock = model.LBBlock
type AutoMaintenance = model.AutoMaintenance
type AutoUpgradeRecord = model.AutoUpgradeRecord
type UpgradeKind = model.UpgradeKind

const ControlPlaneMinor = model.ControlPlaneMinor
const ControlPlanePatch = model.ControlPlanePatch
const ControlPlaneDisruption = model.ControlPlaneDisruption
const NodeMinor = model.NodeMinor
const NodePatch = model.NodePatch
const NodeDisruption = model.NodeDisruption

type MaintenancePolicy = model.MaintenancePolicy
type DailyWindow = model.DailyWindow
type RecurringWindow = model.RecurringWindow
type Exclusion = model.Exclusion
type NodeRepair = model.NodeRepair

const ClusterProvisioning = model.ClusterProvisioning
const ClusterRunning = model.ClusterRunning
const ClusterReconciling = model.ClusterReconciling
const ClusterStopping = model.ClusterStopping
const ClusterError = model.ClusterError
const PoolProvisioning = model.PoolProvisioning
const PoolRunning = model.PoolRunning
const PoolReconciling = model.PoolReconciling
const PoolStopping = model.PoolStopping
const PoolError = model.PoolError

type NodeState = model.NodeState

const NodeProvisioning = model.NodeProvisioning
const NodeReady = model.NodeReady
const NodeCordoned = model.NodeCordoned
const NodeDraining = model.NodeDraining
const NodeDeleting = model.NodeDeleting

type Cluster = model.Cluster

// ClusterKey: see model.ClusterKey.
func ClusterKey(project string, location string, name string) string {
	return model.ClusterKey(project, location, name)
}

type NodeSpec = model.NodeSpec
type Taint = model.Taint
type NodePool = model.NodePool
type InstanceGroup = model.InstanceGroup
type Node = model.Node
type Operation = model.Operation
type Metric = model.Metric
type Service = model.Service
type Upgrade = model.Upgrade
type UpgradeRecord = model.UpgradeRecord
type BlueGreen = model.BlueGreen
type ControllerRef = model.ControllerRef
