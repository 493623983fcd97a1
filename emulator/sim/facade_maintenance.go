package sim

import (
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The maintenance package's names, kept here for the server, the store and the rehearsals.

// UpgradeKinds is maintenance.UpgradeKinds (the same value).
var UpgradeKinds = maintenance.UpgradeKinds

// MaintenanceAllows: see maintenance.Maintenance.MaintenanceAllows.
func (w *World) MaintenanceAllows(c *model.Cluster, kind model.UpgradeKind, t time.Time) (bool, string) {
	return w.maintenance.MaintenanceAllows(c, kind, t)
}

// NextAllowed: see maintenance.Maintenance.NextAllowed.
func (w *World) NextAllowed(c *model.Cluster, kind model.UpgradeKind, from time.Time) time.Time {
	return w.maintenance.NextAllowed(c, kind, from)
}

// MaintenanceAllowedUntil: see maintenance.Maintenance.MaintenanceAllowedUntil.
func (w *World) MaintenanceAllowedUntil(c *model.Cluster, kind model.UpgradeKind, t time.Time) (end time.Time, ok bool) {
	return w.maintenance.MaintenanceAllowedUntil(c, kind, t)
}
