package kubeapi

import (
	"fmt"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The ComputeClass kind's schema check (R-CA-11; what a class is: core/computeclass.go): what
// the CRD's schema says of the fields gkesim reads.

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
		} else if s != core.WhenUnsatisfiableScaleUp && s != core.WhenUnsatisfiableDoNotScaleUp {
			errs = append(errs, field.NotSupported(sp.Child("whenUnsatisfiable"), s, []string{core.WhenUnsatisfiableDoNotScaleUp, core.WhenUnsatisfiableScaleUp}))
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
