package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// A node version alias picks the highest valid version it names, and a node version is valid
// only up to the control plane's (GKE's versioning: "1.X" is the highest valid patch of 1.X).
// On a control plane one patch behind the newest, "1.X", "1.X.Y" and "latest" give the control
// plane's own version; an explicit newer version is refused, saying why.
func TestNodeVersionAliasesStopAtTheControlPlane(t *testing.T) {
	w := newTestWorld(t)
	from, to := upgradeVersions(t, w)
	op, err := w.gke.CreateCluster("proj", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "c1", InitialClusterVersion: from.String(), ReleaseChannel: &api.ReleaseChannel{Channel: api.ChannelUnspecified}, InitialNodeCount: 1,
	}})
	if err != nil {
		t.Fatal(err)
	}
	runOp(t, w, op, time.Hour)
	for i, alias := range []string{from.MinorString(), "latest"} {
		name := []string{"minor", "latest"}[i]
		op, err := w.gke.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{Name: name, InitialNodeCount: 1, Version: alias}})
		if err != nil {
			t.Fatalf("pool on %q with the control plane on %s (newest %s): %v", alias, from, to, err)
		}
		runOp(t, w, op, time.Hour)
		if p := w.core.Cluster("proj", "us-central1-a", "c1").Pool(name); p.Spec.Version != from.String() {
			t.Errorf("pool on %q: version %s, want the control plane's %s (the newest, %s, is newer than it)", alias, p.Spec.Version, from, to)
		}
	}
	_, err = w.gke.CreateNodePool("proj", "us-central1-a", "c1", &api.CreateNodePoolRequest{NodePool: &api.NodePool{Name: "explicit", InitialNodeCount: 1, Version: to.String()}})
	if e, ok := model.AsError(err); !ok || e.HTTPCode != 400 || !strings.Contains(e.Message, "must not be newer than the control plane version") {
		t.Errorf("an explicit version newer than the control plane: %v, want the 400 saying so", err)
	}
}
