package sim

import (
	"fmt"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

func TestZZProfileBG(t *testing.T) {
	out := os.Getenv("PROF_OUT")
	if out == "" {
		t.Skip()
	}
	w := New(Options{Seed: 1, Start: testStart})
	from, to := benchVersions(t, w)
	pct := 0.2
	var pools []*api.NodePool
	for j := 0; j < 5; j++ {
		pools = append(pools, &api.NodePool{Name: fmt.Sprintf("pool-%d", j), InitialNodeCount: 1000, Version: from.String(),
			Config: &api.NodeConfig{MachineType: "e2-standard-8"},
			UpgradeSettings: &api.UpgradeSettings{Strategy: api.StrategyBlueGreen, BlueGreenSettings: &api.BlueGreenSettings{
				StandardRolloutPolicy: &api.StandardRolloutPolicy{BatchPercentage: &pct, BatchSoakDuration: "60s"},
				NodePoolSoakDuration:  "600s"}}})
	}
	op, _ := w.CreateCluster("p", "us-central1-a", &api.CreateClusterRequest{Cluster: &api.Cluster{
		Name: "big", InitialClusterVersion: to.String(), NodePools: pools}})
	runUntilDone(t, w, op)
	c := w.Cluster("p", "us-central1-a", "big")
	for j := 0; j < 50; j++ {
		w.CreateDeployment(c, "default", deployment(fmt.Sprintf("app-%02d", j), 1000, "250m"))
	}
	w.RunUntil(w.Now().Add(time.Minute))
	f, _ := os.Create(out)
	pprof.StartCPUProfile(f)
	upgradeEachPool(t, w, c, to.String())
	pprof.StopCPUProfile()
	f.Close()
}

func TestZZProfileAutoscaler(t *testing.T) {
	out := os.Getenv("PROF_OUT")
	if out == "" {
		t.Skip()
	}
	w, c := autoscaledBigCluster(t, true)
	before := len(c.Nodes)
	f, _ := os.Create(out)
	pprof.StartCPUProfile(f)
	start := time.Now()
	w.autoscalerPass(c)
	took := time.Since(start)
	pprof.StopCPUProfile()
	f.Close()
	t.Logf("pass took %s, added %d", took, len(c.Nodes)-before)
}
