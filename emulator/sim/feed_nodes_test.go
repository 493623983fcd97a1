package sim

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/feed"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// A feed nobody follows takes no snapshot of its nodes; when a client starts following, the
// nodes in view are snapshotted as they are (what was last published), so the DELETED entries
// that follow (a node gone before any change of it was published, then a scale-down) carry
// the same nodes as in a feed followed from the start.
func TestNodesDeletedAfterFollowingStartsLate(t *testing.T) {
	deleted := func(followFromStart bool) []string {
		w := New(Options{Seed: 42, Start: testStart})
		following := followFromStart
		w.core.SetFeedFollowed(func(string) bool { return following })
		c := createTestCluster(t, w, "us-central1-a", &api.NodePool{Name: "web", InitialNodeCount: 3})
		advance(w, 10*time.Minute)
		following = true
		w.core.FollowFeed(c)
		from := c.RV
		// A node leaves view (booting again, as a node recreated in place does) before any
		// change of it is published: its DELETED entry carries the snapshot taken when
		// following began.
		w.core.SetNodeState(c, c.Nodes[model.SortedKeys(c.Nodes)[0]], model.NodeProvisioning)
		advance(w, time.Second)
		op, err := w.gke.SetNodePoolSize("proj", "us-central1-a", "c1", "web", &api.SetNodePoolSizeRequest{NodeCount: 1})
		if err != nil {
			t.Fatal(err)
		}
		runOp(t, w, op, time.Hour)
		changes, _, err := w.Changes(c, from, 1000)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ch := range changes {
			if ch.Resource == feed.ResourceNodes && ch.Type == feed.ChangeDeleted {
				b, err := json.Marshal(ch.Object)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, string(b))
			}
		}
		return out
	}
	late, early := deleted(false), deleted(true)
	if len(late) < 3 {
		t.Fatalf("%d DELETED nodes after one left view and the pool went from 3 nodes to 1, want at least 3", len(late))
	}
	for i := range late {
		if i >= len(early) || late[i] != early[i] {
			t.Fatalf("DELETED node %d differs when following starts late:\n%s\nwant\n%s", i, late[i], early[min(i, len(early)-1)])
		}
	}
}
