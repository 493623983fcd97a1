package k8s

import (
	"encoding/json"
	"fmt"
	"mime"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Server-side printing: kubectl get asks for a meta.k8s.io Table (Accept:
// application/json;as=Table;v=v1;g=meta.k8s.io) and prints its columns as they come. The
// columns and cell texts are those of the API server's printers (pkg/printers/internalversion),
// so that `kubectl get` looks as it does against GKE; AGE is computed on the emulated clock.

// tableRequest is what a request asks of a Table answer.
type tableRequest struct {
	// version is the meta.k8s.io version of the Table asked for; "" when no Table was asked for.
	version string
	// include is the includeObject policy: None, Metadata (the default) or Object.
	include metav1.IncludeObjectPolicy
}

// parseTableRequest reads the Accept header and includeObject parameter.
func parseTableRequest(accept, include string) (tableRequest, error) {
	var tr tableRequest
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "application/json" || params["as"] != "Table" || params["g"] != "meta.k8s.io" {
			continue
		}
		if v := params["v"]; v == "v1" || v == "v1beta1" {
			tr.version = v
			break
		}
	}
	switch p := metav1.IncludeObjectPolicy(include); p {
	case "":
		tr.include = metav1.IncludeMetadata
	case metav1.IncludeNone, metav1.IncludeMetadata, metav1.IncludeObject:
		tr.include = p
	default:
		return tr, kubeBadRequest(fmt.Errorf("includeObject: Unsupported value: %q: supported values: \"Metadata\", \"None\", \"Object\"", include))
	}
	return tr, nil
}

// printer renders one kind as table rows.
type printer struct {
	columns []metav1.TableColumnDefinition
	cells   func(obj runtime.Object, now time.Time) []any
}

func col(name, typ, desc string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: desc}
}

// wide marks a column kubectl shows only with -o wide.
func wide(c metav1.TableColumnDefinition) metav1.TableColumnDefinition {
	c.Priority = 1
	return c
}

var nameColumn = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]}
var ageColumn = col("Age", "string", metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"])

// printers by kind.
var printers = map[string]printer{
	"Namespace": {
		columns: []metav1.TableColumnDefinition{nameColumn, col("Status", "string", "The status of the namespace"), ageColumn},
		cells: func(o runtime.Object, now time.Time) []any {
			ns := o.(*corev1.Namespace)
			return []any{ns.Name, string(ns.Status.Phase), age(ns.CreationTimestamp, now)}
		},
	},
	"Node": {
		columns: []metav1.TableColumnDefinition{nameColumn, col("Status", "string", "The status of the node"),
			col("Roles", "string", "The roles of the node"), ageColumn,
			col("Version", "string", corev1.NodeSystemInfo{}.SwaggerDoc()["kubeletVersion"]),
			wide(col("Internal-IP", "string", corev1.NodeStatus{}.SwaggerDoc()["addresses"])),
			wide(col("External-IP", "string", corev1.NodeStatus{}.SwaggerDoc()["addresses"])),
			wide(col("OS-Image", "string", corev1.NodeSystemInfo{}.SwaggerDoc()["osImage"])),
			wide(col("Kernel-Version", "string", corev1.NodeSystemInfo{}.SwaggerDoc()["kernelVersion"])),
			wide(col("Container-Runtime", "string", corev1.NodeSystemInfo{}.SwaggerDoc()["containerRuntimeVersion"]))},
		cells: nodeCells,
	},
	"Pod": {
		columns: []metav1.TableColumnDefinition{nameColumn,
			col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
			col("Status", "string", "The aggregate status of the containers in this pod."),
			col("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
			ageColumn,
			wide(col("IP", "string", corev1.PodStatus{}.SwaggerDoc()["podIP"])),
			wide(col("Node", "string", corev1.PodSpec{}.SwaggerDoc()["nodeName"])),
			wide(col("Nominated Node", "string", corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"])),
			wide(col("Readiness Gates", "string", corev1.PodSpec{}.SwaggerDoc()["readinessGates"]))},
		cells: podCells,
	},
	"Deployment": {
		columns: []metav1.TableColumnDefinition{nameColumn, col("Ready", "string", "Number of the pod with ready state"),
			col("Up-to-date", "integer", appsv1.DeploymentStatus{}.SwaggerDoc()["updatedReplicas"]),
			col("Available", "integer", appsv1.DeploymentStatus{}.SwaggerDoc()["availableReplicas"]), ageColumn,
			wide(col("Containers", "string", "Names of each container in the template.")),
			wide(col("Images", "string", "Images referenced by each container in the template.")),
			wide(col("Selector", "string", appsv1.DeploymentSpec{}.SwaggerDoc()["selector"]))},
		cells: func(o runtime.Object, now time.Time) []any {
			d := o.(*appsv1.Deployment)
			desired := int32(0)
			if d.Spec.Replicas != nil {
				desired = *d.Spec.Replicas
			}
			names, images := containerColumns(d.Spec.Template.Spec.Containers)
			return []any{d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, desired), int64(d.Status.UpdatedReplicas),
				int64(d.Status.AvailableReplicas), age(d.CreationTimestamp, now), names, images, metav1.FormatLabelSelector(d.Spec.Selector)}
		},
	},
	"DaemonSet": {
		columns: []metav1.TableColumnDefinition{nameColumn,
			col("Desired", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["desiredNumberScheduled"]),
			col("Current", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["currentNumberScheduled"]),
			col("Ready", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["numberReady"]),
			col("Up-to-date", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["updatedNumberScheduled"]),
			col("Available", "integer", appsv1.DaemonSetStatus{}.SwaggerDoc()["numberAvailable"]),
			col("Node Selector", "string", corev1.PodSpec{}.SwaggerDoc()["nodeSelector"]), ageColumn,
			wide(col("Containers", "string", "Names of each container in the template.")),
			wide(col("Images", "string", "Images referenced by each container in the template.")),
			wide(col("Selector", "string", appsv1.DaemonSetSpec{}.SwaggerDoc()["selector"]))},
		cells: func(o runtime.Object, now time.Time) []any {
			ds := o.(*appsv1.DaemonSet)
			st := ds.Status
			names, images := containerColumns(ds.Spec.Template.Spec.Containers)
			return []any{ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
				int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), orNone(labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector)),
				age(ds.CreationTimestamp, now), names, images, metav1.FormatLabelSelector(ds.Spec.Selector)}
		},
	},
	"ReplicaSet": {
		columns: []metav1.TableColumnDefinition{nameColumn,
			col("Desired", "integer", appsv1.ReplicaSetSpec{}.SwaggerDoc()["replicas"]),
			col("Current", "integer", appsv1.ReplicaSetStatus{}.SwaggerDoc()["replicas"]),
			col("Ready", "integer", appsv1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"]), ageColumn,
			wide(col("Containers", "string", "Names of each container in the template.")),
			wide(col("Images", "string", "Images referenced by each container in the template.")),
			wide(col("Selector", "string", appsv1.ReplicaSetSpec{}.SwaggerDoc()["selector"]))},
		cells: func(o runtime.Object, now time.Time) []any {
			rs := o.(*appsv1.ReplicaSet)
			desired := int32(0)
			if rs.Spec.Replicas != nil {
				desired = *rs.Spec.Replicas
			}
			names, images := containerColumns(rs.Spec.Template.Spec.Containers)
			return []any{rs.Name, int64(desired), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas), age(rs.CreationTimestamp, now),
				names, images, metav1.FormatLabelSelector(rs.Spec.Selector)}
		},
	},
	"StatefulSet": {
		columns: []metav1.TableColumnDefinition{nameColumn, col("Ready", "string", "Number of the pod with ready state"), ageColumn,
			wide(col("Containers", "string", "Names of each container in the template.")),
			wide(col("Images", "string", "Images referenced by each container in the template."))},
		cells: func(o runtime.Object, now time.Time) []any {
			st := o.(*appsv1.StatefulSet)
			desired := int32(0)
			if st.Spec.Replicas != nil {
				desired = *st.Spec.Replicas
			}
			names, images := containerColumns(st.Spec.Template.Spec.Containers)
			return []any{st.Name, fmt.Sprintf("%d/%d", st.Status.ReadyReplicas, desired), age(st.CreationTimestamp, now), names, images}
		},
	},
	"PodDisruptionBudget": {
		columns: []metav1.TableColumnDefinition{nameColumn,
			col("Min Available", "string", "The minimum number of pods that must be available, either an absolute number or a percentage."),
			col("Max Unavailable", "string", "The maximum number of pods that may be unavailable, either an absolute number or a percentage."),
			col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."), ageColumn},
		cells: func(o runtime.Object, now time.Time) []any {
			b := o.(*policyv1.PodDisruptionBudget)
			minAvail, maxUnavail := "N/A", "N/A"
			if b.Spec.MinAvailable != nil {
				minAvail = b.Spec.MinAvailable.String()
			}
			if b.Spec.MaxUnavailable != nil {
				maxUnavail = b.Spec.MaxUnavailable.String()
			}
			return []any{b.Name, minAvail, maxUnavail, int64(b.Status.DisruptionsAllowed), age(b.CreationTimestamp, now)}
		},
	},
	"Service": {
		columns: []metav1.TableColumnDefinition{nameColumn, col("Type", "string", "The type of service."),
			col("Cluster-IP", "string", corev1.ServiceSpec{}.SwaggerDoc()["clusterIP"]),
			col("External-IP", "string", corev1.ServiceSpec{}.SwaggerDoc()["externalIPs"]),
			col("Port(s)", "string", corev1.ServiceSpec{}.SwaggerDoc()["ports"]), ageColumn,
			wide(col("Selector", "string", corev1.ServiceSpec{}.SwaggerDoc()["selector"]))},
		cells: func(o runtime.Object, now time.Time) []any {
			svc := o.(*corev1.Service)
			var ports []string
			for _, p := range svc.Spec.Ports {
				s := fmt.Sprintf("%d/%s", p.Port, p.Protocol)
				if p.NodePort > 0 {
					s = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
				}
				ports = append(ports, s)
			}
			return []any{svc.Name, string(svc.Spec.Type), orNone(svc.Spec.ClusterIP), serviceExternalIP(svc),
				orNone(strings.Join(ports, ",")), age(svc.CreationTimestamp, now), orNone(labels.FormatLabels(svc.Spec.Selector))}
		},
	},
	"Lease": {
		columns: []metav1.TableColumnDefinition{nameColumn, col("Holder", "string", coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]), ageColumn},
		cells: func(o runtime.Object, now time.Time) []any {
			l := o.(*coordinationv1.Lease)
			holder := ""
			if l.Spec.HolderIdentity != nil {
				holder = *l.Spec.HolderIdentity
			}
			return []any{l.Name, holder, age(l.CreationTimestamp, now)}
		},
	},
	"Event": {
		columns: []metav1.TableColumnDefinition{col("Last Seen", "string", corev1.Event{}.SwaggerDoc()["lastTimestamp"]),
			col("Type", "string", corev1.Event{}.SwaggerDoc()["type"]), col("Reason", "string", corev1.Event{}.SwaggerDoc()["reason"]),
			col("Object", "string", corev1.Event{}.SwaggerDoc()["involvedObject"]),
			wide(col("Subobject", "string", corev1.ObjectReference{}.SwaggerDoc()["fieldPath"])),
			wide(col("Source", "string", corev1.Event{}.SwaggerDoc()["source"])),
			col("Message", "string", corev1.Event{}.SwaggerDoc()["message"]),
			wide(col("First Seen", "string", corev1.Event{}.SwaggerDoc()["firstTimestamp"])),
			wide(col("Count", "string", corev1.Event{}.SwaggerDoc()["count"])),
			wide(metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]})},
		cells: func(o runtime.Object, now time.Time) []any {
			e := o.(*corev1.Event)
			obj := strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name
			return []any{age(e.LastTimestamp, now), e.Type, e.Reason, obj, e.InvolvedObject.FieldPath, e.Source.Component,
				strings.TrimSpace(e.Message), age(e.FirstTimestamp, now), fmt.Sprint(e.Count), e.Name}
		},
	},
}

func init() {
	createdAt := col("Created At", "date", metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"])
	bindingColumns := []metav1.TableColumnDefinition{nameColumn, col("Role", "string", rbacv1.RoleBinding{}.SwaggerDoc()["roleRef"]), ageColumn,
		wide(col("Users", "string", "Users in the roleBinding")), wide(col("Groups", "string", "Groups in the roleBinding")),
		wide(col("ServiceAccounts", "string", "ServiceAccounts in the roleBinding"))}
	bindingCells := func(name string, ref rbacv1.RoleRef, subjects []rbacv1.Subject, created metav1.Time, now time.Time) []any {
		var users, groups, sas []string
		for _, s := range subjects {
			switch s.Kind {
			case rbacv1.UserKind:
				users = append(users, s.Name)
			case rbacv1.GroupKind:
				groups = append(groups, s.Name)
			case rbacv1.ServiceAccountKind:
				sas = append(sas, s.Namespace+"/"+s.Name)
			}
		}
		return []any{name, ref.Kind + "/" + ref.Name, age(created, now), strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
	}
	printers["ReplicaSet"] = printer{
		columns: []metav1.TableColumnDefinition{nameColumn,
			col("Desired", "integer", appsv1.ReplicaSetSpec{}.SwaggerDoc()["replicas"]),
			col("Current", "integer", appsv1.ReplicaSetStatus{}.SwaggerDoc()["replicas"]),
			col("Ready", "integer", appsv1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"]), ageColumn,
			wide(col("Containers", "string", "Names of each container in the template.")),
			wide(col("Images", "string", "Images referenced by each container in the template.")),
			wide(col("Selector", "string", appsv1.ReplicaSetSpec{}.SwaggerDoc()["selector"]))},
		cells: func(o runtime.Object, now time.Time) []any {
			rs := o.(*appsv1.ReplicaSet)
			desired := int64(0)
			if rs.Spec.Replicas != nil {
				desired = int64(*rs.Spec.Replicas)
			}
			names, images := containerColumns(rs.Spec.Template.Spec.Containers)
			return []any{rs.Name, desired, int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas), age(rs.CreationTimestamp, now),
				names, images, metav1.FormatLabelSelector(rs.Spec.Selector)}
		},
	}
	printers["PriorityClass"] = printer{
		columns: []metav1.TableColumnDefinition{nameColumn, col("Value", "integer", schedulingv1.PriorityClass{}.SwaggerDoc()["value"]),
			col("Global-Default", "boolean", schedulingv1.PriorityClass{}.SwaggerDoc()["globalDefault"]), ageColumn,
			col("PreemptionPolicy", "string", schedulingv1.PriorityClass{}.SwaggerDoc()["preemptionPolicy"])},
		cells: func(o runtime.Object, now time.Time) []any {
			pc := o.(*schedulingv1.PriorityClass)
			policy := ""
			if pc.PreemptionPolicy != nil {
				policy = string(*pc.PreemptionPolicy)
			}
			return []any{pc.Name, int64(pc.Value), pc.GlobalDefault, age(pc.CreationTimestamp, now), policy}
		},
	}
	printers["ConfigMap"] = printer{
		columns: []metav1.TableColumnDefinition{nameColumn, col("Data", "string", corev1.ConfigMap{}.SwaggerDoc()["data"]), ageColumn},
		cells: func(o runtime.Object, now time.Time) []any {
			cm := o.(*corev1.ConfigMap)
			return []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), age(cm.CreationTimestamp, now)}
		},
	}
	printers["Secret"] = printer{
		columns: []metav1.TableColumnDefinition{nameColumn, col("Type", "string", corev1.Secret{}.SwaggerDoc()["type"]),
			col("Data", "string", corev1.Secret{}.SwaggerDoc()["data"]), ageColumn},
		cells: func(o runtime.Object, now time.Time) []any {
			sec := o.(*corev1.Secret)
			return []any{sec.Name, string(sec.Type), int64(len(sec.Data)), age(sec.CreationTimestamp, now)}
		},
	}
	printers["ServiceAccount"] = printer{
		columns: []metav1.TableColumnDefinition{nameColumn, col("Secrets", "string", corev1.ServiceAccount{}.SwaggerDoc()["secrets"]), ageColumn},
		cells: func(o runtime.Object, now time.Time) []any {
			sa := o.(*corev1.ServiceAccount)
			return []any{sa.Name, int64(len(sa.Secrets)), age(sa.CreationTimestamp, now)}
		},
	}
	printers["Role"] = printer{
		columns: []metav1.TableColumnDefinition{nameColumn, createdAt},
		cells: func(o runtime.Object, _ time.Time) []any {
			r := o.(*rbacv1.Role)
			return []any{r.Name, r.CreationTimestamp.UTC().Format(time.RFC3339)}
		},
	}
	printers["ClusterRole"] = printer{
		columns: []metav1.TableColumnDefinition{nameColumn, createdAt},
		cells: func(o runtime.Object, _ time.Time) []any {
			r := o.(*rbacv1.ClusterRole)
			return []any{r.Name, r.CreationTimestamp.UTC().Format(time.RFC3339)}
		},
	}
	printers["RoleBinding"] = printer{columns: bindingColumns, cells: func(o runtime.Object, now time.Time) []any {
		b := o.(*rbacv1.RoleBinding)
		return bindingCells(b.Name, b.RoleRef, b.Subjects, b.CreationTimestamp, now)
	}}
	printers["ClusterRoleBinding"] = printer{columns: bindingColumns, cells: func(o runtime.Object, now time.Time) []any {
		b := o.(*rbacv1.ClusterRoleBinding)
		return bindingCells(b.Name, b.RoleRef, b.Subjects, b.CreationTimestamp, now)
	}}
	printers["HorizontalPodAutoscaler"] = printer{
		columns: []metav1.TableColumnDefinition{nameColumn,
			col("Reference", "string", autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["scaleTargetRef"]),
			col("Targets", "string", autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["metrics"]),
			col("MinPods", "string", autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["minReplicas"]),
			col("MaxPods", "integer", autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["maxReplicas"]),
			col("Replicas", "integer", autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()["currentReplicas"]), ageColumn},
		cells: hpaCells,
	}
	printers["ComputeClass"] = printer{
		columns: []metav1.TableColumnDefinition{nameColumn, ageColumn},
		cells: func(o runtime.Object, now time.Time) []any {
			u := o.(*unstructured.Unstructured)
			return []any{u.GetName(), age(u.GetCreationTimestamp(), now)}
		},
	}
}

// hpaCells follows the API server's printer: TARGETS shows each metric's current value
// (<unknown> until the autoscaler reports one; gkesim stores HorizontalPodAutoscalers only) and
// its target.
func hpaCells(o runtime.Object, now time.Time) []any {
	h := o.(*autoscalingv2.HorizontalPodAutoscaler)
	var targets []string
	for _, m := range h.Spec.Metrics {
		switch {
		case m.Resource != nil && m.Resource.Target.AverageUtilization != nil:
			targets = append(targets, fmt.Sprintf("%s: <unknown>/%d%%", m.Resource.Name, *m.Resource.Target.AverageUtilization))
		case m.Resource != nil && m.Resource.Target.AverageValue != nil:
			targets = append(targets, fmt.Sprintf("%s: <unknown>/%s", m.Resource.Name, m.Resource.Target.AverageValue.String()))
		default:
			targets = append(targets, "<unknown>/<unknown>")
		}
	}
	minPods := "<unset>"
	if h.Spec.MinReplicas != nil {
		minPods = fmt.Sprint(*h.Spec.MinReplicas)
	}
	ref := h.Spec.ScaleTargetRef
	return []any{h.Name, ref.Kind + "/" + ref.Name, orNone(strings.Join(targets, ", ")), minPods, int64(h.Spec.MaxReplicas),
		int64(h.Status.CurrentReplicas), age(h.CreationTimestamp, now)}
}

// toTable renders out (an object or a list) as a Table, or reports that its kind has no printer.
func toTable(out any, now time.Time, tr tableRequest) (*metav1.Table, bool, error) {
	obj, ok := out.(runtime.Object)
	if !ok {
		return nil, false, nil
	}
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	items := []runtime.Object{obj}
	t := &metav1.Table{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/" + tr.version, Kind: "Table"}}
	if meta.IsListType(obj) {
		kind = strings.TrimSuffix(kind, "List")
		var err error
		if items, err = meta.ExtractList(obj); err != nil {
			return nil, false, err
		}
		if lm, err := meta.ListAccessor(obj); err == nil {
			t.ResourceVersion, t.Continue = lm.GetResourceVersion(), lm.GetContinue()
		}
	} else if m, err := meta.Accessor(obj); err == nil {
		t.ResourceVersion = m.GetResourceVersion()
	}
	p, ok := printers[kind]
	if !ok {
		return nil, false, nil
	}
	t.ColumnDefinitions = p.columns
	t.Rows = make([]metav1.TableRow, 0, len(items))
	for _, it := range items {
		row := metav1.TableRow{Cells: p.cells(it, now)}
		raw, err := rowObject(it, tr.include)
		if err != nil {
			return nil, false, err
		}
		row.Object.Raw = raw
		t.Rows = append(t.Rows, row)
	}
	return t, true, nil
}

// rowObject is what a row carries of its object under the includeObject policy: nothing, its
// metadata as a PartialObjectMetadata (what kubectl reads for -L, --show-labels and the
// NAMESPACE column), or the object.
func rowObject(obj runtime.Object, include metav1.IncludeObjectPolicy) ([]byte, error) {
	switch include {
	case metav1.IncludeNone:
		return nil, nil
	case metav1.IncludeObject:
		return json.Marshal(obj)
	}
	var om *metav1.ObjectMeta
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		om = &metav1.ObjectMeta{}
		if md, ok := o.Object["metadata"].(map[string]any); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(md, om); err != nil {
				return nil, err
			}
		}
	case metav1.ObjectMetaAccessor:
		om, _ = o.GetObjectMeta().(*metav1.ObjectMeta)
	}
	if om == nil {
		return nil, fmt.Errorf("no metadata on %T", obj)
	}
	return json.Marshal(&metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: *om})
}

// age is the printers' AGE: how long ago t was, on the emulated clock.
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func containerColumns(cs []corev1.Container) (names, images string) {
	var n, i []string
	for _, c := range cs {
		n, i = append(n, c.Name), append(i, c.Image)
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

func nodeCells(o runtime.Object, now time.Time) []any {
	n := o.(*corev1.Node)
	status := "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			switch c.Status {
			case corev1.ConditionTrue:
				status = "Ready"
			case corev1.ConditionFalse:
				status = "NotReady"
			}
		}
	}
	if n.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	var roles []string
	for k, v := range n.Labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if r := strings.TrimPrefix(k, "node-role.kubernetes.io/"); r != "" {
				roles = append(roles, r)
			}
		case k == "kubernetes.io/role" && v != "":
			roles = append(roles, v)
		}
	}
	sort.Strings(roles)
	address := func(t corev1.NodeAddressType) string {
		for _, a := range n.Status.Addresses {
			if a.Type == t {
				return a.Address
			}
		}
		return "<none>"
	}
	info := n.Status.NodeInfo
	unknown := func(s string) string {
		if s == "" {
			return "<unknown>"
		}
		return s
	}
	return []any{n.Name, status, orNone(strings.Join(roles, ",")), age(n.CreationTimestamp, now), info.KubeletVersion,
		address(corev1.NodeInternalIP), address(corev1.NodeExternalIP), unknown(info.OSImage), unknown(info.KernelVersion),
		unknown(info.ContainerRuntimeVersion)}
}

// podCells follows the API server's pod printer: the STATUS column is the phase, overridden by
// a container's waiting or terminated reason, and "Terminating" once the pod is being deleted.
func podCells(o runtime.Object, now time.Time) []any {
	p := o.(*corev1.Pod)
	reason := string(p.Status.Phase)
	if p.Status.Reason != "" {
		reason = p.Status.Reason
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			reason = corev1.PodReasonSchedulingGated
		}
	}
	ready, restarts := 0, 0
	for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
		cs := p.Status.ContainerStatuses[i]
		restarts += int(cs.RestartCount)
		switch {
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
			reason = cs.State.Waiting.Reason
		case cs.State.Terminated != nil && cs.State.Terminated.Reason != "":
			reason = cs.State.Terminated.Reason
		case cs.Ready && cs.State.Running != nil:
			ready++
		}
	}
	if p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
		reason = "Terminating"
	}
	gates := "<none>"
	if n := len(p.Spec.ReadinessGates); n > 0 {
		met := 0
		for _, g := range p.Spec.ReadinessGates {
			for _, c := range p.Status.Conditions {
				if c.Type == g.ConditionType && c.Status == corev1.ConditionTrue {
					met++
				}
			}
		}
		gates = fmt.Sprintf("%d/%d", met, n)
	}
	return []any{p.Name, fmt.Sprintf("%d/%d", ready, len(p.Spec.Containers)), reason, fmt.Sprint(restarts),
		age(p.CreationTimestamp, now), orNone(p.Status.PodIP), orNone(p.Spec.NodeName), orNone(p.Status.NominatedNodeName), gates}
}
