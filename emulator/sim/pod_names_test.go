package sim

import (
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// R-SCHED-6: a generated pod name is drawn again while the cluster has a pod of that name. In
// a 15,000-node cluster each of GKE's DaemonSets names 15,000 pods from five random
// characters (14.3 million names): about eight of them would otherwise come out the same, and
// the second pod would take the first one's place. Every node runs one pod of each, and every
// pod is in the cluster under its own key.
func TestGeneratedPodNamesAreNeverReused(t *testing.T) {
	w, c := bigCluster(t)
	perNode := map[string]map[string]int{}
	for key, p := range c.Pods {
		if key != p.Key() || p.Key() != model.NamespacedKey(p.Namespace(), p.Name()) {
			t.Fatalf("pod %s/%s is in the cluster under %q", p.Namespace(), p.Name(), key)
		}
		if p.OwnerKind != model.OwnerDaemonSet {
			continue
		}
		if perNode[p.Node] == nil {
			perNode[p.Node] = map[string]int{}
		}
		perNode[p.Node][p.Owner]++
	}
	want := len(catalog.SystemDaemonSets)
	if len(perNode) != len(c.Nodes) {
		t.Fatalf("%d of %d nodes run GKE's DaemonSet pods", len(perNode), len(c.Nodes))
	}
	for node, owners := range perNode {
		if len(owners) != want {
			t.Fatalf("node %s runs pods of %d DaemonSets, want %d: %v", node, len(owners), want, owners)
		}
		for ds, n := range owners {
			if n != 1 {
				t.Fatalf("node %s runs %d pods of %s, want 1", node, n, ds)
			}
		}
	}
	bound, indexed := 0, 0
	for _, p := range c.Pods {
		if p.Node != "" {
			bound++
		}
	}
	for _, np := range w.core.PodIndex(c).Bound() {
		indexed += len(np.Pods)
	}
	if bound != indexed || bound < len(c.Nodes)*want {
		t.Fatalf("the pod index holds %d bound pods, the cluster %d (at least %d DaemonSet pods)", indexed, bound, len(c.Nodes)*want)
	}
}
