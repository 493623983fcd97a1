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
	s, err := w.Copy()
	if err != nil {
		return nil, err
	}
	return s.World()
}

// Copied is a world's state taken at one instant, from which World builds the copy. Taking it
// (Copy, on the simulation goroutine) only encodes the state; building the world from it, the
// larger part, can run anywhere, so the live simulation waits only for the encoding.
type Copied struct {
	raw []byte
	// recording says, per cluster, whether its change feed records (someone follows it).
	recording map[string]bool
}

// Copy takes the world's state as it is now (see Copied).
func (w *World) Copy() (*Copied, error) {
	raw, err := json.Marshal(w.State())
	if err != nil {
		return nil, fmt.Errorf("copying the simulation: %w", err)
	}
	recording := map[string]bool{}
	for key, c := range w.st.Clusters {
		f := w.core.Feed(c)
		recording[key] = f == nil || f.Recording
	}
	return &Copied{raw: raw, recording: recording}, nil
}

// World builds a new world from the copied state. Its feeds record as the original's did, and
// keep doing so (no client will come or go).
func (s *Copied) World() (*World, error) {
	var st model.State
	if err := json.Unmarshal(s.raw, &st); err != nil {
		return nil, fmt.Errorf("copying the simulation: %w", err)
	}
	fork, err := Restore(&st)
	if err != nil {
		return nil, err
	}
	for key, c := range fork.st.Clusters {
		if f := fork.core.Feed(c); !s.recording[key] && f != nil && f.Recording {
			f.StopRecording(c.RV)
		}
	}
	fork.SetFeedFollowed(func(key string) bool { return s.recording[key] })
	return fork, nil
}
