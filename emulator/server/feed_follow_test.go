package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The server's wiring of the change feeds to the Kubernetes API (New: the k8s FollowFeed
// middleware on every request, k8s Followed as the runner's SetFeedFollowed).

// A cluster's feed records while someone follows it: a watch open, or a request to its
// Kubernetes API within the grace. Unfollowed, its window is empty; a watch from a version
// before that is 410 Expired (the client lists again), and one from a list's version misses
// nothing.
func TestTheFeedRecordsWhileTheClusterIsFollowed(t *testing.T) {
	e := newEnv(t)
	setGrace := e.srv.kube.SetFollowGrace
	setGrace(50 * time.Millisecond)
	e.withBase()
	key := sim.ClusterKey("proj", "us-central1-a", "base")

	// Followed (a watch is open): the deployment's pods stream as they come.
	from := e.ListRV(k8sPods)
	s := e.Watch(k8sPods+"?watch=true&resourceVersion="+fmt.Sprint(from), "")
	e.K8sOK("POST", k8sDeploy, "application/json", servertest.DeploymentJSON("web", 3, "10m"), nil)
	e.Advance(time.Minute)
	added := 0
	s.Until(func(ev servertest.Received) bool {
		if ev.Type == "ADDED" {
			added++
		}
		return added == 3
	})
	s.Resp.Body.Close()

	// The watch closed and the grace passed: nobody follows. A change made through the GKE
	// API alone (a resize) is not recorded, and the window starts after it.
	deadline := time.Now().Add(servertest.EventWait)
	for e.srv.kube.Followed(key) {
		if time.Now().After(deadline) {
			t.Fatal("the cluster is still followed long after its watch closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.Mutate("POST", poolA+":setSize", `{"nodeCount": 3}`)
	s = e.Watch(k8sPods+"?watch=true&resourceVersion="+fmt.Sprint(from), "")
	if ev, _ := s.Next(); ev.Type != "ERROR" || ev.Status(t).Code != http.StatusGone {
		t.Fatalf("watch from %d after an unfollowed stretch: %s %s, want ERROR 410 Expired", from, ev.Type, ev.Object)
	}

	// Listing again follows the cluster at once: a watch from the list's version misses
	// nothing that happens after it while the grace lasts.
	setGrace(time.Hour)
	now := e.ListRV("/k8s/projects/proj/locations/us-central1-a/clusters/base/api/v1/nodes")
	e.Mutate("POST", poolA+":setSize", `{"nodeCount": 4}`)
	s = e.Watch("/k8s/projects/proj/locations/us-central1-a/clusters/base/api/v1/nodes?watch=true&resourceVersion="+fmt.Sprint(now), "")
	got := s.Until(func(ev servertest.Received) bool { return ev.Type == "ADDED" })
	if last := got[len(got)-1]; last.RV(t) <= now {
		t.Errorf("ADDED node at %d, want after the list's %d", last.RV(t), now)
	}
}
