package sim

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The Kubernetes-shaped API of a cluster: namespaces, Deployments (and their scale), Pods,
// PodDisruptionBudgets and evictions, with the API server's validation (422 Invalid), conflict
// (409 on a stale resourceVersion) and not-found semantics.

// ListOptions filter a list.
type ListOptions struct {
	Namespace string // "" = all namespaces
	Labels    labels.Selector
	// NodeName and Phase are the field selectors kubectl uses (spec.nodeName, status.phase).
	NodeName, Phase string
}

func (o ListOptions) matches(ns string, lbls map[string]string) bool {
	return (o.Namespace == "" || o.Namespace == ns) && (o.Labels == nil || o.Labels.Matches(labels.Set(lbls)))
}

// checkRV enforces optimistic concurrency: a request carrying a resourceVersion must carry the
// current one.
func checkRV(sent string, current int64, resource, name string) error {
	if sent != "" && sent != model.RvString(current) {
		return model.KubeConflict(resource, name)
	}
	return nil
}

// ---- Namespaces ----

func (w *World) renderNamespace(n *model.Namespace) *corev1.Namespace {
	phase := corev1.NamespaceActive
	if n.Terminating {
		phase = corev1.NamespaceTerminating
	}
	return &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: types.UID(n.UID), ResourceVersion: model.RvString(n.RV),
			CreationTimestamp: metav1.NewTime(n.CreateTime), Labels: maps.Clone(n.Labels), Annotations: maps.Clone(n.Annotations),
			ManagedFields: cloneManagedFields(n.ManagedFields)},
		Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: phase},
	}
}

// ListNamespaces lists a cluster's namespaces by name.
func (w *World) ListNamespaces(c *model.Cluster) *corev1.NamespaceList {
	out := &corev1.NamespaceList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NamespaceList"}, ListMeta: metav1.ListMeta{ResourceVersion: model.RvString(c.RV)}}
	names := make([]string, 0, len(c.Namespaces))
	for n := range c.Namespaces {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out.Items = append(out.Items, *w.renderNamespace(c.Namespaces[n]))
	}
	return out
}

func (w *World) GetNamespace(c *model.Cluster, name string) (*corev1.Namespace, error) {
	n := c.Namespaces[name]
	if n == nil {
		return nil, model.KubeNotFound(model.ResNamespaces, name)
	}
	return w.renderNamespace(n), nil
}

func (w *World) CreateNamespace(c *model.Cluster, in *corev1.Namespace) (*corev1.Namespace, error) {
	in = in.DeepCopy()
	w.generateName(&in.ObjectMeta)
	if errs := validateNamespace(in); len(errs) > 0 {
		return nil, kubeInvalidErrs("Namespace", in.Name, errs)
	}
	if c.Namespaces[in.Name] != nil {
		return nil, model.KubeAlreadyExists(model.ResNamespaces, in.Name)
	}
	lbls := map[string]string{"kubernetes.io/metadata.name": in.Name}
	for k, v := range in.Labels {
		lbls[k] = v
	}
	n := &model.Namespace{Name: in.Name, UID: model.UidOf(c.ID, "ns", in.Name, w.engine.RandHex(8)), Labels: lbls, Annotations: in.Annotations,
		CreateTime: w.st.Now, ManagedFields: in.ManagedFields}
	c.Namespaces[n.Name] = n
	w.touchObject(c, n, true)
	w.createDefaultServiceAccount(c, n.Name)
	w.engine.Record("NamespaceCreated", c, "", "", "", "namespace %s created", n.Name)
	return w.renderNamespace(n), nil
}

// UpdateNamespace replaces a namespace's labels and annotations (PUT; PATCH goes through it).
func (w *World) UpdateNamespace(c *model.Cluster, name string, in *corev1.Namespace) (*corev1.Namespace, error) {
	n := c.Namespaces[name]
	if n == nil {
		return nil, model.KubeNotFound(model.ResNamespaces, name)
	}
	if in.Name != "" && in.Name != name {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", in.Name, name)
	}
	if err := checkRV(in.ResourceVersion, n.RV, model.ResNamespaces, name); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	in.Name = name
	if errs := validateNamespace(in); len(errs) > 0 {
		return nil, kubeInvalidErrs("Namespace", name, errs)
	}
	lbls := map[string]string{"kubernetes.io/metadata.name": name} // the API server keeps it
	for k, v := range in.Labels {
		if k != "kubernetes.io/metadata.name" {
			lbls[k] = v
		}
	}
	if maps.Equal(lbls, n.Labels) && maps.Equal(in.Annotations, n.Annotations) && equalJSON(in.ManagedFields, n.ManagedFields) {
		return w.renderNamespace(n), nil
	}
	n.Labels, n.Annotations, n.ManagedFields = lbls, in.Annotations, in.ManagedFields
	w.touchObject(c, n, false)
	return w.renderNamespace(n), nil
}

// DeleteNamespace deletes a namespace and everything in it.
func (w *World) DeleteNamespace(c *model.Cluster, name string) (*corev1.Namespace, error) {
	n := c.Namespaces[name]
	if n == nil {
		return nil, model.KubeNotFound(model.ResNamespaces, name)
	}
	for _, sys := range systemNamespaces {
		if name == sys {
			return nil, model.KubeError(http.StatusForbidden, "Forbidden", "namespaces %q is forbidden: this namespace may not be deleted", name)
		}
	}
	// In name order, so that the event log is the same on every run.
	for _, key := range model.SortedKeys(c.Deployments) {
		if d := c.Deployments[key]; d.Namespace == name {
			w.deleteDeployment(c, d)
		}
	}
	w.deleteServicesIn(c, name)
	for _, key := range model.SortedKeys(c.PDBs) {
		if b := c.PDBs[key]; b.Namespace == name {
			w.objectRemoved(c, b)
			w.forgetPDB(c, b)
			delete(c.PDBs, key)
		}
	}
	for _, key := range model.SortedKeys(c.Pods) {
		if p := c.Pods[key]; p != nil && p.Namespace == name {
			w.terminatePod(c, p, graceOf(w.podSpec(c, p), 0))
		}
	}
	w.deleteStoredIn(c, name)
	w.objectRemoved(c, n)
	delete(c.Namespaces, name)
	w.engine.Record("NamespaceDeleted", c, "", "", "", "namespace %s deleted", name)
	return w.renderNamespace(n), nil
}

// ---- Deployments ----

func (w *World) renderDeployment(c *model.Cluster, d *model.Deployment) *appsv1.Deployment {
	spec := *d.Spec.DeepCopy()
	if t := d.Templates[d.Current]; len(spec.Template.Spec.Containers) == 0 && t != nil {
		// GKE's system Deployments keep their pod template only among the ReplicaSet templates.
		spec.Template = *t.DeepCopy()
		delete(spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	}
	revision := d.Generation
	if rs := d.ReplicaSets[d.Current]; rs != nil {
		revision = rs.Revision
	}
	return &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: d.Namespace, UID: types.UID(d.UID), ResourceVersion: model.RvString(d.RV),
			Generation: d.Generation, CreationTimestamp: metav1.NewTime(d.CreateTime), Labels: maps.Clone(d.Labels),
			Annotations: withRevision(d.Annotations, revision), ManagedFields: cloneManagedFields(d.ManagedFields)},
		Spec:   spec,
		Status: *d.Status.DeepCopy(),
	}
}

func withRevision(a map[string]string, rev int64) map[string]string {
	out := map[string]string{annotationRevision: strconv.FormatInt(rev, 10)}
	for k, v := range a {
		if k != annotationRevision {
			out[k] = v
		}
	}
	return out
}

// cloneManagedFields copies an object's field owners.
func cloneManagedFields(mf []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	if len(mf) == 0 {
		return nil
	}
	out := make([]metav1.ManagedFieldsEntry, len(mf))
	for i := range mf {
		mf[i].DeepCopyInto(&out[i])
	}
	return out
}

// defaultDeployment fills the API server's defaults.
func defaultDeployment(d *appsv1.Deployment) {
	if d.Spec.Replicas == nil {
		one := int32(1)
		d.Spec.Replicas = &one
	}
	if d.Spec.Strategy.Type == "" {
		d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType && d.Spec.Strategy.RollingUpdate == nil {
		q := intstr.FromString("25%")
		d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &q, MaxUnavailable: &q}
	}
	if d.Spec.RevisionHistoryLimit == nil {
		ten := int32(10)
		d.Spec.RevisionHistoryLimit = &ten
	}
	if d.Spec.ProgressDeadlineSeconds == nil {
		p := int32(600)
		d.Spec.ProgressDeadlineSeconds = &p
	}
	defaultPodSpec(&d.Spec.Template.Spec)
}

// ListDeployments lists Deployments by namespace and name.
func (w *World) ListDeployments(c *model.Cluster, o ListOptions) *appsv1.DeploymentList {
	out := &appsv1.DeploymentList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DeploymentList"}, ListMeta: metav1.ListMeta{ResourceVersion: model.RvString(c.RV)}}
	keys := make([]string, 0, len(c.Deployments))
	for k, d := range c.Deployments {
		if d.Controller == nil && o.matches(d.Namespace, d.Labels) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out.Items = make([]appsv1.Deployment, 0, len(keys))
	for _, k := range keys {
		out.Items = append(out.Items, *w.renderDeployment(c, c.Deployments[k]))
	}
	return out
}

func (w *World) deployment(c *model.Cluster, ns, name string) (*model.Deployment, error) {
	d := c.Deployments[ns+"/"+name]
	if d == nil {
		return nil, model.KubeNotFound(model.ResDeployments, name)
	}
	return d, nil
}

func (w *World) GetDeployment(c *model.Cluster, ns, name string) (*appsv1.Deployment, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	return w.renderDeployment(c, d), nil
}

// CreateDeployment creates a Deployment; its pods are created by the controller right after.
func (w *World) CreateDeployment(c *model.Cluster, ns string, in *appsv1.Deployment) (*appsv1.Deployment, error) {
	if in.Namespace != "" && in.Namespace != ns {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request")
	}
	if err := c.NamespaceFor(ns); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	w.generateName(&in.ObjectMeta)
	defaultDeployment(in)
	if errs := validateDeployment(in, ns); len(errs) > 0 {
		return nil, kubeInvalidErrs("Deployment.apps", in.Name, errs)
	}
	if c.Deployments[ns+"/"+in.Name] != nil {
		return nil, model.KubeAlreadyExists(model.ResDeployments, in.Name)
	}
	if err := w.checkExtended(c, "Deployment.apps", in.Name, &in.Spec.Template.Spec, in.Spec.Template.Annotations, ""); err != nil {
		return nil, err
	}
	d := &model.Deployment{Namespace: ns, Name: in.Name, UID: model.UidOf(c.ID, "deploy", ns, in.Name, w.engine.RandHex(8)), Labels: in.Labels,
		Annotations: in.Annotations, Spec: in.Spec, Generation: 1, CreateTime: w.st.Now, ManagedFields: in.ManagedFields}
	c.Deployments[d.Key()] = d
	w.touchObject(c, d, true)
	w.rollOut(c, d, in.Spec.Template)
	w.engine.Record("DeploymentCreated", c, "", "", "", "deployment %s created: %d replicas of %s", d.Key(), replicasOf(d), describeRequests(in.Spec.Template.Spec))
	w.queueSync(c, d.Key())
	return w.renderDeployment(c, d), nil
}

func describeRequests(spec corev1.PodSpec) string {
	r := effectiveRequests(&spec)
	return fmt.Sprintf("%dm CPU, %dMi memory", r.MilliCPU, r.MemoryBytes>>20)
}

// UpdateDeployment replaces a Deployment's spec, labels and annotations (PUT).
func (w *World) UpdateDeployment(c *model.Cluster, ns, name string, in *appsv1.Deployment) (*appsv1.Deployment, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	if in.Name != "" && in.Name != name {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", in.Name, name)
	}
	if err := checkRV(in.ResourceVersion, d.RV, model.ResDeployments, name); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	in.Name = name
	defaultDeployment(in)
	if errs := validateDeployment(in, ns); len(errs) > 0 {
		return nil, kubeInvalidErrs("Deployment.apps", name, errs)
	}
	if err := w.checkExtended(c, "Deployment.apps", name, &in.Spec.Template.Spec, in.Spec.Template.Annotations, d.Key()); err != nil {
		return nil, err
	}
	if sel, _ := metav1.LabelSelectorAsSelector(in.Spec.Selector); sel.String() != w.selectorOf(c, d, d.Spec.Selector).String() {
		return nil, model.KubeInvalid("Deployment.apps", name, "spec.selector: Invalid value: "+sel.String()+": field is immutable")
	}
	if !equalJSON(in.Spec, d.Spec) {
		d.Generation++
	}
	before := d.Current
	d.Spec, d.Labels, d.Annotations, d.ManagedFields = in.Spec, in.Labels, in.Annotations, in.ManagedFields
	w.touchObject(c, d, false)
	w.rollOut(c, d, in.Spec.Template)
	w.replicasChanged(c, d)
	if d.Current != before {
		w.engine.Record("DeploymentRollout", c, "", "", "", "deployment %s rolling out template %s (%s)", d.Key(), d.Current, describeRequests(in.Spec.Template.Spec))
	}
	w.queueSync(c, d.Key())
	return w.renderDeployment(c, d), nil
}

// GetScale is the scale subresource (kubectl scale).
func (w *World) GetScale(c *model.Cluster, ns, name string) (*autoscalingv1.Scale, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	st := d.Status
	sel, _ := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	return &autoscalingv1.Scale{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: d.Namespace, UID: types.UID(d.UID), ResourceVersion: model.RvString(d.RV), CreationTimestamp: metav1.NewTime(d.CreateTime)},
		Spec:       autoscalingv1.ScaleSpec{Replicas: int32(replicasOf(d))},
		Status:     autoscalingv1.ScaleStatus{Replicas: st.Replicas, Selector: sel.String()},
	}, nil
}

// SetScale sets a Deployment's replicas.
func (w *World) SetScale(c *model.Cluster, ns, name string, replicas int32, rv string) (*autoscalingv1.Scale, error) {
	return w.ScaleDeployment(c, ns, name, replicas, rv, nil)
}

// ScaleDeployment is SetScale recording the Deployment's new field owners (nil: unchanged).
func (w *World) ScaleDeployment(c *model.Cluster, ns, name string, replicas int32, rv string, managedFields []metav1.ManagedFieldsEntry) (*autoscalingv1.Scale, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	if err := checkRV(rv, d.RV, model.ResDeployments, name); err != nil {
		return nil, err
	}
	if replicas < 0 {
		return nil, model.KubeInvalid("Scale.autoscaling", name, fmt.Sprintf("spec.replicas: Invalid value: %d: must be greater than or equal to 0", replicas))
	}
	if int(replicas) != replicasOf(d) {
		w.engine.Record("DeploymentScaled", c, "", "", "", "deployment %s scaled from %d to %d replicas", d.Key(), replicasOf(d), replicas)
		d.Spec.Replicas = &replicas
		d.Generation++
		if managedFields != nil {
			d.ManagedFields = managedFields
		}
		w.touchObject(c, d, false)
		w.replicasChanged(c, d)
		w.queueSync(c, d.Key())
	}
	return w.GetScale(c, ns, name)
}

// DeleteDeployment deletes a Deployment; its pods terminate (background cascading deletion).
func (w *World) DeleteDeployment(c *model.Cluster, ns, name string) (*appsv1.Deployment, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	out := w.renderDeployment(c, d)
	w.deleteDeployment(c, d)
	return out, nil
}

func (w *World) deleteDeployment(c *model.Cluster, d *model.Deployment) {
	for _, h := range model.SortedKeys(d.ReplicaSets) {
		w.objectRemoved(c, d.ReplicaSets[h])
	}
	w.objectRemoved(c, d)
	w.replicasChanged(c, d)
	delete(c.Deployments, d.Key())
	delete(w.podIndex(c).selectors, d)
	w.engine.Record("DeploymentDeleted", c, "", "", "", "deployment %s deleted", d.Key())
	for _, p := range sortedPods(w.podIndex(c).podsOf[d.Key()]) {
		w.terminatePod(c, p, graceOf(w.podSpec(c, p), 0))
	}
}

// ---- Pods ----

func (w *World) renderPod(c *model.Cluster, p *model.Pod) *corev1.Pod {
	return w.podSnapshot(c, p).renderPod()
}

// podSnap is a pod as it is now, with what its rendering needs from around it (its spec, which
// a Deployment's pods share with their template, and its node's address): the change feed keeps
// one per change and renders it when a watcher reads it.
type podSnap struct {
	pod       model.Pod
	spec      *corev1.PodSpec
	hostIP    string
	clusterID string
	uid       string
	// owner is the pod's generateName and owner references when it belongs to a stand-in for
	// another controller or to a DaemonSet (podOwner); ownerOK says whether it does.
	ownerGen  string
	ownerRefs []metav1.OwnerReference
	ownerOK   bool
}

func (w *World) podSnapshot(c *model.Cluster, p *model.Pod) *podSnap {
	s := &podSnap{pod: *p, spec: w.podSpec(c, p), clusterID: c.ID, uid: model.PodUID(c, p)}
	s.ownerGen, s.ownerRefs, s.ownerOK = w.podOwner(c, p)
	if n := c.Nodes[p.Node]; n != nil {
		s.hostIP = n.InternalIP
	}
	return s
}

func (s *podSnap) render() runtime.Object { return s.renderPod() }

// serviceAccountMount is where the API server's ServiceAccount admission mounts a pod's token.
const serviceAccountMount = "/var/run/secrets/kubernetes.io/serviceaccount"

func (s *podSnap) renderPod() *corev1.Pod {
	p := &s.pod
	spec := s.spec.DeepCopy()
	spec.NodeName = p.Node
	if p.Scheduler != "" {
		spec.SchedulerName = p.Scheduler
	}
	admitPodSpec(spec, s.uid)
	meta := metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: types.UID(s.uid), ResourceVersion: model.RvString(p.RV),
		CreationTimestamp: metav1.NewTime(p.CreateTime), Labels: maps.Clone(p.Labels), Annotations: maps.Clone(p.Annotation),
		ManagedFields: cloneManagedFields(p.ManagedFields)}
	truth := true
	switch {
	case s.ownerOK:
		meta.GenerateName, meta.OwnerReferences = s.ownerGen, slices.Clone(s.ownerRefs)
	case p.OwnerKind == model.OwnerDeployment:
		meta.GenerateName = p.Owner + "-" + p.Template + "-"
		meta.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: p.Owner + "-" + p.Template,
			UID: types.UID(model.UidOf(s.clusterID, "rs", p.Namespace, p.Owner, p.Template)), Controller: &truth, BlockOwnerDeletion: &truth}}
	case p.OwnerKind == model.OwnerDaemonSet:
		meta.GenerateName = daemonPodGenerateName(p)
		meta.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: p.Owner,
			UID: types.UID(model.UidOf(s.clusterID, "ds", p.Owner)), Controller: &truth, BlockOwnerDeletion: &truth}}
	}
	if p.Terminating {
		t := metav1.NewTime(p.DeletionTime)
		meta.DeletionTimestamp = &t
		g := int64(p.GoneTime.Sub(p.DeletionTime).Seconds())
		meta.DeletionGracePeriodSeconds = &g
	}
	st := corev1.PodStatus{Phase: corev1.PodPhase(p.Phase), QOSClass: qosClass(spec)}
	condition := func(t corev1.PodConditionType, ok bool, at time.Time) corev1.PodCondition {
		s := corev1.ConditionFalse
		if ok {
			s = corev1.ConditionTrue
		}
		return corev1.PodCondition{Type: t, Status: s, LastTransitionTime: metav1.NewTime(latest(at, p.CreateTime))}
	}
	if p.Node == "" {
		// Like the API server: no condition until the scheduler has tried and failed.
		if p.Unschedulable != "" {
			sc := condition(corev1.PodScheduled, false, p.CreateTime)
			sc.Reason, sc.Message = corev1.PodReasonUnschedulable, p.Unschedulable
			st.Conditions = []corev1.PodCondition{sc}
		}
	} else {
		readyAt := p.ReadyTime
		if p.Terminating {
			readyAt = p.DeletionTime
		}
		running := p.Phase == model.PodRunning
		st.Conditions = []corev1.PodCondition{condition(corev1.PodReadyToStartContainers, running, p.StartTime),
			condition(corev1.PodInitialized, true, p.CreateTime), condition(corev1.PodReady, p.Ready, readyAt),
			condition(corev1.ContainersReady, p.Ready, readyAt), condition(corev1.PodScheduled, true, p.CreateTime)}
		if s.hostIP != "" {
			st.HostIP, st.HostIPs = s.hostIP, []corev1.HostIP{{IP: s.hostIP}}
		}
		st.PodIP = p.IP
		if p.IP != "" {
			st.PodIPs = []corev1.PodIP{{IP: p.IP}}
		}
		if !p.StartTime.IsZero() {
			t := metav1.NewTime(p.StartTime)
			st.StartTime = &t
		}
		for _, ct := range spec.Containers {
			started := p.Ready
			cs := corev1.ContainerStatus{Name: ct.Name, Image: ct.Image, Ready: p.Ready, Started: &started}
			if running {
				cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(p.StartTime)}
				cs.ImageID = imageID(ct.Image)
				cs.ContainerID = "containerd://" + strings.ReplaceAll(model.UidOf(s.uid, ct.Name, "container")+model.UidOf(s.uid, ct.Name), "-", "")
			} else {
				cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
			}
			st.ContainerStatuses = append(st.ContainerStatuses, cs)
		}
	}
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: meta, Spec: *spec, Status: st}
}

// admitPodSpec adds what the API server's admission gives every pod (kubectl describe shows
// it): the namespace's default ServiceAccount and its token volume, the default tolerations of
// not-ready and unreachable nodes, and the priority of the pod's priority class.
func admitPodSpec(spec *corev1.PodSpec, uid string) {
	// As the ServiceAccount admission plugin: no token volume where a container mounts one
	// at its path already.
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = "default"
	}
	if spec.DeprecatedServiceAccount == "" {
		spec.DeprecatedServiceAccount = spec.ServiceAccountName
	}
	mounted := slices.ContainsFunc(spec.Containers, func(c corev1.Container) bool {
		return slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == serviceAccountMount })
	})
	if !mounted && (spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken) {
		vol := "kube-api-access-" + strings.ReplaceAll(model.UidOf(uid, "token"), "-", "")[:5]
		expiry := int64(3607)
		mode := int32(0o644)
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: &mode,
			Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &expiry}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
					Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
					FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
			}}}})
		for i := range spec.Containers {
			spec.Containers[i].VolumeMounts = append(spec.Containers[i].VolumeMounts,
				corev1.VolumeMount{Name: vol, ReadOnly: true, MountPath: serviceAccountMount})
		}
	}
	five := int64(300)
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		if !slices.ContainsFunc(spec.Tolerations, func(t corev1.Toleration) bool {
			return t.Key == key || (t.Key == "" && t.Operator == corev1.TolerationOpExists)
		}) {
			spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists,
				Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &five})
		}
	}
	if spec.Priority == nil {
		prio := podPriority(spec)
		spec.Priority = &prio
	}
	if spec.EnableServiceLinks == nil {
		t := true
		spec.EnableServiceLinks = &t
	}
	if spec.PreemptionPolicy == nil {
		pp := corev1.PreemptLowerPriority
		spec.PreemptionPolicy = &pp
	}
}

// qosClass is the pod's quality of service class, as the kubelet computes it: BestEffort
// without any CPU or memory request or limit, Guaranteed when every container limits both and
// requests what it limits, Burstable otherwise.
func qosClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	bestEffort, guaranteed := true, true
	for _, cts := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, ct := range cts {
			for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				lim, hasLim := ct.Resources.Limits[name]
				req, hasReq := ct.Resources.Requests[name]
				if !hasReq {
					req, hasReq = lim, hasLim
				}
				if (hasReq && !req.IsZero()) || (hasLim && !lim.IsZero()) {
					bestEffort = false
				}
				if !hasLim || lim.IsZero() || req.Cmp(lim) != 0 {
					guaranteed = false
				}
			}
		}
	}
	switch {
	case bestEffort:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// imageID is the digest a node's containerd reports for an image: stable per image.
func imageID(image string) string {
	repo := image
	if i := strings.LastIndexAny(repo, ":@"); i > strings.LastIndexByte(repo, '/') {
		repo = repo[:i]
	}
	if !strings.Contains(strings.SplitN(repo, "/", 2)[0], ".") {
		if !strings.Contains(repo, "/") {
			repo = "library/" + repo
		}
		repo = "docker.io/" + repo
	}
	return repo + "@sha256:" + strings.ReplaceAll(model.UidOf(image, "digest")+model.UidOf(image), "-", "")[:64]
}

// ListPods lists pods by namespace and name.
func (w *World) ListPods(c *model.Cluster, o ListOptions) *corev1.PodList {
	out := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: model.RvString(c.RV)}}
	var list []*model.Pod
	if o.NodeName != "" {
		list = w.podIndex(c).podsOnNode[o.NodeName]
	} else {
		pods := make(map[*model.Pod]struct{}, len(c.Pods))
		for _, p := range c.Pods {
			pods[p] = struct{}{}
		}
		list = sortedPods(pods)
	}
	out.Items = make([]corev1.Pod, 0, len(list))
	for _, p := range list {
		if o.matches(p.Namespace, p.Labels) && (o.Phase == "" || o.Phase == p.Phase) {
			out.Items = append(out.Items, *w.renderPod(c, p))
		}
	}
	return out
}

func (w *World) pod(c *model.Cluster, ns, name string) (*model.Pod, error) {
	p := c.Pods[ns+"/"+name]
	if p == nil {
		return nil, model.KubeNotFound(model.ResPods, name)
	}
	return p, nil
}

func (w *World) GetPod(c *model.Cluster, ns, name string) (*corev1.Pod, error) {
	p, err := w.pod(c, ns, name)
	if err != nil {
		return nil, err
	}
	return w.renderPod(c, p), nil
}

// CreatePod creates a bare pod (one no controller recreates).
func (w *World) CreatePod(c *model.Cluster, ns string, in *corev1.Pod) (*corev1.Pod, error) {
	if in.Namespace != "" && in.Namespace != ns {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request")
	}
	if err := c.NamespaceFor(ns); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	w.generateName(&in.ObjectMeta)
	defaultPodSpec(&in.Spec)
	if errs := validatePod(in, ns); len(errs) > 0 {
		return nil, kubeInvalidErrs("Pod", in.Name, errs)
	}
	if c.Pods[ns+"/"+in.Name] != nil {
		return nil, model.KubeAlreadyExists(model.ResPods, in.Name)
	}
	if err := w.checkExtended(c, "Pod", in.Name, &in.Spec, in.Annotations, ""); err != nil {
		return nil, err
	}
	spec := &in.Spec
	p := &model.Pod{Namespace: ns, Name: in.Name, Spec: spec, Labels: in.Labels, Annotation: in.Annotations, ManagedFields: in.ManagedFields}
	w.addPod(c, p)
	w.engine.Record("PodCreated", c, "", "", "", "pod %s created (%s)", p.Key(), describeRequests(*spec))
	return w.renderPod(c, p), nil
}

// podUpdateForbidden is the API server's answer to a change of a pod's spec it does not allow.
const podUpdateForbidden = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// UpdatePod changes a pod's labels and annotations, and a bare pod's container images (PUT;
// PATCH goes through it). Other changes to the spec are refused as the API server refuses them.
func (w *World) UpdatePod(c *model.Cluster, ns, name string, in *corev1.Pod) (*corev1.Pod, error) {
	p, err := w.pod(c, ns, name)
	if err != nil {
		return nil, err
	}
	if in.Name != "" && in.Name != name {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", in.Name, name)
	}
	if err := checkRV(in.ResourceVersion, p.RV, model.ResPods, name); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	in.Name = name
	if errs := validateMeta(in.ObjectMeta, ns, apivalidation.NameIsDNSSubdomain); len(errs) > 0 {
		return nil, kubeInvalidErrs("Pod", name, errs)
	}
	cur := w.renderPod(c, p)
	want, have := in.Spec.DeepCopy(), cur.Spec.DeepCopy()
	images := false
	for _, set := range []struct{ have, want []corev1.Container }{{have.Containers, want.Containers}, {have.InitContainers, want.InitContainers}} {
		for i := range set.have {
			if i < len(set.want) && set.want[i].Image != set.have[i].Image {
				set.have[i].Image, images = set.want[i].Image, true
			}
		}
	}
	have.ActiveDeadlineSeconds = want.ActiveDeadlineSeconds
	if len(want.Tolerations) >= len(have.Tolerations) && equalJSON(want.Tolerations[:len(have.Tolerations)], have.Tolerations) {
		have.Tolerations = want.Tolerations
	}
	if !equalJSON(have, want) {
		return nil, model.KubeInvalid("Pod", name, podUpdateForbidden)
	}
	if images && p.OwnerKind != "" {
		return nil, model.KubeInvalid("Pod", name, fmt.Sprintf("spec.containers: Forbidden: gkesim runs the pods of %s %s with its template's spec: change the image in the template (kubectl set image %s/%s)",
			strings.ToLower(p.OwnerKind), p.Owner, strings.ToLower(p.OwnerKind), p.Owner))
	}
	w.pdbTrack(c, p, false)
	p.Labels, p.Annotation, p.ManagedFields = in.Labels, in.Annotations, in.ManagedFields
	if images {
		spec := p.Spec.DeepCopy()
		for i := range spec.Containers {
			spec.Containers[i].Image = in.Spec.Containers[i].Image
		}
		for i := range spec.InitContainers {
			spec.InitContainers[i].Image = in.Spec.InitContainers[i].Image
		}
		p.Spec = spec
		w.engine.Record("PodUpdated", c, "", p.Node, "", "pod %s: container images changed", p.Key())
	}
	w.pdbTrack(c, p, true)
	w.touchPod(c, p)
	w.svcPodChanged(c, p)
	return w.renderPod(c, p), nil
}

// DeletePod deletes a pod with its grace period (or the one given); a Deployment replaces it.
func (w *World) DeletePod(c *model.Cluster, ns, name string, graceSecs *int64) (*corev1.Pod, error) {
	p, err := w.pod(c, ns, name)
	if err != nil {
		return nil, err
	}
	grace := graceOf(w.podSpec(c, p), 0)
	if graceSecs != nil && *graceSecs >= 0 {
		grace = durationOfSeconds(*graceSecs)
	}
	w.engine.Record("PodDeleted", c, "", p.Node, "", "pod %s deleted (grace %s)", p.Key(), grace)
	w.terminatePod(c, p, grace)
	return w.renderPod(c, p), nil
}

// EvictPod is the eviction subresource (policy/v1 Eviction, what kubectl drain calls): it
// refuses with 429 when a PodDisruptionBudget does not allow the disruption.
func (w *World) EvictPod(c *model.Cluster, ns, name string) error {
	p, err := w.pod(c, ns, name)
	if err != nil {
		return err
	}
	if p.Terminating {
		return nil
	}
	if b := w.evictionBlocker(c, p); b != nil {
		return model.KubeError(http.StatusTooManyRequests, "TooManyRequests",
			"Cannot evict pod as it would violate the pod's disruption budget. The disruption budget %s needs %d healthy pods and has %d currently",
			b.Name, w.pdbStatus(c, b).DesiredHealthy, w.pdbStatus(c, b).CurrentHealthy)
	}
	grace := graceOf(w.podSpec(c, p), 0)
	w.engine.Record("PodEvicted", c, "", p.Node, "", "pod %s evicted through the API (grace %s)", p.Key(), grace)
	w.terminatePod(c, p, grace)
	return nil
}

// ---- PodDisruptionBudgets ----

func (w *World) renderPDB(c *model.Cluster, b *model.PDB) *policyv1.PodDisruptionBudget {
	st := *b.Status.DeepCopy()
	reason, status := "SufficientPods", metav1.ConditionTrue
	if st.CurrentHealthy < st.DesiredHealthy || st.DisruptionsAllowed == 0 {
		reason, status = "InsufficientPods", metav1.ConditionFalse
	}
	st.Conditions = []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: status, Reason: reason,
		ObservedGeneration: b.Generation, LastTransitionTime: metav1.NewTime(b.CreateTime)}}
	return &policyv1.PodDisruptionBudget{
		TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: b.Name, Namespace: b.Namespace, UID: types.UID(b.UID), ResourceVersion: model.RvString(b.RV),
			Generation: b.Generation, CreationTimestamp: metav1.NewTime(b.CreateTime), Labels: maps.Clone(b.Labels), Annotations: maps.Clone(b.Annotations),
			ManagedFields: cloneManagedFields(b.ManagedFields)},
		Spec:   *b.Spec.DeepCopy(),
		Status: st,
	}
}

func (w *World) ListPDBs(c *model.Cluster, o ListOptions) *policyv1.PodDisruptionBudgetList {
	out := &policyv1.PodDisruptionBudgetList{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudgetList"},
		ListMeta: metav1.ListMeta{ResourceVersion: model.RvString(c.RV)}}
	keys := make([]string, 0, len(c.PDBs))
	for k, b := range c.PDBs {
		if o.matches(b.Namespace, b.Labels) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out.Items = make([]policyv1.PodDisruptionBudget, 0, len(keys))
	for _, k := range keys {
		out.Items = append(out.Items, *w.renderPDB(c, c.PDBs[k]))
	}
	return out
}

func (w *World) pdb(c *model.Cluster, ns, name string) (*model.PDB, error) {
	b := c.PDBs[ns+"/"+name]
	if b == nil {
		return nil, model.KubeNotFound(model.ResPDBs, name)
	}
	return b, nil
}

func (w *World) GetPDB(c *model.Cluster, ns, name string) (*policyv1.PodDisruptionBudget, error) {
	b, err := w.pdb(c, ns, name)
	if err != nil {
		return nil, err
	}
	return w.renderPDB(c, b), nil
}

func (w *World) CreatePDB(c *model.Cluster, ns string, in *policyv1.PodDisruptionBudget) (*policyv1.PodDisruptionBudget, error) {
	if err := c.NamespaceFor(ns); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	w.generateName(&in.ObjectMeta)
	if errs := validatePDB(in, ns); len(errs) > 0 {
		return nil, kubeInvalidErrs("PodDisruptionBudget.policy", in.Name, errs)
	}
	if c.PDBs[ns+"/"+in.Name] != nil {
		return nil, model.KubeAlreadyExists(model.ResPDBs, in.Name)
	}
	b := &model.PDB{Namespace: ns, Name: in.Name, UID: model.UidOf(c.ID, "pdb", ns, in.Name, w.engine.RandHex(8)), Labels: in.Labels,
		Annotations: in.Annotations, Spec: *in.Spec.DeepCopy(), Generation: 1, CreateTime: w.st.Now, ManagedFields: in.ManagedFields}
	c.PDBs[b.Key()] = b
	b.Status = w.pdbStatus(c, b)
	w.touchObject(c, b, true)
	st := b.Status
	w.engine.Record("PDBCreated", c, "", "", "", "PodDisruptionBudget %s created: %d pods, %d healthy needed, %d disruptions allowed",
		b.Key(), st.ExpectedPods, st.DesiredHealthy, st.DisruptionsAllowed)
	return w.renderPDB(c, b), nil
}

func (w *World) UpdatePDB(c *model.Cluster, ns, name string, in *policyv1.PodDisruptionBudget) (*policyv1.PodDisruptionBudget, error) {
	b, err := w.pdb(c, ns, name)
	if err != nil {
		return nil, err
	}
	if err := checkRV(in.ResourceVersion, b.RV, model.ResPDBs, name); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	in.Name = name
	if errs := validatePDB(in, ns); len(errs) > 0 {
		return nil, kubeInvalidErrs("PodDisruptionBudget.policy", name, errs)
	}
	if !equalJSON(in.Spec, b.Spec) {
		b.Generation++
	}
	w.forgetPDB(c, b)
	b.Spec, b.Labels, b.Annotations, b.ManagedFields = in.Spec, in.Labels, in.Annotations, in.ManagedFields
	// The disruption controller's status for the new spec, at once (as on create): the answer
	// and every read after it show what the budget allows now.
	b.Status = w.pdbStatus(c, b)
	w.touchObject(c, b, false)
	return w.renderPDB(c, b), nil
}

func (w *World) DeletePDB(c *model.Cluster, ns, name string) (*policyv1.PodDisruptionBudget, error) {
	b, err := w.pdb(c, ns, name)
	if err != nil {
		return nil, err
	}
	out := w.renderPDB(c, b)
	w.objectRemoved(c, b)
	w.forgetPDB(c, b)
	delete(c.PDBs, b.Key())
	w.engine.Record("PDBDeleted", c, "", "", "", "PodDisruptionBudget %s deleted", b.Key())
	return out, nil
}

// ---- Nodes ----

// GetK8sNode finds a registered node.
func (w *World) GetK8sNode(c *model.Cluster, name string) (*corev1.Node, error) {
	n := c.Nodes[name]
	if n == nil || n.State == model.NodeProvisioning {
		return nil, model.KubeNotFound(model.ResNodes, name)
	}
	return w.RenderK8sNode(c, n), nil
}

// SetNodeUnschedulable cordons or uncordons a node as kubectl cordon/uncordon do. GKE's own
// processes may cordon a node again (a node being drained stays cordoned).
func (w *World) SetNodeUnschedulable(c *model.Cluster, name string, unschedulable bool) (*corev1.Node, error) {
	n := c.Nodes[name]
	if n == nil || n.State == model.NodeProvisioning {
		return nil, model.KubeNotFound(model.ResNodes, name)
	}
	switch {
	case unschedulable:
		w.cordon(c, n, "cordoned through the Kubernetes API")
	case n.Unschedulable && (n.State == model.NodeReady || n.State == model.NodeCordoned):
		n.Unschedulable = false
		w.setNodeState(c, n, model.NodeReady)
		w.engine.Record("NodeUncordoned", c, n.Pool, n.Name, "", "uncordoned node %s through the Kubernetes API", n.Name)
	}
	return w.RenderK8sNode(c, n), nil
}

// allocatePodIP gives a pod the next address of the cluster's pod range.
func (w *World) allocatePodIP(c *model.Cluster) string {
	_, cidr, err := net.ParseCIDR(c.ClusterIPv4CIDR)
	if err != nil {
		return ""
	}
	c.NextPodIP++
	base := binary.BigEndian.Uint32(cidr.IP.To4())
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, base+c.NextPodIP)
	return ip.String()
}

// equalJSON compares two API values by their JSON form.
func equalJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

func durationOfSeconds(s int64) time.Duration { return time.Duration(s) * time.Second }

// withoutAdmittedToken removes from a pod's spec, as read from a real cluster, the token volume
// and mounts that the ServiceAccount admission plugin added to it (kube-api-access-*), so that
// a template taken from one pod does not carry that pod's volume to others: admitPodSpec adds
// each pod its own when it is rendered.
func withoutAdmittedToken(spec *corev1.PodSpec) {
	admitted := map[string]bool{}
	spec.Volumes = slices.DeleteFunc(spec.Volumes, func(v corev1.Volume) bool {
		if strings.HasPrefix(v.Name, "kube-api-access-") && v.Projected != nil &&
			slices.ContainsFunc(v.Projected.Sources, func(s corev1.VolumeProjection) bool { return s.ServiceAccountToken != nil }) {
			admitted[v.Name] = true
			return true
		}
		return false
	})
	if len(admitted) == 0 {
		return
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			cs[i].VolumeMounts = slices.DeleteFunc(cs[i].VolumeMounts, func(m corev1.VolumeMount) bool { return admitted[m.Name] })
		}
	}
	if len(spec.Volumes) == 0 {
		spec.Volumes = nil
	}
}
