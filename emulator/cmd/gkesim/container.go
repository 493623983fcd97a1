package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// gcloud-shaped `container` commands against a running emulator.

// where holds the --location/--zone/--region flags (gcloud spells the location three ways).
type where struct {
	location, zone, region string
}

func (w *where) flags(fs *pflag.FlagSet, def string) {
	fs.StringVar(&w.location, "location", def, "the cluster's region or zone")
	fs.StringVar(&w.zone, "zone", "", "the cluster's zone (same as --location)")
	fs.StringVar(&w.region, "region", "", "the cluster's region (same as --location)")
}

func (w *where) get() (string, error) {
	for _, v := range []string{w.location, w.zone, w.region} {
		if v != "" {
			return v, nil
		}
	}
	return "", errors.New("no location: pass --location (a region such as us-central1 or a zone such as us-central1-a)")
}

func (g *globals) projectPath(loc string) (string, error) {
	if g.project == "" {
		return "", errors.New("no project: pass --project or set GKESIM_PROJECT")
	}
	return "/v1/projects/" + g.project + "/locations/" + loc, nil
}

func (g *globals) table(header string, rows [][]string) {
	tw := tabwriter.NewWriter(g.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func newContainerCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "container", Short: "GKE resources, shaped like `gcloud container`"}
	cmd.AddCommand(newClustersCmd(g), newNodePoolsCmd(g), newOperationsCmd(g))
	return cmd
}

func newClustersCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "clusters", Short: "List and describe clusters, and write kubeconfig entries for them"}
	var lw, dw where
	list := &cobra.Command{
		Use: "list", Short: "List clusters", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			loc, _ := lw.get()
			base, err := g.projectPath(loc)
			if err != nil {
				return err
			}
			var resp api.ListClustersResponse
			if err := g.client().call("GET", base+"/clusters", nil, nil, &resp); err != nil {
				return err
			}
			if g.format == "json" || g.format == "yaml" {
				return g.print(&resp)
			}
			var rows [][]string
			for _, c := range resp.Clusters {
				mt := ""
				if c.NodeConfig != nil {
					mt = c.NodeConfig.MachineType
				}
				rows = append(rows, []string{c.Name, c.Location, c.CurrentMasterVersion, mt, c.CurrentNodeVersion, strconv.Itoa(int(c.CurrentNodeCount)), c.Status})
			}
			g.table("NAME\tLOCATION\tMASTER_VERSION\tMACHINE_TYPE\tNODE_VERSION\tNUM_NODES\tSTATUS", rows)
			return nil
		},
	}
	lw.flags(list.Flags(), "-")
	describe := &cobra.Command{
		Use: "describe NAME", Short: "Describe a cluster", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			loc, err := dw.get()
			if err != nil {
				return err
			}
			base, err := g.projectPath(loc)
			if err != nil {
				return err
			}
			var c api.Cluster
			if err := g.client().call("GET", base+"/clusters/"+args[0], nil, nil, &c); err != nil {
				return err
			}
			return g.print(&c)
		},
	}
	dw.flags(describe.Flags(), "")
	cmd.AddCommand(list, describe, newGetCredentialsCmd(g))
	return cmd
}

func newNodePoolsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "node-pools", Short: "List and describe node pools, follow, roll back and complete their upgrades"}
	var lw, dw where
	var lcluster, dcluster string
	list := &cobra.Command{
		Use: "list", Short: "List the node pools of a cluster", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			loc, err := lw.get()
			if err != nil {
				return err
			}
			base, err := g.projectPath(loc)
			if err != nil {
				return err
			}
			var resp api.ListNodePoolsResponse
			if err := g.client().call("GET", base+"/clusters/"+lcluster+"/nodePools", nil, nil, &resp); err != nil {
				return err
			}
			if g.format == "json" || g.format == "yaml" {
				return g.print(&resp)
			}
			var rows [][]string
			for _, p := range resp.NodePools {
				rows = append(rows, []string{p.Name, p.Config.MachineType, strconv.Itoa(int(p.Config.DiskSizeGb)), p.Version, p.Status})
			}
			g.table("NAME\tMACHINE_TYPE\tDISK_SIZE_GB\tNODE_VERSION\tSTATUS", rows)
			return nil
		},
	}
	lw.flags(list.Flags(), "")
	list.Flags().StringVar(&lcluster, "cluster", "", "the cluster")
	list.MarkFlagRequired("cluster")
	describe := &cobra.Command{
		Use: "describe NAME", Short: "Describe a node pool", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			loc, err := dw.get()
			if err != nil {
				return err
			}
			base, err := g.projectPath(loc)
			if err != nil {
				return err
			}
			var p api.NodePool
			if err := g.client().call("GET", base+"/clusters/"+dcluster+"/nodePools/"+args[0], nil, nil, &p); err != nil {
				return err
			}
			return g.print(&p)
		},
	}
	dw.flags(describe.Flags(), "")
	describe.Flags().StringVar(&dcluster, "cluster", "", "the cluster")
	describe.MarkFlagRequired("cluster")
	cmd.AddCommand(list, describe, newRollbackCmd(g), newCompleteUpgradeCmd(g), newUpgradeStatusCmd(g))
	return cmd
}

func newOperationsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "operations", Short: "List, describe, wait for and cancel operations"}
	var lw, dw, cw, ww where
	list := &cobra.Command{
		Use: "list", Short: "List operations", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			loc, _ := lw.get()
			base, err := g.projectPath(loc)
			if err != nil {
				return err
			}
			var resp api.ListOperationsResponse
			if err := g.client().call("GET", base+"/operations", nil, nil, &resp); err != nil {
				return err
			}
			if g.format == "json" || g.format == "yaml" {
				return g.print(&resp)
			}
			var rows [][]string
			for _, op := range resp.Operations {
				rows = append(rows, []string{op.Name, op.OperationType, op.Location, lastPart(op.TargetLink), op.StatusMessage, op.Status, op.StartTime, op.EndTime})
			}
			g.table("NAME\tTYPE\tLOCATION\tTARGET\tSTATUS_MESSAGE\tSTATUS\tSTART_TIME\tEND_TIME", rows)
			return nil
		},
	}
	lw.flags(list.Flags(), "-")
	get := func(w *where, id string) (*api.Operation, string, error) {
		loc, err := w.get()
		if err != nil {
			loc = "-"
		}
		base, err := g.projectPath(loc)
		if err != nil {
			return nil, "", err
		}
		var op api.Operation
		err = g.client().call("GET", base+"/operations/"+id, nil, nil, &op)
		return &op, base, err
	}
	describe := &cobra.Command{
		Use: "describe OPERATION", Short: "Describe an operation", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			op, _, err := get(&dw, args[0])
			if err != nil {
				return err
			}
			return g.print(op)
		},
	}
	dw.flags(describe.Flags(), "")
	cancel := &cobra.Command{
		Use: "cancel OPERATION", Short: "Cancel a node-pool upgrade operation (best effort, like GKE)", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			op, _, err := get(&cw, args[0])
			if err != nil {
				return err
			}
			c := g.client()
			if err := c.call("POST", "/v1/projects/"+g.project+"/locations/"+op.Location+"/operations/"+args[0]+":cancel", nil, &api.CancelOperationRequest{}, nil); err != nil {
				return err
			}
			// A blue-green upgrade pauses in its phase (R-BG-7); a surge one stops (R-SURGE-9).
			var p api.NodePool
			if err := c.call("GET", strings.TrimPrefix(op.TargetLink, c.base), nil, nil, &p); err == nil && p.UpdateInfo != nil && p.UpdateInfo.BlueGreenInfo != nil {
				fmt.Fprintf(g.out, "Cancelled operation %s. The blue-green upgrade of node pool %s is paused in phase %s: resume it by updating the node pool to the same version, "+
					"or roll it back with `gkesim container node-pools rollback %s --cluster %s --location %s`.\n",
					args[0], p.Name, p.UpdateInfo.BlueGreenInfo.Phase, p.Name, clusterOf(op.TargetLink), op.Location)
				return nil
			}
			fmt.Fprintf(g.out, "Cancelled operation %s. Nodes mid-upgrade finish; nodes not started keep their old configuration "+
				"(upgrade the rest by updating the node pool to the same version, or roll the upgraded ones back with `gkesim container node-pools rollback`).\n", args[0])
			return nil
		},
	}
	cw.flags(cancel.Flags(), "")
	var timeout time.Duration
	wait := &cobra.Command{
		Use: "wait OPERATION", Short: "Wait until an operation is done", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, base, err := get(&ww, args[0])
			if err != nil {
				return err
			}
			return g.waitOperation(cmd.Context(), base, args[0], timeout, false)
		},
	}
	ww.flags(wait.Flags(), "")
	wait.Flags().DurationVar(&timeout, "timeout", 20*time.Minute, "give up after this much wall time")
	cmd.AddCommand(list, describe, cancel, wait)
	return cmd
}

// clusterOf is the cluster name in a target link .../clusters/C[/nodePools/P].
func clusterOf(link string) string {
	_, rest, _ := strings.Cut(link, "/clusters/")
	name, _, _ := strings.Cut(rest, "/")
	return name
}

func lastPart(link string) string {
	for i := len(link) - 1; i >= 0; i-- {
		if link[i] == '/' {
			return link[i+1:]
		}
	}
	return link
}
