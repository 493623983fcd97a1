package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
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

// parseImportID splits an import id of the form projects/P/locations/L/clusters/C[/nodePools/N],
// P/L/C[/N] or L/C[/N] (the provider's project). want is the number of trailing parts (1 for a
// cluster, 2 for a node pool). It returns project, location and the trailing names.
func parseImportID(id string, want int, defaultProject string) (string, string, []string, error) {
	parts := strings.Split(id, "/")
	long := []string{"projects", "", "locations", "", "clusters", ""}
	if want == 2 {
		long = append(long, "nodePools", "")
	}
	if len(parts) == len(long) {
		for i := 0; i < len(parts); i += 2 {
			if parts[i] != long[i] {
				parts = nil
				break
			}
		}
		if parts != nil {
			names := []string{parts[5]}
			if want == 2 {
				names = append(names, parts[7])
			}
			return parts[1], parts[3], names, nonEmpty(parts[1], parts[3], names)
		}
		parts = strings.Split(id, "/")
	}
	switch len(parts) {
	case want + 2:
		return parts[0], parts[1], parts[2:], nonEmpty(parts[0], parts[1], parts[2:])
	case want + 1:
		if defaultProject == "" {
			return "", "", nil, fmt.Errorf("import id %q has no project and the provider has none; use the form %s", id, importForms(want))
		}
		return defaultProject, parts[0], parts[1:], nonEmpty(defaultProject, parts[0], parts[1:])
	}
	return "", "", nil, fmt.Errorf("import id %q is not of the form %s", id, importForms(want))
}

func nonEmpty(project, location string, names []string) error {
	for _, s := range append([]string{project, location}, names...) {
		if s == "" {
			return fmt.Errorf("import id has an empty part")
		}
	}
	return nil
}

func importForms(want int) string {
	if want == 2 {
		return "projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}, {project}/{location}/{cluster}/{name} or {location}/{cluster}/{name}"
	}
	return "projects/{project}/locations/{location}/clusters/{name}, {project}/{location}/{name} or {location}/{name}"
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
