package sim

import (
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/feed"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/workloads"
)

// What moved out of this package keeps its name here for the server, the store and the rehearsals.

// Cluster: see core.Core.Cluster.
func (w *World) Cluster(project string, location string, name string) *model.Cluster {
	return w.core.Cluster(project, location, name)
}

const SafeToEvictAnnotation = core.SafeToEvictAnnotation
const FaultStockout = core.FaultStockout
const FaultQuota = core.FaultQuota
const FaultAPIError = core.FaultAPIError
const FaultLatency = core.FaultLatency

// AddFault: see core.Core.AddFault.
func (w *World) AddFault(f model.Fault) (*model.Fault, error) { return w.core.AddFault(f) }

// Faults: see core.Core.Faults.
func (w *World) Faults() []*model.Fault { return w.core.Faults() }

// DeleteFault: see core.Core.DeleteFault.
func (w *World) DeleteFault(id string) error { return w.core.DeleteFault(id) }

const ComputeClassLabel = core.ComputeClassLabel

// ListDaemonSets: see core.Core.ListDaemonSets.
func (w *World) ListDaemonSets(c *model.Cluster, o ListOptions) *appsv1.DaemonSetList {
	return w.workloads.ListDaemonSets(c, o)
}

// GetDaemonSet: see core.Core.GetDaemonSet.
func (w *World) GetDaemonSet(c *model.Cluster, ns string, name string) (*appsv1.DaemonSet, error) {
	return w.workloads.GetDaemonSet(c, ns, name)
}

type ListOptions = model.ListOptions

// APITime: see kuberender.APITime.
func APITime(t time.Time) metav1.Time { return kuberender.APITime(t) }

// GetOperation: see core.Core.GetOperation.
func (w *World) GetOperation(project string, location string, id string) (*model.Operation, error) {
	return w.core.GetOperation(project, location, id)
}

// ListOperations: see core.Core.ListOperations.
func (w *World) ListOperations(project string, location string) []*model.Operation {
	return w.core.ListOperations(project, location)
}

// RenderOperation: see core.Core.RenderOperation.
func (w *World) RenderOperation(op *model.Operation, links Links) *api.Operation {
	return w.core.RenderOperation(op, links)
}

type Links = core.Links

const AnnotationRequestedCPU = kuberender.AnnotationRequestedCPU
const AnnotationRequestedMemory = kuberender.AnnotationRequestedMemory
const AnnotationPods = kuberender.AnnotationPods

// RenderK8sNode: see core.Core.RenderK8sNode.
func (w *World) RenderK8sNode(c *model.Cluster, n *model.Node) *corev1.Node {
	return w.core.RenderK8sNode(c, n)
}

// ListReplicaSets: see core.Core.ListReplicaSets.
func (w *World) ListReplicaSets(c *model.Cluster, o ListOptions) *appsv1.ReplicaSetList {
	return w.workloads.ListReplicaSets(c, o)
}

// GetReplicaSet: see core.Core.GetReplicaSet.
func (w *World) GetReplicaSet(c *model.Cluster, ns string, name string) (*appsv1.ReplicaSet, error) {
	return w.workloads.GetReplicaSet(c, ns, name)
}

const DefaultWatchHistory = feed.DefaultWatchHistory
const ChangeAdded = feed.ChangeAdded
const ChangeModified = feed.ChangeModified
const ChangeDeleted = feed.ChangeDeleted
const ResourcePods = feed.ResourcePods
const ResourceNodes = feed.ResourceNodes
const ResourceNamespaces = feed.ResourceNamespaces
const ResourceDeployments = feed.ResourceDeployments
const ResourceReplicaSets = feed.ResourceReplicaSets
const ResourceDaemonSets = feed.ResourceDaemonSets
const ResourcePDBs = feed.ResourcePDBs
const ResourceServices = feed.ResourceServices
const ResourceEvents = feed.ResourceEvents

type Change = feed.Change

// FollowFeed: see core.Core.FollowFeed.
func (w *World) FollowFeed(c *model.Cluster) { w.core.FollowFeed(c) }

// SetFeedFollowed: see core.Core.SetFeedFollowed.
func (w *World) SetFeedFollowed(followed func(cluster string) bool) { w.core.SetFeedFollowed(followed) }

// Changes returns up to limit changes of c after resourceVersion after, rendered, and the
// resourceVersion a watch has then seen up to (feed.Window.Read).
func (w *World) Changes(c *model.Cluster, after int64, limit int) ([]Change, int64, error) {
	f := w.core.Feed(c)
	if f == nil {
		return nil, 0, model.KubeError(http.StatusServiceUnavailable, "ServiceUnavailable", "the control plane of cluster %s is not up yet", c.Name)
	}
	return f.Read(after, c.RV, limit)
}

// ExpiredError: see feed.ExpiredError.
func ExpiredError(rv int64, oldest int64) *model.Error { return feed.ExpiredError(rv, oldest) }

// CheckStart says whether the emulated clock may start at t (model.CheckStart).
func CheckStart(t time.Time) error { return model.CheckStart(t) }

// ChangesWaiter returns a channel that is closed when c's feed next publishes (or c goes).
func (w *World) ChangesWaiter(c *model.Cluster) <-chan struct{} {
	if f := w.core.Feed(c); f != nil {
		return f.Waiter()
	}
	closed := make(chan struct{})
	close(closed)
	return closed
}

// WatchWindow is the oldest resourceVersion a watch of c may start from and the newest.
func (w *World) WatchWindow(c *model.Cluster) (oldest int64, newest int64) {
	if f := w.core.Feed(c); f != nil {
		return f.Start(), c.RV
	}
	return c.RV, c.RV
}

// EventResourceVersions maps the event-log entries of c that the feed holds to their
// resourceVersions, and gives the oldest version it holds (older events stand at it).
func (w *World) EventResourceVersions(c *model.Cluster) (map[int64]int64, int64) {
	f := w.core.Feed(c)
	if f == nil {
		return map[int64]int64{}, c.RV
	}
	return f.Window.EventResourceVersions()
}

const KindStatefulSet = workloads.KindStatefulSet
const KindReplicaSet = workloads.KindReplicaSet
const KindJob = workloads.KindJob

// ListStatefulSets: see core.Core.ListStatefulSets.
func (w *World) ListStatefulSets(c *model.Cluster, o ListOptions) *appsv1.StatefulSetList {
	return w.workloads.ListStatefulSets(c, o)
}
