package sim

import (
	"encoding/binary"
	"encoding/hex"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The Kubernetes objects of a cluster: namespaces, Deployments, their Pods, bare Pods,
// PodDisruptionBudgets. Specs are kept as the Kubernetes API types users send (so kubectl and
// the provider read back what they wrote); what the simulation needs from them is derived.

// Resources is an amount of the two resources the scheduler packs.
type Resources struct {
	MilliCPU    int64 `json:"milliCpu"`
	MemoryBytes int64 `json:"memoryBytes"`
}

func (r Resources) add(o Resources) Resources {
	return Resources{r.MilliCPU + o.MilliCPU, r.MemoryBytes + o.MemoryBytes}
}

func (r Resources) sub(o Resources) Resources {
	return Resources{r.MilliCPU - o.MilliCPU, r.MemoryBytes - o.MemoryBytes}
}

func (r Resources) fits(free Resources) bool {
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
	// cluster (a StatefulSet, a Job ...; workloads_other.go).
	Controller *ControllerRef `json:"controller,omitempty"`
	// synced is what the status was last computed from (not saved: a restored world computes
	// it once again, to the same status).
	synced statusInputs
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
func (d *Deployment) Key() string { return d.Namespace + "/" + d.Name }

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
	// it mounts is missing (volumes.go).
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

// packs says whether the pod's scheduler places it on the most allocated node that fits.
func (p *Pod) packs() bool { return p.Scheduler == OptimizeUtilizationScheduler }

// Key is namespace/name.
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// PodUID is the pod's metadata.uid.
func PodUID(c *Cluster, p *Pod) string {
	if p.LegacyUID != "" {
		return p.LegacyUID
	}
	var salt [4]byte
	binary.BigEndian.PutUint32(salt[:], p.UIDSalt)
	return uidOf(c.ID, p.Key(), hex.EncodeToString(salt[:]))
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
func (b *PDB) Key() string { return b.Namespace + "/" + b.Name }

// k8sIndex holds a cluster's derived indexes over its Kubernetes objects. It is rebuilt from
// the state on first use (after a restore) and kept up to date by every change.
type k8sIndex struct {
	// podsOnNode: node name -> pods bound to it, by namespace and name.
	podsOnNode map[string]podList
	// workload: node name -> requests and number of the pods bound to it that are not
	// DaemonSet pods (what the autoscaler weighs a node by).
	workload map[string]nodeLoad
	// requested: node name -> resources requested by the pods bound to it (terminating ones
	// included until they are gone, as the kubelet does).
	requested map[string]Resources
	// podsOf: deployment key -> its pods.
	podsOf map[string]map[*Pod]struct{}
	// tmplCounts: deployment key -> template -> how many of its pods there are, live (not
	// terminating) and ready, so that a controller pass and a status update count without
	// walking every pod.
	tmplCounts map[string]map[string]*templateCount
	// pending: pods waiting for the scheduler.
	pending podSet
	// selectors: compiled label selectors of PDBs and deployments, by object.
	selectors map[any]labels.Selector
	// sched is the scheduler's view of the nodes.
	sched *schedIndex
	// scheduleQueued says a scheduling pass is already scheduled for this instant.
	scheduleQueued bool
	// syncQueued: deployments with a controller pass already scheduled.
	syncQueued map[string]bool
}

// podIndex returns the Kubernetes index of c, building it if needed.
func (w *World) podIndex(c *Cluster) *k8sIndex {
	if w.k8s == nil {
		w.k8s = map[*Cluster]*k8sIndex{}
	}
	if ix, ok := w.k8s[c]; ok {
		return ix
	}
	ix := &k8sIndex{
		podsOnNode: map[string]podList{}, workload: map[string]nodeLoad{}, requested: map[string]Resources{},
		podsOf: map[string]map[*Pod]struct{}{}, tmplCounts: map[string]map[string]*templateCount{}, pending: newPodSet(),
		selectors: map[any]labels.Selector{}, syncQueued: map[string]bool{},
	}
	w.k8s[c] = ix
	for _, p := range c.Pods {
		ix.track(p)
	}
	// The "already queued" marks mirror the event queue: rebuilt from it, a restored world
	// queues exactly the passes the original would have.
	w.queuedFor(c, func(ev Event) {
		switch ev.Kind {
		case evSchedule:
			ix.scheduleQueued = true
		case evDeploymentSync:
			ix.syncQueued[ev.Node] = true
		}
	})
	ix.sched = w.buildSchedIndex(c, ix)
	return ix
}

// track adds a pod to the indexes.
func (ix *k8sIndex) track(p *Pod) {
	if p.Node != "" {
		ix.bind(p)
	} else if !p.Terminating {
		ix.pending.add(p)
	}
	if p.OwnerKind == OwnerDeployment {
		key := p.Namespace + "/" + p.Owner
		if ix.podsOf[key] == nil {
			ix.podsOf[key] = map[*Pod]struct{}{}
		}
		ix.podsOf[key][p] = struct{}{}
		ix.countTemplate(p, 1)
	}
}

// countTemplate adds (sign 1) or takes away (sign -1) what a deployment pod counts for in its
// template's counts, as it is now. A change of the pod's state is counted by taking it away
// before the change and adding it after.
func (ix *k8sIndex) countTemplate(p *Pod, sign int32) {
	if p.OwnerKind != OwnerDeployment {
		return
	}
	key := p.Namespace + "/" + p.Owner
	byTmpl := ix.tmplCounts[key]
	if byTmpl == nil {
		byTmpl = map[string]*templateCount{}
		ix.tmplCounts[key] = byTmpl
	}
	t := byTmpl[p.Template]
	if t == nil {
		t = &templateCount{}
		byTmpl[p.Template] = t
	}
	t.all += sign
	if !p.Terminating {
		t.live += sign
		if p.Ready {
			t.ready += sign
		}
	}
	if t.all == 0 {
		delete(byTmpl, p.Template)
		if len(byTmpl) == 0 {
			delete(ix.tmplCounts, key)
		}
	}
}

func (ix *k8sIndex) bind(p *Pod) {
	ix.podsOnNode[p.Node] = ix.podsOnNode[p.Node].insert(p)
	ix.requested[p.Node] = ix.requested[p.Node].add(p.Req)
	if p.OwnerKind != OwnerDaemonSet {
		l := ix.workload[p.Node]
		ix.workload[p.Node] = nodeLoad{l.req.add(p.Req), l.pods + 1}
	}
}

// nodeLoad is what a node's pods other than DaemonSet pods request, and how many they are.
type nodeLoad struct {
	req  Resources
	pods int
}

// untrack removes a pod from the indexes.
func (ix *k8sIndex) untrack(p *Pod) {
	ix.pending.remove(p)
	if p.Node != "" {
		ix.podsOnNode[p.Node] = ix.podsOnNode[p.Node].remove(p)
		ix.requested[p.Node] = ix.requested[p.Node].sub(p.Req)
		if p.OwnerKind != OwnerDaemonSet {
			l := ix.workload[p.Node]
			if l.pods == 1 {
				delete(ix.workload, p.Node)
			} else {
				ix.workload[p.Node] = nodeLoad{l.req.sub(p.Req), l.pods - 1}
			}
		}
	}
	if p.OwnerKind == OwnerDeployment {
		delete(ix.podsOf[p.Namespace+"/"+p.Owner], p)
		ix.countTemplate(p, -1)
	}
}

// sortedPods orders a pod set by name, for deterministic iteration.
// podList is a list of pods kept in namespace and name order: walking it is deterministic
// without sorting it.
type podList []*Pod

func comparePods(a, b *Pod) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

func (l podList) insert(p *Pod) podList {
	i, found := slices.BinarySearchFunc(l, p, comparePods)
	if found {
		l[i] = p
		return l
	}
	return slices.Insert(l, i, p)
}

func (l podList) remove(p *Pod) podList {
	if i, found := slices.BinarySearchFunc(l, p, comparePods); found && l[i] == p {
		return slices.Delete(l, i, i+1)
	}
	return l
}

func sortedPods(set map[*Pod]struct{}) []*Pod {
	out := make([]*Pod, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.SortFunc(out, comparePods)
	return out
}

// nextRV advances the cluster's resourceVersion counter and returns it.
func (c *Cluster) nextRV() int64 {
	c.RV++
	return c.RV
}

// sortedKeys lists a map's keys in order, for deterministic iteration.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// podSet is a set of pods that stays as small as it is: a Go map keeps the buckets of its
// largest size, and walking it costs that much, so the set starts a fresh map once it has
// shrunk to a quarter of its peak (150,000 pods pending at a cluster's creation would otherwise
// make every later scheduling pass walk 150,000 empty slots).
type podSet struct {
	m    map[*Pod]struct{}
	peak int
}

func newPodSet() podSet { return podSet{m: map[*Pod]struct{}{}} }

func (s *podSet) add(p *Pod) {
	s.m[p] = struct{}{}
	s.peak = max(s.peak, len(s.m))
}

func (s *podSet) remove(p *Pod) {
	delete(s.m, p)
	if s.peak >= 1024 && len(s.m) < s.peak/4 {
		m := make(map[*Pod]struct{}, len(s.m))
		for q := range s.m {
			m[q] = struct{}{}
		}
		s.m, s.peak = m, len(m)
	}
}

func (s *podSet) len() int { return len(s.m) }
