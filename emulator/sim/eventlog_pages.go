package sim

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// EventPage returns the entries after f.AfterSeq that match f, oldest first, looking at no
// more than scan entries of the log, and the seq to continue after (the last entry it looked
// at). more says entries remain after it. f.Limit is not used. An event-log follower pages
// through the log with it, so that one trip to the simulation goroutine stays short however
// long the log and however selective the filter.
func (w *World) EventPage(f EventFilter, scan int) (evs []*api.Event, next int64, more bool) {
	log := &w.st.Log
	n := log.Len()
	start := 0
	if n > 0 && f.AfterSeq >= log.At(0).Seq {
		start = min(int(f.AfterSeq-log.At(0).Seq)+1, n)
	}
	end := min(n, start+max(scan, 1))
	next = f.AfterSeq
	for i := start; i < end; i++ {
		e := log.At(i)
		next = e.Seq
		if !f.match(e) {
			continue
		}
		evs = append(evs, &api.Event{
			Seq: e.Seq, Time: e.Time.Format(time.RFC3339), Type: e.Type, Cluster: e.Cluster,
			NodePool: e.Pool, Node: e.Node, Operation: e.Op, Message: e.Message,
		})
	}
	return evs, next, end < n
}

// LastEventSeq is the seq of the newest entry of the event log (0 for none).
func (w *World) LastEventSeq() int64 { return w.st.Log.LastSeq }
