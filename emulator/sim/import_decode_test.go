package sim

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/clusterimport"
)

// importedState imports a snapshot read by read into a fresh world at the snapshot's time and
// gives the world's state as it is saved, and the import's summary.
func importedState(t *testing.T, req *api.ImportClusterRequest, read func(*api.ImportClusterRequest) (*Snapshot, error)) (state, summary []byte) {
	t.Helper()
	w, sum := importWith(t, req, read)
	var err error
	if state, err = json.Marshal(w.State()); err != nil {
		t.Fatal(err)
	}
	if summary, err = json.Marshal(sum); err != nil {
		t.Fatal(err)
	}
	return state, summary
}

// Pods and nodes are decoded into what the import reads of them (clusterimport/import_decode.go): the world
// imported is, byte for byte as saved, the one the decoding of every field gives, for the
// fixture (kubectl's own output, kind before apiVersion) and for a cluster gkesim printed.
func TestImportDecodesPodsAndNodesLightly(t *testing.T) {
	w, c := exportableCluster(t)
	for name, req := range map[string]*api.ImportClusterRequest{"fixture": shopRequest(t), "exported": exportCluster(t, w, c)} {
		t.Run(name, func(t *testing.T) {
			light, lightSum := importedState(t, req, clusterimport.ReadSnapshot)
			full, fullSum := importedState(t, req, clusterimport.ReadSnapshotInFull)
			if !bytes.Equal(light, full) {
				t.Errorf("the saved states differ:\n%s", jsonDiff(string(light), string(full)))
			}
			if !bytes.Equal(lightSum, fullSum) {
				t.Errorf("the summaries differ:\n%s\n%s", lightSum, fullSum)
			}
		})
	}
}

// A pod or node the light decoding cannot read is decoded in full, so that the refusal names
// the object and says what the full decoding says of the field.
func TestImportLightDecodingRefusesAsBefore(t *testing.T) {
	shop := shopRequest(t)
	for _, tc := range []struct{ name, from, to, want string }{
		{"a bad quantity", `"cpu": "100m"`, `"cpu": "100 millicores"`,
			"Pod kube-system/kube-proxy-gke-shop-default-pool-3f9a6c2e-7k2p: quantities must match the regular expression"},
		{"a number for a string", `"nodeName": "gke-shop-db-pool-90fa27c5-5rwe"`, `"nodeName": 5`,
			"Pod kube-system/kube-proxy-gke-shop-db-pool-90fa27c5-5rwe: json: cannot unmarshal number into Go struct field PodSpec.spec.nodeName of type string"},
		{"a node's label", `"disktype": "ssd"`, `"disktype": true`,
			"Node gke-shop-default-pool-3f9a6c2e-7k2p: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first occurrence from the first pod on, or in a node.
			objects := string(shop.Objects)
			at := strings.Index(objects, `"kind": "Pod"`)
			if strings.Contains(tc.want, "Node ") {
				at = 0
			}
			i := strings.Index(objects[at:], tc.from)
			if at < 0 || i < 0 {
				t.Fatalf("the fixture has no %s", tc.from)
			}
			objects = objects[:at+i] + tc.to + objects[at+i+len(tc.from):]
			req := &api.ImportClusterRequest{Cluster: shop.Cluster, Objects: json.RawMessage(objects)}
			_, light := clusterimport.ReadSnapshot(req)
			_, full := clusterimport.ReadSnapshotInFull(req)
			if light == nil || full == nil || light.Error() != full.Error() {
				t.Fatalf("refusals differ:\n%v\n%v", light, full)
			}
			if !strings.Contains(light.Error(), tc.want) {
				t.Errorf("refusal %q does not say %q", light, tc.want)
			}
		})
	}
}
