package sim

import (
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// The aggregate views at GKE's limit: a 15,000-node cluster running 150,000 pods whose first
// 3,000-node pool has been surge-upgraded (maxSurge 20) and whose second is in the middle of
// its upgrade, so the event log is full (hundreds of thousands of entries). Each view is one
// call on the simulation goroutine; these say how long it holds the simulation (the web
// console asks for a view at most about once a second while events flow).
func BenchmarkConsoleViews15000(b *testing.B) {
	w, c, to := surgeReadyBigCluster(b)
	op, err := w.gke.UpdateNodePool(c.Project, c.Location, c.Name, "pool-0", &api.UpdateNodePoolRequest{NodeVersion: to.String()})
	if err != nil {
		b.Fatal(err)
	}
	runUntilDone(b, w, op)
	if _, err := w.gke.UpdateNodePool(c.Project, c.Location, c.Name, "pool-1", &api.UpdateNodePoolRequest{NodeVersion: to.String()}); err != nil {
		b.Fatal(err)
	}
	w.RunUntil(w.engine.Now().Add(time.Hour))
	b.Logf("%d nodes, %d pods, %d log entries", len(c.Nodes), len(c.Pods), w.st.Log.Len())
	b.Run("clusters", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.views.ClusterSummaries()
		}
	})
	b.Run("nodeSummary", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.views.ClusterNodeSummary(c.Project, c.Location, c.Name); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("timeline-3000-node-surge", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.views.OperationTimeline(c.Project, c.Location, op.ID, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("autoscaler-24h", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.views.AutoscalerHistory(c.Project, c.Location, c.Name, time.Time{}, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	tl, _ := w.views.OperationTimeline(c.Project, c.Location, op.ID, 0)
	b.Logf("timeline of the finished upgrade: %d rows (%d omitted over the limit)", len(tl.Nodes), tl.NodesOmitted)
}
