package core

import (
	"fmt"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// GKE's custom compute classes (cloud.google.com/v1 ComputeClass, R-CA-11): a cluster-scoped
// object listing, in order of preference, the node configurations the cluster autoscaler should
// add for the pods that select the class (nodeSelector cloud.google.com/compute-class: NAME).
// On Standard clusters the class uses node pools created for it, which carry the label and the
// taint cloud.google.com/compute-class=NAME; GKE gives the pods that select a class the
// toleration of its taint.
//
// What gkesim simulates: when it grows a pool for such pods, the autoscaler takes the pools of
// the class in the order of the first priority rule each matches (machineFamily, machineType,
// spot, minCores, minMemoryGb, nodepools; all the fields a rule sets must match), before cost;
// a pool no rule matches is grown only with whenUnsatisfiable: ScaleUpAnyway (the default is
// DoNotScaleUp). Every other field is stored and served as written; rules that name
// accelerators (gpu, tpu), podFamily or flexStart match no pool; node pool auto-creation,
// active migration and the autoscaling policy are not simulated.

// ComputeClassLabel selects a compute class (on pods) and marks its node pools.
const ComputeClassLabel = "cloud.google.com/compute-class"

const (
	whenUnsatisfiableScaleUp = "ScaleUpAnyway"
	whenUnsatisfiableNot     = "DoNotScaleUp"
)

// ClassRank is where pool p stands for the autoscaler under its compute class: the index of
// the first priority rule it matches (lower first), and "" — or why the class forbids growing it.
// Pools of no class, or of a class the cluster does not have, rank 0.
func (w *Core) ClassRank(c *model.Cluster, p *model.NodePool) (int, string) {
	name := p.Labels[ComputeClassLabel]
	if name == "" {
		return 0, ""
	}
	cc := c.ComputeClass(name)
	if cc == nil {
		return 0, ""
	}
	for i, r := range cc.Priorities {
		if r.Matches(p) {
			return i, ""
		}
	}
	if cc.WhenUnsatisfiable == whenUnsatisfiableScaleUp {
		return len(cc.Priorities), ""
	}
	return 0, fmt.Sprintf("no priority rule of ComputeClass %s matches it (%s) and whenUnsatisfiable is DoNotScaleUp (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/cluster-autoscaler#r-ca-11)", name, p.Spec.MachineType)
}

// computeClassTolerated says whether a pod tolerates taint t because it selects the compute
// class t is the taint of: GKE gives such pods the toleration.
func computeClassTolerated(spec *corev1.PodSpec, t corev1.Taint) bool {
	return t.Key == ComputeClassLabel && t.Value != "" && spec.NodeSelector[ComputeClassLabel] == t.Value
}

// ValidateComputeClass checks what the CRD's schema says of the fields gkesim reads.
func ValidateComputeClass(obj, _ runtime.Object) field.ErrorList {
	u := obj.(*unstructured.Unstructured)
	var errs field.ErrorList
	sp := field.NewPath("spec")
	spec, ok := u.Object["spec"].(map[string]any)
	if !ok {
		if _, has := u.Object["spec"]; has {
			return field.ErrorList{typeError(sp, u.Object["spec"], "object")}
		}
		return field.ErrorList{field.Required(sp, "")}
	}
	pp := sp.Child("priorities")
	prios, ok := spec["priorities"].([]any)
	switch {
	case spec["priorities"] == nil:
		errs = append(errs, field.Required(pp, ""))
	case !ok:
		errs = append(errs, typeError(pp, spec["priorities"], "array"))
	}
	for i, raw := range prios {
		p := pp.Index(i)
		rule, ok := raw.(map[string]any)
		if !ok {
			errs = append(errs, typeError(p, raw, "object"))
			continue
		}
		for _, f := range []struct{ name, typ string }{{"machineFamily", "string"}, {"machineType", "string"}, {"spot", "boolean"},
			{"minCores", "integer"}, {"minMemoryGb", "integer"}, {"nodepools", "array"}} {
			v, has := rule[f.name]
			if has && !isJSONType(v, f.typ) {
				errs = append(errs, typeError(p.Child(f.name), v, f.typ))
			}
			if n, ok := v.(int64); ok && n < 0 {
				errs = append(errs, field.Invalid(p.Child(f.name), n, fmt.Sprintf("%s in body should be greater than or equal to 0", p.Child(f.name))))
			}
		}
		if nps, ok := rule["nodepools"].([]any); ok {
			for j, np := range nps {
				if _, ok := np.(string); !ok {
					errs = append(errs, typeError(p.Child("nodepools").Index(j), np, "string"))
				}
			}
		}
	}
	if v, has := spec["whenUnsatisfiable"]; has {
		if s, ok := v.(string); !ok {
			errs = append(errs, typeError(sp.Child("whenUnsatisfiable"), v, "string"))
		} else if s != whenUnsatisfiableScaleUp && s != whenUnsatisfiableNot {
			errs = append(errs, field.NotSupported(sp.Child("whenUnsatisfiable"), s, []string{whenUnsatisfiableNot, whenUnsatisfiableScaleUp}))
		}
	}
	return errs
}

// typeError is the API server's message for a value of the wrong type under a CRD schema.
func typeError(p *field.Path, v any, typ string) *field.Error {
	return field.Invalid(p, jsonTypeOf(v), fmt.Sprintf("%s in body must be of type %s: %q", p, typ, jsonTypeOf(v)))
}

func isJSONType(v any, typ string) bool {
	switch typ {
	case "integer":
		_, ok := v.(int64)
		return ok
	default:
		return jsonTypeOf(v) == typ
	}
}

func jsonTypeOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// ClassRefuses says why the compute class of pool p forbids growing it for a pod of this spec.
func (w *Core) ClassRefuses(c *model.Cluster, p *model.NodePool, spec *corev1.PodSpec) string {
	if spec.NodeSelector[ComputeClassLabel] == "" {
		return ""
	}
	_, why := w.ClassRank(c, p)
	return why
}
