package provider

import (
	"strings"
	"testing"
)

func TestParseImportID(t *testing.T) {
	cases := []struct {
		id          string
		collections []string
		project     string
		location    string
		names       string
		err         string
	}{
		{id: "projects/p1/locations/us-central1/clusters/c", project: "p1", location: "us-central1", names: "c"},
		{id: "p1/us-central1/c", project: "p1", location: "us-central1", names: "c"},
		{id: "us-central1/c", project: "default-project", location: "us-central1", names: "c"},
		{id: "projects/p1/locations/l/clusters/c/nodePools/n", collections: []string{"nodePools"}, project: "p1", location: "l", names: "c/n"},
		{id: "l/c/n", collections: []string{"nodePools"}, project: "default-project", location: "l", names: "c/n"},
		{id: "projects/p1/locations/l/clusters/c/namespaces/ns/deployments/web", collections: []string{"namespaces", "deployments"},
			project: "p1", location: "l", names: "c/ns/web"},
		{id: "p1/l/c/ns/web", collections: []string{"namespaces", "deployments"}, project: "p1", location: "l", names: "c/ns/web"},
		{id: "l/c/ns/web", collections: []string{"namespaces", "deployments"}, project: "default-project", location: "l", names: "c/ns/web"},
		{id: "projects/p1/locations/l/clusters/c/namespaces/ns/services/web", collections: []string{"namespaces", "deployments"},
			err: "projects/{project}/locations/{location}/clusters/{cluster}/namespaces/{namespace}/deployments/{name}, " +
				"{project}/{location}/{cluster}/{namespace}/{name} or {location}/{cluster}/{namespace}/{name}"},
		{id: "l/c//web", collections: []string{"namespaces", "deployments"}, err: "empty part"},
		{id: "c", err: "projects/{project}/locations/{location}/clusters/{name}, {project}/{location}/{name} or {location}/{name}"},
	}
	for _, c := range cases {
		project, location, names, err := parseImportID(c.id, "default-project", c.collections...)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseImportID(%q): error %v, want one containing %q", c.id, err, c.err)
			}
			continue
		}
		if err != nil || project != c.project || location != c.location || strings.Join(names, "/") != c.names {
			t.Errorf("parseImportID(%q) = %q, %q, %q, %v; want %q, %q, %q", c.id, project, location, names, err, c.project, c.location, c.names)
		}
	}
}
