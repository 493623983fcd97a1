package sim

import (
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// runUntilDone advances in 1-minute steps until op is DONE (bounded).
func runUntilDone(b testing.TB, w *World, op *model.Operation) (events int) {
	for i := 0; i < 100000 && op.Status != api.OpStatusDone; i++ {
		events += w.RunUntil(w.engine.Now().Add(time.Minute))
	}
	if op.Status != api.OpStatusDone || op.ErrorCode != 0 {
		b.Fatalf("operation %s not done: %s %s", op.ID, op.Status, op.StatusMessage)
	}
	return events
}

// BenchmarkCreatePool creates a regional cluster with a 3,000-node pool (1,000 per zone, GKE's
// per-zone limit) and runs the simulation until every node is ready.
func BenchmarkCreatePool3000Nodes(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		w := benchWorld()
		op, err := w.gke.CreateCluster("p", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{
			Name: "big", NodePools: []*api.NodePool{{Name: "pool", InitialNodeCount: 1000}}}})
		if err != nil {
			b.Fatal(err)
		}
		runUntilDone(b, w, op)
		if n := len(w.core.Cluster("p", "us-central1", "big").Nodes); n != 3000 {
			b.Fatalf("%d nodes", n)
		}
	}
	b.ReportMetric(3000, "nodes/op")
}

// BenchmarkSurgeUpgrade1000Nodes upgrades a 1,000-node single-zone pool with maxSurge=20
// (GKE's concurrency cap, R-SURGE-2) and reports the emulated duration.
func BenchmarkSurgeUpgrade1000Nodes(b *testing.B) {
	b.ReportAllocs()
	var emulated time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w := benchWorld()
		reg := catalog.VersionsAt(w.engine.Now()).Channels[api.ChannelRegular].Valid
		from, to := reg[1], reg[0]
		if from.Minor != to.Minor {
			b.Skip("no two patches of one minor at the test date")
		}
		op, err := w.gke.CreateCluster("p", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{
			Name: "big", InitialClusterVersion: to.String(),
			NodePools: []*api.NodePool{{Name: "pool", InitialNodeCount: 1000, Version: from.String(),
				UpgradeSettings: &api.UpgradeSettings{MaxSurge: 20}}}}})
		if err != nil {
			b.Fatal(err)
		}
		runUntilDone(b, w, op)
		b.StartTimer()
		up, err := w.gke.UpdateNodePool("p", "us-central1-a", "big", "pool", &api.UpdateNodePoolRequest{NodeVersion: to.String()})
		if err != nil {
			b.Fatal(err)
		}
		start := w.engine.Now()
		runUntilDone(b, w, up)
		emulated = w.engine.Now().Sub(start)
	}
	b.ReportMetric(emulated.Hours(), "emulated-h/op")
}
