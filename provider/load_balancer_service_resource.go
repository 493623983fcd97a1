package provider

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

var (
	_ resource.ResourceWithConfigure      = &LoadBalancerServiceResource{}
	_ resource.ResourceWithImportState    = &LoadBalancerServiceResource{}
	_ resource.ResourceWithModifyPlan     = &LoadBalancerServiceResource{}
	_ resource.ResourceWithValidateConfig = &LoadBalancerServiceResource{}
)

const (
	lbServiceCreateTimeout = 10 * time.Minute
	lbServiceUpdateTimeout = 10 * time.Minute
	lbServiceDeleteTimeout = 10 * time.Minute
)

// Annotations the resource manages through attributes, or that GKE writes.
const (
	lbTypeAnnotation       = "networking.gke.io/load-balancer-type"
	lbTypeLegacyAnnotation = "cloud.google.com/load-balancer-type"
	gkeStatusPrefix        = "service.kubernetes.io/"
	negStatusAnnotation    = "cloud.google.com/neg-status"
)

// LoadBalancerServiceResource is gkesim_load_balancer_service: a Kubernetes Service of type
// LoadBalancer, and the Google Cloud load balancer GKE builds for it.
type LoadBalancerServiceResource struct {
	data *providerData
}

func NewLoadBalancerServiceResource() resource.Resource { return &LoadBalancerServiceResource{} }

type lbServiceModel struct {
	kubeObjectAttrs
	Internal              types.Bool     `tfsdk:"internal"`
	ExternalTrafficPolicy types.String   `tfsdk:"external_traffic_policy"`
	Port                  []lbPortModel  `tfsdk:"port"`
	Selector              types.Map      `tfsdk:"selector"`
	Annotations           types.Map      `tfsdk:"annotations"`
	HealthCheckNodePort   types.Int64    `tfsdk:"health_check_node_port"`
	IP                    types.String   `tfsdk:"ip"`
	ClusterIP             types.String   `tfsdk:"cluster_ip"`
	LoadBalancerKind      types.String   `tfsdk:"load_balancer_kind"`
	BackendResources      types.List     `tfsdk:"backend_resources"`
	BackendNodeCount      types.Int64    `tfsdk:"backend_node_count"`
	HealthyNodeCount      types.Int64    `tfsdk:"healthy_node_count"`
	Timeouts              timeouts.Value `tfsdk:"timeouts"`
}

type lbPortModel struct {
	Name       types.String `tfsdk:"name"`
	Protocol   types.String `tfsdk:"protocol"`
	Port       types.Int64  `tfsdk:"port"`
	TargetPort types.String `tfsdk:"target_port"`
	NodePort   types.Int64  `tfsdk:"node_port"`
}

func (r *LoadBalancerServiceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_load_balancer_service"
}

func (r *LoadBalancerServiceResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	realised := useStateUnlessChanged("internal", "external_traffic_policy", "port", "annotations")
	attrs := kubeObjectSchema("Service", "services")
	for name, a := range map[string]schema.Attribute{
		"internal": schema.BoolAttribute{
			Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			MarkdownDescription: "An internal passthrough Network Load Balancer (annotation `" + lbTypeAnnotation + ": \"Internal\"`, [R-LB-1](../guides/load-balancers.md#r-lb-1)) instead of an external one. " +
				"Changing it makes GKE replace the load balancer (new address, new kind).",
		},
		"external_traffic_policy": schema.StringAttribute{
			Optional: true, Computed: true, Default: stringdefault.StaticString("Cluster"),
			MarkdownDescription: "`Cluster` (default): every node passes the health check and forwards to any serving pod, with SNAT. " +
				"`Local`: only nodes running a ready serving pod pass, and the client address is preserved ([R-LB-6](../guides/load-balancers.md#r-lb-6), [R-LB-7](../guides/load-balancers.md#r-lb-7)).",
			Validators: []validator.String{stringvalidator.OneOf("Cluster", "Local")},
		},
		"selector": schema.MapAttribute{
			ElementType: types.StringType, Required: true,
			MarkdownDescription: "Labels of the serving pods, e.g. `{ \"app.kubernetes.io/name\" = gkesim_workload.web.name }` for a `gkesim_workload`.",
			Validators:          append(labelMapValidators(), mapvalidator.SizeAtLeast(1)),
		},
		"annotations": schema.MapAttribute{
			ElementType: types.StringType, Optional: true,
			MarkdownDescription: "Annotations of the Service, e.g. `cloud.google.com/l4-rbs = \"enabled\"` for a backend service-based external load balancer " +
				"(it counts only when the Service is created, [R-LB-2](../guides/load-balancers.md#r-lb-2)). Set `internal` rather than the load-balancer-type annotations; " +
				"the annotations GKE writes (`service.kubernetes.io/*`, `cloud.google.com/neg-status`) are not part of this map.",
			Validators: []validator.Map{mapvalidator.KeysAre(kubeKey)},
		},
		"health_check_node_port": schema.Int64Attribute{
			Optional: true, Computed: true,
			MarkdownDescription: "With `external_traffic_policy = \"Local\"`, the node port the load balancer's health check probes (kube-proxy answers there for this Service). " +
				"Allocated from 30000-32767 when not set. Null with `Cluster`, whose health check is kube-proxy's port 10256.",
			Validators:    []validator.Int64{int64validator.Between(30000, 32767)},
			PlanModifiers: []planmodifier.Int64{useStateUnlessChanged("external_traffic_policy")},
		},
		"ip": schema.StringAttribute{
			Computed: true, MarkdownDescription: "The load balancer's address (`status.loadBalancer.ingress[0].ip`): from the cluster's subnet when internal, a public one when external; stable per Service.",
			PlanModifiers: []planmodifier.String{useStateUnlessChanged("internal")},
		},
		"cluster_ip": schema.StringAttribute{
			Computed: true, MarkdownDescription: "The Service's cluster IP, from the cluster's services range.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"load_balancer_kind": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "What GKE built ([R-LB-2](../guides/load-balancers.md#r-lb-2)): `internal-neg` (backend service with GCE_VM_IP NEGs), `internal-instance-group` (backend service with the cluster's " +
				"unmanaged instance groups), `external-backend-service` (cloud.google.com/l4-rbs at creation) or `external-target-pool`.",
			PlanModifiers: []planmodifier.String{useStateUnlessChanged("internal")},
		},
		"backend_resources": schema.ListAttribute{
			ElementType: types.StringType, Computed: true,
			MarkdownDescription: "The Compute Engine resources of the load balancer, as paths under `projects/{project}/` (forwarding rules, backend service or target pool, " +
				"NEGs or instance groups per zone, health check, firewall rules); each can be read at `{endpoint}/compute/v1/projects/{project}/{path}`.",
			PlanModifiers: []planmodifier.List{realised},
		},
		"backend_node_count": schema.Int64Attribute{
			Computed: true, MarkdownDescription: "Backend VMs: NEG endpoints ([R-LB-3](../guides/load-balancers.md#r-lb-3)), or instance group / target pool members (every node).",
			PlanModifiers: []planmodifier.Int64{realised},
		},
		"healthy_node_count": schema.Int64Attribute{
			Computed: true, MarkdownDescription: "Backend VMs passing the load balancer's health check when the apply or refresh read them ([R-LB-6](../guides/load-balancers.md#r-lb-6)).",
			PlanModifiers: []planmodifier.Int64{realised},
		},
	} {
		attrs[name] = a
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A LoadBalancer Service: a Kubernetes Service of type `LoadBalancer` in a cluster, and the Google Cloud passthrough load balancer GKE builds for it " +
			"(internal or external; NEGs, instance groups or a target pool). An apply waits until the load balancer has its address and its backends' health is known.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"port": schema.ListNestedBlock{
				MarkdownDescription: "A port of the Service (at least one). The load balancer forwards it to `target_port` of the serving pods.",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						Optional: true, MarkdownDescription: "Port name; required when there are several ports.",
					},
					"protocol": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString("TCP"),
						MarkdownDescription: "`TCP` (default) or `UDP`.",
						Validators:          []validator.String{stringvalidator.OneOf("TCP", "UDP")},
					},
					"port": schema.Int64Attribute{
						Required: true, MarkdownDescription: "Port the load balancer listens on.",
						Validators: []validator.Int64{int64validator.Between(1, 65535)},
					},
					"target_port": schema.StringAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Port of the pods: a number (1-65535), or the name of a container port (IANA service name: up to 15 lowercase letters, digits and hyphens). Defaults to `port`.",
						Validators:          []validator.String{targetPortValidator{}},
						PlanModifiers:       []planmodifier.String{keepKnownState{}},
					},
					"node_port": schema.Int64Attribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Node port (30000-32767, unique in the cluster); allocated when not set.",
						Validators:          []validator.Int64{int64validator.Between(30000, 32767)},
						PlanModifiers:       []planmodifier.Int64{keepKnownState{}},
					},
				}},
			},
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func (r *LoadBalancerServiceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataOf(req.ProviderData, &resp.Diagnostics)
}

// gkeWritten says whether GKE writes an annotation (it is not the user's).
func gkeWritten(k string) bool {
	return strings.HasPrefix(k, gkeStatusPrefix) || k == negStatusAnnotation
}

// ValidateConfig keeps the annotations the resource manages out of the annotations map.
func (r *LoadBalancerServiceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m lbServiceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for k := range mapOf(m.Annotations) {
		switch {
		case k == lbTypeAnnotation || k == lbTypeLegacyAnnotation:
			resp.Diagnostics.AddAttributeError(path.Root("annotations").AtMapKey(k), "Annotation managed by internal",
				"Set internal = true instead of the "+k+" annotation (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-1).")
		case gkeWritten(k):
			resp.Diagnostics.AddAttributeError(path.Root("annotations").AtMapKey(k), "Annotation written by GKE",
				"GKE writes "+k+" on the Services it builds load balancers for; it cannot be set.")
		}
	}
	if len(m.Port) > 1 {
		for i, p := range m.Port {
			if p.Name.IsNull() {
				resp.Diagnostics.AddAttributeError(path.Root("port").AtListIndex(i).AtName("name"), "Port name required",
					"A Service with several ports needs a name for each (Kubernetes: spec.ports[].name: Required value).")
			}
		}
	}
	if !m.HealthCheckNodePort.IsNull() && !m.HealthCheckNodePort.IsUnknown() && m.ExternalTrafficPolicy.ValueString() != "Local" && !m.ExternalTrafficPolicy.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("health_check_node_port"), "Health check node port needs Local",
			"health_check_node_port may only be set with external_traffic_policy = \"Local\"; with Cluster the health check probes kube-proxy's port 10256 (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-6).")
	}
}

func (r *LoadBalancerServiceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	fillClusterScope(ctx, r.data, req, resp)
	keepStateIfUnchanged(ctx, req, resp)
}

// service is the Service the configuration describes; prior (the object read back) carries
// what the API server allocated and what GKE wrote.
func (m *lbServiceModel) service(ref kubeRef, prior *corev1.Service) *corev1.Service {
	svc := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: ref.name, Namespace: ref.namespace}}
	if prior != nil {
		svc = prior.DeepCopy()
	}
	annotations := mapOf(m.Annotations)
	if m.Internal.ValueBool() {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[lbTypeAnnotation] = "Internal"
	}
	svc.Annotations = annotations
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Spec.Selector = mapOf(m.Selector)
	svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicy(m.ExternalTrafficPolicy.ValueString())
	svc.Spec.HealthCheckNodePort = 0
	if v := m.HealthCheckNodePort; !v.IsNull() && !v.IsUnknown() && m.ExternalTrafficPolicy.ValueString() == "Local" {
		svc.Spec.HealthCheckNodePort = int32(v.ValueInt64())
	}
	svc.Spec.Ports = nil
	for _, p := range m.Port {
		sp := corev1.ServicePort{Name: p.Name.ValueString(), Protocol: corev1.Protocol(p.Protocol.ValueString()), Port: int32(p.Port.ValueInt64())}
		if t := p.TargetPort; !t.IsNull() && !t.IsUnknown() && t.ValueString() != "" {
			sp.TargetPort = intstr.Parse(t.ValueString())
		}
		if n := p.NodePort; !n.IsNull() && !n.IsUnknown() {
			sp.NodePort = int32(n.ValueInt64())
		}
		svc.Spec.Ports = append(svc.Spec.Ports, sp)
	}
	return svc
}

// flatten copies a Service and its load balancer's status into the model.
func (m *lbServiceModel) flatten(ctx context.Context, svc *corev1.Service, lb *client.LoadBalancerStatus, diags *diag.Diagnostics) {
	m.Name, m.Namespace = types.StringValue(svc.Name), types.StringValue(svc.Namespace)
	m.Internal = types.BoolValue(svc.Annotations[lbTypeAnnotation] == "Internal" || svc.Annotations[lbTypeLegacyAnnotation] == "Internal")
	annotations := map[string]string{}
	for k, v := range svc.Annotations {
		if k != lbTypeAnnotation && k != lbTypeLegacyAnnotation && !gkeWritten(k) {
			annotations[k] = v
		}
	}
	m.Annotations = mapValue(ctx, annotations, m.Annotations, diags)
	m.Selector = mapValue(ctx, svc.Spec.Selector, m.Selector, diags)
	m.ExternalTrafficPolicy = types.StringValue(string(svc.Spec.ExternalTrafficPolicy))
	m.HealthCheckNodePort = types.Int64Null()
	if svc.Spec.HealthCheckNodePort != 0 {
		m.HealthCheckNodePort = types.Int64Value(int64(svc.Spec.HealthCheckNodePort))
	}
	var ports []lbPortModel
	for i, p := range svc.Spec.Ports {
		var prior lbPortModel
		if i < len(m.Port) {
			prior = m.Port[i]
		}
		ports = append(ports, lbPortModel{Name: stringValue(p.Name, prior.Name), Protocol: types.StringValue(string(p.Protocol)),
			Port: types.Int64Value(int64(p.Port)), TargetPort: types.StringValue(p.TargetPort.String()), NodePort: types.Int64Value(int64(p.NodePort))})
	}
	m.Port = ports
	m.ClusterIP = types.StringValue(svc.Spec.ClusterIP)
	m.IP = types.StringNull()
	if in := svc.Status.LoadBalancer.Ingress; len(in) > 0 {
		m.IP = types.StringValue(in[0].IP)
	}
	m.LoadBalancerKind, m.BackendNodeCount, m.HealthyNodeCount = types.StringNull(), types.Int64Value(0), types.Int64Value(0)
	resources := []string{}
	if lb != nil {
		m.LoadBalancerKind = types.StringValue(lb.Kind)
		m.BackendNodeCount, m.HealthyNodeCount = types.Int64Value(int64(lb.BackendCount)), types.Int64Value(int64(lb.HealthyBackends))
		resources = append(resources, lb.Resources...)
	}
	v, d := types.ListValueFrom(ctx, types.StringType, resources)
	diags.Append(d...)
	m.BackendResources = v
}

// readLB reads the Service and its load balancer's status; nil Service when it is gone (or
// going: deleted, held by its finalizer until GKE has deleted the load balancer).
func (r *LoadBalancerServiceResource) readLB(ctx context.Context, ref kubeRef) (*corev1.Service, *client.LoadBalancerStatus, error) {
	var svc corev1.Service
	err := ref.kube.Get(ctx, client.ServicePath(ref.namespace, ref.name), &svc)
	if client.IsNotFound(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if svc.DeletionTimestamp != nil {
		return nil, nil, nil
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return &svc, nil, nil
	}
	lb, err := r.data.client.LoadBalancer(ctx, ref.project, ref.location, ref.cluster, ref.namespace, ref.name)
	if err != nil {
		return nil, nil, err
	}
	return &svc, lb, nil
}

// awaitLB polls until the load balancer has its address and no backend's health is about to
// change (its first probes have answered).
func (r *LoadBalancerServiceResource) awaitLB(ctx context.Context, ref kubeRef) (*corev1.Service, *client.LoadBalancerStatus, error) {
	logged := ""
	for {
		svc, lb, err := r.readLB(ctx, ref)
		switch {
		case err != nil:
			return nil, nil, err
		case svc == nil:
			return nil, nil, fmt.Errorf("the Service %s is gone", ref)
		case lb != nil && lb.State == "FAILED":
			return svc, lb, fmt.Errorf("GKE cannot build the load balancer: %s", strings.Join(lb.Warnings, "; "))
		case lb != nil && lb.State == "READY" && len(svc.Status.LoadBalancer.Ingress) > 0 && lb.Settled():
			return svc, lb, nil
		}
		if lb != nil {
			if s := fmt.Sprintf("%s %s, %d of %d backends healthy", lb.Kind, lb.State, lb.HealthyBackends, lb.BackendCount); s != logged {
				tflog.Info(ctx, "waiting for the load balancer of "+ref.String(), map[string]any{"progress": s})
				logged = s
			}
		}
		select {
		case <-ctx.Done():
			return svc, lb, fmt.Errorf("%w waiting for the load balancer's address and health", ctx.Err())
		case <-time.After(r.data.client.PollInterval):
		}
	}
}

// settle waits for the load balancer and records what was built; the state is written even
// when the wait fails, so that what exists can be destroyed.
func (r *LoadBalancerServiceResource) settle(ctx context.Context, ref kubeRef, m *lbServiceModel, verb string, state interface {
	Set(context.Context, any) diag.Diagnostics
}, diags *diag.Diagnostics) {
	svc, lb, err := r.awaitLB(ctx, ref)
	if svc != nil {
		m.flatten(ctx, svc, lb, diags)
	}
	m.setPlace(ref)
	diags.Append(state.Set(ctx, m)...)
	if err != nil {
		kubeErrorDiag(diags, verb, "load balancer service", ref, err)
	}
}

func (r *LoadBalancerServiceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan lbServiceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, lbServiceCreateTimeout)
	resp.Diagnostics.Append(d...)
	ref := r.data.kubeRefOf(&plan.kubeObjectAttrs, "services", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := ref.kube.Create(ctx, client.ServicePath(ref.namespace, ""), plan.service(ref, nil), nil); err != nil {
		kubeErrorDiag(&resp.Diagnostics, "creating", "load balancer service", ref, err)
		return
	}
	r.settle(ctx, ref, &plan, "creating", &resp.State, &resp.Diagnostics)
}

func (r *LoadBalancerServiceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state lbServiceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := r.data.kubeRefOf(&state.kubeObjectAttrs, "services", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	svc, lb, err := r.readLB(ctx, ref)
	if err != nil {
		kubeErrorDiag(&resp.Diagnostics, "reading", "load balancer service", ref, err)
		return
	}
	if svc == nil {
		resp.State.RemoveResource(ctx)
		return
	}
	state.flatten(ctx, svc, lb, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *LoadBalancerServiceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state lbServiceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, lbServiceUpdateTimeout)
	resp.Diagnostics.Append(d...)
	ref := r.data.kubeRefOf(&state.kubeObjectAttrs, "services", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := client.Update(ctx, ref.kube, client.ServicePath(ref.namespace, ref.name), func(svc *corev1.Service) {
		*svc = *plan.service(ref, svc)
	})
	if err != nil {
		kubeErrorDiag(&resp.Diagnostics, "updating", "load balancer service", ref, err)
		return
	}
	plan.kubeObjectAttrs = state.kubeObjectAttrs
	r.settle(ctx, ref, &plan, "updating", &resp.State, &resp.Diagnostics)
}

func (r *LoadBalancerServiceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state lbServiceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, lbServiceDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ref := r.data.kubeRefOf(&state.kubeObjectAttrs, "services", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p := client.ServicePath(ref.namespace, ref.name)
	if err := ref.kube.Delete(ctx, p); err != nil && !client.IsNotFound(err) {
		kubeErrorDiag(&resp.Diagnostics, "deleting", "load balancer service", ref, err)
		return
	}
	// GKE deletes the load balancer's resources, then the finalizer lets the Service go.
	for {
		var svc corev1.Service
		err := ref.kube.Get(ctx, p, &svc)
		if client.IsNotFound(err) {
			return
		}
		if err != nil {
			kubeErrorDiag(&resp.Diagnostics, "deleting", "load balancer service", ref, err)
			return
		}
		select {
		case <-ctx.Done():
			kubeErrorDiag(&resp.Diagnostics, "deleting", "load balancer service", ref,
				fmt.Errorf("%w waiting for GKE to delete the load balancer (finalizers %s)", ctx.Err(), strings.Join(svc.Finalizers, ", ")))
			return
		case <-time.After(r.data.client.PollInterval):
		}
	}
}

func (r *LoadBalancerServiceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importKubeObject(ctx, r.data, "services", req, resp)
}

// targetPortValidator checks a Service target port as the API server does: a number in
// 1-65535, or an IANA service name (1-15 characters of a-z, 0-9 and '-', with a letter, no
// '-' at either end and no "--").
type targetPortValidator struct{}

func (targetPortValidator) Description(context.Context) string {
	return "a port number 1-65535 or a container port name"
}

func (v targetPortValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (targetPortValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	tp := req.ConfigValue.ValueString()
	if n, err := strconv.Atoi(tp); err == nil {
		if n < 1 || n > 65535 {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid target port",
				fmt.Sprintf("target_port %d must be between 1 and 65535 (Kubernetes: spec.ports[].targetPort), or the name of a container port.", n))
		}
		return
	}
	if !ianaSvcName.MatchString(tp) || strings.Contains(tp, "--") || !strings.ContainsAny(tp, "abcdefghijklmnopqrstuvwxyz") {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid target port",
			fmt.Sprintf("target_port %q is neither a port number (1-65535) nor a container port name (at most 15 lowercase letters, digits and '-', with a letter, no '-' at either end or twice in a row).", tp))
	}
}

var ianaSvcName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$`)
