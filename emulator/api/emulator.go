package api

// Emulator control objects served under /emulator/v1 (not part of GKE).

// Clock is the answer of GET /emulator/v1/clock and POST /emulator/v1/clock:advance.
type Clock struct {
	// Now is the emulated time, RFC 3339.
	Now string `json:"now"`
	// TimeScale is the number of emulated seconds per wall second; 0 means frozen.
	TimeScale float64 `json:"timeScale"`
	// PendingEvents is the number of scheduled simulation steps not yet run.
	PendingEvents int `json:"pendingEvents"`
	// NextEventTime is when the next scheduled step is due, RFC 3339, if any.
	NextEventTime string `json:"nextEventTime,omitempty"`
}

// AdvanceClockRequest is the body of POST /emulator/v1/clock:advance.
type AdvanceClockRequest struct {
	// Duration in the proto Duration form ("3600s") or a Go duration ("1h30m").
	Duration string `json:"duration"`
}

// SetClockRequest is the body of PATCH /emulator/v1/clock.
type SetClockRequest struct {
	TimeScale *float64 `json:"timeScale,omitempty"`
}

// Event is one entry of the simulation's event log.
type Event struct {
	Seq       int64  `json:"seq"`
	Time      string `json:"time"`
	Type      string `json:"type"`
	Cluster   string `json:"cluster,omitempty"`
	NodePool  string `json:"nodePool,omitempty"`
	Node      string `json:"node,omitempty"`
	Operation string `json:"operation,omitempty"`
	Message   string `json:"message"`
}

type ListEventsResponse struct {
	Events []*Event `json:"events"`
	// NextSeq is the seq to pass as ?afterSeq= to read only newer events.
	NextSeq int64 `json:"nextSeq"`
}
