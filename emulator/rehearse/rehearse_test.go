package rehearse

import (
	"os"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// shopSnapshot reads the fixtures: emulator/testdata/snapshot/shop-cluster.json as gcloud prints the cluster and
// shop-objects.json as kubectl prints its objects.
func shopSnapshot(t testing.TB) *sim.Snapshot {
	t.Helper()
	cj, err := os.ReadFile("../testdata/snapshot/shop-cluster.json")
	if err != nil {
		t.Fatal(err)
	}
	oj, err := os.ReadFile("../testdata/snapshot/shop-objects.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.ReadSnapshot(&api.ImportClusterRequest{Cluster: cj, Objects: oj})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScratch(t *testing.T) {
	r, err := Run(shopSnapshot(t), Options{Pool: "default-pool", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.WriteText(os.Stdout)
}

func TestScratchCompare(t *testing.T) {
	var ss []Strategy
	for _, s := range []string{"pool", "surge:3/0", "surge:0/2", "blue-green:25%"} {
		st, err := ParseStrategy(s)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, st)
	}
	rs, err := Compare(shopSnapshot(t), Options{Pool: "default-pool", Seed: 1}, ss)
	if err != nil {
		t.Fatal(err)
	}
	WriteComparison(os.Stdout, rs)
	rs[3].WriteText(os.Stdout)
	r, err := Run(shopSnapshot(t), Options{Pool: "default-pool", Seed: 1, Automatic: true})
	if err != nil {
		t.Fatal(err)
	}
	r.WriteText(os.Stdout)
	r, err = Run(shopSnapshot(t), Options{Pool: "db-pool", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.WriteText(os.Stdout)
}

func TestScratchHTML(t *testing.T) {
	var ss []Strategy
	for _, s := range []string{"pool", "surge:3/0", "blue-green:25%"} {
		st, _ := ParseStrategy(s)
		ss = append(ss, st)
	}
	rs, err := Compare(shopSnapshot(t), Options{Pool: "default-pool", Seed: 1}, ss)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create("/tmp/rh/compare.html")
	if err := WriteHTML(f, rs...); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
