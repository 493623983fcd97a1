package model

import (
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// Pod.Clone copies by hand what a plain struct copy would share: a field that holds a pointer,
// map or slice must be one it knows, or the copy a forecast runs on would write into the live
// simulation.
func TestPodCloneKnowsEveryField(t *testing.T) {
	copied := map[string]bool{"Spec": true, "Labels": true, "Annotation": true, "PodRare": true}
	for f := range reflect.TypeFor[Pod]().Fields() {
		if f.Type == reflect.TypeFor[time.Time]() || f.Type == reflect.TypeFor[Resources]() {
			continue // values (a time's location is an immutable table)
		}
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Struct, reflect.Chan, reflect.Func:
			if !copied[f.Name] {
				t.Errorf("Pod.%s (%s) is not copied by Pod.Clone: copy it there and list it here", f.Name, f.Type)
			}
		}
	}
	// Within PodRare, what a struct copy would share: ManagedFields, which Clone copies.
	for f := range reflect.TypeFor[PodRare]().Fields() {
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Chan, reflect.Func:
			if f.Name != "ManagedFields" {
				t.Errorf("PodRare.%s (%s) is not copied by Pod.Clone: copy it there and list it here", f.Name, f.Type)
			}
		}
	}
	p := &Pod{Labels: map[string]string{"a": "b"}, Annotation: map[string]string{"c": "d"}}
	p.SetUnschedulable("0/3 nodes are available")
	cp := p.Clone()
	cp.Labels["a"], cp.Annotation["c"] = "x", "y"
	cp.SetUnschedulable("")
	if p.Labels["a"] != "b" || p.Annotation["c"] != "d" || p.Unschedulable() == "" {
		t.Fatalf("the clone's maps or rare fields are the pod's: %v %v %q", p.Labels, p.Annotation, p.Unschedulable())
	}
}

// A pod's namespace and name are parts of its key, which Rename replaces; an owner key taken
// from the pod's own key is the same as one built. A Deployment's key is built once and kept,
// and follows its name when that changes (an import sets fields one by one).
func TestKeysFollowTheNames(t *testing.T) {
	p := NewPod("shop", "web-5d4f-abcde")
	p.OwnerKind, p.Owner = OwnerDeployment, "web"
	if p.Key() != "shop/web-5d4f-abcde" || p.Namespace() != "shop" || p.Name() != "web-5d4f-abcde" || p.OwnerKey() != "shop/web" {
		t.Fatalf("key %q, namespace %q, name %q, owner key %q", p.Key(), p.Namespace(), p.Name(), p.OwnerKey())
	}
	p.Rename("shop", "api-1")
	p.Owner = "api"
	if p.Key() != "shop/api-1" || p.Name() != "api-1" || p.OwnerKey() != "shop/api" {
		t.Fatalf("after renaming: keys %q %q", p.Key(), p.OwnerKey())
	}
	p.Rename("sho", "api-1")
	p.Owner = "other" // an owner the name does not start with
	if p.Key() != "sho/api-1" || p.Namespace() != "sho" || p.OwnerKey() != "sho/other" {
		t.Fatalf("after moving: keys %q %q", p.Key(), p.OwnerKey())
	}
	var zero Pod
	if zero.Namespace() != "" || zero.Name() != "" || zero.Key() != "" {
		t.Fatalf("a pod without a key: %q %q %q", zero.Namespace(), zero.Name(), zero.Key())
	}
	d := &Deployment{Namespace: "shop", Name: "web"}
	if d.Key() != "shop/web" {
		t.Fatal(d.Key())
	}
	d.Name = "api"
	if d.Key() != "shop/api" {
		t.Fatal(d.Key())
	}
}

// A Deployment's new conditions never share storage with its current ones (which a status
// comparison still reads), and two changes in a row reuse the storage before the current one.
func TestNewConditionsAlternate(t *testing.T) {
	d := &Deployment{}
	cond := func(reason string) appsv1.DeploymentCondition { return appsv1.DeploymentCondition{Reason: reason} }
	var seen []*appsv1.DeploymentCondition
	for i, r := range []string{"a", "b", "c", "d"} {
		next := d.NewConditions(cond(r), cond(r+"!"))
		if len(d.Status.Conditions) > 0 && &next[0] == &d.Status.Conditions[0] {
			t.Fatalf("change %d: the new conditions share the current ones' storage", i)
		}
		if len(next) != 2 || next[0].Reason != r || next[1].Reason != r+"!" {
			t.Fatalf("change %d: %+v", i, next)
		}
		d.Status.Conditions = next
		seen = append(seen, &next[0])
	}
	if seen[2] != seen[0] || seen[3] != seen[1] || seen[0] == seen[1] {
		t.Fatal("two changes in a row do not alternate between two storages")
	}
}
