package sim

import (
	"encoding/json"
	"errors"
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
// (Copy, on the simulation goroutine) encodes the state, and copies the pods (model.Pod.Clone)
// and the event log (model.EventLog.Clone), most of it, as structs: far cheaper so. Building
// the world from it, the larger part, can run anywhere, so the live simulation waits only for
// the taking.
type Copied struct {
	// raw is the state as saved, without the clusters' pods and the event log.
	raw []byte
	// log is the event log's copy.
	log model.EventLog
	// pods are each cluster's pods, by cluster key: copies, which the world built from them
	// takes (so World may be called once).
	pods map[string]map[string]*model.Pod
	// recording says, per cluster, whether its change feed records (someone follows it).
	recording map[string]bool
}

// Copy takes the world's state as it is now (see Copied).
func (w *World) Copy() (*Copied, error) {
	st := *w.State()
	st.Log = model.EventLog{}
	st.Clusters = make(map[string]*model.Cluster, len(w.st.Clusters))
	s := &Copied{pods: map[string]map[string]*model.Pod{}, recording: map[string]bool{}}
	for key, c := range w.st.Clusters {
		bare := *c // shares c's maps while they are encoded, below: nothing changes them meanwhile
		bare.Pods = nil
		st.Clusters[key] = &bare
		s.pods[key] = clonePods(c.Pods)
		f := w.core.Feed(c)
		s.recording[key] = f == nil || f.Recording
	}
	raw, err := json.Marshal(&st)
	if err != nil {
		return nil, fmt.Errorf("copying the simulation: %w", err)
	}
	s.raw, s.log = raw, w.st.Log.Clone()
	return s, nil
}

// clonePods copies a cluster's pods (model.Pod.Clone).
func clonePods(pods map[string]*model.Pod) map[string]*model.Pod {
	out := make(map[string]*model.Pod, len(pods))
	for key, p := range pods {
		out[key] = p.Clone()
	}
	return out
}

// World builds a new world from the copied state. Its feeds record as the original's did, and
// keep doing so unless told otherwise (a forecast stops them: no client watches it). The world
// takes the copied pods: a second call is refused.
func (s *Copied) World() (*World, error) {
	if s.pods == nil {
		return nil, errors.New("copying the simulation: this copy was already made into a world")
	}
	var st model.State
	if err := json.Unmarshal(s.raw, &st); err != nil {
		return nil, fmt.Errorf("copying the simulation: %w", err)
	}
	for key, c := range st.Clusters {
		c.Pods = s.pods[key]
	}
	st.Log, s.pods = s.log, nil
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
