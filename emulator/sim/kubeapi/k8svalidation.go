package kubeapi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validation of the Kubernetes objects the emulator stores, as kube-apiserver validates them on
// create and update, with its messages (`Pod "x" is invalid: spec.restartPolicy: Unsupported
// value: "Sometimes": supported values: "Always", "OnFailure", "Never"`): object metadata by
// apimachinery's own ValidateObjectMeta (names by each kind's rule, labels, annotations, owner
// references, finalizers), and the parts of the pod spec the emulator simulates (containers
// and their resources, restart and DNS policy, node selector, tolerations, node and pod
// affinity, topology spread constraints, grace period) by the API server's rules for them. Fields the emulator does not
// simulate (volumes, probes, security contexts ...) are stored unchecked.

// defaultPodSpec fills the API server's defaults of the pod spec fields the emulator reads.
func defaultPodSpec(s *corev1.PodSpec) {
	if s.TerminationGracePeriodSeconds == nil {
		g := int64(core.DefaultGraceSeconds)
		s.TerminationGracePeriodSeconds = &g
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
}

func validatePod(p *corev1.Pod, namespace string) field.ErrorList {
	errs := kuberender.ValidateMeta(p.ObjectMeta, namespace, apivalidation.NameIsDNSSubdomain)
	return append(errs, validatePodSpec(&p.Spec, field.NewPath("spec"))...)
}

// validatePodSpec applies the API server's rules to the pod spec fields the emulator simulates.
func validatePodSpec(s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	if len(s.Containers) == 0 {
		errs = append(errs, field.Required(fld.Child("containers"), ""))
	}
	for _, set := range []struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", s.InitContainers}, {"containers", s.Containers}} {
		for i := range set.cs {
			errs = append(errs, validateContainer(&set.cs[i], fld.Child(set.name).Index(i), names)...)
		}
	}
	switch s.RestartPolicy {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
	case "":
		errs = append(errs, field.Required(fld.Child("restartPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(fld.Child("restartPolicy"), s.RestartPolicy,
			[]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	}
	switch s.DNSPolicy {
	case corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone:
	case "":
		errs = append(errs, field.Required(fld.Child("dnsPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(fld.Child("dnsPolicy"), s.DNSPolicy,
			[]corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone}))
	}
	errs = append(errs, metav1validation.ValidateLabels(s.NodeSelector, fld.Child("nodeSelector"))...)
	if s.ServiceAccountName != "" {
		for _, msg := range apivalidation.ValidateServiceAccountName(s.ServiceAccountName, false) {
			errs = append(errs, field.Invalid(fld.Child("serviceAccountName"), s.ServiceAccountName, msg))
		}
	}
	if s.NodeName != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(s.NodeName, false) {
			errs = append(errs, field.Invalid(fld.Child("nodeName"), s.NodeName, msg))
		}
	}
	if g := s.TerminationGracePeriodSeconds; g != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*g, fld.Child("terminationGracePeriodSeconds"))...)
	}
	errs = append(errs, validateTolerations(s.Tolerations, fld.Child("tolerations"))...)
	if s.Affinity != nil {
		errs = append(errs, validateAffinity(s.Affinity, fld.Child("affinity"))...)
	}
	return append(errs, validateTopologySpread(s.TopologySpreadConstraints, fld.Child("topologySpreadConstraints"))...)
}

func validateContainer(c *corev1.Container, fld *field.Path, names map[string]bool) field.ErrorList {
	var errs field.ErrorList
	switch {
	case c.Name == "":
		errs = append(errs, field.Required(fld.Child("name"), ""))
	case names[c.Name]:
		errs = append(errs, field.Duplicate(fld.Child("name"), c.Name))
	default:
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(fld.Child("name"), c.Name, msg))
		}
	}
	names[c.Name] = true
	if c.Image == "" {
		errs = append(errs, field.Required(fld.Child("image"), ""))
	}
	return append(errs, validateResources(&c.Resources, fld.Child("resources"))...)
}

// validateResources is the API server's check of a container's requests and limits: known
// resource names, quantities not negative, requests not above limits.
func validateResources(r *corev1.ResourceRequirements, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	check := func(list corev1.ResourceList, fld *field.Path) {
		for _, name := range slices.Sorted(func(yield func(corev1.ResourceName) bool) {
			for n := range list {
				if !yield(n) {
					return
				}
			}
		}) {
			q, p := list[name], fld.Key(string(name))
			errs = append(errs, validateContainerResourceName(name, p)...)
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(p, q.String(), apivalidation.IsNegativeErrorMsg))
			}
		}
	}
	check(r.Limits, fld.Child("limits"))
	check(r.Requests, fld.Child("requests"))
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		req, hasReq := r.Requests[name]
		lim, hasLim := r.Limits[name]
		if hasReq && hasLim && req.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(fld.Child("requests"), req.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		}
	}
	return errs
}

func validateContainerResourceName(name corev1.ResourceName, fld *field.Path) field.ErrorList {
	s := string(name)
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(s) {
		errs = append(errs, field.Invalid(fld, s, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if !strings.Contains(s, "/") {
		switch {
		case name == corev1.ResourceCPU, name == corev1.ResourceMemory, name == corev1.ResourceEphemeralStorage,
			strings.HasPrefix(s, corev1.ResourceHugePagesPrefix):
		default:
			errs = append(errs, field.Invalid(fld, s, "must be a standard resource for containers"))
		}
	}
	return errs
}

func validateTolerations(ts []corev1.Toleration, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		p := fld.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		switch t.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect,
				[]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
		}
	}
	return errs
}

// validateAffinity is the API server's check of a pod's affinity (R-SCHED-4): node affinity,
// required and preferred, and pod (anti-)affinity terms.
func validateAffinity(a *corev1.Affinity, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		p := fld.Child("nodeAffinity")
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			errs = append(errs, validateNodeSelector(na.RequiredDuringSchedulingIgnoredDuringExecution, p.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			if t.Weight <= 0 || t.Weight > 100 {
				errs = append(errs, field.Invalid(tp.Child("weight"), t.Weight, "must be in the range 1-100"))
			}
			errs = append(errs, validateNodeSelectorTerm(t.Preference, tp.Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, fld.Child("podAffinity"))...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, fld.Child("podAntiAffinity"))...)
	}
	return errs
}

func validatePodAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range required {
		errs = append(errs, validatePodAffinityTerm(t, fld.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for i, t := range preferred {
		p := fld.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		if t.Weight <= 0 || t.Weight > 100 {
			errs = append(errs, field.Invalid(p.Child("weight"), t.Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validatePodAffinityTerm(t.PodAffinityTerm, p.Child("podAffinityTerm"))...)
	}
	return errs
}

// validatePodAffinityTerm: its label and namespace selectors, namespaces and topology key.
func validatePodAffinityTerm(t corev1.PodAffinityTerm, fld *field.Path) field.ErrorList {
	opts := metav1validation.LabelSelectorValidationOptions{}
	errs := metav1validation.ValidateLabelSelector(t.LabelSelector, opts, fld.Child("labelSelector"))
	errs = append(errs, metav1validation.ValidateLabelSelector(t.NamespaceSelector, opts, fld.Child("namespaceSelector"))...)
	for _, ns := range t.Namespaces {
		for _, msg := range apivalidation.ValidateNamespaceName(ns, false) {
			errs = append(errs, field.Invalid(fld.Child("namespace"), ns, msg))
		}
	}
	if t.TopologyKey == "" {
		return append(errs, field.Required(fld.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, metav1validation.ValidateLabelName(t.TopologyKey, fld.Child("topologyKey"))...)
}

// validateTopologySpread is the API server's check of topologySpreadConstraints' fields.
func validateTopologySpread(cs []corev1.TopologySpreadConstraint, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		p := fld.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
		} else {
			errs = append(errs, metav1validation.ValidateLabelName(c.TopologyKey, p.Child("topologyKey"))...)
		}
		switch c.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable,
				[]corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}))
		}
		errs = append(errs, metav1validation.ValidateLabelSelector(c.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, p.Child("labelSelector"))...)
	}
	return errs
}

func validateNodeSelector(ns *corev1.NodeSelector, fld *field.Path) field.ErrorList {
	terms := fld.Child("nodeSelectorTerms")
	if len(ns.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(terms, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, term := range ns.NodeSelectorTerms {
		errs = append(errs, validateNodeSelectorTerm(term, terms.Index(i))...)
	}
	return errs
}

// validateNodeSelectorTerm is the API server's check of one term: its label requirements and
// its field requirements (metadata.name only).
func validateNodeSelectorTerm(term corev1.NodeSelectorTerm, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, rq := range term.MatchExpressions {
		p := fld.Child("matchExpressions").Index(j)
		switch rq.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(rq.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
			if len(rq.Values) > 0 {
				errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
			if len(rq.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), rq.Operator, "not a valid selector operator"))
		}
		errs = append(errs, metav1validation.ValidateLabelName(rq.Key, p.Child("key"))...)
	}
	for j, rq := range term.MatchFields {
		p := fld.Child("matchFields").Index(j)
		switch rq.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(rq.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), rq.Operator, "not a valid selector operator"))
		}
		if rq.Key != "metadata.name" {
			errs = append(errs, field.Invalid(p.Child("key"), rq.Key, "not a valid field selector key"))
			continue
		}
		for k, v := range rq.Values {
			for _, msg := range apivalidation.NameIsDNSSubdomain(v, false) {
				errs = append(errs, field.Invalid(p.Child("values").Index(k), v, msg))
			}
		}
	}
	return errs
}

// validateDeployment applies the API server's rules to a Deployment (after its defaults).
func validateDeployment(d *appsv1.Deployment, namespace string) field.ErrorList {
	errs := kuberender.ValidateMeta(d.ObjectMeta, namespace, apivalidation.NameIsDNSSubdomain)
	spec, fld := &d.Spec, field.NewPath("spec")
	if spec.Replicas != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*spec.Replicas), fld.Child("replicas"))...)
	}
	if spec.Selector == nil {
		errs = append(errs, field.Required(fld.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(fld.Child("selector"), spec.Selector, "empty selector is invalid for deployment"))
		}
	}
	tpl := fld.Child("template")
	if sel, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !sel.Empty() && !sel.Matches(labels.Set(spec.Template.Labels)) {
		errs = append(errs, field.Invalid(tpl.Child("metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, metav1validation.ValidateLabels(spec.Template.Labels, tpl.Child("labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(spec.Template.Annotations, tpl.Child("annotations"))...)
	errs = append(errs, validatePodSpec(&spec.Template.Spec, tpl.Child("spec"))...)
	if rp := spec.Template.Spec.RestartPolicy; rp != corev1.RestartPolicyAlways && rp != "" {
		errs = append(errs, field.NotSupported(tpl.Child("spec", "restartPolicy"), rp, []corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	switch st := spec.Strategy; st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(fld.Child("strategy", "rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if ru := st.RollingUpdate; ru != nil {
			p := fld.Child("strategy", "rollingUpdate")
			errs = append(errs, validateIntOrPercent(ru.MaxUnavailable, p.Child("maxUnavailable"))...)
			errs = append(errs, validateIntOrPercent(ru.MaxSurge, p.Child("maxSurge"))...)
			if intOrPercentValue(ru.MaxUnavailable) == 0 && intOrPercentValue(ru.MaxSurge) == 0 {
				errs = append(errs, field.Invalid(p.Child("maxUnavailable"), ru.MaxUnavailable, "may not be 0 when `maxSurge` is 0"))
			}
		}
	default:
		errs = append(errs, field.NotSupported(fld.Child("strategy", "type"), st.Type,
			[]appsv1.DeploymentStrategyType{appsv1.RecreateDeploymentStrategyType, appsv1.RollingUpdateDeploymentStrategyType}))
	}
	return errs
}

func validatePDB(b *policyv1.PodDisruptionBudget, namespace string) field.ErrorList {
	errs := kuberender.ValidateMeta(b.ObjectMeta, namespace, apivalidation.NameIsDNSSubdomain)
	s, fld := &b.Spec, field.NewPath("spec")
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(fld, s, "minAvailable and maxUnavailable cannot be both set"))
	}
	errs = append(errs, validateIntOrPercent(s.MinAvailable, fld.Child("minAvailable"))...)
	errs = append(errs, validateIntOrPercent(s.MaxUnavailable, fld.Child("maxUnavailable"))...)
	if s.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
	}
	return errs
}

// validateIntOrPercent is the API server's check of a count or percentage (maxSurge,
// minAvailable ...): not negative, a percentage of the form "25%" and at most 100%.
func validateIntOrPercent(v *intstr.IntOrString, fld *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	var errs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(fld, v.StrVal, msg))
		}
		if n, ok := percentValue(v); ok && n > 100 {
			errs = append(errs, field.Invalid(fld, v.StrVal, "must not be greater than 100%"))
		}
	case intstr.Int:
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(v.IntVal), fld)...)
	}
	return errs
}

func percentValue(v *intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || !strings.HasSuffix(v.StrVal, "%") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return n, err == nil
}

func intOrPercentValue(v *intstr.IntOrString) int {
	if v == nil {
		return 0
	}
	if n, ok := percentValue(v); ok {
		return n
	}
	return int(v.IntVal)
}

// validateNamespace applies the API server's rules to a Namespace.
func validateNamespace(n *corev1.Namespace) field.ErrorList {
	return kuberender.ValidateMeta(n.ObjectMeta, "", apivalidation.ValidateNamespaceName)
}
