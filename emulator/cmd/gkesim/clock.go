package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

func newClockCmd(g *globals) *cobra.Command {
	show := func(c *api.Clock) error {
		if g.format == "json" || g.format == "yaml" {
			return g.print(c)
		}
		scale := fmt.Sprintf("%gx", c.TimeScale)
		if c.TimeScale == 0 {
			scale = "frozen"
		}
		fmt.Fprintf(g.out, "now:            %s\ntime scale:     %s\npending events: %d\n", c.Now, scale, c.PendingEvents)
		if c.NextEventTime != "" {
			fmt.Fprintf(g.out, "next event:     %s\n", c.NextEventTime)
		}
		return nil
	}
	cmd := &cobra.Command{
		Use:   "clock",
		Short: "Show the emulator's virtual clock",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			var c api.Clock
			if err := g.client().call("GET", "/emulator/v1/clock", nil, nil, &c); err != nil {
				return err
			}
			return show(&c)
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "advance DURATION",
		Short:   "Run everything due within DURATION of emulated time (e.g. 2h, 90m, 3600s), then return",
		Example: "  gkesim clock advance 2h",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			var c api.Clock
			if err := g.client().call("POST", "/emulator/v1/clock:advance", nil, &api.AdvanceClockRequest{Duration: args[0]}, &c); err != nil {
				return err
			}
			return show(&c)
		},
	}, &cobra.Command{
		Use:   "set-scale SCALE",
		Short: "Set emulated seconds per wall second (0 freezes the clock)",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := strconv.ParseFloat(args[0], 64)
			if err != nil {
				return fmt.Errorf("scale %q is not a number", args[0])
			}
			var c api.Clock
			if err := g.client().call("PATCH", "/emulator/v1/clock", nil, &api.SetClockRequest{TimeScale: &s}, &c); err != nil {
				return err
			}
			return show(&c)
		},
	})
	return cmd
}
