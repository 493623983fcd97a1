package sim

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// What moved out of this package keeps its name here for the server, the store and the rehearsals.

// ListClusters: see gke.GKE.ListClusters.
func (w *World) ListClusters(project string, location string) ([]*model.Cluster, error) {
	return w.gke.ListClusters(project, location)
}

// CreateCluster: see gke.GKE.CreateCluster.
func (w *World) CreateCluster(project string, location string, req *api.CreateClusterRequest) (*model.Operation, error) {
	return w.gke.CreateCluster(project, location, req)
}

// UpdateCluster: see gke.GKE.UpdateCluster.
func (w *World) UpdateCluster(project string, location string, name string, req *api.UpdateClusterRequest) (*model.Operation, error) {
	return w.gke.UpdateCluster(project, location, name, req)
}

// DeleteCluster: see gke.GKE.DeleteCluster.
func (w *World) DeleteCluster(project string, location string, name string) (*model.Operation, error) {
	return w.gke.DeleteCluster(project, location, name)
}

// ServerConfig: see gke.GKE.ServerConfig.
func (w *World) ServerConfig(location string) (*api.ServerConfig, error) {
	return w.gke.ServerConfig(location)
}

// SetClusterField: see gke.GKE.SetClusterField.
func (w *World) SetClusterField(project string, location string, name string, field string, value []byte) (*model.Operation, error) {
	return w.gke.SetClusterField(project, location, name, field, value)
}

// SetResourceLabels: see gke.GKE.SetResourceLabels.
func (w *World) SetResourceLabels(project string, location string, name string, labels map[string]string, fingerprint string) (*model.Operation, error) {
	return w.gke.SetResourceLabels(project, location, name, labels, fingerprint)
}

// SetMaintenancePolicy: see gke.GKE.SetMaintenancePolicy.
func (w *World) SetMaintenancePolicy(project string, location string, name string, req *api.SetMaintenancePolicyRequest) (*model.Operation, error) {
	return w.gke.SetMaintenancePolicy(project, location, name, req)
}

// CreateNodePool: see gke.GKE.CreateNodePool.
func (w *World) CreateNodePool(project string, location string, cluster string, req *api.CreateNodePoolRequest) (*model.Operation, error) {
	return w.gke.CreateNodePool(project, location, cluster, req)
}

// UpdateNodePool: see gke.GKE.UpdateNodePool.
func (w *World) UpdateNodePool(project string, location string, cluster string, name string, req *api.UpdateNodePoolRequest) (*model.Operation, error) {
	return w.gke.UpdateNodePool(project, location, cluster, name, req)
}

// DeleteNodePool: see gke.GKE.DeleteNodePool.
func (w *World) DeleteNodePool(project string, location string, cluster string, name string) (*model.Operation, error) {
	return w.gke.DeleteNodePool(project, location, cluster, name)
}

// SetNodePoolSize: see gke.GKE.SetNodePoolSize.
func (w *World) SetNodePoolSize(project string, location string, cluster string, name string, req *api.SetNodePoolSizeRequest) (*model.Operation, error) {
	return w.gke.SetNodePoolSize(project, location, cluster, name, req)
}

// SetNodePoolManagement: see gke.GKE.SetNodePoolManagement.
func (w *World) SetNodePoolManagement(project string, location string, cluster string, name string, req *api.SetNodePoolManagementRequest) (*model.Operation, error) {
	return w.gke.SetNodePoolManagement(project, location, cluster, name, req)
}

// SetNodePoolAutoscaling: see gke.GKE.SetNodePoolAutoscaling.
func (w *World) SetNodePoolAutoscaling(project string, location string, cluster string, name string, req *api.SetNodePoolAutoscalingRequest) (*model.Operation, error) {
	return w.gke.SetNodePoolAutoscaling(project, location, cluster, name, req)
}

// NodeCounts: see gke.GKE.NodeCounts.
func (w *World) NodeCounts(c *model.Cluster, p *model.NodePool) map[model.NodeState]int {
	return w.gke.NodeCounts(c, p)
}

// CancelOperation: see gke.GKE.CancelOperation.
func (w *World) CancelOperation(project string, location string, id string) error {
	return w.gke.CancelOperation(project, location, id)
}

// RenderCluster: see gke.GKE.RenderCluster.
func (w *World) RenderCluster(c *model.Cluster, links core.Links, endpoint string) *api.Cluster {
	return w.gke.RenderCluster(c, links, endpoint)
}

// RenderNodePool: see gke.GKE.RenderNodePool.
func (w *World) RenderNodePool(c *model.Cluster, p *model.NodePool, links core.Links) *api.NodePool {
	return w.gke.RenderNodePool(c, p, links)
}

// K8sNodes: see gke.GKE.K8sNodes.
func (w *World) K8sNodes(c *model.Cluster) []corev1.Node { return w.gke.K8sNodes(c) }
