package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/internal/benchfloor"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// bigCluster is a regional cluster at GKE's limit: 15,000 nodes (5 pools x 1,000 nodes per
// zone x 3 zones), running, with GKE's DaemonSet pods (4 per node) and system Deployments.
// Each mutate function may change the cluster before it is created.
// benchWorld is a world as a server runs it while no client follows its clusters' Kubernetes
// API (no watch, no request): their change feeds record nothing (core/changefeed.go). The
// *Followed benchmarks measure the feeds' cost.
func benchWorld() *World {
	w := New(Options{Seed: 1, Start: testStart})
	w.core.SetFeedFollowed(func(string) bool { return false })
	return w
}

func bigCluster(b testing.TB, mutate ...func(*api.Cluster)) (*World, *model.Cluster) {
	b.Helper()
	w := benchWorld()
	var pools []*api.NodePool
	for i := 0; i < 5; i++ {
		pools = append(pools, &api.NodePool{Name: fmt.Sprintf("pool-%d", i), InitialNodeCount: 1000, Config: &api.NodeConfig{MachineType: "e2-standard-8"}})
	}
	in := &api.Cluster{Name: "big", NodePools: pools}
	for _, m := range mutate {
		m(in)
	}
	want := 0
	for _, p := range in.NodePools {
		want += int(p.InitialNodeCount) * 3
	}
	op, err := w.gke.CreateCluster("p", "us-central1", &api.CreateClusterRequest{Cluster: in})
	if err != nil {
		b.Fatal(err)
	}
	runUntilDone(b, w, op)
	w.RunUntil(w.engine.Now().Add(time.Minute))
	c := w.core.Cluster("p", "us-central1", "big")
	if len(c.Nodes) != want {
		b.Fatalf("%d nodes, want %d", len(c.Nodes), want)
	}
	return w, c
}

// schedule150k creates 150 Deployments of 1,000 pods (250m, 256Mi) and runs until every pod is
// placed; it returns the number of pods still pending.
func schedule150k(b testing.TB, w *World, c *model.Cluster) int {
	for i := 0; i < 150; i++ {
		d := deployment(fmt.Sprintf("app-%03d", i), 1000, "250m")
		if _, err := w.kubeapi.CreateDeployment(c, "default", d); err != nil {
			b.Fatal(err)
		}
	}
	w.RunUntil(w.engine.Now().Add(30 * time.Second))
	pending := 0
	for _, p := range c.Pods {
		if p.Node == "" {
			pending++
		}
	}
	return pending
}

// BenchmarkSchedule150kPodsOn15kNodes: the scale target, 150,000 pods on 15,000 nodes.
func BenchmarkSchedule150kPodsOn15kNodes(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w, c := bigCluster(b)
		b.StartTimer()
		if pending := schedule150k(b, w, c); pending != 0 {
			b.Fatalf("%d pods pending", pending)
		}
	}
	b.ReportMetric(150000, "pods/op")
}

// BenchmarkDrain1000Nodes drains 1,000 of those nodes (about 10,000 pods evicted and
// rescheduled) with the surge-upgrade policy and runs until the nodes are gone.
func BenchmarkDrain1000Nodes(b *testing.B) {
	b.ReportAllocs()
	events := 0
	floor := benchfloor.StartFloor()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w, c := bigCluster(b)
		schedule150k(b, w, c)
		var victims []*model.Node
		for _, name := range core.SortedNodeNames(c) {
			if len(victims) == 1000 {
				break
			}
			victims = append(victims, c.Nodes[name])
		}
		b.StartTimer()
		for _, n := range victims {
			w.core.RetireNode(c, n, core.SurgeDrain, "benchmark")
		}
		events = w.RunUntil(w.engine.Now().Add(10 * time.Minute))
		b.StopTimer()
		for _, n := range victims {
			if c.Nodes[n.Name] != nil {
				b.Fatalf("node %s still there", n.Name)
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(1000, "nodes/op")
	floor.Report(b, events)
}
