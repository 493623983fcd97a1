package model

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"
)

// A decoded state's pods share their Deployment's template labels, one copy of each other set
// of labels and annotations, and their owner's, template's and node's names, with every value
// as it was decoded; a pod without labels keeps none, and one with empty ones keeps them empty.
func TestShareRepeats(t *testing.T) {
	const saved = `{
	"nodes": {"n-1": {"name": "n-1"}},
	"deployments": {"shop/web": {"namespace": "shop", "name": "web", "current": "h1",
		"templates": {"h1": {"metadata": {"labels": {"app": "web", "pod-template-hash": "h1"}}}, "h0": null}}},
	"pods": {
		"shop/web-a": {"owner": "web", "ownerKind": "Deployment", "template": "h1", "node": "n-1",
			"labels": {"app": "web", "pod-template-hash": "h1"}},
		"shop/web-b": {"owner": "web", "ownerKind": "Deployment", "template": "h1", "node": "n-1",
			"labels": {"pod-template-hash": "h1", "app": "web"}},
		"shop/web-c": {"owner": "web", "ownerKind": "Deployment", "template": "h1",
			"labels": {"app": "web", "pod-template-hash": "h1", "extra": "yes"}},
		"shop/bare-1": {"labels": {"run": "x"}, "annotations": {"note": "a"}},
		"shop/bare-2": {"labels": {"run": "x"}, "annotations": {"note": "b"}},
		"shop/bare-3": {"labels": {}},
		"shop/bare-4": {},
		"shop/nul-1": {"annotations": {"a": "x\u0000b\u0000y"}},
		"shop/nul-2": {"annotations": {"a": "x", "b": "y"}}
	}}`
	var c Cluster
	if err := json.Unmarshal([]byte(saved), &c); err != nil {
		t.Fatal(err)
	}
	c.KeyPods()
	before, _ := json.Marshal(&c)
	c.ShareRepeats()
	if after, _ := json.Marshal(&c); string(after) != string(before) {
		t.Fatalf("sharing changed the state:\n%s\n%s", before, after)
	}
	same := func(a, b map[string]string) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	sameString := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	tmpl, p := c.Deployments["shop/web"].Templates["h1"], c.Pods
	if !same(p["shop/web-a"].Labels, tmpl.Labels) || !same(p["shop/web-b"].Labels, tmpl.Labels) {
		t.Error("a Deployment's pods share its template's labels")
	}
	if same(p["shop/web-c"].Labels, tmpl.Labels) || len(p["shop/web-c"].Labels) != 3 {
		t.Error("a pod with labels of its own keeps them")
	}
	if !same(p["shop/bare-1"].Labels, p["shop/bare-2"].Labels) || same(p["shop/bare-1"].Annotation, p["shop/bare-2"].Annotation) {
		t.Error("equal labels are shared, different annotations are not")
	}
	if len(p["shop/nul-1"].Annotation) != 1 || len(p["shop/nul-2"].Annotation) != 2 {
		t.Error("sets that would read alike with a separator inside a value are told apart")
	}
	if l := p["shop/bare-3"].Labels; l == nil || len(l) != 0 || p["shop/bare-4"].Labels != nil {
		t.Error("empty labels stay empty and no labels stay none")
	}
	a, b := p["shop/web-a"], p["shop/web-b"]
	if !sameString(a.Owner, c.Deployments["shop/web"].Name) || !sameString(a.Owner, b.Owner) ||
		!sameString(a.Node, c.Nodes["n-1"].Name) || !sameString(a.Template, b.Template) {
		t.Error("pods share their owner's, template's and node's names")
	}
}
