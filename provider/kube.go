package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

// Helpers shared by the resources of Kubernetes objects in a cluster (gkesim_workload,
// gkesim_pod_disruption_budget): where the object lives, its id and import, its errors.

// kubeObjectAttrs place a Kubernetes object: its cluster, namespace and name.
type kubeObjectAttrs struct {
	ID        types.String `tfsdk:"id"`
	Cluster   types.String `tfsdk:"cluster"`
	Project   types.String `tfsdk:"project"`
	Location  types.String `tfsdk:"location"`
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
}

// kubeObjectSchema is the schema of kubeObjectAttrs for objects of an API collection
// (deployments, poddisruptionbudgets); every attribute but id replaces the object.
func kubeObjectSchema(kind, collection string) map[string]schema.Attribute {
	keep := stringplanmodifier.UseStateForUnknown
	replace := stringplanmodifier.RequiresReplace
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "`projects/{project}/locations/{location}/clusters/{cluster}/namespaces/{namespace}/" + collection + "/{name}`.",
			PlanModifiers:       []planmodifier.String{keep()},
		},
		"cluster": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "The cluster: its name, or `projects/{project}/locations/{location}/clusters/{name}` (then project and location come from it).",
			PlanModifiers:       []planmodifier.String{sameCluster{}, replace()},
		},
		"project": schema.StringAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: "Project. Defaults to the cluster reference's project, then the provider's.",
			Validators:          []validator.String{projectIDValidator{}},
			PlanModifiers:       []planmodifier.String{keep(), replace()},
		},
		"location": schema.StringAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: "The cluster's location. Defaults to the cluster reference's location, then the provider's.",
			PlanModifiers:       []planmodifier.String{keep(), replace()},
		},
		"namespace": schema.StringAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: "Kubernetes namespace of the " + kind + ". Defaults to `default`. It must exist (the emulator answers `namespaces \"x\" not found` otherwise).",
			Default:             stringdefault.StaticString("default"),
			Validators:          []validator.String{kubeNamespaceName},
			PlanModifiers:       []planmodifier.String{replace()},
		},
		"name": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "Name of the " + kind + ": a DNS-1123 subdomain (lowercase letters, digits, `-` and `.`).",
			Validators:          []validator.String{kubeObjectName},
			PlanModifiers:       []planmodifier.String{replace()},
		},
	}
}

// kubeRef is where a Kubernetes object lives: its cluster's API, namespace and name.
type kubeRef struct {
	kube                        *client.Kube
	project, location, cluster  string
	namespace, name, collection string
}

// id is the object's Terraform id.
func (r kubeRef) id() string {
	return client.KubeObjectName(r.project, r.location, r.cluster, r.namespace, r.collection, r.name)
}

// kinds are the kinds of the collections, for messages.
var kinds = map[string]string{"deployments": "Deployment", "poddisruptionbudgets": "PodDisruptionBudget", "services": "Service"}

// String names the object in messages: Deployment default/web in cluster projects/.../clusters/c.
func (r kubeRef) String() string {
	return fmt.Sprintf("%s %s/%s in cluster %s", kinds[r.collection], r.namespace, r.name, client.ClusterName(r.project, r.location, r.cluster))
}

// kubeRefOf resolves an object's place from its attributes and the provider's defaults.
func (d *providerData) kubeRefOf(m *kubeObjectAttrs, collection string, diags *diag.Diagnostics) kubeRef {
	p, l, c := d.clusterNames(m.Cluster, m.Project, m.Location, diags)
	return kubeRef{kube: d.client.Kube(p, l, c), project: p, location: l, cluster: c,
		namespace: m.Namespace.ValueString(), name: m.Name.ValueString(), collection: collection}
}

// setPlace records a created object's id, project and location.
func (m *kubeObjectAttrs) setPlace(r kubeRef) {
	m.ID, m.Project, m.Location = types.StringValue(r.id()), types.StringValue(r.project), types.StringValue(r.location)
}

// kubeErrorDiag reports a failed call with the API server's message verbatim.
func kubeErrorDiag(diags *diag.Diagnostics, verb, kind string, r kubeRef, err error) {
	diags.AddError(fmt.Sprintf("Error %s %s", verb, kind), fmt.Sprintf("%s %s: %s", capitalize(verb), r, client.Message(err)))
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// importKubeObject is the ImportState of a Kubernetes object of a collection. The id is
// projects/P/locations/L/clusters/C/namespaces/NS/{collection}/NAME, P/L/C/NS/NAME or L/C/NS/NAME.
func importKubeObject(ctx context.Context, d *providerData, collection string, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defaultProject := ""
	if d != nil {
		defaultProject = d.project
	}
	project, location, names, err := parseImportID(req.ID, defaultProject, "namespaces", collection)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	cluster, ns, name := names[0], names[1], names[2]
	for attr, v := range map[string]string{
		"id":      client.KubeObjectName(project, location, cluster, ns, collection, name),
		"project": project, "location": location, "cluster": cluster, "namespace": ns, "name": name,
	} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), v)...)
	}
}

// mapOf reads a map of strings: nil when null or unknown, without its unknown elements (at
// validation, before values are known).
func mapOf(v types.Map) map[string]string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	out := map[string]string{}
	for k, e := range v.Elements() {
		if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out[k] = s.ValueString()
		}
	}
	return out
}

// mapValue is the attribute value of a map read from the API: null when the API has none and
// the prior value (configuration or state) was null, so that an absent map does not diff.
func mapValue(ctx context.Context, m map[string]string, prior types.Map, diags *diag.Diagnostics) types.Map {
	if len(m) == 0 && (prior.IsNull() || prior.IsUnknown()) {
		return types.MapNull(types.StringType)
	}
	v, d := types.MapValueFrom(ctx, types.StringType, m)
	diags.Append(d...)
	return v
}

// stringValue is an optional string read from the API: null when empty and the prior was null.
func stringValue(s string, prior types.String) types.String {
	if s == "" && (prior.IsNull() || prior.IsUnknown()) {
		return types.StringNull()
	}
	return types.StringValue(s)
}
