package sim

import (
	"encoding/json"
	"strconv"
	"strings"
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

// A publish larger than the watch window (a pool's nodes and their system pods coming up, a
// Deployment of hundreds of pods scheduled at once) makes only the changes the window keeps:
// after every publish, the window holds exactly what it would hold had every change been made,
// the newest ones, and starts where it would (after the newest change it drops).
func TestPublishLargerThanTheWindowKeepsItsNewest(t *testing.T) {
	const small = 300
	type world struct {
		w *World
		c *model.Cluster
	}
	start := func(history int) world {
		w := New(Options{Seed: 7, Start: testStart, WatchHistory: history})
		w.core.SetFeedFollowed(func(string) bool { return true })
		c := createTestCluster(t, w, "us-central1-a", &api.NodePool{Name: "web", InitialNodeCount: 1})
		w.core.FollowFeed(c)
		return world{w, c}
	}
	// changes are x's changes after resourceVersion after, rendered.
	changes := func(x world, after int64, limit int) []string {
		chs, _, err := x.w.Changes(x.c, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ch := range chs {
			b, err := json.Marshal([]any{ch.RV, ch.Type, ch.Resource, ch.Namespace, ch.Name, ch.Object, ch.Event})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
		return out
	}
	whole, cut := start(1<<20), start(small)
	overflowed := 0
	step := func(what string, do func(x world)) {
		before := whole.w.core.Feed(whole.c).Len()
		for _, x := range []world{whole, cut} {
			do(x)
			advance(x.w, 0)
		}
		total := whole.w.core.Feed(whole.c).Len()
		if total-before > small {
			overflowed++
		}
		from, _ := cut.w.WatchWindow(cut.c)
		got := changes(cut, from, 1<<30)
		if want := min(total, small); len(got) != want {
			t.Fatalf("%s: the window holds %d changes, want %d (the newest of %d)", what, len(got), want, total)
		}
		if total <= small {
			return
		}
		// The same changes made in full: the window's are the newest, and the window starts
		// at the newest one it dropped.
		want := changes(whole, from, small+1)
		if len(want) != small {
			t.Fatalf("%s: the window starts at %d, but %d changes follow it, want %d", what, from, len(want), small)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: change %d of the window differs from the same change made in full:\n%s\nwant\n%s", what, i, got[i], want[i])
			}
		}
		if at := changes(whole, from-1, 1); len(at) != 1 || !strings.HasPrefix(at[0], "["+strconv.FormatInt(from, 10)+",") {
			t.Fatalf("%s: the window starts at %d, which is no change's version (the newest it dropped)", what, from)
		}
	}
	step("resize to 60 nodes", func(x world) {
		if _, err := x.w.gke.SetNodePoolSize("proj", "us-central1-a", "c1", "web", &api.SetNodePoolSizeRequest{NodeCount: 60}); err != nil {
			t.Fatal(err)
		}
	})
	for i := 0; i < 40; i++ {
		step("the nodes coming up", func(x world) { advance(x.w, 15*time.Second) })
	}
	step("a Deployment of 400 pods", func(x world) {
		if _, err := x.w.kubeapi.CreateDeployment(x.c, "default", deployment("big", 400, "100m")); err != nil {
			t.Fatal(err)
		}
	})
	for i := 0; i < 30; i++ {
		step("the pods starting", func(x world) { advance(x.w, 2*time.Second) })
	}
	if overflowed == 0 {
		t.Fatal("no publish was larger than the window: the test tests nothing")
	}
}
