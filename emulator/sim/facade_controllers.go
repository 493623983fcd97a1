package sim

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kubeapi"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"k8s.io/apimachinery/pkg/runtime"
)

// What moved out of this package keeps its name here for the server, the store and the rehearsals.

// StartNodeAutoUpgrade: see autoupgrade.AutoUpgrades.StartNodeAutoUpgrade.
func (w *World) StartNodeAutoUpgrade(project string, location string, cluster string, pool string, version string, settings *api.UpgradeSettings) (*model.Operation, error) {
	return w.autoupgrade.StartNodeAutoUpgrade(project, location, cluster, pool, version, settings)
}

// GetCluster: see core.Core.GetCluster.
func (w *World) GetCluster(project string, location string, name string) (*model.Cluster, error) {
	return w.core.GetCluster(project, location, name)
}

// InstanceGroupManagers: see compute.Compute.InstanceGroupManagers.
func (w *World) InstanceGroupManagers(project string, zone string, links core.Links) []*api.InstanceGroupManager {
	return w.compute.InstanceGroupManagers(project, zone, links)
}

// InstanceGroupManager: see compute.Compute.InstanceGroupManager.
func (w *World) InstanceGroupManager(project string, zone string, name string, links core.Links) (*api.InstanceGroupManager, error) {
	return w.compute.InstanceGroupManager(project, zone, name, links)
}

// ManagedInstances: see compute.Compute.ManagedInstances.
func (w *World) ManagedInstances(project string, zone string, name string, links core.Links) (*api.ManagedInstanceList, error) {
	return w.compute.ManagedInstances(project, zone, name, links)
}

// ComputeOperation: see compute.Compute.ComputeOperation.
func (w *World) ComputeOperation(project string, scope string, name string, l core.Links) (*api.ComputeOperation, error) {
	return w.compute.ComputeOperation(project, scope, name, l)
}

// InsertBackendService: see compute.Compute.InsertBackendService.
func (w *World) InsertBackendService(project string, region string, in *api.BackendService, l core.Links) (*api.ComputeOperation, error) {
	return w.compute.InsertBackendService(project, region, in, l)
}

// UpdateBackendService: see compute.Compute.UpdateBackendService.
func (w *World) UpdateBackendService(project string, region string, name string, in *api.BackendService, patch bool, l core.Links) (*api.ComputeOperation, error) {
	return w.compute.UpdateBackendService(project, region, name, in, patch, l)
}

// DeleteBackendService: see compute.Compute.DeleteBackendService.
func (w *World) DeleteBackendService(project string, region string, name string, l core.Links) (*api.ComputeOperation, error) {
	return w.compute.DeleteBackendService(project, region, name, l)
}

// InsertInstanceGroup: see compute.Compute.InsertInstanceGroup.
func (w *World) InsertInstanceGroup(project string, zone string, in *api.InstanceGroup, l core.Links) (*api.ComputeOperation, error) {
	return w.compute.InsertInstanceGroup(project, zone, in, l)
}

// DeleteInstanceGroup: see compute.Compute.DeleteInstanceGroup.
func (w *World) DeleteInstanceGroup(project string, zone string, name string, l core.Links) (*api.ComputeOperation, error) {
	return w.compute.DeleteInstanceGroup(project, zone, name, l)
}

// AddInstances: see compute.Compute.AddInstances.
func (w *World) AddInstances(project string, zone string, name string, refs []*api.InstanceReference, l core.Links) (*api.ComputeOperation, error) {
	return w.compute.AddInstances(project, zone, name, refs, l)
}

// RemoveInstances: see compute.Compute.RemoveInstances.
func (w *World) RemoveInstances(project string, zone string, name string, refs []*api.InstanceReference, l core.Links) (*api.ComputeOperation, error) {
	return w.compute.RemoveInstances(project, zone, name, refs, l)
}

// TakeWarnings: see kubeapi.API.TakeWarnings.
func (w *World) TakeWarnings() []string {
	return w.kubeapi.TakeWarnings()
}

// ListNamespaces: see kubeapi.API.ListNamespaces.
func (w *World) ListNamespaces(c *model.Cluster) *corev1.NamespaceList {
	return w.kubeapi.ListNamespaces(c)
}

// GetNamespace: see kubeapi.API.GetNamespace.
func (w *World) GetNamespace(c *model.Cluster, name string) (*corev1.Namespace, error) {
	return w.kubeapi.GetNamespace(c, name)
}

// CreateNamespace: see kubeapi.API.CreateNamespace.
func (w *World) CreateNamespace(c *model.Cluster, in *corev1.Namespace) (*corev1.Namespace, error) {
	return w.kubeapi.CreateNamespace(c, in)
}

// UpdateNamespace: see kubeapi.API.UpdateNamespace.
func (w *World) UpdateNamespace(c *model.Cluster, name string, in *corev1.Namespace) (*corev1.Namespace, error) {
	return w.kubeapi.UpdateNamespace(c, name, in)
}

// DeleteNamespace: see kubeapi.API.DeleteNamespace.
func (w *World) DeleteNamespace(c *model.Cluster, name string) (*corev1.Namespace, error) {
	return w.kubeapi.DeleteNamespace(c, name)
}

// ListDeployments: see kubeapi.API.ListDeployments.
func (w *World) ListDeployments(c *model.Cluster, o model.ListOptions) *appsv1.DeploymentList {
	return w.kubeapi.ListDeployments(c, o)
}

// GetDeployment: see kubeapi.API.GetDeployment.
func (w *World) GetDeployment(c *model.Cluster, ns string, name string) (*appsv1.Deployment, error) {
	return w.kubeapi.GetDeployment(c, ns, name)
}

// CreateDeployment: see kubeapi.API.CreateDeployment.
func (w *World) CreateDeployment(c *model.Cluster, ns string, in *appsv1.Deployment) (*appsv1.Deployment, error) {
	return w.kubeapi.CreateDeployment(c, ns, in)
}

// UpdateDeployment: see kubeapi.API.UpdateDeployment.
func (w *World) UpdateDeployment(c *model.Cluster, ns string, name string, in *appsv1.Deployment) (*appsv1.Deployment, error) {
	return w.kubeapi.UpdateDeployment(c, ns, name, in)
}

// GetScale: see kubeapi.API.GetScale.
func (w *World) GetScale(c *model.Cluster, ns string, name string) (*autoscalingv1.Scale, error) {
	return w.kubeapi.GetScale(c, ns, name)
}

// SetScale: see kubeapi.API.SetScale.
func (w *World) SetScale(c *model.Cluster, ns string, name string, replicas int32, rv string) (*autoscalingv1.Scale, error) {
	return w.kubeapi.SetScale(c, ns, name, replicas, rv)
}

// ScaleDeployment: see kubeapi.API.ScaleDeployment.
func (w *World) ScaleDeployment(c *model.Cluster, ns string, name string, replicas int32, rv string, managedFields []metav1.ManagedFieldsEntry) (*autoscalingv1.Scale, error) {
	return w.kubeapi.ScaleDeployment(c, ns, name, replicas, rv, managedFields)
}

// DeleteDeployment: see kubeapi.API.DeleteDeployment.
func (w *World) DeleteDeployment(c *model.Cluster, ns string, name string) (*appsv1.Deployment, error) {
	return w.kubeapi.DeleteDeployment(c, ns, name)
}

// ListPods: see kubeapi.API.ListPods.
func (w *World) ListPods(c *model.Cluster, o model.ListOptions) *corev1.PodList {
	return w.kubeapi.ListPods(c, o)
}

// GetPod: see kubeapi.API.GetPod.
func (w *World) GetPod(c *model.Cluster, ns string, name string) (*corev1.Pod, error) {
	return w.kubeapi.GetPod(c, ns, name)
}

// CreatePod: see kubeapi.API.CreatePod.
func (w *World) CreatePod(c *model.Cluster, ns string, in *corev1.Pod) (*corev1.Pod, error) {
	return w.kubeapi.CreatePod(c, ns, in)
}

// UpdatePod: see kubeapi.API.UpdatePod.
func (w *World) UpdatePod(c *model.Cluster, ns string, name string, in *corev1.Pod) (*corev1.Pod, error) {
	return w.kubeapi.UpdatePod(c, ns, name, in)
}

// DeletePod: see kubeapi.API.DeletePod.
func (w *World) DeletePod(c *model.Cluster, ns string, name string, graceSecs *int64) (*corev1.Pod, error) {
	return w.kubeapi.DeletePod(c, ns, name, graceSecs)
}

// EvictPod: see kubeapi.API.EvictPod.
func (w *World) EvictPod(c *model.Cluster, ns string, name string) error {
	return w.kubeapi.EvictPod(c, ns, name)
}

// ListPDBs: see kubeapi.API.ListPDBs.
func (w *World) ListPDBs(c *model.Cluster, o model.ListOptions) *policyv1.PodDisruptionBudgetList {
	return w.kubeapi.ListPDBs(c, o)
}

// GetPDB: see kubeapi.API.GetPDB.
func (w *World) GetPDB(c *model.Cluster, ns string, name string) (*policyv1.PodDisruptionBudget, error) {
	return w.kubeapi.GetPDB(c, ns, name)
}

// CreatePDB: see kubeapi.API.CreatePDB.
func (w *World) CreatePDB(c *model.Cluster, ns string, in *policyv1.PodDisruptionBudget) (*policyv1.PodDisruptionBudget, error) {
	return w.kubeapi.CreatePDB(c, ns, in)
}

// UpdatePDB: see kubeapi.API.UpdatePDB.
func (w *World) UpdatePDB(c *model.Cluster, ns string, name string, in *policyv1.PodDisruptionBudget) (*policyv1.PodDisruptionBudget, error) {
	return w.kubeapi.UpdatePDB(c, ns, name, in)
}

// DeletePDB: see kubeapi.API.DeletePDB.
func (w *World) DeletePDB(c *model.Cluster, ns string, name string) (*policyv1.PodDisruptionBudget, error) {
	return w.kubeapi.DeletePDB(c, ns, name)
}

// GetK8sNode: see kubeapi.API.GetK8sNode.
func (w *World) GetK8sNode(c *model.Cluster, name string) (*corev1.Node, error) {
	return w.kubeapi.GetK8sNode(c, name)
}

// SetNodeUnschedulable: see kubeapi.API.SetNodeUnschedulable.
func (w *World) SetNodeUnschedulable(c *model.Cluster, name string, unschedulable bool) (*corev1.Node, error) {
	return w.kubeapi.SetNodeUnschedulable(c, name, unschedulable)
}

type StoredKind = kubeapi.StoredKind

// StoredKinds is kubeapi.StoredKinds (the same value).
var StoredKinds = kubeapi.StoredKinds

// ListStored: see kubeapi.API.ListStored.
func (w *World) ListStored(c *model.Cluster, k *StoredKind, ns string) runtime.Object {
	return w.kubeapi.ListStored(c, k, ns)
}

// GetStored: see kubeapi.API.GetStored.
func (w *World) GetStored(c *model.Cluster, k *StoredKind, ns string, name string) (runtime.Object, error) {
	return w.kubeapi.GetStored(c, k, ns, name)
}

// CreateStored: see kubeapi.API.CreateStored.
func (w *World) CreateStored(c *model.Cluster, k *StoredKind, ns string, in runtime.Object) (runtime.Object, error) {
	return w.kubeapi.CreateStored(c, k, ns, in)
}

// UpdateStored: see kubeapi.API.UpdateStored.
func (w *World) UpdateStored(c *model.Cluster, k *StoredKind, ns string, name string, in runtime.Object) (runtime.Object, error) {
	return w.kubeapi.UpdateStored(c, k, ns, name, in)
}

// DeleteStored: see kubeapi.API.DeleteStored.
func (w *World) DeleteStored(c *model.Cluster, k *StoredKind, ns string, name string) (runtime.Object, error) {
	return w.kubeapi.DeleteStored(c, k, ns, name)
}

const LBInternalNEG = loadbalancers.LBInternalNEG
const LBInternalIG = loadbalancers.LBInternalIG
const LBExternalRBS = loadbalancers.LBExternalRBS
const LBExternalTargetPool = loadbalancers.LBExternalTargetPool

// ForwardingRules: see compute.Compute.ForwardingRules.
func (w *World) ForwardingRules(project string, region string, l core.Links) []*api.ForwardingRule {
	return w.compute.ForwardingRules(project, region, l)
}

// ForwardingRule: see compute.Compute.ForwardingRule.
func (w *World) ForwardingRule(project string, region string, name string, l core.Links) (*api.ForwardingRule, error) {
	return w.compute.ForwardingRule(project, region, name, l)
}

// BackendServices: see compute.Compute.BackendServices.
func (w *World) BackendServices(project string, region string, l core.Links) []*api.BackendService {
	return w.compute.BackendServices(project, region, l)
}

// BackendService: see compute.Compute.BackendService.
func (w *World) BackendService(project string, region string, name string, l core.Links) (*api.BackendService, error) {
	return w.compute.BackendService(project, region, name, l)
}

// BackendServiceHealth: see compute.Compute.BackendServiceHealth.
func (w *World) BackendServiceHealth(project string, region string, name string, group string, l core.Links) (*api.BackendServiceGroupHealth, error) {
	return w.compute.BackendServiceHealth(project, region, name, group, l)
}

// TargetPools: see compute.Compute.TargetPools.
func (w *World) TargetPools(project string, region string, l core.Links) []*api.TargetPool {
	return w.compute.TargetPools(project, region, l)
}

// TargetPool: see compute.Compute.TargetPool.
func (w *World) TargetPool(project string, region string, name string, l core.Links) (*api.TargetPool, error) {
	return w.compute.TargetPool(project, region, name, l)
}

// TargetPoolHealth: see compute.Compute.TargetPoolHealth.
func (w *World) TargetPoolHealth(project string, region string, name string, instance string, l core.Links) (*api.TargetPoolInstanceHealth, error) {
	return w.compute.TargetPoolHealth(project, region, name, instance, l)
}

// NetworkEndpointGroups: see compute.Compute.NetworkEndpointGroups.
func (w *World) NetworkEndpointGroups(project string, zone string, l core.Links) []*api.NetworkEndpointGroup {
	return w.compute.NetworkEndpointGroups(project, zone, l)
}

// NetworkEndpointGroup: see compute.Compute.NetworkEndpointGroup.
func (w *World) NetworkEndpointGroup(project string, zone string, name string, l core.Links) (*api.NetworkEndpointGroup, error) {
	return w.compute.NetworkEndpointGroup(project, zone, name, l)
}

// NetworkEndpoints: see compute.Compute.NetworkEndpoints.
func (w *World) NetworkEndpoints(project string, zone string, name string, withHealth bool, l core.Links) (*api.NetworkEndpointGroupsListNetworkEndpoints, error) {
	return w.compute.NetworkEndpoints(project, zone, name, withHealth, l)
}

// InstanceGroups: see compute.Compute.InstanceGroups.
func (w *World) InstanceGroups(project string, zone string, l core.Links) []*api.InstanceGroup {
	return w.compute.InstanceGroups(project, zone, l)
}

// InstanceGroup: see compute.Compute.InstanceGroup.
func (w *World) InstanceGroup(project string, zone string, name string, l core.Links) (*api.InstanceGroup, error) {
	return w.compute.InstanceGroup(project, zone, name, l)
}

// InstanceGroupInstances: see compute.Compute.InstanceGroupInstances.
func (w *World) InstanceGroupInstances(project string, zone string, name string, l core.Links) (*api.InstanceGroupsListInstances, error) {
	return w.compute.InstanceGroupInstances(project, zone, name, l)
}

// HealthChecks: see compute.Compute.HealthChecks.
func (w *World) HealthChecks(project string, collection string, region string, l core.Links) []any {
	return w.compute.HealthChecks(project, collection, region, l)
}

// HealthCheck: see compute.Compute.HealthCheck.
func (w *World) HealthCheck(project string, collection string, region string, name string, l core.Links) (any, error) {
	return w.compute.HealthCheck(project, collection, region, name, l)
}

// Firewalls: see compute.Compute.Firewalls.
func (w *World) Firewalls(project string, l core.Links) []*api.Firewall {
	return w.compute.Firewalls(project, l)
}

// Firewall: see compute.Compute.Firewall.
func (w *World) Firewall(project string, name string, l core.Links) (*api.Firewall, error) {
	return w.compute.Firewall(project, name, l)
}

// LoadBalancers: see loadbalancers.LoadBalancers.LoadBalancers.
func (w *World) LoadBalancers(c *model.Cluster) []*api.LoadBalancerStatus {
	return w.loadbalancers.LoadBalancers(c)
}

// GetLoadBalancer: see loadbalancers.LoadBalancers.GetLoadBalancer.
func (w *World) GetLoadBalancer(c *model.Cluster, ns string, name string) (*api.LoadBalancerStatus, error) {
	return w.loadbalancers.GetLoadBalancer(c, ns, name)
}

type TraceRequest = loadbalancers.TraceRequest

// TracePacket: see loadbalancers.LoadBalancers.TracePacket.
func (w *World) TracePacket(c *model.Cluster, req TraceRequest) (*api.PacketTrace, error) {
	return w.loadbalancers.TracePacket(c, req)
}

// ClusterUpgradeInfo: see autoupgrade.AutoUpgrades.ClusterUpgradeInfo.
func (w *World) ClusterUpgradeInfo(project string, location string, name string) (*api.ClusterUpgradeInfo, error) {
	return w.autoupgrade.ClusterUpgradeInfo(project, location, name)
}

// VersionSchedule: see autoupgrade.AutoUpgrades.VersionSchedule.
func (w *World) VersionSchedule() *api.VersionSchedule { return w.autoupgrade.VersionSchedule() }

// FailNode: see autoupgrade.AutoUpgrades.FailNode.
func (w *World) FailNode(project string, location string, cluster string, node string) (*model.Node, error) {
	return w.autoupgrade.FailNode(project, location, cluster, node)
}

// GetNodePool: see core.Core.GetNodePool.
func (w *World) GetNodePool(project string, location string, cluster string, name string) (*model.Cluster, *model.NodePool, error) {
	return w.core.GetNodePool(project, location, cluster, name)
}

const AnnotationLBType = loadbalancers.AnnotationLBType
const AnnotationLBTypeLegacy = loadbalancers.AnnotationLBTypeLegacy
const AnnotationL4RBS = loadbalancers.AnnotationL4RBS
const AnnotationBackendService = loadbalancers.AnnotationBackendService
const AnnotationFirewallRule = loadbalancers.AnnotationFirewallRule
const AnnotationFirewallRuleForHC = loadbalancers.AnnotationFirewallRuleForHC
const AnnotationHealthcheck = loadbalancers.AnnotationHealthcheck
const AnnotationTCPForwardingRule = loadbalancers.AnnotationTCPForwardingRule
const AnnotationUDPForwardingRule = loadbalancers.AnnotationUDPForwardingRule
const AnnotationNEGStatus = loadbalancers.AnnotationNEGStatus

// ListServices: see loadbalancers.LoadBalancers.ListServices.
func (w *World) ListServices(c *model.Cluster, o model.ListOptions) *corev1.ServiceList {
	return w.loadbalancers.ListServices(c, o)
}

// GetService: see loadbalancers.LoadBalancers.GetService.
func (w *World) GetService(c *model.Cluster, ns string, name string) (*corev1.Service, error) {
	return w.loadbalancers.GetService(c, ns, name)
}

// CreateService: see loadbalancers.LoadBalancers.CreateService.
func (w *World) CreateService(c *model.Cluster, ns string, in *corev1.Service) (*corev1.Service, error) {
	return w.loadbalancers.CreateService(c, ns, in)
}

// UpdateService: see loadbalancers.LoadBalancers.UpdateService.
func (w *World) UpdateService(c *model.Cluster, ns string, name string, in *corev1.Service) (*corev1.Service, error) {
	return w.loadbalancers.UpdateService(c, ns, name, in)
}

// DeleteService: see loadbalancers.LoadBalancers.DeleteService.
func (w *World) DeleteService(c *model.Cluster, ns string, name string) (*corev1.Service, error) {
	return w.loadbalancers.DeleteService(c, ns, name)
}

// RollbackNodePool: see upgrade.Upgrades.RollbackNodePool.
func (w *World) RollbackNodePool(project string, location string, cluster string, name string, req *api.RollbackNodePoolUpgradeRequest) (*model.Operation, error) {
	return w.upgrade.RollbackNodePool(project, location, cluster, name, req)
}

// CompleteNodePoolUpgrade: see upgrade.Upgrades.CompleteNodePoolUpgrade.
func (w *World) CompleteNodePoolUpgrade(project string, location string, cluster string, name string) error {
	return w.upgrade.CompleteNodePoolUpgrade(project, location, cluster, name)
}

// KubeAPIUnavailable: see upgrade.Upgrades.KubeAPIUnavailable. It returns nil, not a typed nil,
// when the API serves.
func (w *World) KubeAPIUnavailable(c *model.Cluster) error {
	if err := w.upgrade.KubeAPIUnavailable(c); err != nil {
		return err
	}
	return nil
}
