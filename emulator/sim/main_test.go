package sim

import (
	"os"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// TestMain runs the simulation's tests with a cluster's map of pods built anew whenever as
// many pods have left it as it holds (core.CompactPodsMin), not only after 1,024: the golden
// traces, the restore and determinism tests then check, byte for byte, that the rebuilds
// change nothing. Every pod event also checks that its handle finds the pod its key finds
// (model.CheckHandles).
func TestMain(m *testing.M) {
	core.CompactPodsMin = 1
	model.CheckHandles = true
	os.Exit(m.Run())
}
