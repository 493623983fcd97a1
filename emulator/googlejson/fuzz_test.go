package googlejson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	compute "google.golang.org/api/compute/v1"
	container "google.golang.org/api/container/v1"
	containerbeta "google.golang.org/api/container/v1beta1"
)

// fuzzMessages are request messages of the routes (msg picks one).
var fuzzMessages = []struct {
	v    any
	root string
}{
	{container.CreateClusterRequest{}, ""}, {container.UpdateClusterRequest{}, ""}, {container.CreateNodePoolRequest{}, ""},
	{container.UpdateNodePoolRequest{}, ""}, {container.SetMaintenancePolicyRequest{}, ""}, {containerbeta.CreateClusterRequest{}, ""},
	{compute.BackendService{}, "resource"}, {compute.InstanceGroupsAddInstancesRequest{}, "resource"},
}

// Check reads any body without a panic; a body it accepts comes out as JSON that the official
// client's type decodes, and checking that again changes nothing.
func FuzzCheck(f *testing.F) {
	f.Fuzz(func(t *testing.T, msg uint8, body []byte) {
		m := fuzzMessages[int(msg)%len(fuzzMessages)]
		out, vs, err := ForValue(m.v).Check(body, m.root)
		if err != nil || len(vs) > 0 {
			if err == nil && len(vs) > MaxViolations {
				t.Fatalf("%d violations, more than %d", len(vs), MaxViolations)
			}
			return
		}
		into := reflect.New(reflect.TypeOf(m.v)).Interface()
		if err := json.Unmarshal(out, into); err != nil {
			t.Fatalf("accepted %q as %s, which %T does not decode: %v", body, out, m.v, err)
		}
		again, vs, err := ForValue(m.v).Check(out, m.root)
		if err != nil || len(vs) > 0 || !bytes.Equal(again, out) {
			t.Fatalf("checking %s again: %s %v %v", out, again, vs, err)
		}
	})
}
