package views

import (
	"sort"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
)

// Aggregate views of clusters and their nodes (the web console's clusters and cluster views):
// one pass over a cluster's nodes gives every count, so a view of a 15,000-node cluster costs
// one request and a few milliseconds, never a request per node.

// maxPoolOperations is how many of a pool's upgrade operations the node summary lists.
const maxPoolOperations = 10

// maxPendingExamples is how many pods each pending group names.
const maxPendingExamples = 20

// ConsoleState is the state a node is drawn in: its life state, cordoned when it is ready but
// unschedulable, failed when it failed and auto-repair has not taken it yet.
func ConsoleState(c *model.Cluster, n *model.Node) string {
	switch n.State {
	case model.NodeDeleting:
		return api.NodeStateDeleting
	case model.NodeDraining:
		return api.NodeStateDraining
	case model.NodeProvisioning:
		return api.NodeStateCreating
	}
	if am := c.AutoMaintenance; am != nil && am.Repairs[n.Name] != nil {
		return api.NodeStateFailed
	}
	if n.State == model.NodeCordoned || n.Unschedulable {
		return api.NodeStateCordoned
	}
	return api.NodeStateReady
}

// ClusterSummaries summarises every cluster of every project, by project, location and name.
func (w *Views) ClusterSummaries() *api.ClusterSummaryList {
	out := &api.ClusterSummaryList{Now: w.st.Now.Format(time.RFC3339), Clusters: []*api.ClusterSummary{}}
	for _, key := range model.SortedKeys(w.st.Clusters) {
		out.Clusters = append(out.Clusters, w.clusterSummary(w.st.Clusters[key]))
	}
	return out
}

func (w *Views) clusterSummary(c *model.Cluster) *api.ClusterSummary {
	s := &api.ClusterSummary{
		Project: c.Project, Location: c.Location, Name: c.Name, Status: c.Status, StatusMessage: c.StatusMessage,
		Version: c.MasterVersion, ReleaseChannel: c.ReleaseChannel, Autopilot: c.Autopilot, NodePools: len(c.Pools),
		NodesByState: map[string]int{}, PendingPods: w.core.PodIndex(c).Pending.Len(), Operations: []*api.OperationSummary{},
	}
	if s.ReleaseChannel == api.ChannelUnspecified {
		s.ReleaseChannel = ""
	}
	if err := w.upgrade.KubeAPIUnavailable(c); err != nil {
		s.KubeAPIUnavailable = err.Message
	}
	versions := map[string]bool{}
	for _, n := range c.Nodes {
		s.NodesByState[ConsoleState(c, n)]++
		versions[n.Spec.Version] = true
		// As the cluster's currentNodeCount counts (gke/render.go).
		if n.State != model.NodeProvisioning && n.State != model.NodeDeleting {
			s.CurrentNodeCount++
		}
	}
	s.NodeVersions = sortVersions(versions)
	for _, id := range c.OpenOps {
		if op := w.st.Operations[id]; op != nil {
			s.Operations = append(s.Operations, operationSummary(op))
		}
	}
	return s
}

func operationSummary(op *model.Operation) *api.OperationSummary {
	out := &api.OperationSummary{Name: op.ID, Type: op.Type, Status: op.Status, NodePool: op.Pool, Detail: op.Detail,
		StartTime: op.StartTime.Format(time.RFC3339), Error: op.StatusMessage}
	if !op.EndTime.IsZero() {
		out.EndTime = op.EndTime.Format(time.RFC3339)
	}
	return out
}

// sortVersions lists versions oldest first (unparseable ones last, by name).
func sortVersions(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		a, okA := catalog.ParseVersion(out[i])
		b, okB := catalog.ParseVersion(out[j])
		if okA && okB {
			if cmp := a.Compare(b); cmp != 0 {
				return cmp < 0
			}
		} else if okA != okB {
			return okA
		}
		return out[i] < out[j]
	})
	return out
}

// ClusterNodeSummary counts a cluster's nodes per pool, zone, version and state, with each
// pool's upgrade and the pending pods.
func (w *Views) ClusterNodeSummary(project, location, name string) (*api.ClusterNodes, error) {
	c, err := w.core.GetCluster(project, location, name)
	if err != nil {
		return nil, err
	}
	out := &api.ClusterNodes{Now: w.st.Now.Format(time.RFC3339), Cluster: w.clusterSummary(c),
		States: append([]string(nil), api.NodeStates...), Pools: []*api.PoolNodes{}}
	out.Versions = append([]string(nil), out.Cluster.NodeVersions...)
	poolOps := w.poolUpgradeOps(c)
	for _, p := range c.Pools {
		out.Pools = append(out.Pools, w.poolNodes(c, p, poolOps[p.Name]))
	}
	out.Pending = w.pendingGroups(c)
	return out, nil
}

func (w *Views) poolNodes(c *model.Cluster, p *model.NodePool, ops []*model.Operation) *api.PoolNodes {
	as := p.Autoscaling
	out := &api.PoolNodes{Name: p.Name, Status: p.Status, Version: p.Spec.Version, MachineType: p.Spec.MachineType,
		Spot: p.Spec.Spot, Strategy: upgrade.StrategyFor(p), Zones: []*api.ZoneNodes{}, Operations: []*api.OperationSummary{}}
	if as.Enabled {
		out.Autoscaling = &as
	}
	type key struct{ version, state string }
	zones := map[string]map[key]int{}
	for _, zone := range p.Locations {
		zones[zone] = map[key]int{}
	}
	for _, g := range p.Groups {
		if zones[g.Zone] == nil {
			zones[g.Zone] = map[key]int{}
		}
		for _, n := range w.core.GroupIndex(c, g).Nodes {
			zones[g.Zone][key{n.Spec.Version, ConsoleState(c, n)}]++
		}
	}
	for _, zone := range model.SortedKeys(zones) {
		zn := &api.ZoneNodes{Zone: zone, Counts: []*api.NodeCount{}}
		for k, n := range zones[zone] {
			zn.Counts = append(zn.Counts, &api.NodeCount{Version: k.version, State: k.state, Count: n})
			zn.Nodes += n
		}
		sortCounts(zn.Counts)
		out.Nodes += zn.Nodes
		out.Zones = append(out.Zones, zn)
	}
	if u := p.Upgrade; u != nil {
		out.Upgrade = w.poolUpgrade(c, p, u)
	}
	for i := len(ops) - 1; i >= 0 && len(out.Operations) < maxPoolOperations; i-- {
		out.Operations = append(out.Operations, operationSummary(ops[i]))
	}
	return out
}

// sortCounts orders counts by version (oldest first), then state in drawing order.
func sortCounts(counts []*api.NodeCount) {
	rank := map[string]int{}
	for i, s := range api.NodeStates {
		rank[s] = i
	}
	versions := map[string]bool{}
	for _, nc := range counts {
		versions[nc.Version] = true
	}
	vrank := map[string]int{}
	for i, v := range sortVersions(versions) {
		vrank[v] = i
	}
	sort.Slice(counts, func(i, j int) bool {
		if a, b := vrank[counts[i].Version], vrank[counts[j].Version]; a != b {
			return a < b
		}
		return rank[counts[i].State] < rank[counts[j].State]
	})
}

func (w *Views) poolUpgrade(c *model.Cluster, p *model.NodePool, u *model.Upgrade) *api.PoolUpgrade {
	out := &api.PoolUpgrade{Operation: u.Op, Strategy: u.Strategy, Change: upgrade.DescribeSpecChange(u.From, u.Target),
		FromVersion: u.From.Version, TargetVersion: u.Target.Version, NodesDone: u.Done, NodesTotal: u.Total,
		StartTime: u.StartTime.Format(time.RFC3339), Waiting: upgrade.DescribeWait(u), Paused: u.Paused, Stopping: u.Stopping,
		Rollback: u.Rollback, Auto: u.Auto}
	if bg := u.BG; bg != nil {
		out.Phase = bg.Phase
		if !bg.PhaseUntil.IsZero() && bg.PhaseUntil.After(w.st.Now) {
			out.PhaseUntil = bg.PhaseUntil.Format(time.RFC3339)
		}
		if !bg.DeletionStart.IsZero() {
			out.BluePoolDeletionStart = bg.DeletionStart.Format(time.RFC3339)
		}
	} else if u.Zone < len(u.Zones) {
		out.Zone = u.Zones[u.Zone]
	}
	if !u.Paused && out.Waiting == "" {
		if eta := w.upgrade.UpgradeETA(c, p); !eta.IsZero() {
			out.ETA = eta.Format(time.RFC3339)
		}
	}
	return out
}

// poolUpgradeOps lists each pool's node upgrade operations (upgrades, resumes, rollbacks) in
// the order they were created.
func (w *Views) poolUpgradeOps(c *model.Cluster) map[string][]*model.Operation {
	out := map[string][]*model.Operation{}
	for _, op := range w.st.Operations {
		if op.Type == api.OpUpgradeNodes && op.Pool != "" && op.Project == c.Project && op.Location == c.Location && op.Cluster == c.Name {
			out[op.Pool] = append(out[op.Pool], op)
		}
	}
	for _, ops := range out {
		sort.Slice(ops, func(i, j int) bool { return ops[i].Seq < ops[j].Seq })
	}
	return out
}

// pendingGroups groups the pods waiting for a node by the scheduler's message, largest group
// first.
func (w *Views) pendingGroups(c *model.Cluster) []*api.PendingGroup {
	groups := map[string]*api.PendingGroup{}
	var pods []*model.Pod
	for p := range w.core.PodIndex(c).Pending.M {
		pods = append(pods, p)
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Key() < pods[j].Key() })
	for _, p := range pods {
		reason := p.Unschedulable()
		if reason == "" {
			reason = "waiting for the scheduler"
		}
		g := groups[reason]
		if g == nil {
			g = &api.PendingGroup{Reason: reason, Pods: []string{}}
			groups[reason] = g
		}
		g.Count++
		if len(g.Pods) < maxPendingExamples {
			g.Pods = append(g.Pods, p.Key())
		}
	}
	out := make([]*api.PendingGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}
