package sim

import (
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// A pod event's handle finds what its key finds, also where a pod's key is given to another
// pod: a user's pod named kube-proxy-<node> while that node boots loses its key to the node's
// kube-proxy pod (a static pod, named after its node), and its queued events then find that
// pod, as they did when events found pods by key. The simulation's tests check every pod
// event so (model.CheckHandles, TestMain); this test makes the case happen, then deletes the
// cluster, whose nodes take the pod that lost its key with them.
func TestPodEventsFollowAKeyGivenToAnotherPod(t *testing.T) {
	if !model.CheckHandles {
		t.Fatal("TestMain sets model.CheckHandles")
	}
	w, c := workloadCluster(t, "e2-standard-4", 2)
	if _, err := w.gke.SetNodePoolSize(c.Project, c.Location, c.Name, "pool-a", &api.SetNodePoolSizeRequest{NodeCount: 3}); err != nil {
		t.Fatal(err)
	}
	var booting string
	for i := 0; i < 120 && booting == ""; i++ {
		advance(w, time.Second)
		for name, n := range c.Nodes {
			if n.State == model.NodeProvisioning {
				booting = name
			}
		}
	}
	if booting == "" {
		t.Fatal("no node booting after the resize")
	}
	key := "kube-system/kube-proxy-" + booting
	if _, err := w.kubeapi.CreatePod(c, "kube-system", barePod("kube-proxy-"+booting, nil, "cpu=100m")); err != nil {
		t.Fatal(err)
	}
	users := c.Pods[key]
	advance(w, 3*time.Second) // bound, its start queued
	if users == nil || users.Node == "" {
		t.Fatalf("the user's pod %s is not bound: %+v", key, users)
	}
	advance(w, 5*time.Minute) // the node is ready: its kube-proxy pod takes the key
	if p := c.Pods[key]; p == users || p == nil || p.OwnerKind != model.OwnerDaemonSet || !users.Removed() {
		t.Fatalf("%s: want the node's kube-proxy pod under the key and the user's pod marked removed; got %+v", key, p)
	}
	// The user's pod, out of the map but still on its node, goes when its node does.
	if _, err := w.gke.DeleteCluster(c.Project, c.Location, c.Name); err != nil {
		t.Fatal(err)
	}
	advance(w, 2*time.Hour)
	if w.st.Clusters[c.Key()] != nil {
		t.Fatal("the cluster is still there two hours after its deletion")
	}
}
