package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

func newEventsCmd(g *globals) *cobra.Command {
	var f struct {
		cluster, pool, node, op, typ, since string
		follow                              bool
		afterSeq                            int64
		limit                               int
	}
	cmd := &cobra.Command{
		Use:   "events",
		Short: "Show the simulation's event log (what GKE did, when, and why)",
		Example: `  gkesim events --cluster demo
  gkesim events --cluster demo --node-pool pool-a --follow`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q := url.Values{}
			for k, v := range map[string]string{"cluster": f.cluster, "nodePool": f.pool, "node": f.node, "operation": f.op, "type": f.typ, "since": f.since} {
				if v != "" {
					q.Set(k, v)
				}
			}
			// A follower starts at the newest entry unless told where; the command shows the
			// log from its start (or --after-seq) and then follows it.
			if f.afterSeq > 0 || f.follow {
				q.Set("afterSeq", strconv.FormatInt(f.afterSeq, 10))
			}
			if f.limit > 0 {
				q.Set("limit", strconv.Itoa(f.limit))
			}
			c := g.client()
			if !f.follow {
				var resp api.ListEventsResponse
				if err := c.call("GET", "/emulator/v1/events", q, nil, &resp); err != nil {
					return err
				}
				for _, ev := range resp.Events {
					g.printEvent(ev)
				}
				return nil
			}
			q.Set("follow", "true")
			req, err := http.NewRequestWithContext(cmd.Context(), "GET", c.base+"/emulator/v1/events?"+q.Encode(), nil)
			if err != nil {
				return err
			}
			c.authorize(req)
			resp, err := (&http.Client{}).Do(req)
			if err != nil {
				return c.unreachable(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("events: HTTP %d", resp.StatusCode)
			}
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				var ev api.Event
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					return fmt.Errorf("events stream: %w", err)
				}
				g.printEvent(&ev)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.cluster, "cluster", "", "only events of this cluster (name or resource name)")
	fl.StringVar(&f.pool, "node-pool", "", "only events of this node pool")
	fl.StringVar(&f.node, "node", "", "only events of this node")
	fl.StringVar(&f.op, "operation", "", "only events of this operation")
	fl.StringVar(&f.typ, "type", "", "only events of this type (e.g. NodeReady)")
	fl.StringVar(&f.since, "since", "", "only events at or after this emulated time (RFC 3339)")
	fl.Int64Var(&f.afterSeq, "after-seq", 0, "only events after this sequence number")
	fl.IntVar(&f.limit, "limit", 0, "at most this many events")
	fl.BoolVarP(&f.follow, "follow", "f", false, "keep streaming new events")
	return cmd
}

func (g *globals) printEvent(ev *api.Event) {
	if g.format == "json" {
		b, _ := json.Marshal(ev)
		fmt.Fprintln(g.out, string(b))
		return
	}
	// LOCATION/CLUSTER: two clusters of one name in two locations stay apart.
	where := ev.Cluster
	if _, rest, ok := strings.Cut(where, "/locations/"); ok {
		where = strings.Replace(rest, "/clusters/", "/", 1)
	}
	if ev.NodePool != "" {
		where += "/" + ev.NodePool
	}
	fmt.Fprintf(g.out, "%s  %-20s %-32s %s\n", ev.Time, ev.Type, where, ev.Message)
}
