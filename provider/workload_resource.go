package provider

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var (
	_ resource.ResourceWithConfigure        = &WorkloadResource{}
	_ resource.ResourceWithImportState      = &WorkloadResource{}
	_ resource.ResourceWithModifyPlan       = &WorkloadResource{}
	_ resource.ResourceWithConfigValidators = &WorkloadResource{}
	_ resource.ResourceWithValidateConfig   = &WorkloadResource{}
)

// Default timeouts, as terraform-provider-kubernetes' kubernetes_deployment.
const (
	workloadCreateTimeout = 10 * time.Minute
	workloadUpdateTimeout = 10 * time.Minute
	workloadDeleteTimeout = 10 * time.Minute
)

// What the workload's pods carry and how the attributes map onto the pod template.
const (
	// nameLabel selects the workload's pods: the Deployment's selector, immutable, so that
	// labels can change without replacing the Deployment.
	nameLabel = "app.kubernetes.io/name"
	// safeToEvictAnnotation is the cluster autoscaler's annotation (R-CA-2, R-EXT-2).
	safeToEvictAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	// spotLabel is the label GKE puts on Spot nodes; Spot workloads select it and tolerate the
	// taint of the same key that Spot pools often carry.
	spotLabel        = "cloud.google.com/gke-spot"
	defaultImage     = "registry.k8s.io/pause:3.10"
	workloadCtr      = "workload"
	defaultGraceSecs = 30
)

var tolerationEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// workloadSpecAttrs are the attributes whose change moves the pods (a rollout or a scale), and
// so the computed counts; wait_for_ready too, as it changes what an apply waits for.
var workloadSpecAttrs = []string{"replicas", "image", "labels", "annotations", "cpu", "memory", "node_selector", "toleration",
	"priority", "priority_class_name", "termination_grace_period_seconds", "safe_to_evict", "spot", "wait_for_ready"}

// WorkloadResource is gkesim_workload: a Deployment in a cluster's Kubernetes-shaped API.
type WorkloadResource struct {
	data *providerData
}

func NewWorkloadResource() resource.Resource { return &WorkloadResource{} }

type workloadModel struct {
	kubeObjectAttrs
	Replicas          types.Int64       `tfsdk:"replicas"`
	Image             types.String      `tfsdk:"image"`
	Labels            types.Map         `tfsdk:"labels"`
	Annotations       types.Map         `tfsdk:"annotations"`
	CPU               types.String      `tfsdk:"cpu"`
	Memory            types.String      `tfsdk:"memory"`
	NodeSelector      types.Map         `tfsdk:"node_selector"`
	Toleration        []tolerationModel `tfsdk:"toleration"`
	Priority          types.Int64       `tfsdk:"priority"`
	PriorityClassName types.String      `tfsdk:"priority_class_name"`
	GraceSeconds      types.Int64       `tfsdk:"termination_grace_period_seconds"`
	SafeToEvict       types.Bool        `tfsdk:"safe_to_evict"`
	Spot              types.Bool        `tfsdk:"spot"`
	WaitForReady      types.Bool        `tfsdk:"wait_for_ready"`
	ReadyReplicas     types.Int64       `tfsdk:"ready_replicas"`
	AvailableReplicas types.Int64       `tfsdk:"available_replicas"`
	PendingReplicas   types.Int64       `tfsdk:"pending_replicas"`
	Nodes             types.Set         `tfsdk:"nodes"`
	Timeouts          timeouts.Value    `tfsdk:"timeouts"`
}

type tolerationModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Value    types.String `tfsdk:"value"`
	Effect   types.String `tfsdk:"effect"`
}

func (r *WorkloadResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workload"
}

func (r *WorkloadResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	counts := useStateUnlessChanged(workloadSpecAttrs...)
	attrs := kubeObjectSchema("Deployment", "deployments")
	for name, a := range map[string]schema.Attribute{
		"replicas": schema.Int64Attribute{
			Optional: true, Computed: true, Default: int64default.StaticInt64(1),
			MarkdownDescription: "Number of pods. Defaults to 1. A change of `replicas` alone goes through the Deployment's `scale` subresource.",
			Validators:          []validator.Int64{int64validator.AtLeast(0)},
		},
		"image": schema.StringAttribute{
			Optional: true, Computed: true, Default: stringdefault.StaticString(defaultImage),
			MarkdownDescription: "Container image of the pods' one container. Defaults to `" + defaultImage + "`. The emulator does not pull or run it.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"labels": schema.MapAttribute{
			ElementType: types.StringType, Optional: true,
			MarkdownDescription: "Labels of the pods, in addition to `" + nameLabel + " = <name>`, which every pod of the workload carries " +
				"and which is the Deployment's (immutable) selector. Use either in a `gkesim_pod_disruption_budget` selector. Changing labels rolls the pods out.",
			Validators: labelMapValidators(),
		},
		"annotations": schema.MapAttribute{
			ElementType: types.StringType, Optional: true,
			MarkdownDescription: "Annotations of the pods. Set `safe_to_evict` rather than the `" + safeToEvictAnnotation + "` annotation.",
			Validators:          []validator.Map{mapvalidator.KeysAre(kubeKey)},
		},
		"cpu": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "CPU request of each pod, a Kubernetes quantity (`500m`, `0.5`, `2`). The scheduler places pods by requests against the nodes' allocatable CPU. Without it pods request no CPU. On an Autopilot cluster Autopilot raises requests to its defaults and minimums ([R-SCHED-5](https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/scheduling#r-sched-5)); this attribute keeps what the configuration asked for.",
			Validators:          []validator.String{quantityValidator{}},
		},
		"memory": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Memory request of each pod, a Kubernetes quantity (`256Mi`, `1Gi`, `512M`). Without it pods request no memory.",
			Validators:          []validator.String{quantityValidator{}},
		},
		"node_selector": schema.MapAttribute{
			ElementType: types.StringType, Optional: true,
			MarkdownDescription: "Node labels the pods require, e.g. `{ \"cloud.google.com/gke-nodepool\" = \"batch\" }` to run on one node pool. Set `spot` rather than `" + spotLabel + "`.",
			Validators:          labelMapValidators(),
		},
		"priority": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Pod priority (`spec.priority`): the scheduler places higher-priority pending pods first; pods below -10 do not trigger the cluster autoscaler ([R-CA-9](../guides/cluster-autoscaler.md#r-ca-9)). " +
				"The emulator takes the value as given (a real API server derives it from a PriorityClass). Cannot be set with `priority_class_name`.",
		},
		"priority_class_name": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Priority class of the pods (`system-cluster-critical`, `system-node-critical`). Cannot be set with `priority`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"termination_grace_period_seconds": schema.Int64Attribute{
			Optional: true, Computed: true, Default: int64default.StaticInt64(defaultGraceSecs),
			MarkdownDescription: "How long a pod gets to stop after it is evicted or deleted, in emulated seconds. Defaults to 30. Drains cap it (1 hour for surge upgrades, [R-SURGE-3](../guides/node-upgrades.md#r-surge-3)).",
			Validators:          []validator.Int64{int64validator.AtLeast(0)},
		},
		"safe_to_evict": schema.BoolAttribute{
			Optional: true, Computed: true, Default: booldefault.StaticBool(true),
			MarkdownDescription: "`false` annotates the pods with `" + safeToEvictAnnotation + ": \"false\"`: the cluster autoscaler does not remove their nodes ([R-CA-2](../guides/cluster-autoscaler.md#r-ca-2), [R-EXT-2](../guides/extended-run-duration.md#r-ext-2)); " +
				"node upgrades still evict them on Standard clusters. Defaults to true (no annotation).",
		},
		"spot": schema.BoolAttribute{
			Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			MarkdownDescription: "Run on Spot nodes: adds the node selector `" + spotLabel + ": \"true\"` and a toleration of the `" + spotLabel + "=true:NoSchedule` taint. Defaults to false.",
		},
		"wait_for_ready": schema.BoolAttribute{
			Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			MarkdownDescription: "Wait until every replica is ready (and fail when the timeout passes first). Defaults to false: an apply waits until the rollout " +
				"settles, every pod ready or Pending because no node can take it, and reports the Pending ones in `pending_replicas`. " +
				"Right after an import the configured value plans no change and takes effect with the workload's next update.",
		},
		"ready_replicas": schema.Int64Attribute{
			Computed: true, MarkdownDescription: "Pods running and ready (the Deployment's `status.readyReplicas`), counted when the apply or refresh read them.",
			PlanModifiers: []planmodifier.Int64{counts},
		},
		"available_replicas": schema.Int64Attribute{
			Computed: true, MarkdownDescription: "Pods available (`status.availableReplicas`): the ready ones, as the pods have no `minReadySeconds`.",
			PlanModifiers: []planmodifier.Int64{counts},
		},
		"pending_replicas": schema.Int64Attribute{
			Computed: true, MarkdownDescription: "Pods with no node: Pending because no node can take them (not enough allocatable CPU or memory, node selector, taints, cordons).",
			PlanModifiers: []planmodifier.Int64{counts},
		},
		"nodes": schema.SetAttribute{
			ElementType: types.StringType, Computed: true, MarkdownDescription: "Names of the nodes the pods run on.",
			PlanModifiers: []planmodifier.Set{counts},
		},
	} {
		attrs[name] = a
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A workload: a Kubernetes Deployment (apps/v1) in a cluster, with one container per pod. " +
			"The emulator's scheduler places its pods on the nodes by their CPU and memory requests; pods that fit nowhere stay Pending. " +
			"Upgrades, resizes and the autoscaler drain its pods through PodDisruptionBudgets.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"toleration": schema.ListNestedBlock{
				MarkdownDescription: "A toleration of node taints. Kubernetes spelling: effects are `NoSchedule`, `PreferNoSchedule`, `NoExecute` " +
					"(a node pool's `NO_SCHEDULE` taint is `NoSchedule` on its nodes).",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"key": schema.StringAttribute{
						Optional: true, MarkdownDescription: "Taint key. Empty with operator `Exists` tolerates every taint.",
						Validators: []validator.String{kubeKey},
					},
					"operator": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString("Equal"),
						MarkdownDescription: "`Equal` (default: key and value match) or `Exists` (key matches).",
						Validators:          []validator.String{stringvalidator.OneOf("Equal", "Exists")},
					},
					"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Taint value, with operator `Equal`."},
					"effect": schema.StringAttribute{
						Optional: true, MarkdownDescription: "`NoSchedule`, `PreferNoSchedule` or `NoExecute`; empty tolerates every effect.",
						Validators: []validator.String{stringvalidator.OneOf(tolerationEffects...)},
					},
				}},
			},
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func (r *WorkloadResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (r *WorkloadResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{resourcevalidator.Conflicting(path.MatchRoot("priority"), path.MatchRoot("priority_class_name"))}
}

// ValidateConfig keeps what the provider manages through its own attributes out of the maps.
func (r *WorkloadResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m workloadModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if v, ok := mapOf(m.Labels)[nameLabel]; ok && !m.Name.IsUnknown() && v != m.Name.ValueString() {
		resp.Diagnostics.AddAttributeError(path.Root("labels").AtMapKey(nameLabel), "Label reserved for the workload's selector",
			fmt.Sprintf("Every pod of the workload carries %s = %q (its Deployment's selector); remove the label or set it to the name.", nameLabel, m.Name.ValueString()))
	}
	if _, ok := mapOf(m.Annotations)[safeToEvictAnnotation]; ok {
		resp.Diagnostics.AddAttributeError(path.Root("annotations").AtMapKey(safeToEvictAnnotation), "Annotation managed by safe_to_evict",
			"Set safe_to_evict = false instead of the "+safeToEvictAnnotation+" annotation.")
	}
	if _, ok := mapOf(m.NodeSelector)[spotLabel]; ok {
		resp.Diagnostics.AddAttributeError(path.Root("node_selector").AtMapKey(spotLabel), "Node label managed by spot",
			"Set spot = true instead of selecting "+spotLabel+".")
	}
}

func (r *WorkloadResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	fillClusterScope(ctx, r.data, req, resp)
	keepImportedSettings(ctx, req, resp, "wait_for_ready")
	keepStateIfUnchanged(ctx, req, resp)
}

// podTemplate is the Deployment's pod template for the configuration; selector labels are
// added to the pods' labels.
func (m *workloadModel) podTemplate(ctx context.Context, selector map[string]string, diags *diag.Diagnostics) corev1.PodTemplateSpec {
	labels := mapOf(m.Labels)
	for k, v := range selector {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[k] = v
	}
	annotations := mapOf(m.Annotations)
	if !m.SafeToEvict.IsNull() && !m.SafeToEvict.ValueBool() {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[safeToEvictAnnotation] = "false"
	}
	ctr := corev1.Container{Name: workloadCtr, Image: m.Image.ValueString()}
	for name, v := range map[corev1.ResourceName]types.String{corev1.ResourceCPU: m.CPU, corev1.ResourceMemory: m.Memory} {
		if v.IsNull() || v.IsUnknown() {
			continue
		}
		q, err := k8sresource.ParseQuantity(v.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root(string(name)), "Invalid quantity", err.Error())
			continue
		}
		if ctr.Resources.Requests == nil {
			ctr.Resources.Requests = corev1.ResourceList{}
		}
		ctr.Resources.Requests[name] = q
	}
	spec := corev1.PodSpec{
		Containers:        []corev1.Container{ctr},
		NodeSelector:      mapOf(m.NodeSelector),
		PriorityClassName: m.PriorityClassName.ValueString(),
	}
	for _, t := range m.Toleration {
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: t.Key.ValueString(), Operator: corev1.TolerationOperator(t.Operator.ValueString()),
			Value: t.Value.ValueString(), Effect: corev1.TaintEffect(t.Effect.ValueString())})
	}
	if m.Spot.ValueBool() {
		if spec.NodeSelector == nil {
			spec.NodeSelector = map[string]string{}
		}
		spec.NodeSelector[spotLabel] = "true"
		spec.Tolerations = append(spec.Tolerations, spotToleration)
	}
	if !m.Priority.IsNull() && !m.Priority.IsUnknown() {
		p := int32(m.Priority.ValueInt64())
		spec.Priority = &p
	}
	if !m.GraceSeconds.IsNull() && !m.GraceSeconds.IsUnknown() {
		g := m.GraceSeconds.ValueInt64()
		spec.TerminationGracePeriodSeconds = &g
	}
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: annotations}, Spec: spec}
}

var spotToleration = corev1.Toleration{Key: spotLabel, Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}

// flattenWorkload copies a Deployment into the model; m's current values (configuration or
// state) keep their spelling where the API's means the same.
func flattenWorkload(ctx context.Context, d *appsv1.Deployment, m *workloadModel, diags *diag.Diagnostics) {
	m.Name, m.Namespace = types.StringValue(d.Name), types.StringValue(d.Namespace)
	replicas := int64(1)
	if d.Spec.Replicas != nil {
		replicas = int64(*d.Spec.Replicas)
	}
	m.Replicas = types.Int64Value(replicas)
	t := d.Spec.Template

	// Labels: the selector's are the workload's own, unless the configuration names them.
	var selector map[string]string
	if d.Spec.Selector != nil {
		selector = d.Spec.Selector.MatchLabels
	}
	prior := mapOf(m.Labels)
	labels := map[string]string{}
	for k, v := range t.Labels {
		if sv, ok := selector[k]; ok && sv == v && prior[k] != v {
			continue
		}
		labels[k] = v
	}
	m.Labels = mapValue(ctx, labels, m.Labels, diags)

	annotations := map[string]string{}
	for k, v := range t.Annotations {
		if k != safeToEvictAnnotation {
			annotations[k] = v
		}
	}
	m.Annotations = mapValue(ctx, annotations, m.Annotations, diags)
	m.SafeToEvict = types.BoolValue(t.Annotations[safeToEvictAnnotation] != "false")

	s := t.Spec
	spot := s.NodeSelector[spotLabel] == "true"
	m.Spot = types.BoolValue(spot)
	nodeSelector := map[string]string{}
	for k, v := range s.NodeSelector {
		if !(spot && k == spotLabel) {
			nodeSelector[k] = v
		}
	}
	m.NodeSelector = mapValue(ctx, nodeSelector, m.NodeSelector, diags)
	var tols []tolerationModel
	for _, t := range s.Tolerations {
		if spot && t == spotToleration {
			continue
		}
		var p tolerationModel
		if i := len(tols); i < len(m.Toleration) {
			p = m.Toleration[i]
		}
		op := string(t.Operator)
		if op == "" {
			op = string(corev1.TolerationOpEqual)
		}
		tols = append(tols, tolerationModel{Key: stringValue(t.Key, p.Key), Operator: types.StringValue(op),
			Value: stringValue(t.Value, p.Value), Effect: stringValue(string(t.Effect), p.Effect)})
	}
	m.Toleration = tols

	var ctr corev1.Container
	if len(s.Containers) > 0 {
		ctr = s.Containers[0]
	}
	m.Image = stringValue(ctr.Image, m.Image)
	requests := requestedRequests(d)
	m.CPU = quantityValue(requests, corev1.ResourceCPU, m.CPU)
	m.Memory = quantityValue(requests, corev1.ResourceMemory, m.Memory)
	m.Priority = types.Int64Null()
	if s.Priority != nil {
		m.Priority = types.Int64Value(int64(*s.Priority))
	}
	m.PriorityClassName = stringValue(s.PriorityClassName, m.PriorityClassName)
	m.GraceSeconds = types.Int64Value(defaultGraceSecs)
	if s.TerminationGracePeriodSeconds != nil {
		m.GraceSeconds = types.Int64Value(*s.TerminationGracePeriodSeconds)
	}
	if m.WaitForReady.IsNull() || m.WaitForReady.IsUnknown() {
		m.WaitForReady = types.BoolValue(false) // import
	}
}

// quantityValue is a request read from the API; the prior spelling stays when it means the
// same quantity (0.5 and 500m).
func quantityValue(requests corev1.ResourceList, name corev1.ResourceName, prior types.String) types.String {
	q, ok := requests[name]
	if !ok {
		return types.StringNull()
	}
	if !prior.IsNull() && !prior.IsUnknown() {
		if pq, err := k8sresource.ParseQuantity(prior.ValueString()); err == nil && pq.Cmp(q) == 0 {
			return prior
		}
	}
	return types.StringValue(q.String())
}

// rollout is a Deployment and its pods at one instant, classified for waiting and for the
// computed counts.
type rollout struct {
	d           appsv1.Deployment
	selector    string
	live        int // pods not terminating
	ready       int // live pods running and ready
	terminating int
	starting    int // on a node, not ready yet
	unscheduled int // no node, the scheduler has not tried yet
	pending     int // no node: the scheduler found none that fits
	why         string
	nodes       map[string]bool
}

// readRollout reads a Deployment and lists its pods by its selector.
func readRollout(ctx context.Context, ref kubeRef) (*rollout, error) {
	r := &rollout{nodes: map[string]bool{}}
	if err := ref.kube.Get(ctx, client.DeploymentPath(ref.namespace, ref.name), &r.d); err != nil {
		return nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(r.d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("the selector of %s: %w", ref, err)
	}
	r.selector = sel.String()
	var pods corev1.PodList
	if err := ref.kube.List(ctx, client.PodsPath(ref.namespace), url.Values{"labelSelector": {r.selector}}, &pods); err != nil {
		return nil, err
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			r.terminating++
			continue
		}
		r.live++
		if p.Spec.NodeName != "" {
			r.nodes[p.Spec.NodeName] = true
			if podReady(&p) {
				r.ready++
			} else {
				r.starting++
			}
			continue
		}
		if msg := unschedulable(&p); msg != "" {
			r.pending++
			r.why = msg
		} else {
			r.unscheduled++
		}
	}
	return r, nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// unschedulable is the scheduler's reason a pod has no node ("0/3 nodes are available: 3
// Insufficient cpu."), or "" when it has not tried yet.
func unschedulable(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.Message
		}
	}
	return ""
}

func (r *rollout) replicas() int {
	if r.d.Spec.Replicas == nil {
		return 1
	}
	return int(*r.d.Spec.Replicas)
}

// settled says whether nothing is in flight: the controller has seen the spec and made the
// pods, none is terminating or starting, and every pod without a node has been found
// unschedulable. Pending pods are a legitimate end state; with ready, every replica must be
// ready and of the current template.
func (r *rollout) settled(ready bool) bool {
	st := r.d.Status
	ok := st.ObservedGeneration >= r.d.Generation && r.live >= r.replicas() && r.terminating == 0 && r.starting == 0 && r.unscheduled == 0
	if ready {
		n := r.replicas()
		ok = ok && r.ready == n && r.live == n && int(st.UpdatedReplicas) == n
	}
	return ok
}

// String is the progress line of logs and timeout errors.
func (r *rollout) String() string {
	s := fmt.Sprintf("%d of %d ready", r.ready, r.replicas())
	if u := int(r.d.Status.UpdatedReplicas); u < r.replicas() {
		s += fmt.Sprintf(", %d of %d updated", u, r.replicas())
	}
	if r.starting > 0 {
		s += fmt.Sprintf(", %d starting", r.starting)
	}
	if r.terminating > 0 {
		s += fmt.Sprintf(", %d terminating", r.terminating)
	}
	if r.pending+r.unscheduled > 0 {
		s += fmt.Sprintf(", %d Pending", r.pending+r.unscheduled)
	}
	if r.why != "" {
		s += " (" + strings.TrimSuffix(r.why, ".") + ")"
	}
	return s
}

// setCounts fills the computed counts. They come from the pods, listed after the Deployment
// was read, rather than from its status, so that all of them describe the same instant.
func (r *rollout) setCounts(ctx context.Context, m *workloadModel, diags *diag.Diagnostics) {
	m.ReadyReplicas = types.Int64Value(int64(r.ready))
	m.AvailableReplicas = types.Int64Value(int64(r.ready)) // minReadySeconds is 0
	m.PendingReplicas = types.Int64Value(int64(r.pending + r.unscheduled))
	nodes := make([]string, 0, len(r.nodes))
	for n := range r.nodes {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	m.Nodes = stringSet(ctx, nodes, diags)
}

// awaitRollout polls the Deployment until its rollout has settled (see settled).
func (r *WorkloadResource) awaitRollout(ctx context.Context, ref kubeRef, ready bool) (*rollout, error) {
	what := "the rollout to settle"
	if ready {
		what = "every replica to be ready"
	}
	var last *rollout
	logged := ""
	for {
		ro, err := readRollout(ctx, ref)
		switch {
		case err != nil && ctx.Err() != nil && last != nil:
			// The timeout fell during a read: report where the rollout was, not the read.
			return last, fmt.Errorf("%w waiting for %s; last seen: %s", ctx.Err(), what, last)
		case err != nil:
			return last, err
		case ro.settled(ready):
			return ro, nil
		}
		last = ro
		if s := ro.String(); s != logged {
			tflog.Info(ctx, "waiting for the rollout of "+ref.String(), map[string]any{"progress": s})
			logged = s
		}
		select {
		case <-ctx.Done():
			return ro, fmt.Errorf("%w waiting for %s; last seen: %s", ctx.Err(), what, ro)
		case <-time.After(r.data.client.PollInterval):
		}
	}
}

func (r *WorkloadResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan workloadModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, workloadCreateTimeout)
	resp.Diagnostics.Append(d...)
	ref := r.data.kubeRefOf(&plan.kubeObjectAttrs, "deployments", &resp.Diagnostics)
	selector := map[string]string{nameLabel: ref.name}
	template := plan.podTemplate(ctx, selector, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	replicas := int32(plan.Replicas.ValueInt64())
	in := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: ref.name, Namespace: ref.namespace, Labels: selector},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: template,
		},
	}
	if err := ref.kube.Create(ctx, client.DeploymentPath(ref.namespace, ""), in, nil); err != nil {
		kubeErrorDiag(&resp.Diagnostics, "creating", "workload", ref, err)
		return
	}
	plan.setPlace(ref)
	r.settle(ctx, ref, &plan, "creating", &resp.State, &resp.Diagnostics)
}

// settle waits for the rollout a create or update started and records the workload as it
// then is. The state is written even when the wait fails (a failed create leaves it tainted),
// so that what exists can be destroyed.
func (r *WorkloadResource) settle(ctx context.Context, ref kubeRef, m *workloadModel, verb string, state *tfsdk.State, diags *diag.Diagnostics) {
	ro, err := r.awaitRollout(ctx, ref, m.WaitForReady.ValueBool())
	if ro != nil {
		flattenWorkload(ctx, &ro.d, m, diags)
	} else {
		ro = &rollout{} // never read: no counts to show
	}
	ro.setCounts(ctx, m, diags)
	diags.Append(state.Set(ctx, m)...)
	if err != nil {
		kubeErrorDiag(diags, verb, "workload", ref, err)
	}
}

func (r *WorkloadResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state workloadModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := r.data.kubeRefOf(&state.kubeObjectAttrs, "deployments", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ro, err := readRollout(ctx, ref)
	if client.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		kubeErrorDiag(&resp.Diagnostics, "reading", "workload", ref, err)
		return
	}
	flattenWorkload(ctx, &ro.d, &state, &resp.Diagnostics)
	ro.setCounts(ctx, &state, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *WorkloadResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state workloadModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, workloadUpdateTimeout)
	resp.Diagnostics.Append(d...)
	ref := r.data.kubeRefOf(&state.kubeObjectAttrs, "deployments", &resp.Diagnostics)
	want, had := plan.podTemplate(ctx, nil, &resp.Diagnostics), state.podTemplate(ctx, nil, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	path := client.DeploymentPath(ref.namespace, ref.name)
	replicas := int32(plan.Replicas.ValueInt64())
	var err error
	switch {
	case !apiequality.Semantic.DeepEqual(want, had):
		// A new template rolls the pods out; PUT with the resourceVersion just read.
		_, err = client.Update(ctx, ref.kube, path, func(d *appsv1.Deployment) {
			var selector map[string]string
			if d.Spec.Selector != nil {
				selector = d.Spec.Selector.MatchLabels
			}
			d.Spec.Replicas = &replicas
			d.Spec.Template = plan.podTemplate(ctx, selector, &resp.Diagnostics)
		})
	case !plan.Replicas.Equal(state.Replicas):
		_, err = client.Update(ctx, ref.kube, path+"/scale", func(s *autoscalingv1.Scale) { s.Spec.Replicas = replicas })
	}
	if err != nil {
		kubeErrorDiag(&resp.Diagnostics, "updating", "workload", ref, err)
		return
	}
	plan.kubeObjectAttrs = state.kubeObjectAttrs
	if !plan.ReadyReplicas.IsUnknown() {
		// Nothing that moves pods changed: the plan kept the state's counts, and so does the apply.
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	r.settle(ctx, ref, &plan, "updating", &resp.State, &resp.Diagnostics)
}

func (r *WorkloadResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state workloadModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, workloadDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ref := r.data.kubeRefOf(&state.kubeObjectAttrs, "deployments", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ro, err := readRollout(ctx, ref)
	if err == nil {
		err = ref.kube.Delete(ctx, client.DeploymentPath(ref.namespace, ref.name))
	}
	if client.IsNotFound(err) {
		return
	}
	if err != nil {
		kubeErrorDiag(&resp.Diagnostics, "deleting", "workload", ref, err)
		return
	}
	// The pods terminate in the background (their grace period, in emulated time); wait for
	// them so that what depends on the workload (its node pool) goes after them.
	if err := awaitPodsGone(ctx, ref, ro.selector, r.data.client.PollInterval); err != nil {
		kubeErrorDiag(&resp.Diagnostics, "deleting", "workload", ref, err)
	}
}

// awaitPodsGone polls until no pod matches selector in the object's namespace.
func awaitPodsGone(ctx context.Context, ref kubeRef, selector string, every time.Duration) error {
	for {
		var pods corev1.PodList
		err := ref.kube.List(ctx, client.PodsPath(ref.namespace), url.Values{"labelSelector": {selector}}, &pods)
		if client.IsNotFound(err) || (err == nil && len(pods.Items) == 0) {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			var names []string
			for _, p := range pods.Items {
				names = append(names, p.Name)
			}
			return fmt.Errorf("waiting for the pods to terminate (%s): %w", strings.Join(names, ", "), ctx.Err())
		case <-time.After(every):
		}
	}
}

func (r *WorkloadResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importKubeObject(ctx, r.data, "deployments", req, resp)
	markImported(ctx, resp.Private, &resp.Diagnostics)
}
