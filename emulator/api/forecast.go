package api

// ForecastRequest asks what a change of a node pool would do if it were asked for now: POST
// /emulator/v1/projects/P/locations/L/clusters/C/nodePools/NP:forecast (gkesim's own, not
// GKE's). The answer is a rehearsal report (gkesim rehearse upgrade --format json prints the
// same shape) from a copy of the simulation; nothing changes in the emulator.
type ForecastRequest struct {
	// Update is the change as an update of the node pool sends it: nodeVersion ("-" for the
	// control plane's), machineType, imageType, diskType, diskSizeGb, upgradeSettings.
	Update *UpdateNodePoolRequest `json:"update,omitempty"`
	// Automatic forecasts GKE's node auto-upgrade to update.nodeVersion (the control plane's
	// version when empty) instead, which waits for the maintenance window and pauses when it
	// closes; it changes the version only.
	Automatic bool `json:"automatic,omitempty"`
	// NodeCount (nodes per zone, as setSize takes it) or Autoscaling (as setAutoscaling takes
	// it) forecast a change of the pool's size instead: no node is recreated, nodes are added
	// or drained. One change per forecast.
	NodeCount   *int32               `json:"nodeCount,omitempty"`
	Autoscaling *NodePoolAutoscaling `json:"autoscaling,omitempty"`
}
