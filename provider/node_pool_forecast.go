package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

// Forecasts of node-pool changes (issue 28): the emulator answers what a change would do if it
// were asked for now, from a copy of its simulation (client.ForecastNodePool). gkesim_node_pool's
// plan warns with the forecast of a change that recreates nodes (or changes the upgrade settings
// of a running upgrade); data.gkesim_node_pool_upgrade_forecast gives the numbers for checks.

// forecastTimeout bounds one forecast: the emulator runs the change to its end on a copy.
const forecastTimeout = 2 * time.Minute

// withUpgradeSettings adds the planned upgrade settings to u as an update sends them: the pool's
// current settings with the planned values on top (expandUpgradeSettings).
func withUpgradeSettings(ctx context.Context, c *client.Client, pool string, u *container.UpdateNodePoolRequest, us []upgradeSettingsModel) error {
	if len(us) == 0 {
		return nil
	}
	current, err := c.GKE.Projects.Locations.Clusters.NodePools.Get(pool).Context(ctx).Do()
	if err != nil {
		return fmt.Errorf("reading %s: %s", pool, client.Message(err))
	}
	u.UpgradeSettings = expandUpgradeSettings(us[0], current.UpgradeSettings)
	return nil
}

// warnForecast is the part of gkesim_node_pool's ModifyPlan that forecasts the planned change and
// warns with its headline. It never fails the plan: values not known yet give nothing, and a
// forecast that cannot be had gives a one-line warning.
func warnForecast(ctx context.Context, d *providerData, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if d == nil || req.State.Raw.IsNull() || resp.Plan.Raw.IsNull() {
		return
	}
	var plan, state nodePoolModel
	if resp.Plan.Get(ctx, &plan).HasError() || req.State.Get(ctx, &state).HasError() {
		return // a node_config block not known yet
	}
	if plan.Version.IsUnknown() || plan.Cluster.IsUnknown() {
		return
	}
	if len(plan.NodeConfig) > 0 {
		nc := plan.NodeConfig[0]
		if nc.MachineType.IsUnknown() || nc.ImageType.IsUnknown() || nc.DiskType.IsUnknown() || nc.DiskSizeGb.IsUnknown() {
			return
		}
	}
	var planUS, stateUS types.List
	if resp.Plan.GetAttribute(ctx, path.Root("upgrade_settings"), &planUS).HasError() ||
		req.State.GetAttribute(ctx, path.Root("upgrade_settings"), &stateUS).HasError() {
		return
	}
	if tv, err := planUS.ToTerraformValue(ctx); err != nil || !tv.IsFullyKnown() {
		return
	}
	u, what := nodeSpecChanges(plan, state)
	settingsChange := len(plan.UpgradeSettings) > 0 && !planUS.Equal(stateUS)
	if len(what) == 0 && !settingsChange {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, forecastTimeout)
	defer cancel()
	c := d.client
	project, location, pool := state.Project.ValueString(), state.Location.ValueString(), state.Name.ValueString()
	_, _, cluster := clusterRef(state.Cluster.ValueString())
	warn := func(format string, args ...any) {
		resp.Diagnostics.AddWarning("Forecast (gkesim) not available", fmt.Sprintf("Forecast (gkesim): "+format, args...))
	}
	if len(what) == 0 {
		// Settings alone recreate no node: worth a forecast only while an upgrade runs, whose rest
		// they change.
		ops, err := c.UpgradeOperations(ctx, project, location, cluster, pool)
		if err != nil {
			warn("%s", err)
			return
		}
		running := false
		for _, op := range ops {
			running = running || client.Running(op)
		}
		if !running {
			return
		}
	}
	if settingsChange {
		if err := withUpgradeSettings(ctx, c, state.ID.ValueString(), u, plan.UpgradeSettings); err != nil {
			warn("%s", err)
			return
		}
	}
	f, err := c.ForecastNodePool(ctx, project, location, cluster, pool, client.ForecastRequest{Update: u})
	if err != nil {
		warn("could not forecast the change of %s: %s", pool, oneLine(client.Message(err)))
		return
	}
	resp.Diagnostics.AddWarning("Forecast (gkesim) of the change to node pool "+pool, forecastHeadline(f))
}

// oneLine keeps the first line of a message.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// forecastHeadline says in one paragraph what a forecast change does: "Forecast (gkesim):
// recreating N nodes (reasons) with STRATEGY takes DURATION[, starting at T after waiting for
// the maintenance window]; X drains held by PDBs (longest Y by NAME); Z pods forced at the
// 1-hour timeout; P pods left Pending; peak +E VMs (V VM-hours)".
func forecastHeadline(f *client.Forecast) string {
	reasons := strings.Join(f.Reasons, "; ")
	if !f.RecreatesNodes {
		return fmt.Sprintf("Forecast (gkesim): the change recreates no node (%s).", reasons)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Forecast (gkesim): recreating %d %s (%s) with %s ", f.Nodes, plural(f.Nodes, "node", "nodes"), reasons, f.Strategy)
	if f.Finished {
		fmt.Fprintf(&b, "takes %s", humanSeconds(f.DurationSeconds))
	} else {
		fmt.Fprintf(&b, "takes more than %s (not finished when the forecast stopped)", humanSeconds(f.DurationSeconds))
	}
	if w := f.Wait(); w > 0 {
		fmt.Fprintf(&b, ", starting at %s after waiting %s for the maintenance window", f.Started.Format(time.RFC3339), humanSeconds(w.Seconds()))
	}
	held := f.HeldDrains()
	if held == 0 {
		b.WriteString("; no drain held by a PDB")
	} else {
		pdb, longest := f.LongestHold()
		fmt.Fprintf(&b, "; %d %s held by PDBs (longest %s by %s)", held, plural(held, "drain", "drains"), humanSeconds(longest), pdb)
	}
	forced, left := f.ForcedAtTimeout(), len(f.LeftPending)
	fmt.Fprintf(&b, "; %d %s forced at the 1-hour timeout; %d %s left Pending; peak +%d %s (%.1f VM-hours)",
		forced, plural(forced, "pod", "pods"), left, plural(left, "pod", "pods"), f.VMs.PeakExtra, plural(f.VMs.PeakExtra, "VM", "VMs"), f.VMs.VMHours)
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// humanSeconds writes seconds as 1h5m, 12m30s, 45s.
func humanSeconds(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	h, m, sec := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var parts []string
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%dh", h))
	}
	if m > 0 {
		parts = append(parts, fmt.Sprintf("%dm", m))
	}
	if sec > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%ds", sec))
	}
	return strings.Join(parts, "")
}
