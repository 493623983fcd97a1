package kubeapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The kinds the API stores, serves and watches without simulating them: ConfigMaps, Secrets,
// ServiceAccounts, RBAC (Roles, ClusterRoles and their bindings), HorizontalPodAutoscalers
// (stored only: nothing scales on them), GKE's ComputeClass (which the cluster autoscaler
// reads, computeclass.go) and PriorityClasses (which pods' admission reads, priorityclass.go). An ordinary application manifest applies whole, and a pod that
// mounts a ConfigMap or Secret waits for it (core/volumes.go). Each object is kept as the JSON of
// its API type, validated as kube-apiserver validates it.

// StoredKind is a kind the API stores without simulating it.
type StoredKind struct {
	Resource, Group, Version, Kind string
	Namespaced                     bool
	ShortNames, Categories         []string
	// generation: the API server counts spec changes in metadata.generation.
	generation bool
	newObject  func() runtime.Object
	newList    func() runtime.Object
	// prepare fills the API server's defaults; validate checks an object (old: the stored one,
	// on update).
	prepare  func(obj runtime.Object)
	validate func(obj, old runtime.Object) field.ErrorList
	nameFn   apivalidation.ValidateNameFunc
	// admit is the kind's admission check that reads the cluster (after validation).
	admit func(c *model.Cluster, obj runtime.Object) error
	// builtins are objects every cluster has without storing them (the system PriorityClasses):
	// listed and read like stored ones, never deleted; an update stores its result.
	builtins func(c *model.Cluster) []*model.StoredObject
}

// builtin is the kind's built-in object of that name not stored (yet), or nil.
func (k *StoredKind) builtin(c *model.Cluster, name string) *model.StoredObject {
	if k.builtins == nil || c.Objects[k.Resource][name] != nil {
		return nil
	}
	for _, o := range k.builtins(c) {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// APIVersion is the kind's group/version.
func (k *StoredKind) APIVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// qualified is the resource as the API server names it in messages: roles.rbac.authorization.k8s.io.
func (k *StoredKind) qualified() string {
	if k.Group == "" {
		return k.Resource
	}
	return k.Resource + "." + k.Group
}

// qualifiedKind is the kind as it names it in validation errors: Role.rbac.authorization.k8s.io.
func (k *StoredKind) qualifiedKind() string {
	if k.Group == "" {
		return k.Kind
	}
	return k.Kind + "." + k.Group
}

// New returns an empty object of the kind.
func (k *StoredKind) New() runtime.Object {
	obj := k.newObject()
	obj.GetObjectKind().SetGroupVersionKind(k.gvk())
	return obj
}

// StoredKinds are the kinds stored without simulation, as discovery lists them.
var StoredKinds = []*StoredKind{
	{Resource: "configmaps", Version: "v1", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"},
		newObject: func() runtime.Object { return &corev1.ConfigMap{} }, newList: func() runtime.Object { return &corev1.ConfigMapList{} },
		validate: validateConfigMap, nameFn: apivalidation.NameIsDNSSubdomain},
	{Resource: "secrets", Version: "v1", Kind: "Secret", Namespaced: true,
		newObject: func() runtime.Object { return &corev1.Secret{} }, newList: func() runtime.Object { return &corev1.SecretList{} },
		prepare: prepareSecret, validate: validateSecret, nameFn: apivalidation.NameIsDNSSubdomain},
	{Resource: "serviceaccounts", Version: "v1", Kind: "ServiceAccount", Namespaced: true, ShortNames: []string{"sa"},
		newObject: func() runtime.Object { return &corev1.ServiceAccount{} }, newList: func() runtime.Object { return &corev1.ServiceAccountList{} },
		nameFn: apivalidation.NameIsDNSSubdomain},
	{Resource: "roles", Group: rbacv1.GroupName, Version: "v1", Kind: "Role", Namespaced: true,
		newObject: func() runtime.Object { return &rbacv1.Role{} }, newList: func() runtime.Object { return &rbacv1.RoleList{} },
		validate: func(obj, _ runtime.Object) field.ErrorList {
			return validatePolicyRules(obj.(*rbacv1.Role).Rules, true)
		}, nameFn: rbacName},
	{Resource: "rolebindings", Group: rbacv1.GroupName, Version: "v1", Kind: "RoleBinding", Namespaced: true,
		newObject: func() runtime.Object { return &rbacv1.RoleBinding{} }, newList: func() runtime.Object { return &rbacv1.RoleBindingList{} },
		prepare: func(obj runtime.Object) { defaultSubjects(obj.(*rbacv1.RoleBinding).Subjects) },
		validate: func(obj, old runtime.Object) field.ErrorList {
			b := obj.(*rbacv1.RoleBinding)
			var prev *rbacv1.RoleRef
			if old != nil {
				prev = &old.(*rbacv1.RoleBinding).RoleRef
			}
			return validateBinding(b.RoleRef, prev, b.Subjects, true)
		}, nameFn: rbacName},
	{Resource: "clusterroles", Group: rbacv1.GroupName, Version: "v1", Kind: "ClusterRole",
		newObject: func() runtime.Object { return &rbacv1.ClusterRole{} }, newList: func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		validate: func(obj, _ runtime.Object) field.ErrorList {
			return validatePolicyRules(obj.(*rbacv1.ClusterRole).Rules, false)
		}, nameFn: rbacName},
	{Resource: "clusterrolebindings", Group: rbacv1.GroupName, Version: "v1", Kind: "ClusterRoleBinding",
		newObject: func() runtime.Object { return &rbacv1.ClusterRoleBinding{} }, newList: func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		prepare: func(obj runtime.Object) { defaultSubjects(obj.(*rbacv1.ClusterRoleBinding).Subjects) },
		validate: func(obj, old runtime.Object) field.ErrorList {
			b := obj.(*rbacv1.ClusterRoleBinding)
			var prev *rbacv1.RoleRef
			if old != nil {
				prev = &old.(*rbacv1.ClusterRoleBinding).RoleRef
			}
			return validateBinding(b.RoleRef, prev, b.Subjects, false)
		}, nameFn: rbacName},
	{Resource: "horizontalpodautoscalers", Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler", Namespaced: true,
		ShortNames: []string{"hpa"}, Categories: []string{"all"}, generation: true,
		newObject: func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
		newList:   func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscalerList{} },
		prepare:   prepareHPA, validate: validateHPA, nameFn: apivalidation.NameIsDNSSubdomain},
	{Resource: model.ResourceComputeClasses, Group: "cloud.google.com", Version: "v1", Kind: "ComputeClass", ShortNames: []string{"cc"},
		generation: true,
		newObject:  func() runtime.Object { return &unstructured.Unstructured{} },
		newList:    func() runtime.Object { return &unstructured.UnstructuredList{} },
		validate:   ValidateComputeClass, nameFn: apivalidation.NameIsDNSSubdomain},
	priorityClassKind,
}

// StoredKindOf finds a stored kind by its resource name.
func StoredKindOf(resource string) *StoredKind {
	for _, k := range StoredKinds {
		if k.Resource == resource {
			return k
		}
	}
	return nil
}

func (k *StoredKind) gvk() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

// RenderStored decodes a stored object.
func RenderStored(o *model.StoredObject) runtime.Object {
	k := StoredKindOf(o.Resource)
	obj := k.New()
	if err := json.Unmarshal(o.Object, obj); err != nil {
		panic(fmt.Sprintf("sim: stored %s %s does not decode: %v", o.Resource, o.Key(), err))
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		u.SetAPIVersion(k.APIVersion())
		u.SetKind(k.Kind)
	} else {
		obj.GetObjectKind().SetGroupVersionKind(k.gvk())
	}
	m, _ := meta.Accessor(obj)
	m.SetResourceVersion(model.RVString(o.RV))
	return obj
}

// ListStored lists the objects of kind k in namespace ns ("" = all), by namespace and name.
func (w *API) ListStored(c *model.Cluster, k *StoredKind, ns string) runtime.Object {
	objs := c.Objects[k.Resource]
	if k.builtins != nil {
		objs = maps.Clone(objs)
		if objs == nil {
			objs = map[string]*model.StoredObject{}
		}
		for _, o := range k.builtins(c) {
			if objs[o.Key()] == nil {
				objs[o.Key()] = o
			}
		}
	}
	items := make([]runtime.Object, 0, len(objs))
	for _, key := range model.SortedKeys(objs) {
		if o := objs[key]; ns == "" || !k.Namespaced || o.Namespace == ns {
			items = append(items, RenderStored(o))
		}
	}
	list := k.newList()
	if u, ok := list.(*unstructured.UnstructuredList); ok {
		u.SetAPIVersion(k.APIVersion())
		u.SetKind(k.Kind + "List")
		u.SetResourceVersion(model.RVString(c.RV))
		for _, it := range items {
			u.Items = append(u.Items, *it.(*unstructured.Unstructured))
		}
		return u
	}
	list.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind + "List"})
	if err := meta.SetList(list, items); err != nil {
		panic(err)
	}
	lm, _ := meta.ListAccessor(list)
	lm.SetResourceVersion(model.RVString(c.RV))
	return list
}

// GetStored reads one object.
func (w *API) GetStored(c *model.Cluster, k *StoredKind, ns, name string) (runtime.Object, error) {
	o := c.Objects[k.Resource][model.StoredKey(k.scope(ns), name)]
	if o == nil {
		o = k.builtin(c, name)
	}
	if o == nil {
		return nil, model.KubeNotFound(k.qualified(), name)
	}
	return RenderStored(o), nil
}

func (k *StoredKind) scope(ns string) string {
	if k.Namespaced {
		return ns
	}
	return ""
}

// CreateStored creates an object of kind k.
func (w *API) CreateStored(c *model.Cluster, k *StoredKind, ns string, in runtime.Object) (runtime.Object, error) {
	in = in.DeepCopyObject()
	m, err := meta.Accessor(in)
	if err != nil {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "%v", err)
	}
	ns = k.scope(ns)
	if k.Namespaced {
		if m.GetNamespace() != "" && m.GetNamespace() != ns {
			return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request")
		}
		if err := c.NamespaceFor(ns); err != nil {
			return nil, err
		}
	}
	if m.GetName() == "" && m.GetGenerateName() != "" {
		om := metav1.ObjectMeta{GenerateName: m.GetGenerateName()}
		w.core.GenerateName(&om)
		m.SetName(om.Name)
	}
	if k.prepare != nil {
		k.prepare(in)
	}
	if errs := w.validateStored(k, in, nil, ns); len(errs) > 0 {
		return nil, model.KubeInvalidFields(k.qualifiedKind(), m.GetName(), errs)
	}
	if k.admit != nil {
		if err := k.admit(c, in); err != nil {
			return nil, err
		}
	}
	objs := c.Stored(k.Resource)
	if objs[model.StoredKey(ns, m.GetName())] != nil || k.builtin(c, m.GetName()) != nil {
		return nil, model.KubeAlreadyExists(k.qualified(), m.GetName())
	}
	m.SetNamespace(ns)
	m.SetUID(types.UID(model.UIDOf(c.ID, k.Resource, ns, m.GetName(), w.engine.RandHex(8))))
	m.SetCreationTimestamp(kuberender.APITime(w.st.Now))
	m.SetResourceVersion("")
	m.SetDeletionTimestamp(nil)
	m.SetGeneration(0)
	if k.generation {
		m.SetGeneration(1)
	}
	o := &model.StoredObject{Resource: k.Resource, Namespace: ns, Name: m.GetName()}
	if err := o.Set(in); err != nil {
		return nil, err
	}
	objs[o.Key()] = o
	w.core.TouchObject(c, o, true)
	w.engine.Record(k.Kind+"Created", c, "", "", "", "%s %s created", strings.ToLower(k.Kind), o.Key())
	w.core.MountSourceAppeared(c, k.Resource, ns, m.GetName())
	return RenderStored(o), nil
}

// UpdateStored replaces an object (PUT; PATCH goes through it).
func (w *API) UpdateStored(c *model.Cluster, k *StoredKind, ns, name string, in runtime.Object) (runtime.Object, error) {
	ns = k.scope(ns)
	o := c.Objects[k.Resource][model.StoredKey(ns, name)]
	builtin := o == nil
	if builtin {
		o = k.builtin(c, name)
	}
	if o == nil {
		return nil, model.KubeNotFound(k.qualified(), name)
	}
	in = in.DeepCopyObject()
	m, err := meta.Accessor(in)
	if err != nil {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "%v", err)
	}
	if m.GetName() != "" && m.GetName() != name {
		return nil, model.KubeError(http.StatusBadRequest, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), name)
	}
	if err := model.CheckRV(m.GetResourceVersion(), o.RV, k.qualified(), name); err != nil {
		return nil, err
	}
	old := RenderStored(o)
	om, _ := meta.Accessor(old)
	m.SetName(name)
	m.SetNamespace(ns)
	if k.prepare != nil {
		k.prepare(in)
	}
	if errs := w.validateStored(k, in, old, ns); len(errs) > 0 {
		return nil, model.KubeInvalidFields(k.qualifiedKind(), name, errs)
	}
	if k.admit != nil {
		if err := k.admit(c, in); err != nil {
			return nil, err
		}
	}
	m.SetUID(om.GetUID())
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	m.SetResourceVersion("")
	m.SetGeneration(om.GetGeneration())
	if k.generation && !reflect.DeepEqual(specOf(in), specOf(old)) {
		m.SetGeneration(om.GetGeneration() + 1)
	}
	om.SetResourceVersion("")
	if model.EqualJSON(in, old) {
		return RenderStored(o), nil // nothing changed: no new resourceVersion, as on the API server
	}
	if err := o.Set(in); err != nil {
		return nil, err
	}
	if builtin {
		c.Stored(k.Resource)[o.Key()] = o
	}
	w.core.TouchObject(c, o, false)
	return RenderStored(o), nil
}

// specOf is what counts as an object's spec for its generation.
func specOf(obj runtime.Object) any {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.Object["spec"]
	}
	v := reflect.ValueOf(obj).Elem().FieldByName("Spec")
	if !v.IsValid() {
		return nil
	}
	return v.Interface()
}

// DeleteStored deletes an object.
func (w *API) DeleteStored(c *model.Cluster, k *StoredKind, ns, name string) (runtime.Object, error) {
	ns = k.scope(ns)
	if k.builtins != nil && slices.ContainsFunc(k.builtins(c), func(o *model.StoredObject) bool { return o.Name == name }) {
		return nil, model.KubeError(http.StatusForbidden, "Forbidden", "%s %q is forbidden: this is a system priority class and cannot be deleted", k.qualified(), name)
	}
	o := c.Objects[k.Resource][model.StoredKey(ns, name)]
	if o == nil {
		return nil, model.KubeNotFound(k.qualified(), name)
	}
	out := RenderStored(o)
	w.removeStored(c, o)
	w.engine.Record(k.Kind+"Deleted", c, "", "", "", "%s %s deleted", strings.ToLower(k.Kind), o.Key())
	return out, nil
}

func (w *API) removeStored(c *model.Cluster, o *model.StoredObject) {
	w.core.ObjectRemoved(c, o)
	delete(c.Objects[o.Resource], o.Key())
}

// deleteStoredIn deletes the stored objects of a namespace being deleted.
func (w *API) deleteStoredIn(c *model.Cluster, ns string) {
	for _, k := range StoredKinds {
		if !k.Namespaced {
			continue
		}
		objs := c.Objects[k.Resource]
		for _, key := range model.SortedKeys(objs) {
			if o := objs[key]; o.Namespace == ns {
				w.removeStored(c, o)
			}
		}
	}
}

// CreateDefaultServiceAccount gives a namespace its "default" ServiceAccount, as the
// ServiceAccount controller does.
func (w *API) CreateDefaultServiceAccount(c *model.Cluster, ns string) {
	k := StoredKindOf("serviceaccounts")
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns, UID: types.UID(model.UIDOf(c.ID, "sa", ns, "default")),
		CreationTimestamp: kuberender.APITime(w.st.Now)}}
	o := &model.StoredObject{Resource: k.Resource, Namespace: ns, Name: "default"}
	if err := o.Set(sa); err != nil {
		panic(err)
	}
	c.Stored(k.Resource)[o.Key()] = o
	w.core.TouchObject(c, o, true)
}

// validateStored checks metadata and the kind's own rules.
func (w *API) validateStored(k *StoredKind, obj, old runtime.Object, ns string) field.ErrorList {
	m, _ := meta.Accessor(obj)
	om := metav1.ObjectMeta{Name: m.GetName(), GenerateName: m.GetGenerateName(), Namespace: ns, Labels: m.GetLabels(),
		Annotations: m.GetAnnotations(), OwnerReferences: m.GetOwnerReferences(), Finalizers: m.GetFinalizers()}
	errs := apivalidation.ValidateObjectMeta(&om, k.Namespaced, k.nameFn, field.NewPath("metadata"))
	if k.validate != nil {
		errs = append(errs, k.validate(obj, old)...)
	}
	return errs
}

// ---- the kinds' rules, as kube-apiserver's ----

// immutableData refuses changes to the data of a ConfigMap or Secret marked immutable.
func immutableData(oldImmutable, newImmutable *bool, oldData, newData any, dataFields ...string) field.ErrorList {
	if oldImmutable == nil || !*oldImmutable {
		return nil
	}
	var errs field.ErrorList
	if newImmutable == nil || !*newImmutable {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
	}
	if !reflect.DeepEqual(oldData, newData) {
		errs = append(errs, field.Forbidden(field.NewPath(dataFields[0]), "field is immutable when `immutable` is set"))
	}
	return errs
}

func validateConfigMap(obj, old runtime.Object) field.ErrorList {
	cm := obj.(*corev1.ConfigMap)
	var errs field.ErrorList
	total := 0
	for _, key := range model.SortedKeys(cm.Data) {
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(key), key, msg))
		}
		total += len(cm.Data[key])
	}
	for _, key := range model.SortedKeys(cm.BinaryData) {
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(key), key, msg))
		}
		if _, dup := cm.Data[key]; dup {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(key), key, "duplicate of key present in data"))
		}
		total += len(cm.BinaryData[key])
	}
	if total > corev1.MaxSecretSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", corev1.MaxSecretSize))
	}
	if old != nil {
		o := old.(*corev1.ConfigMap)
		errs = append(errs, immutableData(o.Immutable, cm.Immutable, []any{o.Data, o.BinaryData}, []any{cm.Data, cm.BinaryData}, "data")...)
	}
	return errs
}

// prepareSecret folds stringData into data and defaults the type, as the API server does.
func prepareSecret(obj runtime.Object) {
	s := obj.(*corev1.Secret)
	for k, v := range s.StringData {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

func validateSecret(obj, old runtime.Object) field.ErrorList {
	s := obj.(*corev1.Secret)
	var errs field.ErrorList
	data := field.NewPath("data")
	total := 0
	for _, key := range model.SortedKeys(s.Data) {
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(data.Key(key), key, msg))
		}
		total += len(s.Data[key])
	}
	if total > corev1.MaxSecretSize {
		errs = append(errs, field.TooLong(data, "", corev1.MaxSecretSize))
	}
	need := func(keys ...string) {
		for _, key := range keys {
			if _, ok := s.Data[key]; !ok {
				errs = append(errs, field.Required(data.Key(key), ""))
			}
		}
	}
	jsonKey := func(key string) {
		need(key)
		if b, ok := s.Data[key]; ok && !json.Valid(b) {
			errs = append(errs, field.Invalid(data.Key(key), "<secret contents redacted>", "invalid JSON"))
		}
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		jsonKey(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		jsonKey(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		if len(s.Data[corev1.BasicAuthUsernameKey]) == 0 && len(s.Data[corev1.BasicAuthPasswordKey]) == 0 {
			errs = append(errs, field.Required(data.Key(corev1.BasicAuthUsernameKey), ""), field.Required(data.Key(corev1.BasicAuthPasswordKey), ""))
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			errs = append(errs, field.Required(data.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		need(corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	default:
		for _, msg := range validation.IsQualifiedName(string(s.Type)) {
			errs = append(errs, field.Invalid(field.NewPath("type"), s.Type, msg))
		}
	}
	if old != nil {
		o := old.(*corev1.Secret)
		if o.Type != s.Type {
			errs = append(errs, field.Invalid(field.NewPath("type"), s.Type, "field is immutable"))
		}
		errs = append(errs, immutableData(o.Immutable, s.Immutable, o.Data, s.Data, "data")...)
	}
	return errs
}

// rbacName is the API server's rule for RBAC object names: any path segment, so not "." or
// ".." (unless a prefix for generateName) and without "/" or "%".
func rbacName(name string, prefix bool) []string {
	var msgs []string
	if !prefix {
		switch name {
		case ".", "..":
			msgs = append(msgs, fmt.Sprintf("may not be '%s'", name))
		}
	}
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, fmt.Sprintf("may not contain '%s'", bad))
		}
	}
	return msgs
}

func validatePolicyRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		p := field.NewPath("rules").Index(i)
		if len(r.Verbs) == 0 {
			errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
		}
		if len(r.NonResourceURLs) > 0 {
			if namespaced {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(r.APIGroups) > 0 || len(r.Resources) > 0 {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(r.APIGroups) == 0 {
			errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(r.Resources) == 0 {
			errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return errs
}

// defaultSubjects gives User and Group subjects the RBAC API group, as the API server does.
func defaultSubjects(subjects []rbacv1.Subject) {
	for i := range subjects {
		if subjects[i].APIGroup == "" && (subjects[i].Kind == rbacv1.UserKind || subjects[i].Kind == rbacv1.GroupKind) {
			subjects[i].APIGroup = rbacv1.GroupName
		}
	}
}

func validateBinding(ref rbacv1.RoleRef, old *rbacv1.RoleRef, subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	rp := field.NewPath("roleRef")
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(rp.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	kinds := []string{"ClusterRole"}
	if namespaced {
		kinds = []string{"Role", "ClusterRole"}
	}
	if !slices.Contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(rp.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(rp.Child("name"), ""))
	} else {
		for _, msg := range rbacName(ref.Name, false) {
			errs = append(errs, field.Invalid(rp.Child("name"), ref.Name, msg))
		}
	}
	for i, s := range subjects {
		p := field.NewPath("subjects").Index(i)
		if s.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.APIGroup != "" {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
			}
			if s.Name != "" {
				for _, msg := range apivalidation.ValidateServiceAccountName(s.Name, false) {
					errs = append(errs, field.Invalid(p.Child("name"), s.Name, msg))
				}
			}
			if !namespaced && s.Namespace == "" {
				errs = append(errs, field.Required(p.Child("namespace"), ""))
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != rbacv1.GroupName {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
		}
	}
	if old != nil && *old != ref {
		errs = append(errs, field.Invalid(rp, ref, "cannot change roleRef"))
	}
	return errs
}

// prepareHPA fills autoscaling/v2's defaults: one replica at least, and 80% CPU utilization
// when no metric is given.
func prepareHPA(obj runtime.Object) {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	if h.Spec.MinReplicas == nil {
		one := int32(1)
		h.Spec.MinReplicas = &one
	}
	if len(h.Spec.Metrics) == 0 {
		eighty := int32(80)
		h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &eighty}}}}
	}
}

func validateHPA(obj, _ runtime.Object) field.ErrorList {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	var errs field.ErrorList
	spec := field.NewPath("spec")
	ref := spec.Child("scaleTargetRef")
	if h.Spec.ScaleTargetRef.Kind == "" {
		errs = append(errs, field.Required(ref.Child("kind"), ""))
	}
	if h.Spec.ScaleTargetRef.Name == "" {
		errs = append(errs, field.Required(ref.Child("name"), ""))
	}
	if m := h.Spec.MinReplicas; m != nil && *m < 1 {
		errs = append(errs, field.Invalid(spec.Child("minReplicas"), *m, "must be greater than or equal to 1"))
	}
	if h.Spec.MaxReplicas < 1 {
		errs = append(errs, field.Invalid(spec.Child("maxReplicas"), h.Spec.MaxReplicas, "must be greater than 0"))
	}
	if m := h.Spec.MinReplicas; m != nil && h.Spec.MaxReplicas < *m {
		errs = append(errs, field.Invalid(spec.Child("maxReplicas"), h.Spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	types := []string{string(autoscalingv2.ContainerResourceMetricSourceType), string(autoscalingv2.ExternalMetricSourceType),
		string(autoscalingv2.ObjectMetricSourceType), string(autoscalingv2.PodsMetricSourceType), string(autoscalingv2.ResourceMetricSourceType)}
	for i, m := range h.Spec.Metrics {
		p := spec.Child("metrics").Index(i)
		switch m.Type {
		case "":
			errs = append(errs, field.Required(p.Child("type"), "must specify a metric source type"))
		case autoscalingv2.ResourceMetricSourceType:
			if m.Resource == nil {
				errs = append(errs, field.Required(p.Child("resource"), "must populate information for the given metric source"))
				continue
			}
			if m.Resource.Name == "" {
				errs = append(errs, field.Required(p.Child("resource", "name"), "must specify a resource name"))
			}
			errs = append(errs, validateMetricTarget(m.Resource.Target, p.Child("resource", "target"))...)
		default:
			if !slices.Contains(types, string(m.Type)) {
				errs = append(errs, field.NotSupported(p.Child("type"), m.Type, types))
			}
		}
	}
	return errs
}

func validateMetricTarget(t autoscalingv2.MetricTarget, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	targets := []string{string(autoscalingv2.AverageValueMetricType), string(autoscalingv2.UtilizationMetricType), string(autoscalingv2.ValueMetricType)}
	switch {
	case t.Type == "":
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric target type"))
	case !slices.Contains(targets, string(t.Type)):
		errs = append(errs, field.NotSupported(p.Child("type"), t.Type, targets))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(p.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
	}
	if t.Type == autoscalingv2.UtilizationMetricType && t.AverageUtilization == nil {
		errs = append(errs, field.Required(p.Child("averageUtilization"), "must set averageUtilization when type is Utilization"))
	}
	return errs
}
