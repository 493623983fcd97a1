package engine

import "github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"

// EventPage returns copies of the entries after f.AfterSeq that match f, oldest first, looking
// at no more than scan entries of the log, and the seq to continue after (the last entry it
// looked at). more says entries remain after it. f.Limit is not used. An event-log follower
// pages through the log with it, so that one trip to the simulation goroutine stays short (a
// copy of at most scan entries) however long the log and however selective the filter; the
// follower renders and writes them off the simulation goroutine.
func (w *Engine) EventPage(f EventFilter, scan int) (entries []model.LogEntry, next int64, more bool) {
	log := &w.st.Log
	n := log.Len()
	start := f.start(log)
	end := min(n, start+max(scan, 1))
	next = f.AfterSeq
	for i := start; i < end; i++ {
		e, ok := f.matching(log, i)
		next = e.Seq
		if ok {
			entries = append(entries, e)
		}
	}
	return entries, next, end < n
}

// LastEventSeq is the seq of the newest entry of the event log (0 for none).
func (w *Engine) LastEventSeq() int64 { return w.st.Log.LastSeq }
