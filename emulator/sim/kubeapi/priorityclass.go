package kubeapi

import (
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// PriorityClasses (scheduling.k8s.io/v1, R-SCHED-3): a stored kind whose values the API
// server's Priority admission puts into pods' spec.priority, which the scheduler and the
// cluster autoscaler read. Every cluster has the system classes (model.SystemPriorityClasses)
// without storing them: they are listed and read like the others, cannot be deleted, and an
// update of one stores its result.

var priorityClassKind = &StoredKind{Resource: model.ResourcePriorityClasses, Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass",
	ShortNames: []string{"pc"},
	newObject:  func() runtime.Object { return &schedulingv1.PriorityClass{} },
	newList:    func() runtime.Object { return &schedulingv1.PriorityClassList{} },
	prepare: func(obj runtime.Object) {
		if pc := obj.(*schedulingv1.PriorityClass); pc.PreemptionPolicy == nil {
			p := corev1.PreemptLowerPriority
			pc.PreemptionPolicy = &p
		}
	},
	validate: validatePriorityClass, admit: admitPriorityClass, builtins: systemPriorityClasses,
	nameFn: apivalidation.NameIsDNSSubdomain}

// systemPriorityClasses are the system classes as stored objects.
func systemPriorityClasses(c *model.Cluster) []*model.StoredObject {
	var out []*model.StoredObject
	for _, s := range model.SystemPriorityClasses {
		policy := corev1.PreemptLowerPriority
		pc := &schedulingv1.PriorityClass{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
			ObjectMeta: metav1.ObjectMeta{Name: s.Name, UID: types.UID(model.UIDOf(c.ID, model.ResourcePriorityClasses, s.Name)),
				CreationTimestamp: kuberender.APITime(c.CreateTime), Generation: 1},
			Value: s.Value, Description: s.Description, PreemptionPolicy: &policy}
		o := &model.StoredObject{Resource: model.ResourcePriorityClasses, Name: s.Name, RV: 1}
		if err := o.Set(pc); err != nil {
			panic(err)
		}
		out = append(out, o)
	}
	return out
}

// validatePriorityClass is the API server's ValidatePriorityClass and its update check.
func validatePriorityClass(obj, old runtime.Object) field.ErrorList {
	pc := obj.(*schedulingv1.PriorityClass)
	var errs field.ErrorList
	if strings.HasPrefix(pc.Name, "system-") {
		if msg := knownSystemPriorityClass(pc); msg != "" {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with 'system-' prefix are reserved for system use only. error: "+msg))
		}
	} else if pc.Value > model.HighestUserDefinablePriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %v", model.HighestUserDefinablePriority)))
	}
	if p := pc.PreemptionPolicy; p != nil && *p != corev1.PreemptLowerPriority && *p != corev1.PreemptNever {
		errs = append(errs, field.NotSupported(field.NewPath("preemptionPolicy"), *p, []corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever}))
	}
	if old != nil {
		o := old.(*schedulingv1.PriorityClass)
		if pc.Value != o.Value {
			errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
		}
		if (pc.PreemptionPolicy == nil) != (o.PreemptionPolicy == nil) || (pc.PreemptionPolicy != nil && *pc.PreemptionPolicy != *o.PreemptionPolicy) {
			errs = append(errs, field.Invalid(field.NewPath("preemptionPolicy"), pc.PreemptionPolicy, "field is immutable"))
		}
	}
	return errs
}

// knownSystemPriorityClass is the API server's IsKnownSystemPriorityClass: why a class named
// system-* is not one of the system's, or "".
func knownSystemPriorityClass(pc *schedulingv1.PriorityClass) string {
	for _, s := range model.SystemPriorityClasses {
		switch {
		case s.Name != pc.Name:
		case s.Value != pc.Value:
			return fmt.Sprintf("value of %v PriorityClass must be %v", s.Name, s.Value)
		case pc.GlobalDefault:
			return fmt.Sprintf("globalDefault of %v PriorityClass must be false", s.Name)
		default:
			return ""
		}
	}
	return pc.Name + " is not a known system priority class"
}

// admitPriorityClass is the Priority admission plugin's check of a class: one default at most.
func admitPriorityClass(c *model.Cluster, obj runtime.Object) error {
	pc := obj.(*schedulingv1.PriorityClass)
	if !pc.GlobalDefault {
		return nil
	}
	if name, _, _ := c.DefaultPriorityClass(); name != "" && name != pc.Name {
		return model.KubeError(http.StatusForbidden, "Forbidden", "priorityclasses.scheduling.k8s.io %q is forbidden: PriorityClass %v is already marked as default. Only one default can exist",
			pc.Name, name)
	}
	return nil
}

// admitPodPriority is the Priority admission plugin on a pod's creation: it resolves the pod's
// priorityClassName (or the cluster's default class) into spec.priority and its preemption
// policy, and refuses a class the cluster does not have, or a priority that differs (R-SCHED-3).
func admitPodPriority(c *model.Cluster, spec *corev1.PodSpec, name string) error {
	var (
		value  int32
		policy *corev1.PreemptionPolicy
	)
	if spec.PriorityClassName == "" {
		spec.PriorityClassName, value, policy = c.DefaultPriorityClass()
	} else {
		var ok bool
		if value, policy, ok = c.PriorityClass(spec.PriorityClassName); !ok {
			return model.KubeError(http.StatusForbidden, "Forbidden", "pods %q is forbidden: no PriorityClass with name %v was found", name, spec.PriorityClassName)
		}
	}
	if spec.Priority != nil && *spec.Priority != value {
		return model.KubeError(http.StatusForbidden, "Forbidden",
			"pods %q is forbidden: the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name",
			name, *spec.Priority, value)
	}
	if policy == nil {
		p := corev1.PreemptLowerPriority
		policy = &p
	}
	if spec.PreemptionPolicy != nil && *spec.PreemptionPolicy != *policy {
		return model.KubeError(http.StatusForbidden, "Forbidden",
			"pods %q is forbidden: the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name",
			name, *spec.PreemptionPolicy, *policy)
	}
	spec.Priority, spec.PreemptionPolicy = &value, policy
	return nil
}
