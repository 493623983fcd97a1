package model

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
	// Status is what the Deployment controller last reported (workloads/replicasets.go).
	Status        appsv1.DeploymentStatus     `json:"status"`
	ReplicaSets   map[string]*ReplicaSet      `json:"replicaSets,omitempty"`
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields,omitempty"`
	// ProgressCheck is when the controller next checks the progress deadline.
	ProgressCheck time.Time `json:"progressCheck,omitempty"`
	// Controller, when set, is the controller this workload stands in for in an imported
	// cluster (a StatefulSet, a Job ...; workloads/standins.go).
	Controller *ControllerRef `json:"controller,omitempty"`
	// Synced is what the status was last computed from. It is saved (as "Synced"), so that a
	// restored world skips the recomputations the original skips.
	Synced StatusInputs
	// key caches Key() (cachedKey).
	key string
	// spareConditions is the storage of the conditions before the current ones, which
	// NewConditions reuses (never saved, never handed out).
	spareConditions []appsv1.DeploymentCondition
}

// DesiredReplicas is spec.replicas (1 when unset, as the API server defaults it).
func (d *Deployment) DesiredReplicas() int {
	if d.Spec.Replicas == nil {
		return 1
	}
	return int(*d.Spec.Replicas)
}

// NewConditions returns the conditions avail and prog for the Deployment's next status, in the
// storage its conditions before the current ones had: the two alternate, so that a status pass
// that changes them allocates nothing. The caller stores the result in d.Status at once (its
// current conditions become the spare); everything that hands conditions out copies them
// (RenderDeployment deep-copies the status).
func (d *Deployment) NewConditions(avail, prog appsv1.DeploymentCondition) []appsv1.DeploymentCondition {
	out := d.spareConditions
	if cap(out) < 2 {
		out = make([]appsv1.DeploymentCondition, 2)
	}
	out = out[:2]
	out[0], out[1] = avail, prog
	d.spareConditions = d.Status.Conditions
	return out
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
func (d *Deployment) Key() string { return cachedKey(&d.key, d.Namespace, d.Name) }

// PodPhase is a pod's status.phase: the simulation's pods are Pending until their containers
// run, then Running. It is a byte in the pod, and its name in JSON.
type PodPhase uint8

const (
	PodPending PodPhase = iota + 1
	PodRunning
)

var podPhaseNames = [...]string{"", "Pending", "Running"}

// String is the phase's name, as the API shows it ("" for none).
func (ph PodPhase) String() string { return byteName(podPhaseNames[:], "PodPhase", ph) }

// MarshalJSON writes the phase's name.
func (ph PodPhase) MarshalJSON() ([]byte, error) { return json.Marshal(ph.String()) }

// UnmarshalJSON reads a phase's name.
func (ph *PodPhase) UnmarshalJSON(b []byte) (err error) {
	*ph, err = parseByteName[PodPhase](b, podPhaseNames[:], "pod phase", "one a simulated pod has (Pending, Running)")
	return err
}

// OwnerKind is the kind of a pod's controller: none (a bare pod), a Deployment or a DaemonSet.
// It is a byte in the pod, and its name in JSON.
type OwnerKind uint8

// Owner kinds.
const (
	OwnerDeployment OwnerKind = iota + 1
	OwnerDaemonSet
)

var ownerKindNames = [...]string{"", "Deployment", "DaemonSet"}

// String is the kind's name ("" for none).
func (k OwnerKind) String() string { return byteName(ownerKindNames[:], "OwnerKind", k) }

// MarshalJSON writes the kind's name.
func (k OwnerKind) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }

// UnmarshalJSON reads a kind's name.
func (k *OwnerKind) UnmarshalJSON(b []byte) (err error) {
	*k, err = parseByteName[OwnerKind](b, ownerKindNames[:], "pod owner kind", "one gkesim keeps (Deployment, DaemonSet, or none)")
	return err
}

// Pod is a Pod: owned by a Deployment (its spec is the owner's template), by one of GKE's
// system DaemonSets, or bare (its own spec).
//
// Its namespace and name are parts of its key (Namespace, Name): a pod keeps one string for the
// three, 32 bytes less than two more string headers would take (it is the simulation's most
// numerous object: 14 per node with GKE's DaemonSet pods). A saved pod does not repeat them:
// its key in the cluster's map of pods says them (Cluster.KeyPods).
type Pod struct {
	// UIDSalt is the random part of the pod's uid, which is derived from it, the cluster and
	// the pod's key when rendered (PodUID); LegacyUID is the uid states saved before kept, and
	// an imported pod's own.
	UIDSalt  uint32   `json:"uidSalt,omitempty"`
	Priority int32    `json:"priority,omitempty"`
	Phase    PodPhase `json:"phase"`
	Ready    bool     `json:"ready,omitempty"`
	// OwnerKind sits with the pod's other small fields, which keeps the pod smaller (its
	// controller's name is Owner).
	OwnerKind OwnerKind `json:"ownerKind,omitempty"`
	// Terminating pods are going: they keep their node's resources until GoneTime.
	Terminating bool `json:"terminating,omitempty"`
	// IP is the pod's address (with the small fields, in 4 bytes).
	IP         IP                `json:"ip,omitempty"`
	LegacyUID  string            `json:"uid,omitempty"`
	Owner      string            `json:"owner,omitempty"`
	Template   string            `json:"template,omitempty"`
	Spec       *corev1.PodSpec   `json:"spec,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Annotation map[string]string `json:"annotations,omitempty"`
	Node       string            `json:"node,omitempty"`
	// The pod's times are Stamps (8 bytes each, not a time.Time's 24); a zero one is written
	// as time.Time's zero, as it always was.
	CreateTime Stamp     `json:"createTime"`
	StartTime  Stamp     `json:"startTime"`
	ReadyTime  Stamp     `json:"readyTime"`
	Req        Resources `json:"req"`
	RV         int64     `json:"rv"`
	// key is namespace/name (KeyedPod, NewPod, Rename).
	key string
	// *PodRare holds what few pods have: nil for the others. Its fields are saved as the
	// pod's own; methods of the same names read them (as zero when there are none), so a
	// field cannot be read through a nil PodRare by mistake; Rarely and the setters write
	// them.
	*PodRare
}

// PodRare is what few pods have: a pending pod's messages, a bare pod's field owners, a
// terminating pod's times. Kept apart, a pod costs 176 bytes instead of 272; its fields are
// saved as the pod's own (the times only when set).
type PodRare struct {
	// DeletionTime is when a terminating pod was deleted; GoneTime when it goes. Stamps, as
	// the pod's own times are (saved as the times they are): every evicted pod has them.
	DeletionTime Stamp `json:"deletionTime,omitzero"`
	GoneTime     Stamp `json:"goneTime,omitzero"`
	// Unschedulable is the scheduler's last message for a pod it could not place.
	Unschedulable string `json:"unschedulable,omitempty"`
	// ScaleUpNote is why the autoscaler last could not help this pod.
	ScaleUpNote string `json:"scaleUpNote,omitempty"`
	// MountWait is why the kubelet cannot start the pod's containers yet: a ConfigMap or Secret
	// it mounts is missing (core/volumes.go).
	MountWait string `json:"mountWait,omitempty"`
	// ManagedFields are a bare pod's field owners (server-side apply).
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields,omitempty"`
	// Scheduler is the scheduler GKE gave the pod at its creation, when it differs from the
	// one its spec names: OptimizeUtilizationScheduler under that profile (R-CA-8).
	Scheduler string `json:"scheduler,omitempty"`
	// removed marks a pod taken out of its cluster (MarkRemoved), not saved: a removed pod
	// is in no saved state.
	removed bool
}

// Rarely is the pod's PodRare, made if it has none, to set one of its fields.
func (p *Pod) Rarely() *PodRare {
	switch p.PodRare {
	case nil:
		p.PodRare = &PodRare{}
	case &removedRare:
		p.PodRare = &PodRare{removed: true} // the shared mark is never written
	}
	return p.PodRare
}

// removedRare is the PodRare of a removed pod that had none: shared by all of them, so that
// marking a pod removed allocates nothing.
var removedRare = PodRare{removed: true}

// MarkRemoved marks a pod that has left its cluster's map of pods: taken out of it (core's
// removePod), put out of it by another pod given its key (core's AddPod), or left in the map of
// a cluster that is deleted. Nothing else takes a pod out of a cluster's map; a pod is never
// put back (a pod event's handle relies on both: Event.PodIn).
func (p *Pod) MarkRemoved() {
	if p.PodRare == nil || p.PodRare == &removedRare { // marked twice: the shared mark is never written
		p.PodRare = &removedRare
		return
	}
	p.PodRare.removed = true
}

// Removed says whether the pod has left its cluster (MarkRemoved).
func (p *Pod) Removed() bool { return p.PodRare != nil && p.PodRare.removed }

// rare is the pod's PodRare to read: a zero one, never written, when the pod has none.
func (p *Pod) rare() *PodRare {
	if p.PodRare != nil {
		return p.PodRare
	}
	return &noRare
}

var noRare PodRare

// tidy drops the pod's PodRare once nothing is set in it.
func (p *Pod) tidy() {
	if r := p.PodRare; r != nil && r.DeletionTime.IsZero() && r.GoneTime.IsZero() && r.Unschedulable == "" &&
		r.ScaleUpNote == "" && r.MountWait == "" && r.ManagedFields == nil && r.Scheduler == "" && !r.removed {
		p.PodRare = nil
	}
}

// KeyPods gives each pod of a decoded state its key, the one it has in the cluster's map of
// pods: a pod is saved without its namespace and name since format 5 (the map's key says
// them). An older state saved them with the pod, and they were its key's: gkesim files a pod
// under its own key.
func (c *Cluster) KeyPods() {
	for k, p := range c.Pods {
		if p != nil {
			p.key = k
		}
	}
}

// TidyPods drops the PodRare of pods that have nothing set in it (a state saved before zero times
// were left out holds a PodRare for every pod).
func (c *Cluster) TidyPods() {
	for _, p := range c.Pods {
		p.tidy()
	}
}

// DeletionTime is when a terminating pod was deleted (zero for the others).
func (p *Pod) DeletionTime() time.Time { return p.rare().DeletionTime.Time() }

// GoneTime is when a terminating pod goes (zero for the others).
func (p *Pod) GoneTime() time.Time { return p.rare().GoneTime.Time() }

// Unschedulable is the scheduler's last message for a pod it could not place ("" for the
// others).
func (p *Pod) Unschedulable() string { return p.rare().Unschedulable }

// setRare sets the field of the pod's PodRare that field picks to v when set, or else clears
// it, dropping the PodRare once nothing is set in it (tidy).
func setRare[T any](p *Pod, field func(*PodRare) *T, v T, set bool) {
	switch {
	case set:
		*field(p.Rarely()) = v
	case p.PodRare != nil && p.PodRare != &removedRare: // the shared mark has nothing set
		var zero T
		*field(p.PodRare) = zero
		p.tidy()
	}
}

// SetUnschedulable sets (or, with "", clears) the scheduler's message.
func (p *Pod) SetUnschedulable(msg string) {
	setRare(p, func(r *PodRare) *string { return &r.Unschedulable }, msg, msg != "")
}

// ScaleUpNote is why the autoscaler last could not help this pod ("" when it could).
func (p *Pod) ScaleUpNote() string { return p.rare().ScaleUpNote }

// SetScaleUpNote sets (or, with "", clears) the autoscaler's note.
func (p *Pod) SetScaleUpNote(note string) {
	setRare(p, func(r *PodRare) *string { return &r.ScaleUpNote }, note, note != "")
}

// MountWait is why the kubelet cannot start the pod's containers yet ("" when it can).
func (p *Pod) MountWait() string { return p.rare().MountWait }

// SetMountWait sets (or, with "", clears) why the kubelet waits.
func (p *Pod) SetMountWait(why string) {
	setRare(p, func(r *PodRare) *string { return &r.MountWait }, why, why != "")
}

// ManagedFields are a bare pod's field owners (nil for the others).
func (p *Pod) ManagedFields() []metav1.ManagedFieldsEntry { return p.rare().ManagedFields }

// SetManagedFields sets (or, with nil, clears) a bare pod's field owners.
func (p *Pod) SetManagedFields(mf []metav1.ManagedFieldsEntry) {
	setRare(p, func(r *PodRare) *[]metav1.ManagedFieldsEntry { return &r.ManagedFields }, mf, mf != nil)
}

// Scheduler is the scheduler GKE gave the pod when it differs from the one its spec names
// ("" for the others).
func (p *Pod) Scheduler() string { return p.rare().Scheduler }

// Clone is a copy of the pod that shares no memory with it (strings aside). A forecast's copy
// of the simulation takes the pods, most of a cluster's state, so: many times faster than
// through JSON (sim.World.Copy). TestPodCloneKnowsEveryField fails when a field is added that
// Clone would share.
func (p *Pod) Clone() *Pod {
	cp := *p
	cp.Spec = p.Spec.DeepCopy()
	cp.Labels = maps.Clone(p.Labels)
	cp.Annotation = maps.Clone(p.Annotation)
	if p.PodRare != nil {
		r := *p.PodRare
		r.ManagedFields = CloneManagedFields(r.ManagedFields)
		cp.PodRare = &r
	}
	return &cp
}

// OptimizeUtilizationScheduler is the scheduler GKE sets on pods that name none (or the
// default one) while the cluster's autoscaling profile is OPTIMIZE_UTILIZATION; it packs pods
// onto the most allocated nodes (R-CA-8).
const OptimizeUtilizationScheduler = "gke.io/optimize-utilization-scheduler"

// Packs says whether the pod's scheduler places it on the most allocated node that fits.
func (p *Pod) Packs() bool { return p.Scheduler() == OptimizeUtilizationScheduler }

// Key is namespace/name.
func (p *Pod) Key() string { return p.key }

// Namespace is the pod's namespace: its key before the slash.
func (p *Pod) Namespace() string {
	if i := strings.IndexByte(p.key, '/'); i >= 0 {
		return p.key[:i]
	}
	return ""
}

// Name is the pod's name: its key after the slash.
func (p *Pod) Name() string { return p.key[strings.IndexByte(p.key, '/')+1:] }

// Rename gives the pod the namespace and name of another key (an import sets a pod's fields
// one by one).
func (p *Pod) Rename(namespace, name string) { p.key = NamespacedKey(namespace, name) }

// PodUID is the pod's metadata.uid.
func PodUID(c *Cluster, p *Pod) string { return PodUIDIn(c.ID, p) }

// PodUIDIn is the metadata.uid of pod p of the cluster of that id. It writes nothing (not
// even p's cached key), so a watcher may render a pod's snapshot on its own goroutine.
func PodUIDIn(clusterID string, p *Pod) string {
	if p.LegacyUID != "" {
		return p.LegacyUID
	}
	var salt [4]byte
	binary.BigEndian.PutUint32(salt[:], p.UIDSalt)
	return UIDOf(clusterID, p.key, hex.EncodeToString(salt[:]))
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

// Resource names as the API server spells them in messages.
const (
	ResNamespaces  = "namespaces"
	ResDeployments = "deployments.apps"
	ResPods        = "pods"
	ResPDBs        = "poddisruptionbudgets.policy"
	ResNodes       = "nodes"
)

func RVString(rv int64) string { return strconv.FormatInt(rv, 10) }

// NamespaceFor checks that a namespace exists and takes objects.
func (c *Cluster) NamespaceFor(ns string) error {
	n := c.Namespaces[ns]
	if n == nil {
		return KubeNotFound(ResNamespaces, ns)
	}
	if n.Terminating {
		return KubeError(http.StatusForbidden, "Forbidden", "unable to create new content in namespace %s because it is being terminated", ns)
	}
	return nil
}

// StoredObject is one object of a stored kind.
type StoredObject struct {
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	RV        int64  `json:"rv"`
	// Object is the object's JSON, as served but for its resourceVersion.
	Object json.RawMessage `json:"object"`
}

// Key is namespace/name (name for cluster-scoped kinds).
func (o *StoredObject) Key() string { return StoredKey(o.Namespace, o.Name) }

func StoredKey(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func (c *Cluster) Stored(resource string) map[string]*StoredObject {
	if c.Objects == nil {
		c.Objects = map[string]map[string]*StoredObject{}
	}
	if c.Objects[resource] == nil {
		c.Objects[resource] = map[string]*StoredObject{}
	}
	return c.Objects[resource]
}

// Set stores obj's JSON.
func (o *StoredObject) Set(obj runtime.Object) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return KubeError(http.StatusInternalServerError, "InternalError", "encode %s %s: %v", o.Resource, o.Key(), err)
	}
	o.Object = raw
	return nil
}

// SafeChars is the alphabet Kubernetes uses for generated names (no vowels, no confusables).
const SafeChars = "bcdfghjklmnpqrstvwxz2456789"

// SetTemplate makes t the deployment's current template (a rollout if it changed).
func (d *Deployment) SetTemplate(t corev1.PodTemplateSpec) {
	hash := TemplateHash(&t)
	if d.Templates == nil {
		d.Templates = map[string]*corev1.PodTemplateSpec{}
	}
	if _, ok := d.Templates[hash]; !ok {
		tc := t.DeepCopy()
		if tc.Labels == nil {
			tc.Labels = map[string]string{}
		}
		tc.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
		d.Templates[hash] = tc
	}
	d.Current = hash
}

// TemplateCount counts a Deployment's pods of one template.
type TemplateCount struct{ All, Live, Ready int32 }

// StatusInputs are what a Deployment's status is computed from, but the time.
type StatusInputs struct {
	Generation                      int64
	Current                         string
	Replicas, Total, Updated, Ready int32
	Complete                        bool
}

// Name is the ReplicaSet's name: {deployment}-{pod-template-hash}.
func (rs *ReplicaSet) Name(d *Deployment) string { return d.Name + "-" + rs.Hash }

// DaemonSetState is what the DaemonSet controller last reported of one of GKE's DaemonSets.
type DaemonSetState struct {
	Name   string                 `json:"name"`
	RV     int64                  `json:"rv"`
	Status appsv1.DaemonSetStatus `json:"status"`
}

// OwnDaemonSets says whether the cluster runs DaemonSets of its own (an imported one) rather
// than GKE's built-in ones.
func (c *Cluster) OwnDaemonSets() bool { return c.Imported != nil }

// DaemonSet is one of an imported cluster's DaemonSets. A static one stands for the static pods
// the kubelet of every node runs from a manifest (kube-proxy on GKE): they are named
// PREFIX-NODE and their owner is the node.
type DaemonSet struct {
	Namespace   string               `json:"namespace"`
	Name        string               `json:"name"`
	UID         string               `json:"uid"`
	Labels      map[string]string    `json:"labels,omitempty"`
	Annotations map[string]string    `json:"annotations,omitempty"`
	Spec        appsv1.DaemonSetSpec `json:"spec"`
	Generation  int64                `json:"generation"`
	CreateTime  time.Time            `json:"createTime"`
	Static      bool                 `json:"static,omitempty"`
	// NodeNamed: its pods are named NAME-NODE (static pods, and kube-proxy as gkesim runs it).
	NodeNamed bool `json:"nodeNamed,omitempty"`
}

// Key is namespace/name.
func (d *DaemonSet) Key() string { return NamespacedKey(d.Namespace, d.Name) }

// RunsOn says whether the DaemonSet controller puts a pod of ds on a node with these labels and
// taints: its node selector and required node affinity match and it tolerates the taints (the
// controller's own tolerations, such as the cordon's, aside).
func (ds *DaemonSet) RunsOn(labels map[string]string, taints []corev1.Taint) bool {
	spec := &ds.Spec.Template.Spec
	if !SelectsNode(spec, labels, labels[LabelHostname]) {
		return false
	}
	for _, t := range taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule || t.Key == "node.kubernetes.io/unschedulable" || Tolerates(spec.Tolerations, t) {
			continue
		}
		return false
	}
	return true
}

// ControllerRef is the controller that owns a workload's pods when it is not a Deployment.
type ControllerRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	// Ordinals: the pods are NAME-0 .. NAME-(replicas-1) (a StatefulSet); Parallel: they are
	// created at once rather than each after the previous one is ready (podManagementPolicy).
	Ordinals bool `json:"ordinals,omitempty"`
	Parallel bool `json:"parallel,omitempty"`
	// Spec is the controller's spec as imported, echoed when the API lists it.
	Spec json.RawMessage `json:"spec,omitempty"`
}

func Tolerates(tols []corev1.Toleration, t corev1.Taint) bool {
	for _, tol := range tols {
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		switch {
		case tol.Operator == corev1.TolerationOpExists && (tol.Key == "" || tol.Key == t.Key):
			return true
		case tol.Key == t.Key && tol.Value == t.Value:
			return true
		}
	}
	return false
}

// LabelHostname is the node label that names the node: the one label that differs between
// nodes alike (core's scheduler groups them), which pods pin a node by.
const LabelHostname = "kubernetes.io/hostname"

// MatchesNodeSelector evaluates required node affinity terms (ORed; a term with no requirement
// matches no node) against a node's labels and name, as kube-scheduler's NodeAffinity does:
// In, NotIn, Exists, DoesNotExist, Gt and Lt on labels, and matchFields on metadata.name.
func MatchesNodeSelector(ns *corev1.NodeSelector, lbls map[string]string, name string) bool {
	for i := range ns.NodeSelectorTerms {
		if NodeSelectorTermMatches(&ns.NodeSelectorTerms[i], lbls, name) {
			return true
		}
	}
	return false
}

// NodeSelectorTermMatches says whether every requirement of one term holds for a node.
func NodeSelectorTermMatches(term *corev1.NodeSelectorTerm, lbls map[string]string, name string) bool {
	if len(term.MatchExpressions)+len(term.MatchFields) == 0 {
		return false
	}
	for _, e := range term.MatchExpressions {
		v, has := lbls[e.Key]
		if !requirementHolds(e, v, has) {
			return false
		}
	}
	for _, e := range term.MatchFields {
		if e.Key != "metadata.name" || !requirementHolds(e, name, true) {
			return false
		}
	}
	return true
}

func requirementHolds(e corev1.NodeSelectorRequirement, v string, has bool) bool {
	switch e.Operator {
	case corev1.NodeSelectorOpIn:
		return has && slices.Contains(e.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !(has && slices.Contains(e.Values, v))
	case corev1.NodeSelectorOpExists:
		return has
	case corev1.NodeSelectorOpDoesNotExist:
		return !has
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !has || len(e.Values) != 1 {
			return false
		}
		got, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(e.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return (e.Operator == corev1.NodeSelectorOpGt && got > want) || (e.Operator == corev1.NodeSelectorOpLt && got < want)
	}
	return false
}

// SelectsNode says whether a pod spec's node selector and required node affinity accept a
// node with these labels and name.
func SelectsNode(spec *corev1.PodSpec, lbls map[string]string, name string) bool {
	for k, v := range spec.NodeSelector {
		if lbls[k] != v {
			return false
		}
	}
	a := spec.Affinity
	return a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil ||
		MatchesNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, lbls, name)
}

// SelectsByName says whether a pod spec's node selection depends on which node it is, not
// only on what kind (the hostname label, or matchFields on the node's name).
func SelectsByName(spec *corev1.PodSpec) bool {
	if _, ok := spec.NodeSelector[LabelHostname]; ok {
		return true
	}
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return false
	}
	byName := func(t *corev1.NodeSelectorTerm) bool {
		return len(t.MatchFields) > 0 || slices.ContainsFunc(t.MatchExpressions, func(e corev1.NodeSelectorRequirement) bool { return e.Key == LabelHostname })
	}
	if r := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		for i := range r.NodeSelectorTerms {
			if byName(&r.NodeSelectorTerms[i]) {
				return true
			}
		}
	}
	for i := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		if byName(&a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].Preference) {
			return true
		}
	}
	return false
}

// PreferredAffinityScore is the sum of the weights of a pod's preferred node affinity terms
// that a node matches, as kube-scheduler's NodeAffinity plugin scores it.
func PreferredAffinityScore(spec *corev1.PodSpec, lbls map[string]string, name string) int {
	a := spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return 0
	}
	score := 0
	for i := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		t := &a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i]
		if NodeSelectorTermMatches(&t.Preference, lbls, name) {
			score += int(t.Weight)
		}
	}
	return score
}
