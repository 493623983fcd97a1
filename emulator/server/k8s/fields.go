package k8s

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/yaml"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Field ownership, as the API server keeps it: every create, update and patch records in
// metadata.managedFields which manager (the fieldManager parameter, or the client's user agent:
// "kubectl") set which fields, and server-side apply (PATCH application/apply-patch+yaml,
// kubectl apply --server-side) merges what a manager applies by those records, refusing with a
// 409 Conflict naming the fields and their owners what another manager set, unless forced. This
// is apimachinery's own field manager, with client-go's schemas of the built-in types (list
// merge keys and all) and, for ComputeClass, a schema deduced from the object.

// schemas are the structured-merge schemas of the built-in types, parsed once (it takes a
// moment) on the first write that needs them.
var schemas = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(scheme.Scheme)
})

// fieldManagers caches a field manager per kind and subresource.
type fieldManagers struct {
	mu     sync.Mutex
	byKind map[managerKey]*managedfields.FieldManager
}

type managerKey struct {
	gvk         schema.GroupVersionKind
	subresource string
}

// kindOf is the group/version/kind of an object the API stores, from its Go type.
func kindOf(obj runtime.Object) (schema.GroupVersionKind, bool) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		gvk := o.GroupVersionKind()
		return gvk, gvk.Kind != ""
	case *corev1.Namespace, *corev1.Pod, *corev1.Service, *corev1.Node, *appsv1.Deployment, *policyv1.PodDisruptionBudget:
	default:
		for _, k := range sim.StoredKinds {
			if reflect.TypeOf(k.New()) == reflect.TypeOf(obj) {
				return schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}, true
			}
		}
		return schema.GroupVersionKind{}, false
	}
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}, false
	}
	return gvks[0], true
}

func (f *fieldManagers) get(gvk schema.GroupVersionKind, subresource string) (*managedfields.FieldManager, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := managerKey{gvk, subresource}
	if fm, ok := f.byKind[key]; ok {
		return fm, nil
	}
	var fm *managedfields.FieldManager
	var err error
	if scheme.Scheme.Recognizes(gvk) {
		// The controllers own status: what a manager applies to it is dropped, as the API server does.
		reset := map[fieldpath.APIVersion]fieldpath.Filter{
			fieldpath.APIVersion(gvk.GroupVersion().String()): fieldpath.NewExcludeSetFilter(fieldpath.NewSet(fieldpath.MakePathOrDie("status"))),
		}
		fm, err = managedfields.NewDefaultFieldManager(schemas(), scheme.Scheme, noDefaults{}, scheme.Scheme, gvk, gvk.GroupVersion(), subresource, reset)
	} else {
		fm, err = managedfields.NewDefaultCRDFieldManager(managedfields.NewDeducedTypeConverter(), unstructuredConverter{}, noDefaults{},
			unstructuredCreater{}, gvk, gvk.GroupVersion(), "", nil)
	}
	if err != nil {
		return nil, err
	}
	if f.byKind == nil {
		f.byKind = map[managerKey]*managedfields.FieldManager{}
	}
	f.byKind[key] = fm
	return fm, nil
}

type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}

// unstructuredConverter converts objects of a custom resource, which has one version: it does
// nothing.
type unstructuredConverter struct{}

func (unstructuredConverter) Convert(in, out, _ any) error {
	u, ok := in.(*unstructured.Unstructured)
	o, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return fmt.Errorf("cannot convert %T to %T", in, out)
	}
	o.Object = runtime.DeepCopyJSON(u.Object)
	return nil
}

func (unstructuredConverter) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}

func (unstructuredConverter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

type unstructuredCreater struct{}

func (unstructuredCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// fieldManager is the manager a request writes as: the fieldManager parameter, or the first
// word of its user agent, as the API server names it.
func fieldManager(c echo.Context) (string, error) {
	m := c.QueryParam("fieldManager")
	if m == "" {
		m, _, _ = strings.Cut(c.Request().UserAgent(), "/")
		if len(m) > 128 {
			m = m[:128]
		}
		return m, nil
	}
	if len(m) > 128 {
		return "", kubeBadRequest(fmt.Errorf("fieldManager: Too long: may not be more than 128 bytes"))
	}
	for _, r := range m {
		if !unicode.IsPrint(r) {
			return "", kubeBadRequest(fmt.Errorf("fieldManager: Invalid value: %q: must only contain printable characters", m))
		}
	}
	return m, nil
}

// trackFields records in obj's managedFields what the request's manager changed from live
// (for a creation, live is an empty object of the kind), through subresource ("" for the
// object itself), at emulated time now.
func (s *Server) trackFields(c echo.Context, live, obj runtime.Object, subresource string, now time.Time) (runtime.Object, error) {
	gvk, ok := kindOf(obj)
	if !ok {
		return obj, nil
	}
	fm, err := s.fields.get(gvk, subresource)
	if err != nil {
		return nil, err
	}
	manager, err := fieldManager(c)
	if err != nil {
		return nil, err
	}
	stamp(live, gvk)
	stamp(obj, gvk)
	out, err := fm.Update(live, obj, manager)
	if err != nil {
		return nil, asKubeError(err)
	}
	return out, emulatedTimes(live, out, manager, now)
}

// emulatedTimes gives the managedFields entries a request wrote the emulated time it ran at:
// the field manager stamps them with the wall clock, which a replay would not reproduce.
func emulatedTimes(live, out runtime.Object, manager string, now time.Time) error {
	lm, err := meta.Accessor(live)
	if err != nil {
		return err
	}
	om, err := meta.Accessor(out)
	if err != nil {
		return err
	}
	before := map[string]*metav1.Time{}
	for _, e := range lm.GetManagedFields() {
		before[e.Manager+"|"+string(e.Operation)+"|"+e.Subresource] = e.Time
	}
	entries := om.GetManagedFields()
	t := sim.APITime(now)
	for i := range entries {
		e := &entries[i]
		if old, ok := before[e.Manager+"|"+string(e.Operation)+"|"+e.Subresource]; ok && e.Manager != manager {
			e.Time = old
		} else if e.Time != nil {
			e.Time = &t
		}
	}
	om.SetManagedFields(entries)
	return nil
}

// stamp sets an object's apiVersion and kind (decoded objects may come without).
func stamp(obj runtime.Object, gvk schema.GroupVersionKind) {
	if obj.GetObjectKind().GroupVersionKind().Kind == "" {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
}

// serverSideApply merges an applied configuration (YAML or JSON) into live (nil: the object does
// not exist yet, and applying creates it).
func (s *Server) serverSideApply(c echo.Context, proto any, live runtime.Object, patch []byte, now time.Time) (runtime.Object, error) {
	manager := c.QueryParam("fieldManager")
	if manager == "" {
		return nil, kubeBadRequest(fmt.Errorf("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"))
	}
	if _, err := fieldManager(c); err != nil {
		return nil, err
	}
	force := false
	switch v := c.QueryParam("force"); v {
	case "", "false":
	case "true":
		force = true
	default:
		return nil, kubeBadRequest(fmt.Errorf("force: Invalid value: %q: must be true or false", v))
	}
	applied := &unstructured.Unstructured{}
	raw, err := yaml.YAMLToJSON(patch)
	if err == nil {
		err = applied.UnmarshalJSON(raw)
	}
	if err != nil {
		return nil, kubeBadRequest(fmt.Errorf("error decoding YAML: %v", err))
	}
	if live == nil {
		live = newLike(proto).(runtime.Object)
	}
	gvk, ok := kindOf(live)
	if !ok {
		gvk = applied.GroupVersionKind()
	}
	if got := applied.GroupVersionKind(); got != gvk {
		return nil, kubeBadRequest(fmt.Errorf("the apiVersion and kind of the applied configuration (%s) do not match the resource (%s)", got, gvk))
	}
	fm, err := s.fields.get(gvk, "")
	if err != nil {
		return nil, err
	}
	stamp(live, gvk)
	out, err := fm.Apply(live, applied, manager, force)
	if err != nil {
		return nil, asKubeError(err)
	}
	if err := emulatedTimes(live, out, manager, now); err != nil {
		return nil, err
	}
	if u, ok := out.(*unstructured.Unstructured); ok && reflect.TypeOf(proto) != reflect.TypeOf(u) {
		typed := newLike(proto).(runtime.Object)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
			return nil, kubeBadRequest(err)
		}
		out = typed
	}
	return out, nil
}

// asKubeError keeps an API error (a 409 apply conflict with its causes) as the client must see it.
func asKubeError(err error) error {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return err
	}
	// What the merge cannot make sense of is the request's fault (a field the schema does not
	// have, a value of the wrong type).
	return kubeBadRequest(err)
}
