package autoscaler

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// TestScaleDownOrderMatchesNameCompare checks that the scale-down candidates' sort keys
// (sortDownCands) give the order the pass has always used: empty nodes first, then by
// utilisation (cmp.Compare: NaN first, -0 and +0 alike), then by name (strings.Compare),
// with names that share long prefixes, run past 40 bytes, or hold NUL bytes.
func TestScaleDownOrderMatchesNameCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	utils := []float64{math.NaN(), math.Copysign(0, -1), 0, 0.1, 0.25, 0.25, 0.49, math.Inf(-1), -0.3}
	prefixes := []string{"", "gke-big-pool-0-1a2b3c4d-", "gke-big-pool-1-1a2b3c4d-", "gke-a-very-long-cluster-name-pool-12345678-", "a\x00", "a"}
	for round := 0; round < 50; round++ {
		seen := map[string]bool{}
		var cands []downCand
		var keys []downKey
		for len(cands) < 300 {
			name := prefixes[rng.IntN(len(prefixes))]
			for k := rng.IntN(6); k > 0; k-- {
				name += string("ab\x00z9-"[rng.IntN(6)])
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			u, pods := utils[rng.IntN(len(utils))], rng.IntN(3)
			cands = append(cands, downCand{n: &model.Node{Name: name}, name: name, util: u, pods: pods})
			keys = append(keys, downKey{util: floatOrder(u), name: nameWords(name), busy: pods != 0})
		}
		want := slices.Clone(cands)
		slices.SortFunc(want, func(a, b downCand) int {
			if (a.pods == 0) != (b.pods == 0) {
				if a.pods == 0 {
					return -1
				}
				return 1
			}
			if c := cmp.Compare(a.util, b.util); c != 0 {
				return c
			}
			return strings.Compare(a.n.Name, b.n.Name)
		})
		for i, j := range sortDownCands(cands, keys) {
			if got := cands[j]; got.name != want[i].name {
				t.Fatalf("round %d, place %d: %s, want %s", round, i, describe(got), describe(want[i]))
			}
		}
	}
}

func describe(c downCand) string { return fmt.Sprintf("%q (util %v, %d pods)", c.name, c.util, c.pods) }
