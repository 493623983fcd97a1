package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/rehearse"
)

// `gkesim forecast upgrade`: what a change of a node pool of the running emulator would do if
// it were asked for now, from a copy of the emulator's simulation (POST ...:forecast).

func newForecastCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "forecast",
		Short: "Forecast what a change would do to a cluster of the running emulator, from a copy of its simulation",
	}
	cmd.AddCommand(newForecastUpgradeCmd(g))
	return cmd
}

func newForecastUpgradeCmd(g *globals) *cobra.Command {
	var (
		cluster, pool, strategy, output string
		automatic                       bool
		where                           where
		update                          api.UpdateNodePoolRequest
		diskSize                        int64
		size                            int32
	)
	cmd := &cobra.Command{
		Use:   "upgrade --cluster C --location L --node-pool NP [--version V] [--machine-type M] [--strategy S]",
		Short: "Forecast a node-pool change: whether it recreates nodes, how long it takes, what holds it, what it costs",
		Long: `Forecast a change of a node pool of the running emulator: the emulator copies its simulation as
it is now and makes the change in the copy, on the virtual clock, so the emulator itself does not
change or wait. The report is a rehearsal's (see gkesim rehearse upgrade): whether the change
recreates the nodes and why, when it starts (a maintenance window's wait, with --automatic), the
duration per zone or phase, the drains PodDisruptionBudgets held, the pods forced out or left
Pending, the peak of extra VMs and the VM-hours. Making the same change in the emulator right
after does the same, to the second.

--strategy takes the same strategies as gkesim rehearse upgrade (default: the pool's own).`,
		Example: `  gkesim forecast upgrade --cluster shop --location europe-west1 --node-pool default-pool
  gkesim forecast upgrade --cluster shop --location europe-west1 --node-pool default-pool --machine-type e2-standard-8 --strategy surge:2/0
  gkesim forecast upgrade --cluster shop --location europe-west1 --node-pool default-pool --automatic --format json
  gkesim forecast upgrade --cluster shop --location europe-west1 --node-pool default-pool --num-nodes 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cluster == "" || pool == "" {
				return errors.New("name the pool: pass --cluster, --location and --node-pool")
			}
			loc, err := where.get()
			if err != nil {
				return err
			}
			if g.project == "" {
				return errors.New("no project: pass --project or set GKESIM_PROJECT")
			}
			if strategy != "" {
				s, err := rehearse.ParseStrategy(strategy)
				if err != nil {
					return err
				}
				update.UpgradeSettings = s.Settings
			}
			update.DiskSizeGb = api.Int64(diskSize)
			req := api.ForecastRequest{Automatic: automatic, Update: &update}
			switch {
			case cmd.Flags().Changed("num-nodes"):
				if update.NodeVersion != "" || update.MachineType != "" || update.ImageType != "" || update.DiskType != "" || diskSize != 0 || strategy != "" || automatic {
					return errors.New("--num-nodes forecasts a resize alone: leave out the version, node settings, strategy and --automatic")
				}
				req.Update, req.NodeCount = nil, &size
			case update.NodeVersion == "" && update.MachineType == "" && update.ImageType == "" && update.DiskType == "" && diskSize == 0:
				update.NodeVersion = "-" // nothing else changes: the upgrade to the control plane's version
			}
			var r rehearse.Report
			path := fmt.Sprintf("/emulator/v1/projects/%s/locations/%s/clusters/%s/nodePools/%s:forecast", g.project, loc, cluster, pool)
			if err := g.client().call("POST", path, nil, req, &r); err != nil {
				return err
			}
			return g.writeReportsTo(output, false, []*rehearse.Report{&r})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cluster, "cluster", "", "the cluster in the running emulator")
	where.flags(fl, "")
	fl.StringVar(&pool, "node-pool", "", "the node pool to change")
	fl.StringVar(&update.NodeVersion, "version", "", `the version to upgrade to ("-" for the control plane's; the default when nothing else changes)`)
	fl.StringVar(&update.MachineType, "machine-type", "", "the new machine type")
	fl.StringVar(&update.ImageType, "image-type", "", "the new node image type")
	fl.StringVar(&update.DiskType, "disk-type", "", "the new boot disk type")
	fl.Int64Var(&diskSize, "disk-size-gb", 0, "the new boot disk size")
	fl.Int32Var(&size, "num-nodes", 0, "forecast a resize of the pool to this many nodes per zone instead")
	fl.StringVar(&strategy, "strategy", "", "the upgrade strategy (default: the pool's own; see gkesim rehearse upgrade)")
	fl.BoolVar(&automatic, "automatic", false, "forecast GKE's auto-upgrade, which waits for the maintenance window and pauses when it closes (version only)")
	fl.StringVar(&output, "output", "", "write the report to this file")
	return cmd
}
