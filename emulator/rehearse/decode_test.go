package rehearse

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/clusterimport"
)

// The benchmarks' snapshot (bigSnapshot) imports, its pods and nodes decoded into what the
// import reads of them, into the world the decoding of every field gives: the same saved state,
// byte for byte.
func TestBigSnapshotDecodesLightly(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 30,000 pods twice")
	}
	req := bigSnapshot(t)
	saved := func(read func(*api.ImportClusterRequest) (*sim.Snapshot, error)) []byte {
		s, err := read(req)
		if err != nil {
			t.Fatal(err)
		}
		w := sim.New(sim.Options{Seed: 1, Start: s.Time()})
		if _, err := w.ImportSnapshot("", "", s); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(w.State())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	light, full := saved(clusterimport.ReadSnapshot), saved(clusterimport.ReadSnapshotInFull)
	if !bytes.Equal(light, full) {
		i := 0
		for i < min(len(light), len(full)) && light[i] == full[i] {
			i++
		}
		t.Errorf("the saved states differ from byte %d: %.200s\nagainst %.200s", i, light[i:], full[i:])
	}
}
