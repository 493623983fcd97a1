package sim

import (
	"encoding/json"
	"fmt"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Fork copies the world into a new one that goes on exactly as this one would: the restore of
// its saved state, without the disk (TestRestoredWorldContinuesIdentically holds it to that). A
// forecast runs a change in the copy; nothing done there touches this world.
func (w *World) Fork() (*World, error) {
	raw, err := json.Marshal(w.State())
	if err != nil {
		return nil, fmt.Errorf("copying the simulation: %w", err)
	}
	var st model.State
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("copying the simulation: %w", err)
	}
	fork, err := Restore(&st)
	if err != nil {
		return nil, err
	}
	// The copy's feeds record as this world's do now, and keep doing so (no client will come
	// or go): a feed starting or stopping is a difference the two worlds must not have.
	recording := map[string]bool{}
	for key, c := range w.st.Clusters {
		f := w.core.Feed(c)
		recording[key] = f == nil || f.Recording
		if fc := fork.st.Clusters[key]; !recording[key] && fc != nil {
			if ff := fork.core.Feed(fc); ff != nil && ff.Recording {
				ff.StopRecording(fc.RV)
			}
		}
	}
	fork.SetFeedFollowed(func(key string) bool { return recording[key] })
	return fork, nil
}
