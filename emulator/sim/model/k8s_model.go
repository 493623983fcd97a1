package model

import (
	"encoding/binary"
	"encoding/hex"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Resources is an amount of the two resources the scheduler packs.
type Resources struct {
	MilliCPU    int64 `json:"milliCpu"`
	MemoryBytes int64 `json:"memoryBytes"`
}

func (r Resources) Add(o Resources) Resources {
	return Resources{r.MilliCPU + o.MilliCPU, r.MemoryBytes + o.MemoryBytes}
}

func (r Resources) Sub(o Resources) Resources {
	return Resources{r.MilliCPU - o.MilliCPU, r.MemoryBytes - o.MemoryBytes}
}

func (r Resources) Fits(free Resources) bool {
	return r.MilliCPU <= free.MilliCPU && r.MemoryBytes <= free.MemoryBytes
}

// Namespace is a Kubernetes namespace.
type Namespace struct {
	Name       string            `json:"name"`
	UID        string            `json:"uid"`
	Labels     map[string]string `json:"labels,omitempty"`
	CreateTime time.Time         `json:"createTime"`
	RV         int64             `json:"rv"`
	// Terminating namespaces are being deleted with their objects.
	Terminating   bool                        `json:"terminating,omitempty"`
	Annotations   map[string]string           `json:"annotations,omitempty"`
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// Deployment is an apps/v1 Deployment; its ReplicaSets are folded in: Templates holds the pod
// templates that still have pods, by pod-template-hash, and ReplicaSets every ReplicaSet the
// API shows (those with pods, and the retired ones kept for the rollout history).
type Deployment struct {
	Namespace   string                             `json:"namespace"`
	Name        string                             `json:"name"`
	UID         string                             `json:"uid"`
	Labels      map[string]string                  `json:"labels,omitempty"`
	Annotations map[string]string                  `json:"annotations,omitempty"`
	Spec        appsv1.DeploymentSpec              `json:"spec"`
	Generation  int64                              `json:"generation"`
	CreateTime  time.Time                          `json:"createTime"`
	RV          int64                              `json:"rv"`
	Current     string                             `json:"current"`
	Templates   map[string]*corev1.PodTemplateSpec `json:"templates"`
	// System marks the kube-system Deployments GKE runs in every cluster.
	System bool `json:"system,omitempty"`
	// Status is what the Deployment controller last reported (replicasets.go).
	Status        appsv1.DeploymentStatus     `json:"status"`
	ReplicaSets   map[string]*ReplicaSet      `json:"replicaSets,omitempty"`
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields,omitempty"`
	// ProgressCheck is when the controller next checks the progress deadline.
	ProgressCheck time.Time `json:"progressCheck,omitempty"`
	// Controller, when set, is the controller this workload stands in for in an imported
	// cluster (a StatefulSet, a Job ...; workloads/standins.go).
	Controller *ControllerRef `json:"controller,omitempty"`
	// synced is what the status was last computed from (not saved: a restored world computes
	// it once again, to the same status).
	Synced StatusInputs
}

// ReplicaSet is one of a Deployment's ReplicaSets: the pods of one pod template.
type ReplicaSet struct {
	// Deployment is the owner's key (namespace/name); Hash its pod-template-hash.
	Deployment string    `json:"deployment"`
	Hash       string    `json:"hash"`
	Revision   int64     `json:"revision"`
	CreateTime time.Time `json:"createTime"`
	RV         int64     `json:"rv"`
	Generation int64     `json:"generation"`
	// Replicas is spec.replicas as the controller scales it; Status as it reports it.
	Replicas int32                   `json:"replicas"`
	Status   appsv1.ReplicaSetStatus `json:"status"`
	// Template is the pod template (shared with Deployment.Templates while it has pods).
	Template *corev1.PodTemplateSpec `json:"template"`
	// Annotations are those the controller copied from the Deployment at the revision.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Key is namespace/name.
func (d *Deployment) Key() string { return NamespacedKey(d.Namespace, d.Name) }

// Pod phases and owner kinds.
const (
	PodPending = "Pending"
	PodRunning = "Running"

	OwnerDeployment = "Deployment"
	OwnerDaemonSet  = "DaemonSet"
)

// Pod is a Pod: owned by a Deployment (its spec is the owner's template), by one of GKE's
// system DaemonSets, or bare (its own spec).
type Pod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// UIDSalt is the random part of the pod's uid, which is derived from it, the cluster and
	// the pod's key when rendered (PodUID); LegacyUID is the uid states saved before kept.
	UIDSalt    uint32            `json:"uidSalt,omitempty"`
	LegacyUID  string            `json:"uid,omitempty"`
	OwnerKind  string            `json:"ownerKind,omitempty"`
	Owner      string            `json:"owner,omitempty"`
	Template   string            `json:"template,omitempty"`
	Spec       *corev1.PodSpec   `json:"spec,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Annotation map[string]string `json:"annotations,omitempty"`
	Node       string            `json:"node,omitempty"`
	Phase      string            `json:"phase"`
	Ready      bool              `json:"ready,omitempty"`
	CreateTime time.Time         `json:"createTime"`
	StartTime  time.Time         `json:"startTime,omitempty"`
	ReadyTime  time.Time         `json:"readyTime,omitempty"`
	// Terminating pods are going: they keep their node's resources until GoneTime.
	Terminating  bool      `json:"terminating,omitempty"`
	DeletionTime time.Time `json:"deletionTime,omitempty"`
	GoneTime     time.Time `json:"goneTime,omitempty"`
	// Unschedulable is the scheduler's last message for a pod it could not place.
	Unschedulable string `json:"unschedulable,omitempty"`
	IP            string `json:"ip,omitempty"`
	// ScaleUpNote is why the autoscaler last could not help this pod.
	ScaleUpNote string    `json:"scaleUpNote,omitempty"`
	Req         Resources `json:"req"`
	Priority    int32     `json:"priority,omitempty"`
	RV          int64     `json:"rv"`
	// MountWait is why the kubelet cannot start the pod's containers yet: a ConfigMap or Secret
	// it mounts is missing (core/volumes.go).
	MountWait string `json:"mountWait,omitempty"`
	// ManagedFields are a bare pod's field owners (server-side apply).
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields,omitempty"`
	// Scheduler is the scheduler GKE gave the pod at its creation, when it differs from the
	// one its spec names: OptimizeUtilizationScheduler under that profile (R-CA-8).
	Scheduler string `json:"scheduler,omitempty"`
}

// OptimizeUtilizationScheduler is the scheduler GKE sets on pods that name none (or the
// default one) while the cluster's autoscaling profile is OPTIMIZE_UTILIZATION; it packs pods
// onto the most allocated nodes (R-CA-8).
const OptimizeUtilizationScheduler = "gke.io/optimize-utilization-scheduler"

// Packs says whether the pod's scheduler places it on the most allocated node that fits.
func (p *Pod) Packs() bool { return p.Scheduler == OptimizeUtilizationScheduler }

// Key is namespace/name.
func (p *Pod) Key() string { return NamespacedKey(p.Namespace, p.Name) }

// PodUID is the pod's metadata.uid.
func PodUID(c *Cluster, p *Pod) string {
	if p.LegacyUID != "" {
		return p.LegacyUID
	}
	var salt [4]byte
	binary.BigEndian.PutUint32(salt[:], p.UIDSalt)
	return UIDOf(c.ID, p.Key(), hex.EncodeToString(salt[:]))
}

// PDB is a policy/v1 PodDisruptionBudget.
type PDB struct {
	Namespace   string                           `json:"namespace"`
	Name        string                           `json:"name"`
	UID         string                           `json:"uid"`
	Labels      map[string]string                `json:"labels,omitempty"`
	Annotations map[string]string                `json:"annotations,omitempty"`
	Spec        policyv1.PodDisruptionBudgetSpec `json:"spec"`
	Generation  int64                            `json:"generation"`
	CreateTime  time.Time                        `json:"createTime"`
	RV          int64                            `json:"rv"`
	// Status is what the disruption controller last reported.
	Status        policyv1.PodDisruptionBudgetStatus `json:"status"`
	ManagedFields []metav1.ManagedFieldsEntry        `json:"managedFields,omitempty"`
}

// Key is namespace/name.
func (b *PDB) Key() string { return NamespacedKey(b.Namespace, b.Name) }

// NextRV advances the cluster's resourceVersion counter and returns it.
func (c *Cluster) NextRV() int64 {
	c.RV++
	return c.RV
}

// SortedKeys lists a map's keys in order, for deterministic iteration.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
