package kuberender

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Kubernetes objects as the API serves them (namespaces, Deployments, pods, budgets), what the
// API server does to a pod it admits, and object metadata.

// RenderNamespace renders a namespace as the API serves it.
func RenderNamespace(n *model.Namespace) *corev1.Namespace {
	phase := corev1.NamespaceActive
	if n.Terminating {
		phase = corev1.NamespaceTerminating
	}
	return &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: types.UID(n.UID), ResourceVersion: model.RVString(n.RV),
			CreationTimestamp: metav1.NewTime(n.CreateTime), Labels: maps.Clone(n.Labels), Annotations: maps.Clone(n.Annotations),
			ManagedFields: model.CloneManagedFields(n.ManagedFields)},
		Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: phase},
	}
}

// RenderDeployment renders a Deployment as the API serves it: its spec (with the pod template
// of GKE's system Deployments, kept among their ReplicaSets' templates), its status, and the
// revision annotation of its current ReplicaSet.
func RenderDeployment(d *model.Deployment) *appsv1.Deployment {
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
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: d.Namespace, UID: types.UID(d.UID), ResourceVersion: model.RVString(d.RV),
			Generation: d.Generation, CreationTimestamp: metav1.NewTime(d.CreateTime), Labels: maps.Clone(d.Labels),
			Annotations: withRevision(d.Annotations, revision), ManagedFields: model.CloneManagedFields(d.ManagedFields)},
		Spec:   spec,
		Status: *d.Status.DeepCopy(),
	}
}

// AnnotationRevision is a Deployment's (and its ReplicaSets') revision annotation.
const AnnotationRevision = "deployment.kubernetes.io/revision"

func withRevision(a map[string]string, rev int64) map[string]string {
	out := map[string]string{AnnotationRevision: strconv.FormatInt(rev, 10)}
	for k, v := range a {
		if k != AnnotationRevision {
			out[k] = v
		}
	}
	return out
}

// PodSnap is a pod as it is now, with what its rendering needs from around it (its spec, which
// a Deployment's pods share with their template, and its node's address): the change feed keeps
// one per change and renders it when a watcher reads it.
type PodSnap struct {
	pod model.Pod
	// rare is the pod's PodRare, its own copy (pod points at it when the pod has one).
	rare      model.PodRare
	spec      *corev1.PodSpec
	clusterID string
	// HostIP is the address of the pod's node.
	HostIP string
	// Owner is the pod's generateName and owner references when it belongs to a stand-in for
	// another controller or to a DaemonSet (core's podOwner); OwnerOK says whether it does.
	OwnerGen  string
	OwnerRefs []metav1.OwnerReference
	OwnerOK   bool
}

// Take makes s the snapshot of p as it is now, with spec its spec (a Deployment's pods share
// their template's) in the cluster of id clusterID; the caller fills in HostIP and the owner.
func (s *PodSnap) Take(p *model.Pod, spec *corev1.PodSpec, clusterID string) {
	*s = PodSnap{pod: *p, spec: spec, clusterID: clusterID}
	s.setRare(p.PodRare) // the snapshot is read after the pod changes: its own copy
}

// CopyTo makes d a copy of s.
func (s *PodSnap) CopyTo(d *PodSnap) {
	*d = *s
	d.setRare(s.pod.PodRare)
}

func (s *PodSnap) setRare(r *model.PodRare) {
	if r != nil {
		s.rare = *r
		s.pod.PodRare = &s.rare
	}
}

// Render renders the pod (the change feed's snapshot interface).
func (s *PodSnap) Render() runtime.Object { return s.RenderPod() }

// serviceAccountMount is where the API server's ServiceAccount admission mounts a pod's token.
const serviceAccountMount = "/var/run/secrets/kubernetes.io/serviceaccount"

// RenderPod renders the pod as the API serves it: its spec as the API server admitted it, its
// owner, its conditions and container statuses.
func (s *PodSnap) RenderPod() *corev1.Pod {
	p := &s.pod
	created, startedAt := p.CreateTime.Time(), p.StartTime.Time()
	spec := s.spec.DeepCopy()
	spec.NodeName = p.Node
	if p.Scheduler() != "" {
		spec.SchedulerName = p.Scheduler()
	}
	uid := model.PodUIDIn(s.clusterID, p) // made when a watcher reads the change, not at every change
	admitPodSpec(spec, uid, p.Priority)
	meta := metav1.ObjectMeta{Name: p.Name(), Namespace: p.Namespace(), UID: types.UID(uid), ResourceVersion: model.RVString(p.RV),
		CreationTimestamp: metav1.NewTime(created), Labels: maps.Clone(p.Labels), Annotations: maps.Clone(p.Annotation),
		ManagedFields: model.CloneManagedFields(p.ManagedFields())}
	truth := true
	switch {
	case s.OwnerOK:
		meta.GenerateName, meta.OwnerReferences = s.OwnerGen, slices.Clone(s.OwnerRefs)
	case p.OwnerKind == model.OwnerDeployment:
		meta.GenerateName = p.Owner + "-" + p.Template + "-"
		meta.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: p.Owner + "-" + p.Template,
			UID: types.UID(model.UIDOf(s.clusterID, "rs", p.Namespace(), p.Owner, p.Template)), Controller: &truth, BlockOwnerDeletion: &truth}}
	case p.OwnerKind == model.OwnerDaemonSet:
		meta.GenerateName = DaemonPodGenerateName(p)
		meta.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: p.Owner,
			UID: types.UID(model.UIDOf(s.clusterID, "ds", p.Owner)), Controller: &truth, BlockOwnerDeletion: &truth}}
	}
	if p.Terminating {
		t := metav1.NewTime(p.DeletionTime())
		meta.DeletionTimestamp = &t
		g := int64(p.GoneTime().Sub(p.DeletionTime()).Seconds())
		meta.DeletionGracePeriodSeconds = &g
	}
	st := corev1.PodStatus{Phase: corev1.PodPhase(p.Phase.String()), QOSClass: qosClass(spec)}
	condition := func(t corev1.PodConditionType, ok bool, at time.Time) corev1.PodCondition {
		s := corev1.ConditionFalse
		if ok {
			s = corev1.ConditionTrue
		}
		return corev1.PodCondition{Type: t, Status: s, LastTransitionTime: metav1.NewTime(latest(at, created))}
	}
	if p.Node == "" {
		// Like the API server: no condition until the scheduler has tried and failed.
		if p.Unschedulable() != "" {
			sc := condition(corev1.PodScheduled, false, created)
			sc.Reason, sc.Message = corev1.PodReasonUnschedulable, p.Unschedulable()
			st.Conditions = []corev1.PodCondition{sc}
		}
	} else {
		readyAt := p.ReadyTime.Time()
		if p.Terminating {
			readyAt = p.DeletionTime()
		}
		running := p.Phase == model.PodRunning
		st.Conditions = []corev1.PodCondition{condition(corev1.PodReadyToStartContainers, running, startedAt),
			condition(corev1.PodInitialized, true, created), condition(corev1.PodReady, p.Ready, readyAt),
			condition(corev1.ContainersReady, p.Ready, readyAt), condition(corev1.PodScheduled, true, created)}
		if s.HostIP != "" {
			st.HostIP, st.HostIPs = s.HostIP, []corev1.HostIP{{IP: s.HostIP}}
		}
		st.PodIP = p.IP.String()
		if st.PodIP != "" {
			st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
		}
		if !startedAt.IsZero() {
			t := metav1.NewTime(startedAt)
			st.StartTime = &t
		}
		for _, ct := range spec.Containers {
			started := p.Ready
			cs := corev1.ContainerStatus{Name: ct.Name, Image: ct.Image, Ready: p.Ready, Started: &started}
			if running {
				cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(startedAt)}
				cs.ImageID = imageID(ct.Image)
				cs.ContainerID = "containerd://" + strings.ReplaceAll(model.UIDOf(uid, ct.Name, "container")+model.UIDOf(uid, ct.Name), "-", "")
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
// not-ready and unreachable nodes, and the priority of the pod's priority class (resolved when
// the pod was created: Pod.Priority).
func admitPodSpec(spec *corev1.PodSpec, uid string, priority int32) {
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
		vol := "kube-api-access-" + strings.ReplaceAll(model.UIDOf(uid, "token"), "-", "")[:5]
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
		spec.Priority = &priority
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
	return repo + "@sha256:" + strings.ReplaceAll(model.UIDOf(image, "digest")+model.UIDOf(image), "-", "")[:64]
}

// RenderPDB renders a PodDisruptionBudget as the API serves it, with its DisruptionAllowed
// condition.
func RenderPDB(b *model.PDB) *policyv1.PodDisruptionBudget {
	st := *b.Status.DeepCopy()
	reason, status := "SufficientPods", metav1.ConditionTrue
	if st.CurrentHealthy < st.DesiredHealthy || st.DisruptionsAllowed == 0 {
		reason, status = "InsufficientPods", metav1.ConditionFalse
	}
	st.Conditions = []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: status, Reason: reason,
		ObservedGeneration: b.Generation, LastTransitionTime: metav1.NewTime(b.CreateTime)}}
	return &policyv1.PodDisruptionBudget{
		TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: b.Name, Namespace: b.Namespace, UID: types.UID(b.UID), ResourceVersion: model.RVString(b.RV),
			Generation: b.Generation, CreationTimestamp: metav1.NewTime(b.CreateTime), Labels: maps.Clone(b.Labels), Annotations: maps.Clone(b.Annotations),
			ManagedFields: model.CloneManagedFields(b.ManagedFields)},
		Spec:   *b.Spec.DeepCopy(),
		Status: st,
	}
}

// WithoutAdmittedToken removes from a pod's spec, as read from a real cluster, the token volume
// and mounts that the ServiceAccount admission plugin added to it (kube-api-access-*), so that
// a template taken from one pod does not carry that pod's volume to others: admitPodSpec adds
// each pod its own when it is rendered.
func WithoutAdmittedToken(spec *corev1.PodSpec) {
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

// ValidateMeta checks metadata as the API server does on create; namespaced objects carry the
// namespace of the request's path.
func ValidateMeta(meta metav1.ObjectMeta, namespace string, nameFn apivalidation.ValidateNameFunc) field.ErrorList {
	meta.Namespace = namespace
	return apivalidation.ValidateObjectMeta(&meta, namespace != "", nameFn, field.NewPath("metadata"))
}

// APITime is a time as the API server keeps it in an object (metav1.Time, whole seconds): a
// time stamped into an object that is saved reads back the same after a restart.
func APITime(t time.Time) metav1.Time { return metav1.NewTime(t.Truncate(time.Second)) }

// DaemonPodGenerateName is a DaemonSet pod's generateName: none for a pod named after its node.
func DaemonPodGenerateName(p *model.Pod) string {
	if p.Node != "" && p.Name() == p.Owner+"-"+p.Node {
		return ""
	}
	return p.Owner + "-"
}
