package sim

import (
	"os"
	"runtime/pprof"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
)

func TestZZProfileSurge(t *testing.T) {
	out := os.Getenv("PROF_OUT")
	if out == "" {
		t.Skip()
	}
	var to catalog.Version
	w, c := bigCluster(t, func(in *api.Cluster) {
		from, v := benchVersions(t, New(Options{Seed: 1, Start: testStart}))
		to = v
		in.InitialClusterVersion = to.String()
		for _, p := range in.NodePools {
			p.Version = from.String()
			p.UpgradeSettings = &api.UpgradeSettings{MaxSurge: 20}
		}
	})
	schedule150k(t, w, c)
	f, _ := os.Create(out)
	pprof.StartCPUProfile(f)
	for _, p := range c.Pools {
		op, err := w.UpdateNodePool(c.Project, c.Location, c.Name, p.Name, &api.UpdateNodePoolRequest{NodeVersion: to.String()})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100000 && op.Status != api.OpStatusDone; i++ {
			w.RunUntil(w.Now().Add(60e9))
		}
	}
	pprof.StopCPUProfile()
	f.Close()
}
