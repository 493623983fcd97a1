package views

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
)

// MaintenanceSchedule answers, for a cluster at the current emulated time, its next n open
// windows and, per upgrade kind, whether it may run now, what blocks it and when it next may.
func (w *Views) MaintenanceSchedule(project, location, name string, n int) (*api.MaintenanceSchedule, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	now := w.st.Now
	out := &api.MaintenanceSchedule{Now: now.Format(time.RFC3339), ResourceVersion: c.PolicyVersion,
		Windows: []*api.ScheduleWindow{}}
	for _, s := range w.maintenance.OpenWindows(c, now, n) {
		sw := &api.ScheduleWindow{StartTime: s.Start.Format(time.RFC3339)}
		if !s.End.IsZero() {
			sw.EndTime = s.End.Format(time.RFC3339)
		}
		out.Windows = append(out.Windows, sw)
	}
	for _, k := range maintenance.UpgradeKinds {
		su := &api.ScheduleUpgrade{Kind: string(k)}
		su.AllowedNow, su.Reason = w.maintenance.MaintenanceAllows(c, k, now)
		su.BlockedBy, _ = w.maintenance.BlockingExclusions(c, k, now)
		if next := w.maintenance.NextAllowed(c, k, now); !next.IsZero() {
			su.NextAllowedTime = next.Format(time.RFC3339)
		}
		out.Upgrades = append(out.Upgrades, su)
	}
	if v, ok := catalog.ParseVersion(c.MasterVersion); ok {
		s := catalog.ScheduleOf(v.Minor)
		out.EndOfStandardSupport = s.EndOfStandard.Format(time.RFC3339)
		out.EndOfExtendedSupport = s.EndOfExtended.Format(time.RFC3339)
	}
	return out, nil
}
