package provider

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var (
	_ resource.ResourceWithConfigure        = &PodDisruptionBudgetResource{}
	_ resource.ResourceWithImportState      = &PodDisruptionBudgetResource{}
	_ resource.ResourceWithModifyPlan       = &PodDisruptionBudgetResource{}
	_ resource.ResourceWithConfigValidators = &PodDisruptionBudgetResource{}
)

// PodDisruptionBudgetResource is gkesim_pod_disruption_budget: a policy/v1 PodDisruptionBudget.
type PodDisruptionBudgetResource struct {
	data *providerData
}

func NewPodDisruptionBudgetResource() resource.Resource { return &PodDisruptionBudgetResource{} }

type pdbModel struct {
	kubeObjectAttrs
	Selector           []pdbSelectorModel `tfsdk:"selector"`
	MinAvailable       types.String       `tfsdk:"min_available"`
	MaxUnavailable     types.String       `tfsdk:"max_unavailable"`
	ExpectedPods       types.Int64        `tfsdk:"expected_pods"`
	CurrentHealthy     types.Int64        `tfsdk:"current_healthy"`
	DesiredHealthy     types.Int64        `tfsdk:"desired_healthy"`
	DisruptionsAllowed types.Int64        `tfsdk:"disruptions_allowed"`
}

type pdbSelectorModel struct {
	MatchLabels types.Map `tfsdk:"match_labels"`
}

func (r *PodDisruptionBudgetResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pod_disruption_budget"
}

func (r *PodDisruptionBudgetResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	status := useStateUnlessChanged("selector", "min_available", "max_unavailable")
	attrs := kubeObjectSchema("PodDisruptionBudget", "poddisruptionbudgets")
	count := func(what string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: what, PlanModifiers: []planmodifier.Int64{status}}
	}
	for name, a := range map[string]schema.Attribute{
		"min_available": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Pods that must stay available during voluntary disruptions (evictions by drains): an integer (`\"2\"`) or a percentage of the expected pods, rounded up (`\"50%\"`). Exactly one of `min_available` and `max_unavailable`.",
			Validators:          []validator.String{intOrPercentValidator{}},
		},
		"max_unavailable": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Pods that may be unavailable at once: an integer (`\"1\"`) or a percentage of the expected pods, rounded up (`\"25%\"`). Exactly one of `min_available` and `max_unavailable`.",
			Validators:          []validator.String{intOrPercentValidator{}},
		},
		"expected_pods":       count("Pods the budget protects: the replicas of the Deployments its selector matches (`status.expectedPods`)."),
		"current_healthy":     count("Selected pods that are ready (`status.currentHealthy`)."),
		"desired_healthy":     count("Ready pods the budget requires (`status.desiredHealthy`)."),
		"disruptions_allowed": count("Evictions allowed now (`status.disruptionsAllowed`): a drain evicts at most this many of the pods before some are ready again elsewhere."),
	} {
		attrs[name] = a
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A PodDisruptionBudget (policy/v1): how many of the pods it selects drains may evict at once. " +
			"Surge upgrades respect it for up to one hour per node, then delete the pods anyway; the autoscaler's scale-down gives up on a node it blocks.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"selector": schema.ListNestedBlock{
				MarkdownDescription: "The pods of the budget, by label. A `gkesim_workload`'s pods carry `app.kubernetes.io/name = <workload name>` and its `labels`.",
				Validators:          []validator.List{listvalidator.IsRequired(), listvalidator.SizeAtMost(1)},
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"match_labels": schema.MapAttribute{
						ElementType: types.StringType, Required: true,
						MarkdownDescription: "Labels the pods must all carry.",
						Validators:          labelMapValidators(),
					},
				}},
			},
		},
	}
}

func (r *PodDisruptionBudgetResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

func (r *PodDisruptionBudgetResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{resourcevalidator.ExactlyOneOf(path.MatchRoot("min_available"), path.MatchRoot("max_unavailable"))}
}

func (r *PodDisruptionBudgetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	fillClusterScope(ctx, r.data, req, resp)
	keepStateIfUnchanged(ctx, req, resp)
}

// spec is the budget's spec for the configuration.
func (m *pdbModel) spec(ctx context.Context, diags *diag.Diagnostics) policyv1.PodDisruptionBudgetSpec {
	var s policyv1.PodDisruptionBudgetSpec
	if len(m.Selector) > 0 {
		s.Selector = &metav1.LabelSelector{MatchLabels: mapOf(m.Selector[0].MatchLabels)}
	}
	s.MinAvailable, s.MaxUnavailable = intOrPercent(m.MinAvailable), intOrPercent(m.MaxUnavailable)
	return s
}

// intOrPercent parses what intOrPercentValidator accepted.
func intOrPercent(v types.String) *intstr.IntOrString {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	if n, err := strconv.ParseInt(v.ValueString(), 10, 32); err == nil {
		x := intstr.FromInt32(int32(n))
		return &x
	}
	x := intstr.FromString(v.ValueString())
	return &x
}

func intOrPercentValue(v *intstr.IntOrString) types.String {
	if v == nil {
		return types.StringNull()
	}
	return types.StringValue(v.String())
}

func flattenPDB(ctx context.Context, b *policyv1.PodDisruptionBudget, m *pdbModel, diags *diag.Diagnostics) {
	m.Name, m.Namespace = types.StringValue(b.Name), types.StringValue(b.Namespace)
	var labels map[string]string
	if b.Spec.Selector != nil {
		labels = b.Spec.Selector.MatchLabels
	}
	prior := types.MapNull(types.StringType)
	if len(m.Selector) > 0 {
		prior = m.Selector[0].MatchLabels
	}
	m.Selector = []pdbSelectorModel{{MatchLabels: mapValue(ctx, labels, prior, diags)}}
	if m.Selector[0].MatchLabels.IsNull() {
		m.Selector[0].MatchLabels = types.MapValueMust(types.StringType, nil)
	}
	m.MinAvailable, m.MaxUnavailable = intOrPercentValue(b.Spec.MinAvailable), intOrPercentValue(b.Spec.MaxUnavailable)
	st := b.Status
	m.ExpectedPods = types.Int64Value(int64(st.ExpectedPods))
	m.CurrentHealthy = types.Int64Value(int64(st.CurrentHealthy))
	m.DesiredHealthy = types.Int64Value(int64(st.DesiredHealthy))
	m.DisruptionsAllowed = types.Int64Value(int64(st.DisruptionsAllowed))
}

func (r *PodDisruptionBudgetResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan pdbModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := r.data.kubeRefOf(&plan.kubeObjectAttrs, "poddisruptionbudgets", &resp.Diagnostics)
	in := &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: ref.name, Namespace: ref.namespace},
		Spec:       plan.spec(ctx, &resp.Diagnostics),
	}
	if resp.Diagnostics.HasError() {
		return
	}
	var out policyv1.PodDisruptionBudget
	if err := ref.kube.Create(ctx, client.PDBPath(ref.namespace, ""), in, &out); err != nil {
		kubeErrorDiag(&resp.Diagnostics, "creating", "PodDisruptionBudget", ref, err)
		return
	}
	plan.setPlace(ref)
	flattenPDB(ctx, &out, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *PodDisruptionBudgetResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state pdbModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := r.data.kubeRefOf(&state.kubeObjectAttrs, "poddisruptionbudgets", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var b policyv1.PodDisruptionBudget
	err := ref.kube.Get(ctx, client.PDBPath(ref.namespace, ref.name), &b)
	if client.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		kubeErrorDiag(&resp.Diagnostics, "reading", "PodDisruptionBudget", ref, err)
		return
	}
	flattenPDB(ctx, &b, &state, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *PodDisruptionBudgetResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state pdbModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := r.data.kubeRefOf(&state.kubeObjectAttrs, "poddisruptionbudgets", &resp.Diagnostics)
	spec := plan.spec(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	out, err := client.Update(ctx, ref.kube, client.PDBPath(ref.namespace, ref.name), func(b *policyv1.PodDisruptionBudget) {
		b.Spec.Selector, b.Spec.MinAvailable, b.Spec.MaxUnavailable = spec.Selector, spec.MinAvailable, spec.MaxUnavailable
	})
	if err != nil {
		kubeErrorDiag(&resp.Diagnostics, "updating", "PodDisruptionBudget", ref, err)
		return
	}
	plan.kubeObjectAttrs = state.kubeObjectAttrs
	planned := plan
	flattenPDB(ctx, out, &plan, &resp.Diagnostics)
	if !planned.ExpectedPods.IsUnknown() {
		// The plan kept the state's status (nothing it depends on changed); so does the apply.
		plan.ExpectedPods, plan.CurrentHealthy, plan.DesiredHealthy, plan.DisruptionsAllowed =
			planned.ExpectedPods, planned.CurrentHealthy, planned.DesiredHealthy, planned.DisruptionsAllowed
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *PodDisruptionBudgetResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state pdbModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := r.data.kubeRefOf(&state.kubeObjectAttrs, "poddisruptionbudgets", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := ref.kube.Delete(ctx, client.PDBPath(ref.namespace, ref.name)); err != nil && !client.IsNotFound(err) {
		kubeErrorDiag(&resp.Diagnostics, "deleting", "PodDisruptionBudget", ref, err)
	}
}

func (r *PodDisruptionBudgetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importKubeObject(ctx, r.data, "poddisruptionbudgets", req, resp)
}
