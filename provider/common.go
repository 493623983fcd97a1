package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

// Helpers shared by the resources and data sources.

// providerDataOf type-checks the data the provider's Configure handed over.
func providerDataOf(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil // the provider is not configured yet (validation)
	}
	d, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *providerData, got %T. This is a bug in the provider; please report it.", data))
		return nil
	}
	return d
}

// projectAndLocation resolves a resource's project and location against the provider defaults.
func (d *providerData) projectAndLocation(project, location types.String, diags *diag.Diagnostics) (string, string) {
	p, l := project.ValueString(), location.ValueString()
	if p == "" {
		p = d.project
	}
	if l == "" {
		l = d.location
	}
	if p == "" {
		diags.AddAttributeError(path.Root("project"), "Missing project",
			"Set project on the resource, on the provider, or in the GKESIM_PROJECT environment variable.")
	}
	if l == "" {
		diags.AddAttributeError(path.Root("location"), "Missing location",
			"Set location (a region such as us-central1 or a zone such as us-central1-a) on the resource, on the provider, or in GKESIM_LOCATION.")
	}
	return p, l
}

// parseImportID splits an import id of the form projects/P/locations/L/clusters/C[/{collection}/N...],
// P/L/C[/N...] or L/C[/N...] (the provider's project). collections are the long form's segments
// after the cluster (none for a cluster, "nodePools" for a node pool, "namespaces" and
// "deployments" for a Deployment). It returns project, location and the names after the
// location: the cluster's first.
func parseImportID(id, defaultProject string, collections ...string) (string, string, []string, error) {
	long := append([]string{"projects", "locations", "clusters"}, collections...)
	want := len(long) - 2 // names after the location
	parts := strings.Split(id, "/")
	if len(parts) == 2*len(long) {
		ok := true
		for i, seg := range long {
			ok = ok && parts[2*i] == seg
		}
		if ok {
			var names []string
			for i := 2; i < len(long); i++ {
				names = append(names, parts[2*i+1])
			}
			return parts[1], parts[3], names, nonEmpty(parts[1], parts[3], names)
		}
	}
	switch len(parts) {
	case want + 2:
		return parts[0], parts[1], parts[2:], nonEmpty(parts[0], parts[1], parts[2:])
	case want + 1:
		if defaultProject == "" {
			return "", "", nil, fmt.Errorf("import id %q has no project and the provider has none; use the form %s", id, importForms(long))
		}
		return defaultProject, parts[0], parts[1:], nonEmpty(defaultProject, parts[0], parts[1:])
	}
	return "", "", nil, fmt.Errorf("import id %q is not of the form %s", id, importForms(long))
}

func nonEmpty(project, location string, names []string) error {
	for _, s := range append([]string{project, location}, names...) {
		if s == "" {
			return fmt.Errorf("import id has an empty part")
		}
	}
	return nil
}

// importForms spells the accepted import id forms for the long form's segments.
func importForms(long []string) string {
	var full, short []string
	for i, seg := range long {
		ph := "{" + strings.TrimSuffix(seg, "s") + "}"
		if i == len(long)-1 {
			ph = "{name}"
		}
		full = append(full, seg, ph)
		short = append(short, ph)
	}
	return fmt.Sprintf("%s, %s or %s", strings.Join(full, "/"), strings.Join(short, "/"), strings.Join(short[1:], "/"))
}

// clusterRef accepts a cluster given as a name or as projects/P/locations/L/clusters/C and
// returns its name (and project/location when the long form carries them).
func clusterRef(v string) (project, location, name string) {
	parts := strings.Split(v, "/")
	if len(parts) == 6 && parts[0] == "projects" && parts[2] == "locations" && parts[4] == "clusters" {
		return parts[1], parts[3], parts[5]
	}
	return "", "", v
}

// clusterNames resolves the project, location and name of the cluster an object lives in: from
// its cluster reference, else its own project and location, else the provider's defaults.
func (d *providerData) clusterNames(cluster, project, location types.String, diags *diag.Diagnostics) (string, string, string) {
	p, l, name := clusterRef(cluster.ValueString())
	if p == "" {
		p, l = d.projectAndLocation(project, location, diags)
	}
	return p, l, name
}

// fillClusterScope is the ModifyPlan of objects inside a cluster (node pools, Kubernetes
// objects): it fills project and location from the cluster reference or the provider, so that
// plans show them.
func fillClusterScope(ctx context.Context, d *providerData, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || d == nil {
		return
	}
	var cluster types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("cluster"), &cluster)...)
	if cluster.IsUnknown() {
		return // the reference may carry project and location; known at apply
	}
	if p, l, _ := clusterRef(cluster.ValueString()); p != "" {
		scoped := *d
		scoped.project, scoped.location = p, l
		fillProjectLocation(ctx, &scoped, &resp.Plan, &resp.Diagnostics)
		return
	}
	fillProjectLocation(ctx, d, &resp.Plan, &resp.Diagnostics)
}

// stringSet converts a list of strings to a set value.
func stringSet(ctx context.Context, vals []string, diags *diag.Diagnostics) types.Set {
	s, d := types.SetValueFrom(ctx, types.StringType, vals)
	diags.Append(d...)
	return s
}

// stringsOf reads a set or list of strings.
func stringsOf(ctx context.Context, v interface {
	ElementsAs(context.Context, any, bool) diag.Diagnostics
	IsNull() bool
	IsUnknown() bool
}, diags *diag.Diagnostics) []string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(v.ElementsAs(ctx, &out, false)...)
	return out
}

// readMode is how Read fills nested blocks: as configured, or (right after an import, when
// the state has no name yet) also where the object differs from GKE's defaults.
func readMode(name types.String) blockMode {
	if name.IsNull() {
		return blocksOnImport
	}
	return blocksAsConfigured
}

// awaitUpdate waits for an update's operation and reports a failure naming what was updated.
func awaitUpdate(ctx context.Context, c *client.Client, project, location string, op *container.Operation, callErr error,
	kind, what, name string, diags *diag.Diagnostics) bool {
	if err := c.Await(ctx, project, location, op, callErr); err != nil {
		diags.AddError("Error updating "+kind, fmt.Sprintf("Updating %s of %s: %s", what, name, err))
		return false
	}
	return true
}

// awaitDelete waits for a delete's operation; an object already gone is deleted.
func awaitDelete(ctx context.Context, c *client.Client, project, location string, op *container.Operation, callErr error,
	kind, name string, diags *diag.Diagnostics) {
	if client.IsNotFound(callErr) {
		return
	}
	if err := c.Await(ctx, project, location, op, callErr); err != nil {
		diags.AddError("Error deleting "+kind, fmt.Sprintf("Deleting %s: %s", name, err))
	}
}
