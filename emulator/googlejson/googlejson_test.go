package googlejson

import (
	"errors"
	"strings"
	"testing"

	compute "google.golang.org/api/compute/v1"
	container "google.golang.org/api/container/v1"
)

func TestCheck(t *testing.T) {
	create := ForValue(container.CreateClusterRequest{})
	update := ForValue(container.UpdateNodePoolRequest{})
	bs := ForValue(compute.BackendService{})
	for _, tc := range []struct {
		name string
		msg  *Message
		root string
		body string
		// want is the normalized body, or the violations as "field|description" lines.
		want string
	}{
		{"unknown member of the request", create, "", `{"cluster": {"name": "c"}, "x": 1}`,
			`|Invalid JSON payload received. Unknown name "x": Cannot find field.`},
		{"unknown member of a message", create, "", `{"cluster": {"name": "c", "x": "y"}}`,
			`cluster|Invalid JSON payload received. Unknown name "x" at 'cluster': Cannot find field.`},
		{"nested, proto names in the path", create, "", `{"cluster": {"nodeConfig": {"machineType": "e2-medium", "machinetype": "x"}}}`,
			`cluster.node_config|Invalid JSON payload received. Unknown name "machinetype" at 'cluster.node_config': Cannot find field.`},
		{"in a list", create, "", `{"cluster": {"nodePools": [{"name": "a"}, {"nam": "b"}]}}`,
			`cluster.node_pools[1]|Invalid JSON payload received. Unknown name "nam" at 'cluster.node_pools[1]': Cannot find field.`},
		{"in a map value", create, "", `{"cluster": {"maintenancePolicy": {"window": {"maintenanceExclusions": {"a": {"startTime": "s"}, "b": {"bogus": 1}}}}}}`,
			`cluster.maintenance_policy.window.maintenance_exclusions[1].value|Invalid JSON payload received. Unknown name "bogus" at 'cluster.maintenance_policy.window.maintenance_exclusions[1].value': Cannot find field.`},
		{"every violation, in order", create, "", `{"a": 1, "cluster": {"b": 2}, "c": 3}`,
			"|Invalid JSON payload received. Unknown name \"a\": Cannot find field.\n" +
				"cluster|Invalid JSON payload received. Unknown name \"b\" at 'cluster': Cannot find field.\n" +
				"|Invalid JSON payload received. Unknown name \"c\": Cannot find field."},
		{"a real field the emulator does not simulate", create, "", `{"cluster": {"addonsConfig": {"httpLoadBalancing": {"disabled": true}}}}`,
			`{"cluster":{"addonsConfig":{"httpLoadBalancing":{"disabled":true}}}}`},
		{"proto names are read as JSON names", create, "", `{"cluster": {"initial_node_count": 3, "node_config": {"disk_size_gb": 20}}}`,
			`{"cluster":{"initialNodeCount":3,"nodeConfig":{"diskSizeGb":20}}}`},
		{"a member of another request", update, "", `{"diskSizeGb": 100, "nodeCount": 0}`,
			`|Invalid JSON payload received. Unknown name "nodeCount": Cannot find field.`},
		{"int64 is written quoted", update, "", `{"diskSizeGb": 100}`, `{"diskSizeGb":"100"}`},
		{"int32 from a string and an exponent", create, "", `{"cluster": {"initialNodeCount": "3", "nodeConfig": {"diskSizeGb": 1e2}}}`,
			`{"cluster":{"initialNodeCount":3,"nodeConfig":{"diskSizeGb":100}}}`},
		{"int32 out of range", create, "", `{"cluster": {"initialNodeCount": 99999999999}}`,
			`cluster.initial_node_count|Invalid value at 'cluster.initial_node_count' (TYPE_INT32), 99999999999`},
		{"not an integer", create, "", `{"cluster": {"initialNodeCount": 1.5}}`,
			`cluster.initial_node_count|Invalid value at 'cluster.initial_node_count' (TYPE_INT32), 1.5`},
		{"a number for a string", create, "", `{"cluster": {"name": 5}}`,
			`cluster.name|Invalid value at 'cluster.name' (TYPE_STRING), 5`},
		{"a string for a bool", create, "", `{"cluster": {"enableKubernetesAlpha": "yes"}}`,
			`cluster.enable_kubernetes_alpha|Invalid value at 'cluster.enable_kubernetes_alpha' (TYPE_BOOL), "yes"`},
		{"an object for a string", create, "", `{"cluster": {"name": {}}}`,
			`cluster.name|Invalid value at 'cluster.name' (TYPE_STRING), Starting an object on a scalar field`},
		{"a list for a message", create, "", `{"cluster": ["c2"]}`,
			`|Invalid JSON payload received. Unknown name "cluster": Proto field is not repeating, cannot start list.`},
		{"a string for a message", create, "", `{"cluster": "c2"}`,
			`cluster|Invalid value at 'cluster' (type.googleapis.com/google.container.v1.Cluster), "c2"`},
		{"a string for a list", create, "", `{"cluster": {"locations": "us-central1-a"}}`,
			`cluster.locations|Invalid value at 'cluster.locations' (TYPE_STRING), "us-central1-a"`},
		{"a map value of the wrong type", create, "", `{"cluster": {"resourceLabels": {"a": "b", "c": 5}}}`,
			`cluster.resource_labels[1].value|Invalid value at 'cluster.resource_labels[1].value' (TYPE_STRING), 5`},
		{"not an object", create, "", `[3]`, `|Invalid JSON payload received. Unknown name "": Root element must be a message.`},
		{"nulls are defaults", create, "", `{"cluster": {"name": null, "nodePools": null}}`, `{"cluster":{"name":null,"nodePools":null}}`},
		{"compute: rooted at the resource", bs, "resource", `{"name": "bs", "timeoutSec": 30, "backends": [{"group": "g", "balancingMod": "X"}]}`,
			`resource.backends[0]|Invalid JSON payload received. Unknown name "balancingMod" at 'resource.backends[0]': Cannot find field.`},
		{"compute: uint64 ids as strings", bs, "resource", `{"name": "bs", "id": 12}`, `{"name":"bs","id":"12"}`},
		{"compute: doubles", bs, "resource", `{"backends": [{"capacityScaler": "0.5", "maxUtilization": 1}]}`,
			`{"backends":[{"capacityScaler":0.5,"maxUtilization":1}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, vs, err := tc.msg.Check([]byte(tc.body), tc.root)
			if err != nil {
				t.Fatal(err)
			}
			got := string(out)
			if len(vs) > 0 {
				var lines []string
				for _, v := range vs {
					lines = append(lines, v.Field+"|"+v.Description)
				}
				got = strings.Join(lines, "\n")
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestCheckSyntaxError(t *testing.T) {
	_, _, err := ForValue(container.CreateClusterRequest{}).Check([]byte(`{"cluster": {`), "")
	if !errors.Is(err, ErrSyntax) {
		t.Fatalf("err = %v, want ErrSyntax", err)
	}
}

func TestManyViolationsAreBounded(t *testing.T) {
	body := "{" + strings.Repeat(`"x": 1, `, 1000) + `"y": 2}`
	_, vs, err := ForValue(container.CreateClusterRequest{}).Check([]byte(body), "")
	if err != nil || len(vs) != MaxViolations {
		t.Fatalf("%d violations, %v; want %d", len(vs), err, MaxViolations)
	}
}
