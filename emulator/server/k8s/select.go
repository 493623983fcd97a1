package k8s

import (
	"fmt"
	"strconv"

	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// List filters: labelSelector and fieldSelector as the API server reads them. Each resource
// supports metadata.name and metadata.namespace plus the fields its own field-label conversion
// allows (what kubectl uses: spec.nodeName and status.phase!= for describe node, involvedObject.*
// for describe's events, metadata.name for kubectl delete --wait).

// fieldLabels are the selectable fields of each resource besides metadata.name/namespace.
var fieldLabels = map[string][]string{
	"pods":       {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"},
	"nodes":      {"spec.unschedulable"},
	"events":     {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
	"namespaces": {"status.phase"},
}

// listFilter is a parsed labelSelector and fieldSelector.
type listFilter struct {
	labels labels.Selector // nil: everything
	fields fields.Selector // nil: everything
}

// parseListFilter reads the selectors of a list of resource, and what of them the simulation
// can use to narrow its own work (the namespace, labels, the node of pods).
func parseListFilter(c echo.Context, resource string) (listFilter, sim.ListOptions, error) {
	var f listFilter
	o := sim.ListOptions{Namespace: c.Param("ns")}
	if v := c.QueryParam("labelSelector"); v != "" {
		sel, err := labels.Parse(v)
		if err != nil {
			return f, o, kubeBadRequest(fmt.Errorf("unable to parse requirement: %v", err))
		}
		f.labels, o.Labels = sel, sel
	}
	if v := c.QueryParam("fieldSelector"); v != "" {
		sel, err := fields.ParseSelector(v)
		if err != nil {
			return f, o, kubeBadRequest(fmt.Errorf("invalid field selector: %v", err))
		}
		for _, r := range sel.Requirements() {
			if !selectable(resource, r.Field) {
				return f, o, kubeBadRequest(fmt.Errorf("field label not supported: %s", r.Field))
			}
			if r.Operator == selection.NotEquals {
				continue
			}
			switch r.Field {
			case "spec.nodeName":
				o.NodeName = r.Value // pods are indexed by node
			case "metadata.namespace":
				if o.Namespace == "" {
					o.Namespace = r.Value
				}
			}
		}
		f.fields = sel
	}
	return f, o, nil
}

func selectable(resource, field string) bool {
	if field == "metadata.name" || field == "metadata.namespace" {
		return true
	}
	for _, f := range fieldLabels[resource] {
		if f == field {
			return true
		}
	}
	return false
}

// changes says whether an object may enter or leave the selection as it changes: its labels
// or a field other than its name and namespace are selected on.
func (f listFilter) changes() bool {
	if f.labels != nil && !f.labels.Empty() {
		return true
	}
	if f.fields != nil {
		for _, r := range f.fields.Requirements() {
			if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
				return true
			}
		}
	}
	return false
}

// matches says whether an object passes both selectors.
func (f listFilter) matches(obj runtime.Object) bool {
	if f.labels == nil && f.fields == nil {
		return true
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	return (f.labels == nil || f.labels.Matches(labels.Set(m.GetLabels()))) && (f.fields == nil || f.fields.Matches(fieldsOf(obj)))
}

// equal is the value a field is required to equal, or "".
func (f listFilter) equal(field string) string {
	if f.fields == nil {
		return ""
	}
	v, _ := f.fields.RequiresExactMatch(field)
	return v
}

// apply keeps the items of list that match both selectors.
func (f listFilter) apply(list runtime.Object) error {
	if f.labels == nil && f.fields == nil {
		return nil
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	kept := make([]runtime.Object, 0, len(items))
	for _, it := range items {
		if f.matches(it) {
			kept = append(kept, it)
		}
	}
	return meta.SetList(list, kept)
}

// fieldsOf is the selectable fields of an object.
func fieldsOf(obj runtime.Object) fields.Set {
	m, _ := meta.Accessor(obj)
	set := fields.Set{"metadata.name": m.GetName(), "metadata.namespace": m.GetNamespace()}
	switch o := obj.(type) {
	case *corev1.Pod:
		set["spec.nodeName"] = o.Spec.NodeName
		set["spec.restartPolicy"] = string(o.Spec.RestartPolicy)
		set["spec.schedulerName"] = o.Spec.SchedulerName
		set["spec.serviceAccountName"] = o.Spec.ServiceAccountName
		set["status.phase"] = string(o.Status.Phase)
		set["status.podIP"] = o.Status.PodIP
		set["status.nominatedNodeName"] = o.Status.NominatedNodeName
	case *corev1.Node:
		set["spec.unschedulable"] = strconv.FormatBool(o.Spec.Unschedulable)
	case *corev1.Namespace:
		set["status.phase"] = string(o.Status.Phase)
	case *corev1.Event:
		r := o.InvolvedObject
		set["involvedObject.kind"] = r.Kind
		set["involvedObject.namespace"] = r.Namespace
		set["involvedObject.name"] = r.Name
		set["involvedObject.uid"] = string(r.UID)
		set["involvedObject.apiVersion"] = r.APIVersion
		set["involvedObject.resourceVersion"] = r.ResourceVersion
		set["involvedObject.fieldPath"] = r.FieldPath
		set["reason"] = o.Reason
		set["reportingComponent"] = o.ReportingController
		set["source"] = o.Source.Component
		set["type"] = o.Type
	}
	return set
}
