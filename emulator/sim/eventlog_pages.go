package sim

// EventPage: see engine.Engine.EventPage.
func (w *World) EventPage(f EventFilter, scan int) (entries []LogEntry, next int64, more bool) {
	return w.engine.EventPage(f, scan)
}

// LastEventSeq: see engine.Engine.LastEventSeq.
func (w *World) LastEventSeq() int64 { return w.engine.LastEventSeq() }
