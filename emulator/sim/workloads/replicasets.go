package workloads

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// What the Deployment controller reports, as Kubernetes' does: each Deployment's ReplicaSets
// (one per pod template, named {deployment}-{pod-template-hash}, with a revision number; the
// retired ones kept, scaled to zero, up to spec.revisionHistoryLimit, for `kubectl rollout
// history` and `undo`), and the Deployment's status: observedGeneration, replicas,
// updatedReplicas, ready and available replicas, and the Available and Progressing conditions
// that `kubectl rollout status` and `kubectl wait` read, with the progress deadline
// (spec.progressDeadlineSeconds, 600 s by default) after which Progressing turns False with
// ProgressDeadlineExceeded. The statuses are set when a batch of changes is published
// (core/changefeed.go), once per Deployment whose pods changed.

const (
	evDeploymentProgress = "deployment.progress"

	annotationDesiredReplicas = "deployment.kubernetes.io/desired-replicas"
	annotationMaxReplicas     = "deployment.kubernetes.io/max-replicas"
)

func (w *Workloads) registerReplicaSetHandlers() {
	w.engine.On(evDeploymentProgress, func(ev model.Event) {
		c := w.st.Clusters[ev.Cluster]
		if c == nil {
			return
		}
		if d := c.Deployments[ev.DeploymentKey()]; d != nil && !d.ProgressCheck.After(w.st.Now) {
			d.ProgressCheck = time.Time{}
			w.core.MarkDeployment(c, d) // its status may change: then it is touched
		}
	})
}

// RollOut makes t the Deployment's pod template: a new template gets a ReplicaSet with the next
// revision; going back to an older one (kubectl rollout undo) gives that ReplicaSet the next
// revision, as Kubernetes does.
func (w *Workloads) RollOut(c *model.Cluster, d *model.Deployment, t corev1.PodTemplateSpec) {
	d.SetTemplate(t)
	if d.ReplicaSets == nil {
		d.ReplicaSets = map[string]*model.ReplicaSet{}
	}
	var top int64
	for _, rs := range d.ReplicaSets {
		top = max(top, rs.Revision)
	}
	rs := d.ReplicaSets[d.Current]
	switch {
	case rs == nil:
		rs = &model.ReplicaSet{Deployment: d.Key(), Hash: d.Current, Revision: top + 1, CreateTime: w.st.Now, Generation: 1,
			Template: d.Templates[d.Current]}
		rs.Annotations = ReplicaSetAnnotations(d, rs)
		d.ReplicaSets[d.Current] = rs
		w.core.TouchObject(c, rs, true)
	case rs.Revision != top:
		rs.Revision = top + 1
		rs.Template = d.Templates[d.Current]
		rs.Annotations = ReplicaSetAnnotations(d, rs)
		w.core.TouchObject(c, rs, false)
	}
}

// ReplicaSetAnnotations are what the controller puts on a ReplicaSet: the Deployment's own
// annotations (but kubectl's last-applied configuration), its revision and the replica counts.
func ReplicaSetAnnotations(d *model.Deployment, rs *model.ReplicaSet) map[string]string {
	out := map[string]string{}
	for k, v := range d.Annotations {
		if copiedToReplicaSet(k) {
			out[k] = v
		}
	}
	out[kuberender.AnnotationRevision], out[annotationDesiredReplicas], out[annotationMaxReplicas] = controllerAnnotations(d, rs)
	return out
}

// controllerAnnotations are the values of the annotations the Deployment controller sets on
// its current ReplicaSet: revision, desired replicas, max replicas (desired + surge).
func controllerAnnotations(d *model.Deployment, rs *model.ReplicaSet) (revision, desired, maxReplicas string) {
	surge, _ := rollingParams(d)
	return strconv.FormatInt(rs.Revision, 10), strconv.Itoa(d.DesiredReplicas()), strconv.Itoa(d.DesiredReplicas() + surge)
}

// copiedToReplicaSet says whether a Deployment's annotation k is copied to its ReplicaSets
// (all but kubectl's last-applied configuration and the controller's own).
func copiedToReplicaSet(k string) bool {
	return k != corev1.LastAppliedConfigAnnotation && !strings.HasPrefix(k, "deployment.kubernetes.io/")
}

// hasReplicaSetAnnotations says whether rs carries ReplicaSetAnnotations(d, rs) already,
// without building them (a controller pass runs at every batch of pod changes); surge is d's
// maxSurge (rollingParams).
func hasReplicaSetAnnotations(d *model.Deployment, rs *model.ReplicaSet, surge int) bool {
	n := 3
	for k, v := range d.Annotations {
		if copiedToReplicaSet(k) {
			if got, ok := rs.Annotations[k]; !ok || got != v {
				return false
			}
			n++
		}
	}
	if len(rs.Annotations) != n {
		return false
	}
	replicas := int64(d.DesiredReplicas())
	return isDecimal(rs.Annotations[kuberender.AnnotationRevision], rs.Revision) &&
		isDecimal(rs.Annotations[annotationDesiredReplicas], replicas) && isDecimal(rs.Annotations[annotationMaxReplicas], replicas+int64(surge))
}

// isDecimal says whether s is strconv.FormatInt(n, 10), without building it.
func isDecimal(s string, n int64) bool {
	var buf [20]byte
	return string(strconv.AppendInt(buf[:0], n, 10)) == s
}

// ReplicasChanged tells the budgets of a Deployment's namespace that the pods they expect may
// have changed (a budget expects a Deployment's replicas, not its pods).
func (w *Workloads) ReplicasChanged(c *model.Cluster, d *model.Deployment) {
	w.core.MarkPDBsIn(c, d.Namespace)
}

// SyncStatus sets the Deployments' and GKE's DaemonSets' statuses, derived from the pods that
// changed in this batch (before a publish, core.WorkloadSteps).
func (w *Workloads) SyncStatus(c *model.Cluster, m *core.StatusMarks) {
	if len(m.Deployments) > 0 {
		// By key, each key built once (the order the statuses get their resourceVersions in).
		ds := w.marked[:0]
		for d := range m.Deployments {
			if key := d.Key(); c.Deployments[key] == d {
				ds = append(ds, keyedDeployment{key, d})
			}
		}
		slices.SortFunc(ds, func(a, b keyedDeployment) int { return strings.Compare(a.key, b.key) })
		for _, kd := range ds {
			w.syncDeploymentStatus(c, kd.d, kd.key)
		}
		clear(m.Deployments)
		clear(ds) // keep no Deployment alive until the next pass
		w.marked = ds[:0]
	}
	if m.DaemonSets {
		m.DaemonSets = false
		w.syncDaemonSetStatus(c, m)
	}
}

// keyedDeployment is a Deployment with its key (namespace/name).
type keyedDeployment struct {
	key string
	d   *model.Deployment
}

// syncDeploymentStatus is the controller's status update of d (whose key is key) and its
// ReplicaSets.
func (w *Workloads) syncDeploymentStatus(c *model.Cluster, d *model.Deployment, key string) {
	counts := w.core.PodIndex(c).TmplCounts[key]
	cur := counts[d.Current]
	if cur == nil {
		cur = &model.TemplateCount{}
	}
	replicas := int32(d.DesiredReplicas())
	var total, ready, oldLive int32
	for h, t := range counts {
		total += t.Live
		ready += t.Ready
		if h != d.Current {
			oldLive += t.Live
		}
	}
	st := appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: total, UpdatedReplicas: cur.Live,
		ReadyReplicas: ready, AvailableReplicas: ready, UnavailableReplicas: max(replicas-ready, 0)}
	complete := cur.Live == replicas && total == replicas && ready == replicas && oldLive == 0
	surge, unavailable := rollingParams(d)
	// The status is a function of these inputs and, for the progress deadline, of the time:
	// most batches of pod changes leave a Deployment's counts as they were.
	in := model.StatusInputs{Generation: d.Generation, Current: d.Current, Replicas: replicas, Total: total, Updated: cur.Live, Ready: ready, Complete: complete}
	if in != d.Synced || (!complete && w.progressDeadlinePassed(d)) {
		st.Conditions = w.deploymentConditions(d, &st, complete, unavailable)
		if !deploymentStatusEqual(&st, &d.Status) {
			d.Status = st
			w.core.TouchObject(c, d, false)
		}
		d.Synced = in
	}
	if p := condition(d.Status.Conditions, appsv1.DeploymentProgressing); p != nil && p.Status == corev1.ConditionTrue && !complete &&
		d.Spec.ProgressDeadlineSeconds != nil && d.ProgressCheck.IsZero() {
		due := p.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
		d.ProgressCheck = due
		w.engine.Schedule(max(due.Sub(w.st.Now), 0), model.DeploymentEvent(evDeploymentProgress, c.Key(), key))
	}
	w.syncReplicaSets(c, d, counts, oldLive, surge)
}

// progressDeadlinePassed says whether d's Progressing condition is due to turn
// ProgressDeadlineExceeded (the one change of its status that time alone makes).
func (w *Workloads) progressDeadlinePassed(d *model.Deployment) bool {
	old := condition(d.Status.Conditions, appsv1.DeploymentProgressing)
	return old != nil && d.Spec.ProgressDeadlineSeconds != nil && old.Status == corev1.ConditionTrue &&
		old.Reason != "ProgressDeadlineExceeded" &&
		!w.st.Now.Before(old.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds)*time.Second))
}

// deploymentConditions are the Available and Progressing conditions for status st (unavailable
// is d's maxUnavailable): d's own conditions (the same slice) when they are those already, else
// new ones (Deployment.NewConditions), which the caller stores in d.Status: a status whose
// conditions changed is a changed status.
func (w *Workloads) deploymentConditions(d *model.Deployment, st *appsv1.DeploymentStatus, complete bool, unavailable int) []appsv1.DeploymentCondition {
	now := kuberender.APITime(w.st.Now)
	set := func(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, msg string, progressed bool) appsv1.DeploymentCondition {
		out := appsv1.DeploymentCondition{Type: t, Status: status, Reason: reason, Message: msg, LastUpdateTime: now, LastTransitionTime: now}
		if old := condition(d.Status.Conditions, t); old != nil {
			if old.Status == status {
				out.LastTransitionTime = old.LastTransitionTime
			}
			if old.Status == status && old.Reason == reason && old.Message == msg && !progressed {
				out.LastUpdateTime = old.LastUpdateTime
			}
		}
		return out
	}
	var avail appsv1.DeploymentCondition
	if st.AvailableReplicas >= int32(d.DesiredReplicas()-unavailable) {
		avail = set(appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability.", false)
	} else {
		avail = set(appsv1.DeploymentAvailable, corev1.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", false)
	}
	old := condition(d.Status.Conditions, appsv1.DeploymentProgressing)
	var oldMsg string
	if old != nil {
		oldMsg = old.Message
	}
	progressed := d.Status.UpdatedReplicas != st.UpdatedReplicas || d.Status.Replicas != st.Replicas ||
		d.Status.AvailableReplicas != st.AvailableReplicas || d.Status.ObservedGeneration != st.ObservedGeneration
	var prog appsv1.DeploymentCondition
	switch {
	case complete:
		prog = set(appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetAvailable", w.text(msgRSAvailable, d, oldMsg), false)
	case old == nil:
		prog = set(appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetCreated", w.text(msgRSCreated, d, oldMsg), false)
	case progressed || !mentionsReplicaSet(old.Message, d):
		prog = set(appsv1.DeploymentProgressing, corev1.ConditionTrue, "ReplicaSetUpdated", w.text(msgRSProgressing, d, oldMsg), true)
	case old.Reason == "ProgressDeadlineExceeded":
		prog = *old
	case d.Spec.ProgressDeadlineSeconds != nil && old.Status == corev1.ConditionTrue &&
		!w.st.Now.Before(old.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds)*time.Second)):
		prog = set(appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded", w.text(msgRSTimedOut, d, oldMsg), false)
	default:
		prog = *old
	}
	if cs := d.Status.Conditions; len(cs) == 2 && deploymentConditionEqual(&cs[0], &avail) && deploymentConditionEqual(&cs[1], &prog) {
		return cs
	}
	return d.NewConditions(avail, prog)
}

func condition(cs []appsv1.DeploymentCondition, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

// replicaSetChange is what a status pass changes of one ReplicaSet (of hash h): its replicas
// (want), its status, its annotations.
type replicaSetChange struct {
	h           string
	rs          *model.ReplicaSet
	want        int32
	status      appsv1.ReplicaSetStatus
	setStatus   bool
	annotations bool
}

// syncReplicaSets sets each ReplicaSet's replicas and status (surge is d's maxSurge), and
// deletes retired ones beyond the revision history limit, oldest first. Most passes change one ReplicaSet or none: the
// changes are found in any order, then made (and touched) in hash order, as they would be in
// a walk by hash; the retired ones are put in hash order before they are sorted by revision.
func (w *Workloads) syncReplicaSets(c *model.Cluster, d *model.Deployment, counts map[string]*model.TemplateCount, oldLive int32, surge int) {
	var buf [4]replicaSetChange
	changes := buf[:0]
	var retired []replicaSetChange // h and rs only
	for h, rs := range d.ReplicaSets {
		var t model.TemplateCount
		if p := counts[h]; p != nil {
			t = *p
		}
		ch := replicaSetChange{h: h, rs: rs, want: t.Live}
		if h == d.Current && oldLive == 0 {
			ch.want = int32(d.DesiredReplicas())
		}
		generation := rs.Generation
		if ch.want != rs.Replicas {
			generation++
		}
		ch.status = appsv1.ReplicaSetStatus{Replicas: t.Live, FullyLabeledReplicas: t.Live, ReadyReplicas: t.Ready, AvailableReplicas: t.Ready,
			ObservedGeneration: generation}
		ch.setStatus = !replicaSetStatusEqual(&ch.status, &rs.Status)
		ch.annotations = h == d.Current && !hasReplicaSetAnnotations(d, rs, surge)
		if ch.want != rs.Replicas || ch.setStatus || ch.annotations {
			changes = append(changes, ch)
		}
		if h != d.Current && t.All == 0 && ch.want == 0 {
			retired = append(retired, replicaSetChange{h: h, rs: rs})
		}
	}
	slices.SortFunc(changes, func(a, b replicaSetChange) int { return strings.Compare(a.h, b.h) })
	for i := range changes {
		ch := &changes[i]
		rs := ch.rs
		if ch.want != rs.Replicas {
			rs.Replicas, rs.Generation = ch.want, rs.Generation+1
		}
		if ch.setStatus {
			rs.Status = ch.status
		}
		if ch.annotations {
			rs.Annotations = ReplicaSetAnnotations(d, rs)
		}
		w.core.TouchObject(c, rs, false)
	}
	limit := 10
	if d.Spec.RevisionHistoryLimit != nil {
		limit = int(*d.Spec.RevisionHistoryLimit)
	}
	if len(retired) <= limit {
		return
	}
	slices.SortFunc(retired, func(a, b replicaSetChange) int { return strings.Compare(a.h, b.h) })
	sort.Slice(retired, func(i, j int) bool { return retired[i].rs.Revision < retired[j].rs.Revision })
	for _, r := range retired[:len(retired)-limit] {
		w.core.ObjectRemoved(c, r.rs)
		delete(d.ReplicaSets, r.rs.Hash)
	}
}

func (w *Workloads) RenderReplicaSet(c *model.Cluster, d *model.Deployment, rs *model.ReplicaSet) *appsv1.ReplicaSet {
	truth := true
	sel := d.Spec.Selector.DeepCopy()
	if sel == nil {
		sel = &metav1.LabelSelector{}
	}
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = rs.Hash
	replicas := rs.Replicas
	tmpl := rs.Template.DeepCopy()
	return &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Name: rs.Name(d), Namespace: d.Namespace, UID: types.UID(model.UIDOf(c.ID, "rs", d.Namespace, d.Name, rs.Hash)),
			ResourceVersion: model.RVString(rs.RV), Generation: rs.Generation, CreationTimestamp: metav1.NewTime(rs.CreateTime),
			Labels: maps.Clone(tmpl.Labels), Annotations: maps.Clone(rs.Annotations),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: types.UID(d.UID),
				Controller: &truth, BlockOwnerDeletion: &truth}}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &replicas, MinReadySeconds: d.Spec.MinReadySeconds, Selector: sel, Template: *tmpl},
		Status: rs.Status,
	}
}

// ListReplicaSets lists the Deployments' ReplicaSets, and an imported cluster's ReplicaSets of
// their own, by namespace and name.
func (w *Workloads) ListReplicaSets(c *model.Cluster, o model.ListOptions) *appsv1.ReplicaSetList {
	out := &appsv1.ReplicaSetList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSetList"},
		ListMeta: metav1.ListMeta{ResourceVersion: model.RVString(c.RV)}, Items: w.standInReplicaSets(c, o)}
	if out.Items == nil {
		out.Items = []appsv1.ReplicaSet{}
	}
	for _, key := range model.SortedKeys(c.Deployments) {
		d := c.Deployments[key]
		if (o.Namespace != "" && d.Namespace != o.Namespace) || d.Controller != nil {
			continue
		}
		for _, h := range model.SortedKeys(d.ReplicaSets) {
			rs := d.ReplicaSets[h]
			if o.Matches(d.Namespace, rs.Template.Labels) {
				out.Items = append(out.Items, *w.RenderReplicaSet(c, d, rs))
			}
		}
	}
	sort.SliceStable(out.Items, func(i, j int) bool {
		a, b := out.Items[i], out.Items[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out
}

// GetReplicaSet finds a ReplicaSet by name.
func (w *Workloads) GetReplicaSet(c *model.Cluster, ns, name string) (*appsv1.ReplicaSet, error) {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if d := c.Deployments[model.NamespacedKey(ns, name[:i])]; d != nil {
			if rs := d.ReplicaSets[name[i+1:]]; rs != nil {
				return w.RenderReplicaSet(c, d, rs), nil
			}
		}
	}
	return nil, model.KubeNotFound("replicasets.apps", name)
}
