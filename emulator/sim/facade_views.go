package sim

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/views"
)

// What moved out of this package keeps its name here for the server, the store and the rehearsals.

// MaintenanceSchedule: see views.Views.MaintenanceSchedule.
func (w *World) MaintenanceSchedule(project string, location string, name string, n int) (*api.MaintenanceSchedule, error) {
	return w.views.MaintenanceSchedule(project, location, name, n)
}

const DefaultCalendarDays = views.DefaultCalendarDays
const MaxCalendarDays = views.MaxCalendarDays

// MaintenanceCalendar: see views.Views.MaintenanceCalendar.
func (w *World) MaintenanceCalendar(project string, location string, name string, days int) (*api.MaintenanceCalendar, error) {
	return w.views.MaintenanceCalendar(project, location, name, days)
}

// ClusterSummaries: see views.Views.ClusterSummaries.
func (w *World) ClusterSummaries() *api.ClusterSummaryList { return w.views.ClusterSummaries() }

// ClusterNodeSummary: see views.Views.ClusterNodeSummary.
func (w *World) ClusterNodeSummary(project string, location string, name string) (*api.ClusterNodes, error) {
	return w.views.ClusterNodeSummary(project, location, name)
}

const DefaultHistory = views.DefaultHistory
const DefaultDecisions = views.DefaultDecisions
const MaxDecisions = views.MaxDecisions

// AutoscalerHistory: see views.Views.AutoscalerHistory.
func (w *World) AutoscalerHistory(project string, location string, name string, since time.Time, maxDecisions int) (*api.AutoscalerView, error) {
	return w.views.AutoscalerHistory(project, location, name, since, maxDecisions)
}

// LoadBalancerHistory: see views.Views.LoadBalancerHistory.
func (w *World) LoadBalancerHistory(project string, location string, name string, since time.Time) (*api.LoadBalancerHistory, error) {
	return w.views.LoadBalancerHistory(project, location, name, since)
}

const DefaultTimelineNodes = views.DefaultTimelineNodes
const MaxTimelineNodes = views.MaxTimelineNodes

// OperationTimeline: see views.Views.OperationTimeline.
func (w *World) OperationTimeline(project string, location string, id string, maxNodes int) (*api.OperationTimeline, error) {
	return w.views.OperationTimeline(project, location, id, maxNodes)
}
