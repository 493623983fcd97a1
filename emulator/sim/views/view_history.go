package views

import (
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Histories read back from the event log for the web console: each autoscaled pool's size over
// time with the autoscaler's decisions (R-CA-1..5), and each load balancer's backends with
// their health over time (R-LB-6). Both walk the log once, from the newest entry back to
// `since`, starting from the model's state now.

// DefaultHistory is how far back a history looks unless told otherwise.
const DefaultHistory = 24 * time.Hour

// Bounds of a history's answer.
const (
	DefaultDecisions = 500
	MaxDecisions     = 5000
	// maxSeriesPoints bounds a size series; longer ones are thinned to the extremes of each
	// time bucket.
	maxSeriesPoints = 1000
)

// autoscalerDecisions are the entries the autoscaler view lists.
var autoscalerDecisions = map[string]bool{"ScaleUp": true, "ScaleDown": true, "ScaleDownBlocked": true, "NotTriggerScaleUp": true}

// podRef finds the pods an autoscaler message names ("pod ns/name").
var podRef = regexp.MustCompile(`\bpod ([a-z0-9][-a-z0-9.]*/[a-z0-9][-a-z0-9.]*)`)

// logSince returns the index of the first log entry at or after t.
func (w *Views) logSince(t time.Time) int {
	entries := &w.st.Log
	return sort.Search(entries.Len(), func(i int) bool { return !entries.TimeAt(i).Before(t) })
}

// historyStart clamps a requested start of cluster c's history to [the cluster's creation,
// now] and to at most 400 days back; zero means DefaultHistory.
func (w *Views) historyStart(c *model.Cluster, since time.Time) time.Time {
	now := w.st.Now
	switch {
	case since.IsZero():
		since = now.Add(-DefaultHistory)
	case since.After(now):
		since = now
	case since.Before(now.Add(-400 * 24 * time.Hour)):
		since = now.Add(-400 * 24 * time.Hour)
	}
	return core.MaxTime(since, core.MinTime(c.CreateTime, now))
}

// AutoscalerHistory is the autoscaler view of a cluster since a time (zero: the last
// DefaultHistory), with at most maxDecisions of the newest decisions (0: DefaultDecisions).
func (w *Views) AutoscalerHistory(project, location, name string, since time.Time, maxDecisions int) (*api.AutoscalerView, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	if maxDecisions <= 0 {
		maxDecisions = DefaultDecisions
	}
	since = w.historyStart(c, since)
	out := &api.AutoscalerView{Now: w.st.Now.Format(time.RFC3339), Since: since.Format(time.RFC3339),
		Profile: c.AutoscalingProfile, Pools: []*api.AutoscalerPool{}, Pending: w.pendingGroups(c), Decisions: []*api.AutoscalerDecision{}}
	size := map[string]int{}
	points := map[string][][2]float64{}
	for _, p := range c.Pools {
		ap := autoscalerPool(p)
		for _, g := range p.Groups {
			ix := w.core.GroupIndex(c, g)
			ap.Size += len(ix.Nodes)
			ap.Ready += ix.ByState[model.NodeReady]
		}
		size[p.Name] = ap.Size
		out.Pools = append(out.Pools, ap)
	}
	key := c.Key()
	entries := &w.st.Log
	first := w.logSince(since)
	at := func(t time.Time) float64 { return t.Sub(since).Seconds() }
	var decisions []*api.AutoscalerDecision
	for i := entries.Len() - 1; i >= first; i-- {
		e := entries.Peek(i)
		switch e.Type {
		case "NodeCreating", "NodeDeleted", "ScaleUp", "ScaleDown", "ScaleDownBlocked", "NotTriggerScaleUp":
		default:
			continue // most of the log: pods, drains, load balancers
		}
		if e.Cluster != key {
			continue
		}
		if autoscalerDecisions[e.Type] {
			if len(decisions) < maxDecisions {
				decisions = append(decisions, decision(entries, i))
			} else {
				out.DecisionsOmitted++
			}
		}
		n, tracked := size[e.Pool]
		if !tracked {
			continue
		}
		switch e.Type {
		case "NodeCreating":
			points[e.Pool] = append(points[e.Pool], [2]float64{at(e.Time), float64(n)})
			size[e.Pool] = n - 1
		case "NodeDeleted":
			points[e.Pool] = append(points[e.Pool], [2]float64{at(e.Time), float64(n)})
			size[e.Pool] = n + 1
		}
	}
	for i := len(decisions) - 1; i >= 0; i-- {
		out.Decisions = append(out.Decisions, decisions[i])
	}
	for _, ap := range out.Pools {
		series := [][2]float64{{0, float64(max(size[ap.Name], 0))}}
		pts := points[ap.Name]
		for i := len(pts) - 1; i >= 0; i-- {
			series = append(series, pts[i])
		}
		ap.Series = thinSeries(series, at(w.st.Now))
	}
	return out, nil
}

func autoscalerPool(p *model.NodePool) *api.AutoscalerPool {
	as := p.Autoscaling
	zones := len(p.Locations)
	ap := &api.AutoscalerPool{Name: p.Name, Enabled: as.Enabled, Zones: zones, LocationPolicy: as.LocationPolicy, Series: [][2]float64{}}
	if as.TotalMinNodeCount > 0 || as.TotalMaxNodeCount > 0 {
		ap.Min, ap.Max = int(as.TotalMinNodeCount), int(as.TotalMaxNodeCount)
	} else {
		// R-CA-3: per-zone limits.
		ap.PerZone = true
		ap.Min, ap.Max = int(as.MinNodeCount)*zones, int(as.MaxNodeCount)*zones
	}
	return ap
}

// decision renders the decision at entries[i] with the nodes and pods it names: a scale-up's
// nodes are the NodeCreating entries of its pool that follow it at the same instant.
func decision(entries *model.EventLog, i int) *api.AutoscalerDecision {
	e := entries.At(i)
	d := &api.AutoscalerDecision{Seq: e.Seq, Time: e.Time.Format(time.RFC3339), Type: e.Type, Pool: e.Pool, Message: e.Message}
	if e.Node != "" {
		d.Nodes = []string{e.Node}
	}
	if e.Type == "ScaleUp" {
		for j := i + 1; j < entries.Len() && entries.TimeAt(j).Equal(e.Time); j++ {
			if x := entries.Peek(j); x.Cluster == e.Cluster && x.Pool == e.Pool && x.Type == "NodeCreating" {
				d.Nodes = append(d.Nodes, x.Node)
			} else if autoscalerDecisions[x.Type] {
				break
			}
		}
	}
	for _, m := range podRef.FindAllStringSubmatch(e.Message, -1) {
		d.Pods = append(d.Pods, m[1])
	}
	return d
}

// thinSeries keeps at most maxSeriesPoints of a step series, keeping in each time bucket the
// first point and the extremes, and ends it at `end` with the last value.
func thinSeries(s [][2]float64, end float64) [][2]float64 {
	if last := s[len(s)-1]; last[0] < end {
		s = append(s, [2]float64{end, last[1]})
	}
	if len(s) <= maxSeriesPoints {
		return s
	}
	buckets := maxSeriesPoints / 3
	width := end / float64(buckets)
	out := [][2]float64{s[0]}
	for i := 1; i < len(s); {
		b := int(s[i][0] / width)
		lo, hi := s[i], s[i]
		j := i
		for ; j < len(s) && int(s[j][0]/width) == b; j++ {
			if s[j][1] < lo[1] {
				lo = s[j]
			}
			if s[j][1] > hi[1] {
				hi = s[j]
			}
		}
		keep := [][2]float64{s[i], lo, hi, s[j-1]}
		sort.Slice(keep, func(x, y int) bool { return keep[x][0] < keep[y][0] })
		for _, p := range keep {
			if q := out[len(out)-1]; q != p {
				out = append(out, p)
			}
		}
		i = j
	}
	return out
}

// LoadBalancerHistory is each load balancer's backends with their health since a time (zero:
// the last DefaultHistory). A backend's health before the first transition the log shows is
// unknown, unless the model says since when it has been in its current state.
func (w *Views) LoadBalancerHistory(project, location, name string, since time.Time) (*api.LoadBalancerHistory, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	since = w.historyStart(c, since)
	now := w.st.Now
	at := func(t time.Time) float64 { return max(t.Sub(since).Seconds(), 0) }
	out := &api.LoadBalancerHistory{Now: now.Format(time.RFC3339), Since: since.Format(time.RFC3339), LoadBalancers: []*api.LoadBalancerTimeline{}}
	type backend struct {
		out   *api.BackendTimeline
		state string
		until float64
	}
	lbs := map[string]*api.LoadBalancerTimeline{}
	backends := map[string]map[string]*backend{}
	for _, s := range w.loadbalancers.ServiceIndex(c).SortedLBs() {
		lt := &api.LoadBalancerTimeline{Service: s.Key(), Backends: []*api.BackendTimeline{}, Events: []*api.TimelineMark{}}
		lbs[s.Key()] = lt
		backends[s.Key()] = map[string]*backend{}
		out.LoadBalancers = append(out.LoadBalancers, lt)
		for _, node := range model.SortedKeys(s.LB.Health) {
			h := s.LB.Health[node]
			bt := &api.BackendTimeline{Node: node, Zone: s.LB.Members[node], Health: h.State, Spans: []*api.TimelineSpan{}}
			_, bt.Member = s.LB.Members[node]
			bk := &backend{out: bt, state: h.State, until: at(now)}
			if !h.Since.IsZero() && h.Since.After(since) {
				bt.Spans = append(bt.Spans, &api.TimelineSpan{State: h.State, From: at(h.Since), To: bk.until})
				bk.state, bk.until = "", at(h.Since)
			}
			backends[s.Key()][node] = bk
			lt.Backends = append(lt.Backends, bt)
		}
	}
	key := c.Key()
	entries := &w.st.Log
	first := w.logSince(since)
	var events = map[string][]*api.TimelineMark{}
	for i := entries.Len() - 1; i >= first; i-- {
		if !strings.HasPrefix(entries.Text(i), "service ") {
			continue
		}
		e := entries.At(i)
		if e.Cluster != key {
			continue
		}
		svc, _, _ := strings.Cut(strings.TrimPrefix(e.Message, "service "), ":")
		lt := lbs[svc]
		if lt == nil {
			continue
		}
		healthy := e.Type == "LoadBalancerBackendHealthy"
		if !healthy && e.Type != "LoadBalancerBackendUnhealthy" {
			if e.Node == "" {
				events[svc] = append(events[svc], &api.TimelineMark{Kind: e.Type, At: at(e.Time), Message: e.Message})
			}
			continue
		}
		bk := backends[svc][e.Node]
		if bk == nil {
			// A backend that has left the load balancer (its node is gone).
			bk = &backend{out: &api.BackendTimeline{Node: e.Node, Spans: []*api.TimelineSpan{}}, until: at(e.Time)}
			backends[svc][e.Node] = bk
			lt.Backends = append(lt.Backends, bk.out)
		}
		state := loadbalancers.HealthHealthy
		if !healthy {
			state = loadbalancers.HealthUnhealthy
		}
		if bk.until > at(e.Time) {
			bk.out.Spans = append(bk.out.Spans, &api.TimelineSpan{State: state, From: at(e.Time), To: bk.until})
		}
		bk.until = at(e.Time)
		// Before a transition to healthy it was unhealthy, and the other way round.
		bk.state = loadbalancers.HealthUnhealthy
		if !healthy {
			bk.state = loadbalancers.HealthHealthy
		}
	}
	for svc, lt := range lbs {
		for _, node := range model.SortedKeys(backends[svc]) {
			bk := backends[svc][node]
			if bk.until > 0 {
				state := bk.state
				if state == "" {
					state = "UNKNOWN"
				}
				bk.out.Spans = append(bk.out.Spans, &api.TimelineSpan{State: state, From: 0, To: bk.until})
			}
			// Spans were gathered newest first.
			for i, j := 0, len(bk.out.Spans)-1; i < j; i, j = i+1, j-1 {
				bk.out.Spans[i], bk.out.Spans[j] = bk.out.Spans[j], bk.out.Spans[i]
			}
		}
		evs := events[svc]
		for i := len(evs) - 1; i >= 0; i-- {
			lt.Events = append(lt.Events, evs[i])
		}
		sort.SliceStable(lt.Backends, func(i, j int) bool {
			if lt.Backends[i].Member != lt.Backends[j].Member {
				return lt.Backends[i].Member
			}
			return lt.Backends[i].Node < lt.Backends[j].Node
		})
	}
	return out, nil
}
