package clusterimport

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/workloads"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The workloads of an imported cluster (clusterimport/import.go): namespaces, the controllers of its pods,
// the pods, PodDisruptionBudgets and Services.
//
// Every pod keeps its name, node, labels and annotations. Its spec is its controller's pod
// template unless it differs where the simulation looks (requests, priority, grace period,
// node selector, affinity, tolerations): the template a controller recreates pods from is the
// spec of one of its running pods, as admission left it (sidecars injected, priorities
// resolved), so that a replacement requests what the pod it replaces did.

// podOwner is the controller of a pod as the import models it.
type podOwner struct {
	// kind is Deployment, DaemonSet, static (a node's static pods), a kind a stand-in controller
	// takes the place of (StatefulSet, ReplicaSet, Job, or any other), or "" (a bare pod).
	kind       string
	apiVersion string
	ns, name   string
	uid        string
}

const ownerStatic = "static"

func (o podOwner) key() string { return o.kind + " " + model.NamespacedKey(o.ns, o.name) }

// controllerOf is an object's controller reference (the first owner, if none is marked).
func controllerOf(refs []metav1.OwnerReference) *metav1.OwnerReference {
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	if len(refs) > 0 {
		return &refs[0]
	}
	return nil
}

// ownerOf classifies a pod by its controller.
func (im *importer) ownerOf(p *corev1.Pod) podOwner {
	s := im.s
	ref := controllerOf(p.OwnerReferences)
	if ref == nil {
		if p.Annotations[corev1.MirrorPodAnnotationKey] != "" {
			return podOwner{kind: ownerStatic, ns: p.Namespace, name: staticPrefix(p)}
		}
		return podOwner{}
	}
	o := podOwner{kind: ref.Kind, apiVersion: ref.APIVersion, ns: p.Namespace, name: ref.Name, uid: string(ref.UID)}
	switch ref.Kind {
	case workloads.KindReplicaSet:
		if rs := s.replicaSets[model.NamespacedKey(p.Namespace, ref.Name)]; rs != nil {
			if dref := controllerOf(rs.OwnerReferences); dref != nil && dref.Kind == "Deployment" {
				if d := s.deployments[model.NamespacedKey(p.Namespace, dref.Name)]; d != nil {
					return podOwner{kind: "Deployment", apiVersion: "apps/v1", ns: p.Namespace, name: d.Name, uid: string(d.UID)}
				}
				im.note(noteApprox, "ReplicaSet of a Deployment that is not in the objects: its pods are kept and recreated as the ReplicaSet would", "ReplicaSet "+model.NamespacedKey(p.Namespace, ref.Name))
			}
			return o
		}
		if h := p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; h != "" && strings.HasSuffix(ref.Name, "-"+h) {
			if d := s.deployments[model.NamespacedKey(p.Namespace, strings.TrimSuffix(ref.Name, "-"+h))]; d != nil {
				im.note(noteApprox, "ReplicaSet not in the objects (print replicasets too): its pods are taken as its Deployment's, with the pods' own spec as the template", "ReplicaSet "+model.NamespacedKey(p.Namespace, ref.Name))
				return podOwner{kind: "Deployment", apiVersion: "apps/v1", ns: p.Namespace, name: d.Name, uid: string(d.UID)}
			}
		}
		return o
	case "Node":
		return podOwner{kind: ownerStatic, ns: p.Namespace, name: staticPrefix(p)}
	}
	return o
}

// staticPrefix is the name of a static pod without its node's: kube-proxy-NODE is kube-proxy.
func staticPrefix(p *corev1.Pod) string {
	if n := p.Spec.NodeName; n != "" && strings.HasSuffix(p.Name, "-"+n) {
		return strings.TrimSuffix(p.Name, "-"+n)
	}
	return p.Name
}

// schedulingKey is what the simulation reads of a pod spec; pods of a controller whose key is
// their template's need no spec of their own.
func schedulingKey(spec *corev1.PodSpec, bound bool) string {
	r := core.EffectiveRequests(spec)
	prio := spec.PriorityClassName // the class, when admission has not resolved it
	if spec.Priority != nil {
		prio = strconv.Itoa(int(*spec.Priority))
	}
	key := strconv.FormatInt(r.MilliCPU, 10) + "/" + strconv.FormatInt(r.MemoryBytes, 10) + "/" + prio + "/" + strconv.FormatInt(core.GraceSeconds(spec), 10)
	if bound || (len(spec.NodeSelector) == 0 && spec.Affinity == nil && len(spec.Tolerations) == 0) {
		return key // where a pod may go matters only to one that can be placed again
	}
	b, _ := json.Marshal(struct {
		Selector map[string]string
		Affinity *corev1.Affinity
		Tols     []corev1.Toleration
	}{spec.NodeSelector, spec.Affinity, spec.Tolerations})
	return key + string(b)
}

// ownedPods are the pods of one controller, by template revision.
type ownedPods struct {
	owner podOwner
	pods  []*corev1.Pod
}

// revisionOf is the template revision of a pod of o.
func revisionOf(o podOwner, p *corev1.Pod) string {
	if o.kind == "Deployment" {
		return p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	}
	return ""
}

// representative is the pod whose spec a controller's template takes: the first running pod
// of the revision by name, or the first pod.
func representative(pods []*corev1.Pod, rev string, o podOwner) *corev1.Pod {
	var first *corev1.Pod
	for _, p := range pods {
		if revisionOf(o, p) != rev {
			continue
		}
		if p.Status.Phase == corev1.PodRunning {
			return p
		}
		if first == nil {
			first = p
		}
	}
	return first
}

func (im *importer) buildWorkloads() error {
	im.buildNamespaces()
	owners := map[string]*ownedPods{}
	var order []string
	var pods []*corev1.Pod
	for _, p := range im.s.pods {
		switch {
		case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
			im.note(noteNotSim, "pods that had finished (Succeeded or Failed) are left out: they hold no resources and nothing recreates them", "")
			continue
		case p.DeletionTimestamp != nil:
			im.note(noteNotSim, "pods that were terminating in the snapshot are left out: they were going", "Pod "+podKey(p))
			continue
		}
		o := im.ownerOf(p)
		k := o.key()
		if owners[k] == nil {
			owners[k] = &ownedPods{owner: o}
			order = append(order, k)
		}
		owners[k].pods = append(owners[k].pods, p)
		pods = append(pods, p)
	}
	sort.Strings(order)
	templates := map[string]*corev1.PodSpec{} // pod key -> its controller's template spec
	if err := im.buildDaemonSets(owners, templates); err != nil {
		return err
	}
	for _, k := range order {
		op := owners[k]
		switch op.owner.kind {
		case "", "DaemonSet", ownerStatic:
		case "Deployment":
			im.buildDeployment(op, templates)
		default:
			im.buildStandIn(op, templates)
		}
	}
	for _, p := range pods {
		im.buildPod(p, im.ownerOf(p), templates[podKey(p)])
	}
	im.buildPDBs()
	im.buildServices()
	im.noteOthers()
	return nil
}

// buildNamespaces keeps the snapshot's namespaces, and those its objects are in.
func (im *importer) buildNamespaces() {
	c, s := im.c, im.s
	names := map[string]bool{}
	for _, ns := range catalog.SystemNamespaces {
		names[ns] = true
	}
	for n := range s.namespaces {
		names[n] = true
	}
	for _, p := range s.pods {
		names[p.Namespace] = true
	}
	for _, b := range s.pdbs {
		names[b.Namespace] = true
	}
	for _, svc := range s.services {
		names[svc.Namespace] = true
	}
	for _, m := range []map[string]bool{keysOf(s.deployments), keysOf(s.statefulSets), keysOf(s.daemonSets), keysOf(s.replicaSets)} {
		for k := range m {
			ns, _, _ := strings.Cut(k, "/")
			names[ns] = true
		}
	}
	for _, name := range model.SortedKeys(names) {
		ns := &model.Namespace{Name: name, UID: model.UIDOf(c.ID, "ns", name), CreateTime: c.CreateTime, RV: c.NextRV(),
			Labels: map[string]string{"kubernetes.io/metadata.name": name}}
		if in := s.namespaces[name]; in != nil {
			ns.UID, ns.Labels = string(in.UID), maps.Clone(in.Labels)
			ns.CreateTime = im.past(in.CreationTimestamp.Time, c.CreateTime)
		}
		c.Namespaces[name] = ns
		im.counts["Namespace"]++
	}
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// past is t in UTC, or def when t is zero or after the import.
func (im *importer) past(t, def time.Time) time.Time {
	if t.IsZero() || t.After(im.w.st.Now) {
		return def
	}
	return t.UTC()
}

// buildDaemonSets keeps the snapshot's DaemonSets and makes one for the pods of a DaemonSet
// missing from it, and for every kind of static pod.
func (im *importer) buildDaemonSets(owners map[string]*ownedPods, templates map[string]*corev1.PodSpec) error {
	c, s := im.c, im.s
	for _, key := range model.SortedKeys(s.daemonSets) {
		in := s.daemonSets[key]
		c.DaemonSets[key] = &model.DaemonSet{Namespace: in.Namespace, Name: in.Name, UID: string(in.UID), Labels: maps.Clone(in.Labels),
			Annotations: maps.Clone(in.Annotations), Spec: *in.Spec.DeepCopy(), Generation: max(in.Generation, 1),
			CreateTime: im.past(in.CreationTimestamp.Time, c.CreateTime)}
		im.counts["DaemonSet"]++
	}
	for _, k := range model.SortedKeys(owners) {
		op := owners[k]
		o := op.owner
		if o.kind != "DaemonSet" && o.kind != ownerStatic {
			continue
		}
		key := model.NamespacedKey(o.ns, o.name)
		ds := c.DaemonSets[key]
		if ds == nil {
			rep := representative(op.pods, "", o)
			t := workloads.TemplateFromPod(rep)
			// A DaemonSet pod's affinity pins it to its node; the DaemonSet's template does not.
			if a := t.Spec.Affinity; a != nil && a.NodeAffinity != nil {
				t.Spec.Affinity = nil
			}
			ds = &model.DaemonSet{Namespace: o.ns, Name: o.name, UID: o.uid, Labels: maps.Clone(rep.Labels), Static: o.kind == ownerStatic,
				Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(t.Labels)}, Template: t},
				Generation: 1, CreateTime: c.CreateTime}
			if ds.UID == "" {
				ds.UID = model.UIDOf(c.ID, "ds", key)
			}
			c.DaemonSets[key] = ds
			if ds.Static {
				im.note(noteApprox, "static pods (mirror pods the kubelet runs from a manifest): every node gets one, named after it, from the spec of one of them", "static pods "+key+"-NODE")
			} else {
				im.note(noteApprox, "DaemonSet not in the objects (print daemonsets too): its pods are kept, and new nodes get one made from the spec of one of them", "DaemonSet "+key)
				im.counts["DaemonSet"]++
			}
		}
		ds.NodeNamed = true
		for _, p := range op.pods {
			ds.NodeNamed = ds.NodeNamed && p.Name == ds.Name+"-"+p.Spec.NodeName
		}
		tkey := schedulingKey(&ds.Spec.Template.Spec, true)
		for _, p := range op.pods {
			if schedulingKey(&p.Spec, true) != tkey {
				templates[podKey(p)] = nil // its own spec
				continue
			}
			templates[podKey(p)] = &ds.Spec.Template.Spec
		}
	}
	if len(c.DaemonSets) == 0 {
		im.note(noteWarning, "the objects hold no DaemonSet and no DaemonSet pod: nodes GKE creates get no DaemonSet pods (GKE runs several on every node)", "")
	}
	return nil
}

// buildDeployment keeps a Deployment with one template per ReplicaSet that has pods (and its
// newest, the current one).
func (im *importer) buildDeployment(op *ownedPods, templates map[string]*corev1.PodSpec) {
	c, s := im.c, im.s
	o := op.owner
	in := s.deployments[model.NamespacedKey(o.ns, o.name)]
	d := &model.Deployment{Namespace: in.Namespace, Name: in.Name, UID: string(in.UID), Labels: maps.Clone(in.Labels),
		Annotations: maps.Clone(in.Annotations), Spec: *in.Spec.DeepCopy(), Generation: max(in.Generation, 1),
		CreateTime: im.past(in.CreationTimestamp.Time, c.CreateTime), RV: c.NextRV(), Templates: map[string]*corev1.PodTemplateSpec{}}
	delete(d.Annotations, "deployment.kubernetes.io/revision")
	// The status as the real controller reported it: its conditions keep their times while
	// what they say holds.
	d.Status = *in.Status.DeepCopy()
	// The Deployment's ReplicaSets, newest revision last.
	type rsRev struct {
		hash string
		rev  int
		rs   *appsv1.ReplicaSet
	}
	var sets []rsRev
	for _, key := range model.SortedKeys(s.replicaSets) {
		rs := s.replicaSets[key]
		ref := controllerOf(rs.OwnerReferences)
		if rs.Namespace != d.Namespace || ref == nil || ref.Kind != "Deployment" || ref.Name != d.Name {
			continue
		}
		hash := rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
		if hash == "" {
			hash = strings.TrimPrefix(rs.Name, d.Name+"-")
		}
		rev, _ := strconv.Atoi(rs.Annotations["deployment.kubernetes.io/revision"])
		sets = append(sets, rsRev{hash, rev, rs})
	}
	sort.SliceStable(sets, func(i, j int) bool { return sets[i].rev < sets[j].rev })
	byHash := map[string]*appsv1.ReplicaSet{}
	for _, r := range sets {
		byHash[r.hash] = r.rs
		d.Current = r.hash
	}
	revs := map[string]bool{}
	var newest *corev1.Pod
	for _, p := range op.pods {
		revs[revisionOf(o, p)] = true
		if newest == nil || p.CreationTimestamp.After(newest.CreationTimestamp.Time) {
			newest = p
		}
	}
	if d.Current == "" && newest != nil {
		d.Current = revisionOf(o, newest)
	}
	if d.Current != "" {
		revs[d.Current] = true
	}
	for _, hash := range model.SortedKeys(revs) {
		// The ReplicaSet's template when the snapshot has it (its pods whose spec differs in
		// what scheduling reads keep their own: assignTemplates), else a pod's.
		t := in.Spec.Template.DeepCopy()
		if rs := byHash[hash]; rs != nil {
			t = rs.Spec.Template.DeepCopy()
		} else if rep := representative(op.pods, hash, o); rep != nil {
			t.Spec = workloads.TemplateFromPod(rep).Spec
		}
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		t.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
		d.Templates[hash] = t
	}
	if len(d.Templates) == 0 {
		d.SetTemplate(in.Spec.Template)
	}
	// The Deployment's ReplicaSets, one per template, with the snapshot's revisions (the others
	// numbered after them, the current one last) and creation times; their statuses are set
	// when the import is published (join).
	d.ReplicaSets = map[string]*model.ReplicaSet{}
	var top int64
	for _, r := range sets {
		top = max(top, int64(r.rev))
	}
	hashes := model.SortedKeys(d.Templates)
	sort.SliceStable(hashes, func(i, j int) bool { return hashes[j] == d.Current && hashes[i] != d.Current })
	for _, hash := range hashes {
		rs := &model.ReplicaSet{Deployment: d.Key(), Hash: hash, CreateTime: d.CreateTime, Generation: 1, Template: d.Templates[hash]}
		if in := byHash[hash]; in != nil {
			rs.Revision = int64(atoiOr(in.Annotations["deployment.kubernetes.io/revision"], 0))
			rs.CreateTime = im.past(in.CreationTimestamp.Time, d.CreateTime)
			rs.Generation = max(in.Generation, 1)
			if in.Spec.Replicas != nil {
				rs.Replicas = *in.Spec.Replicas
			}
			rs.Status = *in.Status.DeepCopy()
		}
		if rs.Revision == 0 || (hash == d.Current && rs.Revision < top) {
			top++
			rs.Revision = top
		}
		rs.Annotations = workloads.ReplicaSetAnnotations(d, rs)
		rs.RV = c.NextRV()
		d.ReplicaSets[hash] = rs
	}
	c.Deployments[d.Key()] = d
	im.counts["Deployment"]++
	im.assignTemplates(op, d, templates)
}

// assignTemplates says, for each pod of a workload, whether its template's spec is the pod's.
func (im *importer) assignTemplates(op *ownedPods, d *model.Deployment, templates map[string]*corev1.PodSpec) {
	keys := map[string]string{}
	for hash, t := range d.Templates {
		keys[hash] = schedulingKey(&t.Spec, false)
	}
	for _, p := range op.pods {
		hash := revisionOf(op.owner, p)
		if d.Controller != nil || d.Templates[hash] == nil {
			hash = d.Current
		}
		t := d.Templates[hash]
		if t != nil && schedulingKey(&p.Spec, false) == keys[hash] {
			templates[podKey(p)] = &t.Spec
		} else {
			templates[podKey(p)] = nil
		}
	}
}

// buildStandIn makes the stand-in of a controller gkesim has no model of (workloads/standins.go).
func (im *importer) buildStandIn(op *ownedPods, templates map[string]*corev1.PodSpec) {
	c, s := im.c, im.s
	o := op.owner
	key := model.NamespacedKey(o.ns, o.name)
	rep := representative(op.pods, "", o)
	t := workloads.TemplateFromPod(rep)
	replicas := int32(len(op.pods))
	ctl := &model.ControllerRef{APIVersion: o.apiVersion, Kind: o.kind, Name: o.name}
	d := &model.Deployment{Namespace: o.ns, Name: workloads.StandInName(o.kind, o.name), UID: o.uid, Generation: 1, CreateTime: c.CreateTime, RV: c.NextRV(),
		Controller: ctl, Templates: map[string]*corev1.PodTemplateSpec{}}
	var selector *metav1.LabelSelector
	var note string
	switch o.kind {
	case workloads.KindStatefulSet:
		ctl.Ordinals = true
		note = "StatefulSet: gkesim's stand-in controller keeps its pods and recreates an evicted one under its own name once the old one is gone, one at a time (or at once with podManagementPolicy Parallel); its volumes are not simulated"
		if in := s.statefulSets[key]; in != nil {
			replicas = 1
			if in.Spec.Replicas != nil {
				replicas = *in.Spec.Replicas
			}
			tt := in.Spec.Template.DeepCopy()
			tt.Spec = t.Spec
			t = *tt
			selector = in.Spec.Selector.DeepCopy()
			ctl.Parallel = in.Spec.PodManagementPolicy == appsv1.ParallelPodManagement
			ctl.Spec, _ = json.Marshal(in.Spec)
			d.UID, d.Labels, d.Annotations, d.Generation = string(in.UID), maps.Clone(in.Labels), maps.Clone(in.Annotations), max(in.Generation, 1)
			d.CreateTime = im.past(in.CreationTimestamp.Time, c.CreateTime)
		} else {
			note = "StatefulSet not in the objects (print statefulsets too): its pods are kept, and recreated under their own names once gone, by gkesim's stand-in controller"
		}
		delete(t.Labels, appsv1.StatefulSetPodNameLabel)
		delete(t.Labels, appsv1.PodIndexLabel)
	case workloads.KindReplicaSet:
		note = "ReplicaSet without a Deployment: gkesim's stand-in controller keeps its pods and recreates an evicted one, as the ReplicaSet controller does"
		if in := s.replicaSets[key]; in != nil {
			if in.Spec.Replicas != nil {
				replicas = *in.Spec.Replicas
			}
			selector = in.Spec.Selector.DeepCopy()
			ctl.Spec, _ = json.Marshal(in.Spec)
			d.UID, d.Labels, d.Annotations = string(in.UID), maps.Clone(in.Labels), maps.Clone(in.Annotations)
			d.CreateTime = im.past(in.CreationTimestamp.Time, c.CreateTime)
		}
	case workloads.KindJob:
		note = "Job: its running pods are kept and an evicted one is recreated, as the Job controller does until the Job completes; gkesim does not run them to completion"
	default:
		note = fmt.Sprintf("pods of a custom controller (%s %s): gkesim's stand-in controller keeps as many as there were and recreates an evicted one from the spec of one of them; the controller's own logic (rollouts, scaling) is not simulated", o.apiVersion, o.kind)
	}
	im.note(noteApprox, note, o.kind+" "+key)
	if selector == nil {
		selector = &metav1.LabelSelector{MatchLabels: maps.Clone(t.Labels)}
	}
	if d.UID == "" {
		d.UID = model.UIDOf(c.ID, o.kind, key)
	}
	d.Spec = appsv1.DeploymentSpec{Replicas: &replicas, Selector: selector, Template: *t.DeepCopy()}
	hash := model.TemplateHash(&t)
	d.Templates[hash], d.Current = &t, hash
	c.Deployments[d.Key()] = d
	im.counts[o.kind]++
	im.assignTemplates(op, d, templates)
}

// buildPod keeps one pod, on its node (or pending), with its spec or its controller's.
func (im *importer) buildPod(kp *corev1.Pod, o podOwner, tmpl *corev1.PodSpec) {
	c := im.c
	ip, _ := model.ParseIP(kp.Status.PodIP) // Snapshot.check refused an address it cannot keep
	p := &model.Pod{LegacyUID: string(kp.UID), Labels: maps.Clone(kp.Labels),
		Annotation: maps.Clone(kp.Annotations), Node: kp.Spec.NodeName, Phase: model.PodPending, IP: ip,
		CreateTime: model.StampOf(im.past(kp.CreationTimestamp.Time, im.w.st.Now)), RV: c.NextRV()}
	p.Rename(kp.Namespace, kp.Name)
	if p.LegacyUID == "" {
		p.LegacyUID = model.UIDOf(c.ID, "pod", p.Key())
	}
	switch o.kind {
	case "":
	case "DaemonSet", ownerStatic:
		p.OwnerKind, p.Owner = model.OwnerDaemonSet, o.name
	case "Deployment":
		p.OwnerKind, p.Owner = model.OwnerDeployment, o.name
		p.Template = revisionOf(o, kp)
		if d := c.Deployments[model.NamespacedKey(o.ns, o.name)]; d != nil && d.Templates[p.Template] == nil {
			p.Template = d.Current
		}
	default:
		d := c.Deployments[model.NamespacedKey(o.ns, workloads.StandInName(o.kind, o.name))]
		p.OwnerKind, p.Owner, p.Template = model.OwnerDeployment, d.Name, d.Current
	}
	spec := tmpl
	if spec == nil {
		own := kp.Spec.DeepCopy()
		own.NodeName = ""
		kuberender.WithoutAdmittedToken(own)
		p.Spec, spec = own, own
	}
	p.Req, p.Priority = core.EffectiveRequests(spec), core.PodPriority(im.c, spec)
	if st := kp.Status.StartTime; st != nil {
		p.StartTime = model.StampOf(im.past(st.Time, p.CreateTime.Time()))
	}
	for _, cond := range kp.Status.Conditions {
		if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
			p.Ready = true
			p.ReadyTime = model.StampOf(im.past(cond.LastTransitionTime.Time, p.StartTime.Time()))
		}
	}
	switch {
	case p.Node == "":
		p.Ready = false
		im.note(noteWarning, "pods were Pending (not scheduled) in the snapshot: gkesim's scheduler tries them again at the import", "Pod "+p.Key())
	case kp.Status.Phase == corev1.PodRunning:
		p.Phase = model.PodRunning
		if !p.Ready {
			im.note(noteApprox, "pods were running but not ready: they stay not ready (and count against their PodDisruptionBudgets) until they are recreated", "Pod "+p.Key())
		}
	default:
		p.Ready = false
		im.starting = append(im.starting, p)
	}
	c.Pods[p.Key()] = p
	im.counts["Pod"]++
}

// buildPDBs keeps the PodDisruptionBudgets.
func (im *importer) buildPDBs() {
	c := im.c
	for _, in := range im.s.pdbs {
		b := &model.PDB{Namespace: in.Namespace, Name: in.Name, UID: string(in.UID), Labels: maps.Clone(in.Labels), Annotations: maps.Clone(in.Annotations),
			Spec: *in.Spec.DeepCopy(), Generation: max(in.Generation, 1), CreateTime: im.past(in.CreationTimestamp.Time, c.CreateTime), RV: c.NextRV()}
		if b.UID == "" {
			b.UID = model.UIDOf(c.ID, "pdb", b.Key())
		}
		if p := b.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == policyv1.AlwaysAllow {
			im.note(noteApprox, "unhealthyPodEvictionPolicy AlwaysAllow: gkesim evicts unready pods only while the budget is met (IfHealthyBudget)", "PodDisruptionBudget "+b.Key())
		}
		c.PDBs[b.Key()] = b
		im.counts["PodDisruptionBudget"]++
	}
}

// buildServices keeps the Services; a LoadBalancer Service's load balancer is ready at the
// address it had.
func (im *importer) buildServices() {
	c, now := im.c, im.w.st.Now
	for _, in := range im.s.services {
		key := model.NamespacedKey(in.Namespace, in.Name)
		s := &model.Service{Namespace: in.Namespace, Name: in.Name, UID: string(in.UID), Labels: maps.Clone(in.Labels),
			Annotations: loadbalancers.UserAnnotations(in.Annotations), Spec: *in.Spec.DeepCopy(), CreateTime: im.past(in.CreationTimestamp.Time, c.CreateTime),
			RV: c.NextRV(), System: key == "default/kubernetes" || key == "kube-system/kube-dns"}
		if s.UID == "" {
			s.UID = model.UIDOf(c.ID, "svc", key)
		}
		c.ServicesByName()[key] = s
		im.counts["Service"]++
		if s.Spec.Type != corev1.ServiceTypeLoadBalancer {
			continue
		}
		ip := ""
		for _, ing := range in.Status.LoadBalancer.Ingress {
			if ing.IP != "" {
				ip = ing.IP
				break
			}
		}
		if ip == "" {
			im.note(noteWarning, "LoadBalancer Service had no address yet: GKE goes on building its load balancer at the import", "Service "+key)
			continue
		}
		kind, _ := loadbalancers.LBKindFor(c, s)
		s.LB = &model.LoadBalancer{Kind: kind, Internal: loadbalancers.InternalRequested(s.Annotations), Gen: c.NextRV(), State: loadbalancers.LBReady, IP: ip,
			Start: now, ReadyTime: now, Members: map[string]string{}, Health: map[string]*model.BackendHealth{}, Warned: map[string]bool{}}
		im.counts["LoadBalancer"]++
		im.note(noteApprox, "load balancer kind read from the Service's annotations and the cluster's GKE subsetting, as GKE chooses it for a new Service; its backends are the nodes' as gkesim computes them", "Service "+key+" ("+kind+")")
	}
}

// otherKindNotes say why objects of a kind are not simulated.
var otherKindNotes = map[string]string{
	"Secret":                  "Secrets are not simulated: their data is neither needed nor read",
	"ConfigMap":               "ConfigMaps are not simulated",
	"HorizontalPodAutoscaler": "HorizontalPodAutoscalers are not simulated: workloads keep the replica counts they had",
	"Ingress":                 "Ingresses are not simulated (no HTTP(S) load balancers)",
	"Endpoints":               "Endpoints are not imported: gkesim derives a Service's endpoints from its pods",
	"EndpointSlice":           "EndpointSlices are not imported: gkesim derives a Service's endpoints from its pods",
	"Job":                     "Jobs are not simulated as Jobs: their running pods are kept (see the approximations)",
	"CronJob":                 "CronJobs are not simulated: they start no Job",
	"PersistentVolumeClaim":   "PersistentVolumeClaims are not simulated: pods move between nodes without their volumes' zonal constraints",
	"PersistentVolume":        "PersistentVolumes are not simulated",
	"Event":                   "Events are not imported",
}

func (im *importer) noteOthers() {
	for _, kind := range model.SortedKeys(im.s.others) {
		text, ok := otherKindNotes[kind]
		if !ok {
			text = kind + " objects are not simulated"
		}
		for _, key := range im.s.others[kind] {
			im.note(noteNotSim, text, kind+" "+key)
		}
	}
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}
