package autoscaler

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// ---- scale-down ----

// downGroup is what the scale-down pass needs of an instance group, resolved once per pass
// rather than once per node (a pass weighs every node of the cluster).
type downGroup struct {
	pool      string // the nodes' pool name, as the nodes give it
	p         *model.NodePool
	g         *model.InstanceGroup // nil when the node's pool or group is gone
	r         PoolRole
	down      bool // the pool's role lets the group shrink
	ignoreMin bool
	// mt and alloc: the allocatable of the group's nodes of that machine type (a group's nodes
	// usually share one).
	mt    string
	alloc model.Resources
	// live is the group's live node count (liveCount) when liveAt nodes had been removed in
	// this pass; liveAt is -1 until it is counted.
	live, liveAt int
}

// downCand is a scale-down candidate.
type downCand struct {
	n    *model.Node
	name string // n.Name, kept here: the pass reads it without loading the node
	dg   *downGroup
	util float64
	pods int
	// flagged and need are the node's core.NodePods Flagged and Load.Req as the pass began:
	// they hold until the pass removes a node (which moves pods).
	flagged int
	need    model.Resources
	// since and block are the node's UnneededSince and ScaleDownBlock as the pass began.
	since time.Time
	block string
}

// downKey orders the candidates (cands[i]): the empty ones first, then by utilisation, then
// by name. Comparing two keys reads neither node: util's order (floatOrder) and the name's
// first 40 bytes (nameWords; GKE's node names are at most 40) are kept here; the name itself
// decides only between candidates whose first 40 bytes are alike.
type downKey struct {
	util uint64
	name [5]uint64
	busy bool
}

// sortDownCands orders cands by their keys.
func sortDownCands(cands []downCand, keys []downKey) []int32 {
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		a, b := &keys[i], &keys[j]
		if a.busy != b.busy {
			if !a.busy {
				return -1
			}
			return 1
		}
		if a.util != b.util {
			return cmp.Compare(a.util, b.util)
		}
		for i := range a.name {
			if a.name[i] != b.name[i] {
				return cmp.Compare(a.name[i], b.name[i])
			}
		}
		return strings.Compare(cands[i].name, cands[j].name)
	})
	return order
}

// floatOrder maps f to an integer in the order cmp.Compare puts floats: NaN first (NaNs
// alike), -0 and +0 alike.
func floatOrder(f float64) uint64 {
	if f != f {
		return 0
	}
	if f == 0 {
		f = 0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// nameWords is s's first 40 bytes as big-endian words, zero-padded: when two names' words
// differ they order the names as strings.Compare does.
func nameWords(s string) (w [5]uint64) {
	for i := range w {
		j := 8 * i
		if j+8 <= len(s) {
			w[i] = uint64(s[j])<<56 | uint64(s[j+1])<<48 | uint64(s[j+2])<<40 | uint64(s[j+3])<<32 |
				uint64(s[j+4])<<24 | uint64(s[j+5])<<16 | uint64(s[j+6])<<8 | uint64(s[j+7])
			continue
		}
		for k := j; k < j+8; k++ {
			w[i] <<= 8
			if k < len(s) {
				w[i] |= uint64(s[k])
			}
		}
	}
	return w
}

// ScaleDown removes unneeded nodes.
func (w *Autoscaler) ScaleDown(c *model.Cluster, roles map[string]PoolRole) {
	ix := w.core.PodIndex(c)
	unneededFor := UnneededBalanced
	if c.AutoscalingProfile == api.ProfileOptimizeUtilization {
		unneededFor = unneededOptimize
	}
	groups := map[string]*downGroup{}
	cands := make([]downCand, 0, len(c.Nodes))
	keys := make([]downKey, 0, len(c.Nodes))
	live := 0
	// In any order: what this loop does to one node does not depend on the others, and the
	// candidates are sorted below (by name last).
	for _, n := range c.Nodes {
		ready := n.State == model.NodeReady || n.State == model.NodeCordoned
		if ready {
			live++
		}
		dg := groups[n.Group]
		if dg == nil || dg.pool != n.Pool {
			dg = w.downGroupOf(c, n, roles)
			groups[n.Group] = dg
		}
		if !dg.down || !ready || n.UpgradeRole != model.RoleNone && n.UpgradeRole != model.RoleDrained {
			n.UnneededSince = time.Time{}
			continue
		}
		var alloc model.Resources
		switch {
		case n.Own != nil && n.Own.Allocatable != nil:
			alloc = *n.Own.Allocatable
		case n.Spec.MachineType == dg.mt:
			alloc = dg.alloc
		default:
			alloc = c.TypeAllocatable(n.Spec.MachineType)
			dg.mt, dg.alloc = n.Spec.MachineType, alloc
		}
		on := ix.OnNode(n)
		req, pods := on.Load.Req, on.Load.Pods
		util := max(float64(req.MilliCPU)/float64(alloc.MilliCPU), float64(req.MemoryBytes)/float64(alloc.MemoryBytes))
		if util >= scaleDownUtilization {
			n.UnneededSince, n.ScaleDownBlock = time.Time{}, ""
			continue
		}
		keys = append(keys, downKey{util: floatOrder(util), name: nameWords(n.Name), busy: pods != 0})
		cands = append(cands, downCand{n: n, name: n.Name, dg: dg, util: util, pods: pods, flagged: on.Flagged, need: req,
			since: n.UnneededSince, block: n.ScaleDownBlock})
	}
	order := sortDownCands(cands, keys)
	removed := map[string]bool{}
	shadow := w.newShadow(c)
	shadow.noPDBBlocks = w.noPDBBlocks(c)
	empty, busy := 0, 0
	for _, i := range order {
		cd := &cands[i]
		n := cd.n
		why := w.scaleDownBlocker(c, cd, shadow, removed, live-len(removed))
		// The node's fields are written only when they change (cd has them as they were:
		// only this iteration changes them), so that a node that stays as it was is not loaded.
		if why != "" {
			if cd.since != (time.Time{}) {
				n.UnneededSince = time.Time{}
			}
			if cd.block != why {
				n.ScaleDownBlock = why
				w.engine.Record("ScaleDownBlocked", c, n.Pool, n.Name, "", "node %s not removed: %s", n.Name, why)
			}
			continue
		}
		if cd.block != "" {
			n.ScaleDownBlock = ""
		}
		if cd.since.IsZero() {
			n.UnneededSince = w.st.Now
			cd.since = w.st.Now
		}
		if w.st.Now.Sub(cd.since) < unneededFor {
			continue
		}
		if (cd.pods == 0 && empty >= maxEmptyScaleDown) || (cd.pods > 0 && busy >= maxBusyScaleDown) {
			continue
		}
		if cd.pods == 0 {
			empty++
		} else {
			busy++
		}
		if shadow.deferred {
			// A settled node: place its pods now, as the evaluation would have (they fit).
			shadow.begin(n.Name)
			w.podBlocker(c, n, cd.dg.r, shadow, removed)
		}
		removed[n.Name] = true
		shadow.commit()
		cd.dg.g.TargetSize = max(cd.dg.g.TargetSize-1, 0)
		w.engine.Record("ScaleDown", c, n.Pool, n.Name, "", "scale-down: removing node %s of %s in %s (requests %.0f%% of allocatable, unneeded for %s; its %d pods fit elsewhere)",
			n.Name, n.Pool, n.Zone, cd.util*100, w.st.Now.Sub(n.UnneededSince).Round(time.Second), cd.pods)
		n.UnneededSince = time.Time{}
		w.core.RetireNode(c, n, scaleDownDrain, "removed by the cluster autoscaler")
		shadow.noPDBBlocks = w.noPDBBlocks(c) // the drain's evictions count against budgets
	}
}

// downGroupOf resolves node n's pool and group for the scale-down pass.
func (w *Autoscaler) downGroupOf(c *model.Cluster, n *model.Node, roles map[string]PoolRole) *downGroup {
	dg := &downGroup{pool: n.Pool, p: c.Pool(n.Pool), g: w.core.GroupOf(c, n), liveAt: -1}
	if dg.p != nil && dg.g != nil {
		dg.r = roles[dg.p.Name]
		dg.down, dg.ignoreMin = dg.r.down[dg.g.Name], dg.r.ignoreMin[dg.g.Name]
	}
	return dg
}

// scaleDownBlocker says why a candidate cannot be removed, or "" (and reserves room for its
// pods in the shadow when it can).
func (w *Autoscaler) scaleDownBlocker(c *model.Cluster, cd *downCand, shadow *shadowFit, removed map[string]bool, liveLeft int) string {
	n, p, g, r := cd.n, cd.dg.p, cd.dg.g, cd.dg.r
	if !c.Autopilot && liveLeft <= 1 {
		return "it is the cluster's last node; a Standard cluster never scales to zero"
	}
	if !cd.dg.ignoreMin {
		perZone, minN, _ := limitsOf(p)
		if perZone {
			if cd.dg.liveAt != len(removed) { // only removing a node changes the count
				cd.dg.live, cd.dg.liveAt = w.liveCount(c, g), len(removed)
			}
			if cd.dg.live <= minN {
				return fmt.Sprintf("zone %s of %s is at its minimum of %d nodes", g.Zone, p.Name, minN)
			}
		}
		if !perZone {
			total := 0
			for _, x := range p.Groups {
				if r.limitScope[x.Name] {
					total += w.liveCount(c, x)
				}
			}
			if total <= minN {
				return fmt.Sprintf("%s is at its total minimum of %d nodes", p.Name, minN)
			}
		}
	}
	shadow.begin(cd.name)
	flagged, need := cd.flagged, cd.need
	if len(removed) > 0 {
		on := w.core.PodIndex(c).On(cd.name)
		flagged, need = on.Flagged, on.Load.Req
	}
	if shadow.settled(flagged, need, cd.name, removed, r.onlyUnder) {
		shadow.deferred = true // its pods are placed if the node is removed
		return ""
	}
	return w.podBlocker(c, n, r, shadow, removed)
}

// podBlocker looks at node n's pods in order: the first that keeps the node says why, or ""
// (and the shadow holds the room its pods take elsewhere).
func (w *Autoscaler) podBlocker(c *model.Cluster, n *model.Node, r PoolRole, shadow *shadowFit, removed map[string]bool) string {
	for _, pod := range w.core.PodIndex(c).On(n.Name).Pods {
		if pod.OwnerKind == model.OwnerDaemonSet || pod.Terminating {
			continue
		}
		switch {
		case pod.Annotation[core.SafeToEvictAnnotation] == "false" && c.Autopilot && w.st.Now.Before(pod.CreateTime.Time().Add(core.ExtendedDuration)):
			return fmt.Sprintf("pod %s has %s: \"false\"; Autopilot protects such pods for 7 days, until %s", pod.Key(), core.SafeToEvictAnnotation,
				pod.CreateTime.Time().Add(core.ExtendedDuration).Format(time.RFC3339))
		case pod.Annotation[core.SafeToEvictAnnotation] == "false" && !c.Autopilot:
			return fmt.Sprintf("pod %s has %s: \"false\", which keeps its node", pod.Key(), core.SafeToEvictAnnotation)
		case pod.OwnerKind == 0:
			return fmt.Sprintf("pod %s is not managed by a controller", pod.Key())
		case pod.Namespace() == "kube-system" && len(w.core.PdbsOf(c, pod)) == 0:
			return fmt.Sprintf("kube-system pod %s has no PodDisruptionBudget", pod.Key())
		}
		if b := w.core.EvictionBlocker(c, pod); b != nil {
			return fmt.Sprintf("evicting pod %s would violate PodDisruptionBudget %s", pod.Key(), b.Key())
		}
		if r.onlyUnder {
			continue // autoscaled blue-green: the green pool grows for these pods (R-ABG-2)
		}
		if !shadow.place(w, c, pod, removed) {
			return fmt.Sprintf("pod %s fits on no other node", pod.Key())
		}
	}
	return ""
}
