package sim

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/internal/benchfloor"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/autoscaler"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/gke"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Upgrade and autoscaler benchmarks at GKE's limits. A node pool has at most 1,000 nodes per
// zone, so 15,000 nodes (the cluster limit) are five 3,000-node pools; GKE runs one node-pool
// upgrade at a time per cluster, so they are upgraded one after another.

// heapNow returns the live heap after a full collection.
func heapNow() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// benchVersions returns two patches of one minor (older first), or skips.
func benchVersions(b testing.TB, w *World) (from, to catalog.Version) {
	reg := catalog.VersionsAt(w.engine.Now()).Channels[api.ChannelRegular].Valid
	from, to = reg[1], reg[0]
	if from.Minor != to.Minor {
		b.Skip("no two patches of one minor at the test date")
	}
	return from, to
}

// upgradeEachPool upgrades every pool of c to version, one after another, and returns the
// emulated time it took and the number of events it ran.
func upgradeEachPool(b testing.TB, w *World, c *model.Cluster, version string) (time.Duration, int) {
	start, events := w.engine.Now(), 0
	for _, p := range c.Pools {
		op, err := w.gke.UpdateNodePool(c.Project, c.Location, c.Name, p.Name, &api.UpdateNodePoolRequest{NodeVersion: version})
		if err != nil {
			b.Fatal(err)
		}
		events += runUntilDone(b, w, op)
		if n := nodesOn(c, p.Name, version); n != gke.PoolSize(p) {
			b.Fatalf("pool %s: %d of %d nodes on %s", p.Name, n, gke.PoolSize(p), version)
		}
	}
	return w.engine.Now().Sub(start), events
}

// benchUpgrade times upgrading every pool of the cluster setup builds (not timed) to the
// version it returns, checks that pods still run afterwards, and reports the emulated time and
// the live heap per node (nodes, pods, events: the whole world). The cluster is not followed
// (no watch open, no Kubernetes API request), as in a server driven by Terraform or gcloud;
// benchUpgradeFollowed times it with its change feed recording.
func benchUpgrade(b *testing.B, nodes, pods int, setup func() (*World, *model.Cluster, catalog.Version)) {
	benchUpgradeFeed(b, nodes, pods, false, setup)
}

func benchUpgradeFollowed(b *testing.B, nodes, pods int, setup func() (*World, *model.Cluster, catalog.Version)) {
	benchUpgradeFeed(b, nodes, pods, true, setup)
}

func benchUpgradeFeed(b *testing.B, nodes, pods int, followed bool, setup func() (*World, *model.Cluster, catalog.Version)) {
	b.ReportAllocs()
	var emulated time.Duration
	var perNode float64
	events := 0
	floor := benchfloor.StartFloor()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		base := heapNow()
		w, c, to := setup()
		w.core.SetFeedFollowed(func(string) bool { return followed })
		if followed {
			w.core.FollowFeed(c) // as a client's first request does
		}
		b.StartTimer()
		emulated, events = upgradeEachPool(b, w, c, to.String())
		b.StopTimer()
		perNode = float64(heapNow()-base) / float64(len(c.Nodes))
		runtime.KeepAlive(w) // the whole world counts: its event log, queue and indexes too
		if running, _ := podCountsAll(c); running < pods {
			b.Fatalf("%d pods running after the upgrade, want %d", running, pods)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(nodes), "nodes/op")
	b.ReportMetric(emulated.Hours(), "emulated-h/op")
	b.ReportMetric(perNode, "heap-B/node")
	floor.Report(b, events)
}

// BenchmarkSurgeUpgrade15000Nodes upgrades all 15,000 nodes of a cluster running 150,000 pods
// with maxSurge=20 (R-SURGE-2's cap): every node drained, its pods evicted and rescheduled.
func BenchmarkSurgeUpgrade15000Nodes(b *testing.B) {
	benchUpgrade(b, 15000, 150000, func() (*World, *model.Cluster, catalog.Version) { return surgeReadyBigCluster(b) })
}

// surgeReadyBigCluster is bigCluster running 150,000 pods with every pool on the older of two
// patches and maxSurge 20; it returns the newer patch.
func surgeReadyBigCluster(b testing.TB) (*World, *model.Cluster, catalog.Version) {
	var to catalog.Version
	w, c := bigCluster(b, func(in *api.Cluster) {
		from, v := benchVersions(b, New(Options{Seed: 1, Start: testStart}))
		to = v
		in.InitialClusterVersion = to.String()
		for _, p := range in.NodePools {
			p.Version = from.String()
			p.UpgradeSettings = &api.UpgradeSettings{MaxSurge: 20}
		}
	})
	if pending := schedule150k(b, w, c); pending != 0 {
		b.Fatalf("%d pods pending", pending)
	}
	return w, c, to
}

// BenchmarkBlueGreenUpgrade5000Nodes upgrades 5,000 nodes (five 1,000-node pools in one zone)
// running 50,000 pods blue-green: a green pool of 1,000 nodes each time, blue drained in
// batches of 20% with a minute of soak after each, ten minutes of pool soak, blue deleted.
func BenchmarkBlueGreenUpgrade5000Nodes(b *testing.B) {
	benchUpgrade(b, 5000, 50000, func() (*World, *model.Cluster, catalog.Version) { return blueGreenReadyCluster(b) })
}

// BenchmarkBlueGreenUpgrade5000NodesFollowed is BenchmarkBlueGreenUpgrade5000Nodes with a
// client following the cluster: every change rendered into its change feed for watches.
func BenchmarkBlueGreenUpgrade5000NodesFollowed(b *testing.B) {
	benchUpgradeFollowed(b, 5000, 50000, func() (*World, *model.Cluster, catalog.Version) { return blueGreenReadyCluster(b) })
}

// blueGreenReadyCluster is five 1,000-node blue-green pools in one zone running 50,000 pods on
// the older of two patches; it returns the newer patch.
func blueGreenReadyCluster(b testing.TB) (*World, *model.Cluster, catalog.Version) {
	w := benchWorld()
	from, to := benchVersions(b, w)
	pct := 0.2
	var pools []*api.NodePool
	for j := 0; j < 5; j++ {
		pools = append(pools, &api.NodePool{Name: fmt.Sprintf("pool-%d", j), InitialNodeCount: 1000, Version: from.String(),
			Config: &api.NodeConfig{MachineType: "e2-standard-8"},
			UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
				StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchPercentage: &pct, BatchSoakDuration: "60s"},
				NodePoolSoakDuration:  "600s"}}})
	}
	op, err := w.gke.CreateCluster("p", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "big", InitialClusterVersion: to.String(), NodePools: pools}})
	if err != nil {
		b.Fatal(err)
	}
	runUntilDone(b, w, op)
	c := w.core.Cluster("p", "us-central1-a", "big")
	for j := 0; j < 50; j++ {
		if _, err := w.kubeapi.CreateDeployment(c, "default", deployment(fmt.Sprintf("app-%02d", j), 1000, "250m")); err != nil {
			b.Fatal(err)
		}
	}
	w.RunUntil(w.engine.Now().Add(time.Minute))
	return w, c, to
}

// autoscaledBigCluster is 13,998 nodes (autoscaled pools, 1,000 max per zone) running 150,000
// pods, plus 1,000 pending pods of 6 CPUs that fit only on new nodes: the cluster has room for
// 1,002 more. Every node is under half used, so every node is a scale-down candidate.
func autoscaledBigCluster(b testing.TB, pending bool) (*World, *model.Cluster) {
	w, c := bigCluster(b, func(in *api.Cluster) {
		for i, p := range in.NodePools {
			if i == 4 {
				p.InitialNodeCount = 666
			}
			p.Autoscaling = &api.NodePoolAutoscaling{Enabled: true, MinNodeCount: 0, MaxNodeCount: 1000}
		}
	})
	if n := schedule150k(b, w, c); n != 0 {
		b.Fatalf("%d pods pending", n)
	}
	if pending {
		if _, err := w.kubeapi.CreateDeployment(c, "default", deployment("big-pods", 1000, "6")); err != nil {
			b.Fatal(err)
		}
		// Long enough for the scheduler to mark them unschedulable, too short for the
		// autoscaler's own pass (its period at this size is longer).
		w.RunUntil(w.engine.Now().Add(2 * time.Second))
	}
	return w, c
}

// BenchmarkAutoscalerPass15kNodes times one cluster-autoscaler pass over ~14,000 nodes and
// 150,000 pods with 1,000 pending pods: the scale-up simulation (which pool, which zones, how
// many nodes) and the scale-down evaluation of every node.
func BenchmarkAutoscalerPass15kNodes(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w, c := autoscaledBigCluster(b, true)
		before := len(c.Nodes)
		b.StartTimer()
		w.autoscaler.AutoscalerPass(c)
		b.StopTimer()
		if added := len(c.Nodes) - before; added != 1000 {
			b.Fatalf("scale-up added %d nodes for 1,000 pending 6-CPU pods, want 1000", added)
		}
		b.StartTimer()
	}
	b.ReportMetric(1000, "pending-pods/op")
}

// BenchmarkAutoscalerScaleDownEvaluation15kNodes times the scale-down half of a pass alone:
// every one of ~14,000 underused nodes checked for blockers and for room for its pods elsewhere.
func BenchmarkAutoscalerScaleDownEvaluation15kNodes(b *testing.B) {
	b.ReportAllocs()
	w, c := autoscaledBigCluster(b, false)
	roles := map[string]autoscaler.PoolRole{}
	for _, p := range c.Pools {
		roles[p.Name] = w.autoscaler.RoleOf(p)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Nothing has been unneeded for 10 minutes yet: the evaluation removes nothing and
		// can run again on the same cluster.
		w.autoscaler.ScaleDown(c, roles)
	}
	b.StopTimer()
	if len(c.Nodes) != 13998 {
		b.Fatalf("%d nodes after evaluation, want 13998 (none removed)", len(c.Nodes))
	}
	b.ReportMetric(float64(len(c.Nodes)), "nodes/op")
}

// podCountsAll counts running and pending pods that are not DaemonSet pods.
func podCountsAll(c *model.Cluster) (running, pending int) {
	for _, p := range c.Pods {
		switch {
		case p.OwnerKind == model.OwnerDaemonSet:
		case p.Node != "" && !p.Terminating:
			running++
		default:
			pending++
		}
	}
	return running, pending
}

// BenchmarkSurgeUpgradeScaling shows how a surge upgrade's cost grows with the cluster: the
// same shape as BenchmarkSurgeUpgrade15000Nodes (5 pools over 3 zones, 10 pods of 250m per
// node, maxSurge 20) at about 1,000, 5,000 and 15,000 nodes.
func BenchmarkSurgeUpgradeScaling(b *testing.B) {
	for _, perZone := range []int32{67, 333, 1000} {
		nodes := int(perZone) * 15
		b.Run(fmt.Sprintf("%dnodes", nodes), func(b *testing.B) {
			benchUpgrade(b, nodes, nodes/100*1000, func() (*World, *model.Cluster, catalog.Version) {
				var to catalog.Version
				w, c := bigCluster(b, func(in *api.Cluster) {
					from, v := benchVersions(b, New(Options{Seed: 1, Start: testStart}))
					to = v
					in.InitialClusterVersion = to.String()
					for _, p := range in.NodePools {
						p.InitialNodeCount = perZone
						p.Version = from.String()
						p.UpgradeSettings = &api.UpgradeSettings{MaxSurge: 20}
					}
				})
				for i := range nodes / 100 {
					if _, err := w.kubeapi.CreateDeployment(c, "default", deployment(fmt.Sprintf("app-%03d", i), 1000, "250m")); err != nil {
						b.Fatal(err)
					}
				}
				w.RunUntil(w.engine.Now().Add(30 * time.Second))
				return w, c, to
			})
		})
	}
}
