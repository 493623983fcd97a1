package autoscaler

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The cluster autoscaler (R-CA-1..9), one pass per cluster every scan interval (a few seconds
// in small clusters, longer in large ones). It works on resource requests, per node pool:
//
// Scale-up: pods the scheduler could not place (priority >= -10, R-CA-9) are packed onto new
// nodes of each autoscaled pool they could run on, after the nodes already booting; the
// cheapest pool wins (Spot is cheaper, R-CA-7); the new nodes go to zones by the pool's
// location policy (BALANCED keeps zones within one node, ANY fills the zone with capacity,
// R-CA-6); never above max (R-CA-3/4); nodes are created in parallel and wait when quota or a
// stockout blocks them (R-CA-1).
//
// Scale-down: a node whose pods request less than half its allocatable, and whose pods all fit
// elsewhere, is removed once it has been unneeded long enough (10 minutes; 1 minute with the
// optimize-utilization profile, R-CA-8), never below min (R-CA-4) and never the last node of
// a Standard cluster (R-CA-5). Pods without a controller, safe-to-evict=false, a violated
// PodDisruptionBudget, kube-system pods without one, or pods that fit nowhere else keep the
// node (R-CA-2). The drain gets 10 minutes, then the node goes anyway.
//
// Upgrades: no changes to a pool under a surge upgrade (R-SURGE-10); during blue-green the blue
// pool neither grows nor shrinks and the green one only grows until the soak (R-BG-6); during
// autoscaled blue-green the green pool grows from zero within max and the blue one only
// shrinks, ignoring min, except nodes running safe-to-evict=false pods (R-ABG-2, R-ABG-4).

const (
	evAutoscalerPass = "autoscaler.pass"

	scaleDownUtilization = 0.5
	UnneededBalanced     = 10 * time.Minute
	unneededOptimize     = time.Minute
	// maxEmptyScaleDown and maxBusyScaleDown bound the nodes removed per pass.
	maxEmptyScaleDown = 10
	maxBusyScaleDown  = 1
	// Pods with a priority below this do not trigger scale-up (R-CA-9).
	expendablePriority = -10
	spotPriceFactor    = 0.3
)

// R-CA-2: the scale-down drain gets 10 minutes, then the node is terminated.
var scaleDownDrain = model.DrainPolicy{RespectPDB: true, PDBTimeout: 10 * time.Minute, GraceCap: 10 * time.Minute}

func (w *Autoscaler) RegisterAutoscalerHandlers() {
	w.engine.On(evAutoscalerPass, func(ev model.Event) {
		c := w.st.Clusters[ev.Cluster]
		if c == nil || c.AutoscalerNext.After(w.st.Now) {
			return
		}
		c.AutoscalerNext = time.Time{}
		if !w.autoscaled(c) || c.Status == model.ClusterStopping {
			return
		}
		w.AutoscalerPass(c)
		w.EnsureAutoscaler(c)
	})
}

// autoscaled says whether any pool of c is under the autoscaler.
func (w *Autoscaler) autoscaled(c *model.Cluster) bool {
	for _, p := range c.Pools {
		if p.Autoscaling.Enabled {
			return true
		}
	}
	return false
}

// scanInterval grows with the cluster: 10 s up to 100 nodes, one more second per 100 nodes,
// at most a minute.
func scanInterval(c *model.Cluster) time.Duration {
	return min(10*time.Second+time.Duration(len(c.Nodes)/100)*time.Second, time.Minute)
}

// EnsureAutoscaler schedules the next pass if the cluster has autoscaled pools.
func (w *Autoscaler) EnsureAutoscaler(c *model.Cluster) {
	if !c.ControlPlaneReady || !w.autoscaled(c) || c.AutoscalerNext.After(w.st.Now) {
		return
	}
	d := scanInterval(c)
	c.AutoscalerNext = w.st.Now.Add(d)
	w.engine.Schedule(d, model.Event{Kind: evAutoscalerPass, Cluster: c.Key()})
}

// PoolRole is what the autoscaler may do with a pool's groups right now.
type PoolRole struct {
	up, down   map[string]bool // instance groups it may grow / shrink
	ignoreMin  map[string]bool // groups whose min does not hold (autoscaled blue-green's blue)
	limitScope map[string]bool // groups the pool's limits are counted over
	onlyUnder  bool            // scale-down only of underutilised nodes even without a fit check
}

// RoleOf applies R-SURGE-10, R-BG-6 and R-ABG-2/4 to a pool.
func (w *Autoscaler) RoleOf(p *model.NodePool) PoolRole {
	r := PoolRole{up: map[string]bool{}, down: map[string]bool{}, ignoreMin: map[string]bool{}, limitScope: map[string]bool{}}
	if !p.Autoscaling.Enabled || p.Status == model.PoolStopping {
		return r
	}
	all := func(m map[string]bool) {
		for _, g := range p.Groups {
			m[g.Name] = true
		}
	}
	u := p.Upgrade
	switch {
	case u == nil || (u.BG == nil && u.Stopping):
		all(r.up)
		all(r.down)
		all(r.limitScope)
	case u.BG == nil:
		// R-SURGE-10: no changes while a surge upgrade replaces the pool's nodes.
	case u.BG.Autoscaled:
		for _, g := range p.Groups {
			if u.BG.IsGreen(g.Name) {
				r.up[g.Name], r.down[g.Name], r.limitScope[g.Name] = true, true, true
			}
			if u.BG.IsBlue(g.Name) && u.BG.Phase == model.PhaseWaitingToDrain {
				r.down[g.Name], r.ignoreMin[g.Name] = true, true
			}
		}
		r.onlyUnder = true
	default:
		for _, g := range p.Groups {
			switch {
			case u.Rollback:
				// R-BG-6: on rollback blue may grow; green, being deleted, may not.
				if u.BG.IsBlue(g.Name) {
					r.up[g.Name], r.limitScope[g.Name] = true, true
				}
			case u.BG.IsGreen(g.Name):
				r.up[g.Name], r.limitScope[g.Name] = true, true
				if u.BG.Phase == model.PhaseSoaking || u.BG.Phase == model.PhaseDeletingBlue {
					r.down[g.Name] = true
				}
			}
		}
	}
	return r
}

// limits returns the min and max of a group and of the pool in scope (per zone or total).
func limitsOf(p *model.NodePool) (perZone bool, min, max int) {
	as := p.Autoscaling
	if as.TotalMaxNodeCount > 0 || as.TotalMinNodeCount > 0 {
		return false, int(as.TotalMinNodeCount), int(as.TotalMaxNodeCount)
	}
	return true, int(as.MinNodeCount), int(as.MaxNodeCount)
}

// liveCount is the group's nodes that are not on their way out.
func (w *Autoscaler) liveCount(c *model.Cluster, g *model.InstanceGroup) int {
	ix := w.core.GroupIndex(c, g)
	return len(g.Nodes) - ix.ByState[model.NodeDraining] - ix.ByState[model.NodeDeleting]
}

func (w *Autoscaler) AutoscalerPass(c *model.Cluster) {
	ix := w.core.PodIndex(c)
	var pending []*model.Pod
	for p := range ix.Pending.M {
		if p.Unschedulable() != "" && !p.Terminating {
			pending = append(pending, p)
		}
	}
	sort.Slice(pending, func(i, j int) bool {
		if pending[i].Priority != pending[j].Priority {
			return pending[i].Priority > pending[j].Priority
		}
		if pending[i].CreateTime != pending[j].CreateTime {
			return pending[i].CreateTime < pending[j].CreateTime
		}
		return pending[i].Key() < pending[j].Key()
	})
	roles := map[string]PoolRole{}
	for _, p := range c.Pools {
		roles[p.Name] = w.RoleOf(p)
	}
	if len(pending) > 0 {
		w.scaleUp(c, pending, roles)
	}
	w.ScaleDown(c, roles)
}

// ---- scale-up ----

// nodeTemplate is what a new node of a pool group offers to pods.
type nodeTemplate struct {
	pool   *model.NodePool
	group  *model.InstanceGroup
	labels map[string]string
	taints []corev1.Taint
	free   model.Resources // allocatable minus GKE's DaemonSet pods
	pods   int
	price  float64
}

// templateOf builds the template of a new node of group g (pool p).
func (w *Autoscaler) templateOf(c *model.Cluster, p *model.NodePool, g *model.InstanceGroup) nodeTemplate {
	spec := p.Spec
	if u := p.Upgrade; u != nil && u.BG != nil && u.BG.IsGreen(g.Name) {
		spec = u.Target
	}
	n := &model.Node{Name: "template", Pool: p.Name, Zone: g.Zone, Spec: spec, State: model.NodeReady}
	labels, all := w.core.K8sNodeLabelsAndTaints(c, n)
	var taints []corev1.Taint
	for _, t := range all {
		if t.Key != "node.kubernetes.io/unschedulable" {
			taints = append(taints, t)
		}
	}
	mt, _ := c.MachineType(spec.MachineType)
	dsReq, dsPods := w.workloads.DaemonPodsFor(c, n)
	free := c.TypeAllocatable(spec.MachineType).Sub(dsReq)
	price := mt.PricePerHour
	if spec.Spot || spec.Preemptible {
		price *= spotPriceFactor
	}
	return nodeTemplate{pool: p, group: g, labels: labels, taints: taints, free: free, pods: int(p.MaxPodsPerNode) - dsPods, price: price}
}

func (t nodeTemplate) accepts(spec *corev1.PodSpec) bool {
	g := &core.SchedGroup{Labels: t.labels, Taints: t.taints}
	return g.Rejects(spec) == ""
}

// scaleUp adds nodes for the pending pods.
func (w *Autoscaler) scaleUp(c *model.Cluster, pending []*model.Pod, roles map[string]PoolRole) {
	type option struct {
		pool  *model.NodePool
		add   map[*model.InstanceGroup]int
		pods  []*model.Pod
		cost  float64
		nodes int
		rank  int // the pool's place in its compute class's priorities (R-CA-11)
	}
	placed := map[*model.Pod]bool{}
	// Pods that fit on a node already there (the scheduler has not got to them yet) or on a
	// node still booting need no new node.
	shadow := w.newShadow(c)
	// Pods of one template are alike (kube-scheduler's equivalence classes): once one does not
	// fit, none of the rest does, as placing pods only takes room.
	noRoom := map[core.Class]bool{}
	for _, pod := range pending {
		class := core.PodClass(pod)
		if noRoom[class] {
			continue
		}
		if shadow.place(w, c, pod, nil) {
			placed[pod] = true
		} else {
			noRoom[class] = true
		}
	}
	for _, p := range c.Pools {
		w.placeOnUpcoming(c, p, pending, placed)
	}
	var options []option
	for _, p := range c.Pools {
		r := roles[p.Name]
		if len(r.up) == 0 {
			continue
		}
		rank, refused := w.ClassRank(c, p)
		if refused != "" {
			continue
		}
		add, pods, nodes := w.planScaleUp(c, p, r, pending, placed)
		if nodes == 0 {
			continue
		}
		tmpl := w.templateOf(c, p, p.Groups[0])
		options = append(options, option{pool: p, add: add, pods: pods, nodes: nodes, cost: float64(nodes) * tmpl.price, rank: rank})
	}
	// R-CA-11 then R-CA-7: a compute class's preferred pools first, then the cheapest pool;
	// each pod is helped once.
	sort.Slice(options, func(i, j int) bool {
		if options[i].rank != options[j].rank {
			return options[i].rank < options[j].rank
		}
		if options[i].cost != options[j].cost {
			return options[i].cost < options[j].cost
		}
		return options[i].pool.Name < options[j].pool.Name
	})
	helped := map[*model.Pod]bool{}
	for _, o := range options {
		fresh := 0
		for _, p := range o.pods {
			if !helped[p] {
				fresh++
			}
		}
		if fresh == 0 {
			continue
		}
		if fresh < len(o.pods) {
			// Some pods were helped by a cheaper pool: plan again for the rest.
			var rest []*model.Pod
			for _, p := range o.pods {
				if !helped[p] {
					rest = append(rest, p)
				}
			}
			o.add, o.pods, o.nodes = w.planScaleUp(c, o.pool, roles[o.pool.Name], rest, placed)
			if o.nodes == 0 {
				continue
			}
		}
		for _, p := range o.pods {
			helped[p] = true
		}
		w.applyScaleUp(c, o.pool, o.add, len(o.pods))
	}
	// The pods nothing can help: say why, once per pod.
	for _, p := range pending {
		if placed[p] || helped[p] {
			continue
		}
		why := w.noScaleUpReason(c, p, roles)
		if p.ScaleUpNote() != why {
			p.SetScaleUpNote(why)
			w.engine.Record("NotTriggerScaleUp", c, "", "", "", "pod %s did not trigger scale-up: %s", p.Key(), why)
		}
	}
}

// placeOnUpcoming marks the pending pods that the pool's upcoming nodes will take: those
// booting, and those a group was asked for but could not create yet (a stockout or quota wait).
func (w *Autoscaler) placeOnUpcoming(c *model.Cluster, p *model.NodePool, pending []*model.Pod, placed map[*model.Pod]bool) {
	var free []model.Resources
	var tmpls []nodeTemplate
	var kinds []int8
	for _, g := range p.Groups {
		booting := w.core.GroupIndex(c, g).ByState[model.NodeProvisioning]
		waiting := 0
		if p.Upgrade == nil {
			waiting = max(g.TargetSize-w.liveCount(c, g), 0)
		}
		if booting+waiting == 0 {
			continue
		}
		t := w.templateOf(c, p, g)
		for i := 0; i < booting+waiting; i++ {
			free = append(free, t.free)
			tmpls = append(tmpls, t)
			kinds = append(kinds, 0)
		}
	}
	for _, pod := range pending {
		if placed[pod] {
			continue
		}
		spec := w.core.PodSpec(c, pod)
		k := separationKind(c, pod)
		for i := range free {
			if tmpls[i].accepts(spec) && pod.Req.Fits(free[i]) && together(kinds[i], k) {
				free[i] = free[i].Sub(pod.Req)
				kinds[i] = max(kinds[i], k)
				placed[pod] = true
				break
			}
		}
	}
}

// separationKind is what Autopilot's separation of extended-duration pods (R-EXT-5) makes of
// pod on c: 0 when it runs beside anything, 1 for another workload's pod, 2 for an
// extended-duration pod. A planned node takes the kind of its first such pod.
func separationKind(c *model.Cluster, pod *model.Pod) int8 {
	switch {
	case !c.Autopilot || !core.Separable(pod):
		return 0
	case core.IsExtended(pod):
		return 2
	}
	return 1
}

// together says whether a pod of kind k may join a planned node of kind node.
func together(node, k int8) bool { return node == 0 || k == 0 || node == k }

// planScaleUp packs the pending pods that fit a pool onto new nodes (first fit), group by group
// as the location policy orders them, within the pool's max. It returns the nodes to add per
// group, the pods they take, and the total.
func (w *Autoscaler) planScaleUp(c *model.Cluster, p *model.NodePool, r PoolRole, pending []*model.Pod, placed map[*model.Pod]bool) (map[*model.InstanceGroup]int, []*model.Pod, int) {
	var groups []*model.InstanceGroup
	for _, g := range p.Groups {
		if r.up[g.Name] {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return nil, nil, 0
	}
	perZone, _, maxN := limitsOf(p)
	size := map[*model.InstanceGroup]int{}
	total := 0
	for _, g := range p.Groups {
		if r.limitScope[g.Name] {
			size[g] = w.liveCount(c, g)
			total += size[g]
		}
	}
	headroom := func(g *model.InstanceGroup) bool {
		if perZone {
			return size[g] < maxN
		}
		return total < maxN
	}
	type newNode struct {
		g    *model.InstanceGroup
		free model.Resources
		pods int
		kind int8 // see separationKind
	}
	var nodes []*newNode
	tmpl := map[*model.InstanceGroup]nodeTemplate{}
	for _, g := range groups {
		tmpl[g] = w.templateOf(c, p, g)
	}
	add := map[*model.InstanceGroup]int{}
	var took []*model.Pod
	// Pods of one template are alike (equivalence classes): they may go to the same groups,
	// and a planned node that cannot take one of them (it only fills up) cannot take the next,
	// so each class looks for room from where its last pod found it.
	type classPlan struct {
		eligible []*model.InstanceGroup
		in       map[*model.InstanceGroup]bool
		from     int
	}
	plans := map[core.Class]*classPlan{}
	for _, pod := range pending {
		if placed[pod] || pod.Priority < expendablePriority {
			continue
		}
		cp := plans[core.PodClass(pod)]
		if cp == nil {
			spec := w.core.PodSpec(c, pod)
			cp = &classPlan{in: map[*model.InstanceGroup]bool{}}
			for _, g := range groups {
				if tmpl[g].accepts(spec) && pod.Req.Fits(tmpl[g].free) {
					cp.eligible = append(cp.eligible, g)
					cp.in[g] = true
				}
			}
			plans[core.PodClass(pod)] = cp
		}
		if len(cp.eligible) == 0 {
			continue
		}
		fit := false
		k := separationKind(c, pod)
		for i := cp.from; i < len(nodes); i++ {
			n := nodes[i]
			if cp.in[n.g] && pod.Req.Fits(n.free) && n.pods > 0 && together(n.kind, k) {
				n.free, n.pods, n.kind = n.free.Sub(pod.Req), n.pods-1, max(n.kind, k)
				fit = true
				break
			}
			if i == cp.from {
				cp.from++
			}
		}
		if !fit {
			eligible := cp.eligible
			g := w.zoneForNewNode(c, p, eligible, size, headroom)
			if g == nil {
				continue // max reached
			}
			nodes = append(nodes, &newNode{g: g, free: tmpl[g].free.Sub(pod.Req), pods: tmpl[g].pods - 1, kind: k})
			add[g]++
			size[g]++
			total++
		}
		took = append(took, pod)
	}
	return add, took, len(nodes)
}

// zoneForNewNode picks the group of the next new node by the location policy (R-CA-6).
func (w *Autoscaler) zoneForNewNode(c *model.Cluster, p *model.NodePool, eligible []*model.InstanceGroup, size map[*model.InstanceGroup]int, headroom func(*model.InstanceGroup) bool) *model.InstanceGroup {
	var best *model.InstanceGroup
	for _, g := range eligible {
		if !headroom(g) || w.core.CapacityShortage(c, g.Zone, p.Spec, 1) != "" {
			continue
		}
		switch {
		case best == nil:
			best = g
		case p.Autoscaling.LocationPolicy == api.LocationPolicyAny:
			// ANY: fill the zone that has capacity, in zone order; keep the first found.
		case size[g] < size[best]:
			best = g // BALANCED: the smallest zone first
		}
	}
	if best == nil && len(eligible) > 0 {
		// Every zone lacks capacity: still plan in the first one with headroom; the nodes wait
		// for capacity there (R-CA-1).
		for _, g := range eligible {
			if headroom(g) {
				return g
			}
		}
	}
	return best
}

// applyScaleUp grows the pool's groups; their nodes are created in parallel. It logs only the
// nodes it could start: an upgrading pool waiting for capacity logs that wait instead.
func (w *Autoscaler) applyScaleUp(c *model.Cluster, p *model.NodePool, add map[*model.InstanceGroup]int, pods int) {
	var zones []string
	for _, g := range p.Groups {
		n := add[g]
		if n == 0 {
			continue
		}
		live := w.liveCount(c, g)
		if p.Upgrade != nil {
			if n = w.growUpgradingGroup(c, p, g, n); n == 0 {
				continue
			}
		}
		g.TargetSize = live + n
		zones = append(zones, fmt.Sprintf("%s +%d", g.Zone, n))
	}
	if len(zones) == 0 {
		return
	}
	w.engine.Record("ScaleUp", c, p.Name, "", "", "scale-up %s %s: %d pending pods", p.Name, strings.Join(zones, ", "), pods)
	if p.Upgrade == nil {
		w.core.ReconcilePool(c, p)
	}
}

// growUpgradingGroup adds up to n nodes to a group of an upgrading pool (green, or blue on
// rollback) with the group's own spec, and returns how many it could add.
func (w *Autoscaler) growUpgradingGroup(c *model.Cluster, p *model.NodePool, g *model.InstanceGroup, n int) int {
	spec := p.Spec
	if p.Upgrade.BG != nil && p.Upgrade.BG.IsGreen(g.Name) {
		spec = p.Upgrade.Target
	}
	for i := 0; i < n; i++ {
		if !w.core.ReserveCapacity(c, p, g.Zone, spec, 1) {
			w.core.WaitForCapacity(c, p, g.Zone, "nodes")
			return i
		}
		w.core.AddNode(c, p, g, spec)
	}
	return n
}

// noScaleUpReason explains why no pool can help a pending pod.
func (w *Autoscaler) noScaleUpReason(c *model.Cluster, pod *model.Pod, roles map[string]PoolRole) string {
	if pod.Priority < expendablePriority {
		return fmt.Sprintf("its priority %d is below %d: pods below it never trigger scale-up", pod.Priority, expendablePriority)
	}
	spec := w.core.PodSpec(c, pod)
	var reasons []string
	for _, p := range c.Pools {
		switch {
		case !p.Autoscaling.Enabled:
			reasons = append(reasons, p.Name+": autoscaling off")
		case len(roles[p.Name].up) == 0:
			reasons = append(reasons, p.Name+": upgrading, no scale-up")
		case w.ClassRefuses(c, p, spec) != "":
			reasons = append(reasons, p.Name+": "+w.ClassRefuses(c, p, spec))
		default:
			t := w.templateOf(c, p, p.Groups[0])
			switch {
			case !t.accepts(spec):
				reasons = append(reasons, p.Name+": node selector or taints do not match")
			case !pod.Req.Fits(t.free):
				reasons = append(reasons, fmt.Sprintf("%s: needs %dm CPU / %dMi, a %s node offers %dm / %dMi", p.Name,
					pod.Req.MilliCPU, pod.Req.MemoryBytes>>20, p.Spec.MachineType, t.free.MilliCPU, t.free.MemoryBytes>>20))
			default:
				reasons = append(reasons, p.Name+": max size reached")
			}
		}
	}
	if len(reasons) == 0 {
		return "no node pools"
	}
	sort.Strings(reasons)
	return strings.Join(reasons, "; ")
}
