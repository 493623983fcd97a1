package kubeapi

import (
	"fmt"
	"maps"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The Kubernetes-shaped API of a cluster: namespaces, Deployments (and their scale), Pods,
// PodDisruptionBudgets and evictions, with the API server's validation (422 Invalid), conflict
// (409 on a stale resourceVersion) and not-found semantics.

// ---- Namespaces ----

// ListNamespaces lists a cluster's namespaces by name.
func (w *API) ListNamespaces(c *model.Cluster) *corev1.NamespaceList {
	out := &corev1.NamespaceList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NamespaceList"}, ListMeta: metav1.ListMeta{ResourceVersion: model.RVString(c.RV)}}
	names := make([]string, 0, len(c.Namespaces))
	for n := range c.Namespaces {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out.Items = append(out.Items, *kuberender.RenderNamespace(c.Namespaces[n]))
	}
	return out
}

func (w *API) GetNamespace(c *model.Cluster, name string) (*corev1.Namespace, error) {
	n := c.Namespaces[name]
	if n == nil {
		return nil, model.KubeNotFound(model.ResNamespaces, name)
	}
	return kuberender.RenderNamespace(n), nil
}

func (w *API) CreateNamespace(c *model.Cluster, in *corev1.Namespace) (*corev1.Namespace, error) {
	in = in.DeepCopy()
	w.core.GenerateName(&in.ObjectMeta)
	if errs := validateNamespace(in); len(errs) > 0 {
		return nil, model.KubeInvalidFields("Namespace", in.Name, errs)
	}
	if c.Namespaces[in.Name] != nil {
		return nil, model.KubeAlreadyExists(model.ResNamespaces, in.Name)
	}
	lbls := map[string]string{"kubernetes.io/metadata.name": in.Name}
	for k, v := range in.Labels {
		lbls[k] = v
	}
	n := &model.Namespace{Name: in.Name, UID: model.UIDOf(c.ID, "ns", in.Name, w.engine.RandHex(8)), Labels: lbls, Annotations: in.Annotations,
		CreateTime: w.st.Now, ManagedFields: in.ManagedFields}
	c.Namespaces[n.Name] = n
	w.core.TouchObject(c, n, true)
	w.CreateDefaultServiceAccount(c, n.Name)
	w.engine.Record("NamespaceCreated", c, "", "", "", "namespace %s created", n.Name)
	return kuberender.RenderNamespace(n), nil
}

// UpdateNamespace replaces a namespace's labels and annotations (PUT; PATCH goes through it).
func (w *API) UpdateNamespace(c *model.Cluster, name string, in *corev1.Namespace) (*corev1.Namespace, error) {
	n := c.Namespaces[name]
	if n == nil {
		return nil, model.KubeNotFound(model.ResNamespaces, name)
	}
	if in.Name != "" && in.Name != name {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", in.Name, name)
	}
	if err := model.CheckRV(in.ResourceVersion, n.RV, model.ResNamespaces, name); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	in.Name = name
	if errs := validateNamespace(in); len(errs) > 0 {
		return nil, model.KubeInvalidFields("Namespace", name, errs)
	}
	lbls := map[string]string{"kubernetes.io/metadata.name": name} // the API server keeps it
	for k, v := range in.Labels {
		if k != "kubernetes.io/metadata.name" {
			lbls[k] = v
		}
	}
	if maps.Equal(lbls, n.Labels) && maps.Equal(in.Annotations, n.Annotations) && model.EqualJSON(in.ManagedFields, n.ManagedFields) {
		return kuberender.RenderNamespace(n), nil
	}
	n.Labels, n.Annotations, n.ManagedFields = lbls, in.Annotations, in.ManagedFields
	w.core.TouchObject(c, n, false)
	return kuberender.RenderNamespace(n), nil
}

// DeleteNamespace deletes a namespace and everything in it.
func (w *API) DeleteNamespace(c *model.Cluster, name string) (*corev1.Namespace, error) {
	n := c.Namespaces[name]
	if n == nil {
		return nil, model.KubeNotFound(model.ResNamespaces, name)
	}
	for _, sys := range catalog.SystemNamespaces {
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
	w.loadbalancers.DeleteServicesIn(c, name)
	for _, key := range model.SortedKeys(c.PDBs) {
		if b := c.PDBs[key]; b.Namespace == name {
			w.core.ObjectRemoved(c, b)
			w.core.ForgetPDB(c, b)
			delete(c.PDBs, key)
		}
	}
	for _, key := range model.SortedKeys(c.Pods) {
		if p := c.Pods[key]; p != nil && p.Namespace() == name {
			w.core.TerminatePod(c, p, core.GraceOf(w.core.PodSpec(c, p), 0))
		}
	}
	w.deleteStoredIn(c, name)
	w.core.ObjectRemoved(c, n)
	delete(c.Namespaces, name)
	w.engine.Record("NamespaceDeleted", c, "", "", "", "namespace %s deleted", name)
	return kuberender.RenderNamespace(n), nil
}

// ---- Deployments ----

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
func (w *API) ListDeployments(c *model.Cluster, o model.ListOptions) *appsv1.DeploymentList {
	out := &appsv1.DeploymentList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DeploymentList"}, ListMeta: metav1.ListMeta{ResourceVersion: model.RVString(c.RV)}}
	keys := make([]string, 0, len(c.Deployments))
	for k, d := range c.Deployments {
		if d.Controller == nil && o.Matches(d.Namespace, d.Labels) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out.Items = make([]appsv1.Deployment, 0, len(keys))
	for _, k := range keys {
		out.Items = append(out.Items, *kuberender.RenderDeployment(c.Deployments[k]))
	}
	return out
}

func (w *API) deployment(c *model.Cluster, ns, name string) (*model.Deployment, error) {
	d := c.Deployments[model.NamespacedKey(ns, name)]
	if d == nil {
		return nil, model.KubeNotFound(model.ResDeployments, name)
	}
	return d, nil
}

func (w *API) GetDeployment(c *model.Cluster, ns, name string) (*appsv1.Deployment, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	return kuberender.RenderDeployment(d), nil
}

// CreateDeployment creates a Deployment; its pods are created by the controller right after.
func (w *API) CreateDeployment(c *model.Cluster, ns string, in *appsv1.Deployment) (*appsv1.Deployment, error) {
	if in.Namespace != "" && in.Namespace != ns {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request")
	}
	if err := c.NamespaceFor(ns); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	w.core.GenerateName(&in.ObjectMeta)
	defaultDeployment(in)
	if errs := validateDeployment(in, ns); len(errs) > 0 {
		return nil, model.KubeInvalidFields("Deployment.apps", in.Name, errs)
	}
	if c.Deployments[model.NamespacedKey(ns, in.Name)] != nil {
		return nil, model.KubeAlreadyExists(model.ResDeployments, in.Name)
	}
	var err error
	var admitted func()
	if in.Annotations, admitted, err = w.autopilotAdmit(c, "Deployment", model.NamespacedKey(ns, in.Name), &in.Spec.Template.Spec, in.Spec.Template.Annotations, in.Annotations); err != nil {
		return nil, err
	}
	if err := w.checkExtended(c, "Deployment.apps", in.Name, &in.Spec.Template.Spec, in.Spec.Template.Annotations, ""); err != nil {
		return nil, err
	}
	d := &model.Deployment{Namespace: ns, Name: in.Name, UID: model.UIDOf(c.ID, "deploy", ns, in.Name, w.engine.RandHex(8)), Labels: in.Labels,
		Annotations: in.Annotations, Spec: in.Spec, Generation: 1, CreateTime: w.st.Now, ManagedFields: in.ManagedFields}
	c.Deployments[d.Key()] = d
	admitted()
	w.core.TouchObject(c, d, true)
	w.workloads.RollOut(c, d, in.Spec.Template)
	w.engine.Record("DeploymentCreated", c, "", "", "", "deployment %s created: %d replicas of %s", d.Key(), d.DesiredReplicas(), describeRequests(in.Spec.Template.Spec))
	w.workloads.QueueSync(c, d.Key())
	return kuberender.RenderDeployment(d), nil
}

func describeRequests(spec corev1.PodSpec) string {
	r := core.EffectiveRequests(&spec)
	return fmt.Sprintf("%dm CPU, %dMi memory", r.MilliCPU, r.MemoryBytes>>20)
}

// UpdateDeployment replaces a Deployment's spec, labels and annotations (PUT).
func (w *API) UpdateDeployment(c *model.Cluster, ns, name string, in *appsv1.Deployment) (*appsv1.Deployment, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	if in.Name != "" && in.Name != name {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", in.Name, name)
	}
	if err := model.CheckRV(in.ResourceVersion, d.RV, model.ResDeployments, name); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	in.Name = name
	defaultDeployment(in)
	if errs := validateDeployment(in, ns); len(errs) > 0 {
		return nil, model.KubeInvalidFields("Deployment.apps", name, errs)
	}
	var admitted func()
	if in.Annotations, admitted, err = w.autopilotAdmit(c, "Deployment", d.Key(), &in.Spec.Template.Spec, in.Spec.Template.Annotations, in.Annotations); err != nil {
		return nil, err
	}
	if err := w.checkExtended(c, "Deployment.apps", name, &in.Spec.Template.Spec, in.Spec.Template.Annotations, d.Key()); err != nil {
		return nil, err
	}
	if sel, _ := metav1.LabelSelectorAsSelector(in.Spec.Selector); sel.String() != w.core.SelectorOf(c, d, d.Spec.Selector).String() {
		return nil, model.KubeInvalid("Deployment.apps", name, "spec.selector: Invalid value: "+sel.String()+": field is immutable")
	}
	if !model.EqualJSON(in.Spec, d.Spec) {
		d.Generation++
	}
	before := d.Current
	d.Spec, d.Labels, d.Annotations, d.ManagedFields = in.Spec, in.Labels, in.Annotations, in.ManagedFields
	admitted()
	w.core.TouchObject(c, d, false)
	w.workloads.RollOut(c, d, in.Spec.Template)
	w.workloads.ReplicasChanged(c, d)
	if d.Current != before {
		w.engine.Record("DeploymentRollout", c, "", "", "", "deployment %s rolling out template %s (%s)", d.Key(), d.Current, describeRequests(in.Spec.Template.Spec))
	}
	w.workloads.QueueSync(c, d.Key())
	return kuberender.RenderDeployment(d), nil
}

// GetScale is the scale subresource (kubectl scale).
func (w *API) GetScale(c *model.Cluster, ns, name string) (*autoscalingv1.Scale, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	st := d.Status
	sel, _ := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	return &autoscalingv1.Scale{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: d.Namespace, UID: types.UID(d.UID), ResourceVersion: model.RVString(d.RV), CreationTimestamp: metav1.NewTime(d.CreateTime)},
		Spec:       autoscalingv1.ScaleSpec{Replicas: int32(d.DesiredReplicas())},
		Status:     autoscalingv1.ScaleStatus{Replicas: st.Replicas, Selector: sel.String()},
	}, nil
}

// SetScale sets a Deployment's replicas.
func (w *API) SetScale(c *model.Cluster, ns, name string, replicas int32, rv string) (*autoscalingv1.Scale, error) {
	return w.ScaleDeployment(c, ns, name, replicas, rv, nil)
}

// ScaleDeployment is SetScale recording the Deployment's new field owners (nil: unchanged).
func (w *API) ScaleDeployment(c *model.Cluster, ns, name string, replicas int32, rv string, managedFields []metav1.ManagedFieldsEntry) (*autoscalingv1.Scale, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	if err := model.CheckRV(rv, d.RV, model.ResDeployments, name); err != nil {
		return nil, err
	}
	if replicas < 0 {
		return nil, model.KubeInvalid("Scale.autoscaling", name, fmt.Sprintf("spec.replicas: Invalid value: %d: must be greater than or equal to 0", replicas))
	}
	if int(replicas) != d.DesiredReplicas() {
		w.engine.Record("DeploymentScaled", c, "", "", "", "deployment %s scaled from %d to %d replicas", d.Key(), d.DesiredReplicas(), replicas)
		d.Spec.Replicas = &replicas
		d.Generation++
		if managedFields != nil {
			d.ManagedFields = managedFields
		}
		w.core.TouchObject(c, d, false)
		w.workloads.ReplicasChanged(c, d)
		w.workloads.QueueSync(c, d.Key())
	}
	return w.GetScale(c, ns, name)
}

// DeleteDeployment deletes a Deployment; its pods terminate (background cascading deletion).
func (w *API) DeleteDeployment(c *model.Cluster, ns, name string) (*appsv1.Deployment, error) {
	d, err := w.deployment(c, ns, name)
	if err != nil {
		return nil, err
	}
	out := kuberender.RenderDeployment(d)
	w.deleteDeployment(c, d)
	return out, nil
}

func (w *API) deleteDeployment(c *model.Cluster, d *model.Deployment) {
	for _, h := range model.SortedKeys(d.ReplicaSets) {
		w.core.ObjectRemoved(c, d.ReplicaSets[h])
	}
	w.core.ObjectRemoved(c, d)
	w.workloads.ReplicasChanged(c, d)
	delete(c.Deployments, d.Key())
	delete(w.core.PodIndex(c).Selectors, d)
	w.engine.Record("DeploymentDeleted", c, "", "", "", "deployment %s deleted", d.Key())
	for _, p := range core.SortedPods(w.core.PodIndex(c).PodsOf[d.Key()]) {
		w.core.TerminatePod(c, p, core.GraceOf(w.core.PodSpec(c, p), 0))
	}
}

// ---- Pods ----

func (w *API) RenderPod(c *model.Cluster, p *model.Pod) *corev1.Pod {
	return w.core.PodSnapshot(c, p).RenderPod()
}

// ListPods lists pods by namespace and name.
func (w *API) ListPods(c *model.Cluster, o model.ListOptions) *corev1.PodList {
	out := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: model.RVString(c.RV)}}
	matches := func(p *model.Pod) bool {
		return o.Matches(p.Namespace(), p.Labels) && (o.Phase == "" || o.Phase == p.Phase.String())
	}
	// The pods that match, in order, before any is rendered: a filtered list (the pending pods
	// of a large cluster) costs what it holds.
	var list []*model.Pod
	if o.NodeName != "" {
		for _, p := range w.core.PodIndex(c).On(o.NodeName).Pods {
			if matches(p) {
				list = append(list, p)
			}
		}
	} else {
		pods := map[*model.Pod]struct{}{}
		for _, p := range c.Pods {
			if matches(p) {
				pods[p] = struct{}{}
			}
		}
		list = core.SortedPods(pods)
	}
	out.Items = make([]corev1.Pod, 0, len(list))
	for _, p := range list {
		out.Items = append(out.Items, *w.RenderPod(c, p))
	}
	return out
}

func (w *API) pod(c *model.Cluster, ns, name string) (*model.Pod, error) {
	p := c.Pods[model.NamespacedKey(ns, name)]
	if p == nil {
		return nil, model.KubeNotFound(model.ResPods, name)
	}
	return p, nil
}

func (w *API) GetPod(c *model.Cluster, ns, name string) (*corev1.Pod, error) {
	p, err := w.pod(c, ns, name)
	if err != nil {
		return nil, err
	}
	return w.RenderPod(c, p), nil
}

// CreatePod creates a bare pod (one no controller recreates).
func (w *API) CreatePod(c *model.Cluster, ns string, in *corev1.Pod) (*corev1.Pod, error) {
	if in.Namespace != "" && in.Namespace != ns {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request")
	}
	if err := c.NamespaceFor(ns); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	w.core.GenerateName(&in.ObjectMeta)
	defaultPodSpec(&in.Spec)
	if err := admitPodPriority(c, &in.Spec, in.Name); err != nil {
		return nil, err
	}
	if errs := validatePod(in, ns); len(errs) > 0 {
		return nil, model.KubeInvalidFields("Pod", in.Name, errs)
	}
	if c.Pods[model.NamespacedKey(ns, in.Name)] != nil {
		return nil, model.KubeAlreadyExists(model.ResPods, in.Name)
	}
	var err error
	var admitted func()
	if in.Annotations, admitted, err = w.autopilotAdmit(c, "Pod", model.NamespacedKey(ns, in.Name), &in.Spec, in.Annotations, in.Annotations); err != nil {
		return nil, err
	}
	if err := w.checkExtended(c, "Pod", in.Name, &in.Spec, in.Annotations, ""); err != nil {
		return nil, err
	}
	spec := &in.Spec
	p := model.NewPod(ns, in.Name)
	p.Spec, p.Labels, p.Annotation = spec, in.Labels, in.Annotations
	p.SetManagedFields(in.ManagedFields)
	w.core.AddPod(c, p)
	admitted()
	w.engine.Record("PodCreated", c, "", "", "", "pod %s created (%s)", p.Key(), describeRequests(*spec))
	return w.RenderPod(c, p), nil
}

// podUpdateForbidden is the API server's answer to a change of a pod's spec it does not allow.
const podUpdateForbidden = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// UpdatePod changes a pod's labels and annotations, and a bare pod's container images (PUT;
// PATCH goes through it). Other changes to the spec are refused as the API server refuses them.
func (w *API) UpdatePod(c *model.Cluster, ns, name string, in *corev1.Pod) (*corev1.Pod, error) {
	p, err := w.pod(c, ns, name)
	if err != nil {
		return nil, err
	}
	if in.Name != "" && in.Name != name {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", in.Name, name)
	}
	if err := model.CheckRV(in.ResourceVersion, p.RV, model.ResPods, name); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	in.Name = name
	if errs := kuberender.ValidateMeta(in.ObjectMeta, ns, apivalidation.NameIsDNSSubdomain); len(errs) > 0 {
		return nil, model.KubeInvalidFields("Pod", name, errs)
	}
	cur := w.RenderPod(c, p)
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
	if len(want.Tolerations) >= len(have.Tolerations) && model.EqualJSON(want.Tolerations[:len(have.Tolerations)], have.Tolerations) {
		have.Tolerations = want.Tolerations
	}
	if !model.EqualJSON(have, want) {
		return nil, model.KubeInvalid("Pod", name, podUpdateForbidden)
	}
	if images && p.OwnerKind != 0 {
		return nil, model.KubeInvalid("Pod", name, fmt.Sprintf("spec.containers: Forbidden: gkesim runs the pods of %s %s with its template's spec: change the image in the template (kubectl set image %s/%s)",
			strings.ToLower(p.OwnerKind.String()), p.Owner, strings.ToLower(p.OwnerKind.String()), p.Owner))
	}
	w.core.PDBTrack(c, p, false)
	p.Labels, p.Annotation = in.Labels, in.Annotations
	p.SetManagedFields(in.ManagedFields)
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
	w.core.PDBTrack(c, p, true)
	w.core.ReflagPod(c, p)
	w.core.TouchPod(c, p)
	w.loadbalancers.ServicePodChanged(c, p)
	return w.RenderPod(c, p), nil
}

// DeletePod deletes a pod with its grace period (or the one given); a Deployment replaces it.
func (w *API) DeletePod(c *model.Cluster, ns, name string, graceSecs *int64) (*corev1.Pod, error) {
	p, err := w.pod(c, ns, name)
	if err != nil {
		return nil, err
	}
	grace := core.GraceOf(w.core.PodSpec(c, p), 0)
	if graceSecs != nil && *graceSecs >= 0 {
		grace = durationOfSeconds(*graceSecs)
	}
	w.engine.Record("PodDeleted", c, "", p.Node, "", "pod %s deleted (grace %s)", p.Key(), grace)
	w.core.TerminatePod(c, p, grace)
	return w.RenderPod(c, p), nil
}

// EvictPod is the eviction subresource (policy/v1 Eviction, what kubectl drain calls): it
// refuses with 429 when a PodDisruptionBudget does not allow the disruption.
func (w *API) EvictPod(c *model.Cluster, ns, name string) error {
	p, err := w.pod(c, ns, name)
	if err != nil {
		return err
	}
	if p.Terminating {
		return nil
	}
	if b := w.core.EvictionBlocker(c, p); b != nil {
		return model.KubeError(http.StatusTooManyRequests, "TooManyRequests",
			"Cannot evict pod as it would violate the pod's disruption budget. The disruption budget %s needs %d healthy pods and has %d currently",
			b.Name, w.core.PDBStatus(c, b).DesiredHealthy, w.core.PDBStatus(c, b).CurrentHealthy)
	}
	grace := core.GraceOf(w.core.PodSpec(c, p), 0)
	w.engine.Record("PodEvicted", c, "", p.Node, "", "pod %s evicted through the API (grace %s)", p.Key(), grace)
	w.core.TerminatePod(c, p, grace)
	return nil
}

// ---- PodDisruptionBudgets ----

func (w *API) ListPDBs(c *model.Cluster, o model.ListOptions) *policyv1.PodDisruptionBudgetList {
	out := &policyv1.PodDisruptionBudgetList{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudgetList"},
		ListMeta: metav1.ListMeta{ResourceVersion: model.RVString(c.RV)}}
	keys := make([]string, 0, len(c.PDBs))
	for k, b := range c.PDBs {
		if o.Matches(b.Namespace, b.Labels) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out.Items = make([]policyv1.PodDisruptionBudget, 0, len(keys))
	for _, k := range keys {
		out.Items = append(out.Items, *kuberender.RenderPDB(c.PDBs[k]))
	}
	return out
}

func (w *API) pdb(c *model.Cluster, ns, name string) (*model.PDB, error) {
	b := c.PDBs[model.NamespacedKey(ns, name)]
	if b == nil {
		return nil, model.KubeNotFound(model.ResPDBs, name)
	}
	return b, nil
}

func (w *API) GetPDB(c *model.Cluster, ns, name string) (*policyv1.PodDisruptionBudget, error) {
	b, err := w.pdb(c, ns, name)
	if err != nil {
		return nil, err
	}
	return kuberender.RenderPDB(b), nil
}

func (w *API) CreatePDB(c *model.Cluster, ns string, in *policyv1.PodDisruptionBudget) (*policyv1.PodDisruptionBudget, error) {
	if err := c.NamespaceFor(ns); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	w.core.GenerateName(&in.ObjectMeta)
	if errs := validatePDB(in, ns); len(errs) > 0 {
		return nil, model.KubeInvalidFields("PodDisruptionBudget.policy", in.Name, errs)
	}
	if c.PDBs[model.NamespacedKey(ns, in.Name)] != nil {
		return nil, model.KubeAlreadyExists(model.ResPDBs, in.Name)
	}
	b := &model.PDB{Namespace: ns, Name: in.Name, UID: model.UIDOf(c.ID, "pdb", ns, in.Name, w.engine.RandHex(8)), Labels: in.Labels,
		Annotations: in.Annotations, Spec: *in.Spec.DeepCopy(), Generation: 1, CreateTime: w.st.Now, ManagedFields: in.ManagedFields}
	c.PDBs[b.Key()] = b
	b.Status = w.core.PDBStatus(c, b)
	w.core.TouchObject(c, b, true)
	st := b.Status
	w.engine.Record("PDBCreated", c, "", "", "", "PodDisruptionBudget %s created: %d pods, %d healthy needed, %d disruptions allowed",
		b.Key(), st.ExpectedPods, st.DesiredHealthy, st.DisruptionsAllowed)
	return kuberender.RenderPDB(b), nil
}

func (w *API) UpdatePDB(c *model.Cluster, ns, name string, in *policyv1.PodDisruptionBudget) (*policyv1.PodDisruptionBudget, error) {
	b, err := w.pdb(c, ns, name)
	if err != nil {
		return nil, err
	}
	if err := model.CheckRV(in.ResourceVersion, b.RV, model.ResPDBs, name); err != nil {
		return nil, err
	}
	in = in.DeepCopy()
	in.Name = name
	if errs := validatePDB(in, ns); len(errs) > 0 {
		return nil, model.KubeInvalidFields("PodDisruptionBudget.policy", name, errs)
	}
	if !model.EqualJSON(in.Spec, b.Spec) {
		b.Generation++
	}
	w.core.ForgetPDB(c, b)
	b.Spec, b.Labels, b.Annotations, b.ManagedFields = in.Spec, in.Labels, in.Annotations, in.ManagedFields
	// The disruption controller's status for the new spec, at once (as on create): the answer
	// and every read after it show what the budget allows now.
	b.Status = w.core.PDBStatus(c, b)
	w.core.TouchObject(c, b, false)
	return kuberender.RenderPDB(b), nil
}

func (w *API) DeletePDB(c *model.Cluster, ns, name string) (*policyv1.PodDisruptionBudget, error) {
	b, err := w.pdb(c, ns, name)
	if err != nil {
		return nil, err
	}
	out := kuberender.RenderPDB(b)
	w.core.ObjectRemoved(c, b)
	w.core.ForgetPDB(c, b)
	delete(c.PDBs, b.Key())
	w.engine.Record("PDBDeleted", c, "", "", "", "PodDisruptionBudget %s deleted", b.Key())
	return out, nil
}

// ---- Nodes ----

// GetK8sNode finds a registered node.
func (w *API) GetK8sNode(c *model.Cluster, name string) (*corev1.Node, error) {
	n := c.Nodes[name]
	if n == nil || n.State == model.NodeProvisioning {
		return nil, model.KubeNotFound(model.ResNodes, name)
	}
	return w.core.RenderK8sNode(c, n), nil
}

// SetNodeUnschedulable cordons or uncordons a node as kubectl cordon/uncordon do. GKE's own
// processes may cordon a node again (a node being drained stays cordoned).
func (w *API) SetNodeUnschedulable(c *model.Cluster, name string, unschedulable bool) (*corev1.Node, error) {
	n := c.Nodes[name]
	if n == nil || n.State == model.NodeProvisioning {
		return nil, model.KubeNotFound(model.ResNodes, name)
	}
	switch {
	case unschedulable:
		w.core.Cordon(c, n, "cordoned through the Kubernetes API")
	case n.Unschedulable && (n.State == model.NodeReady || n.State == model.NodeCordoned):
		n.Unschedulable = false
		w.core.SetNodeState(c, n, model.NodeReady)
		w.engine.Record("NodeUncordoned", c, n.Pool, n.Name, "", "uncordoned node %s through the Kubernetes API", n.Name)
	}
	return w.core.RenderK8sNode(c, n), nil
}

func durationOfSeconds(s int64) time.Duration { return time.Duration(s) * time.Second }
