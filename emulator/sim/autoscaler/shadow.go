package autoscaler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// shadowFit tracks, during one scale-down pass, the room that pods of removed nodes will take
// on the remaining nodes.
type shadowFit struct {
	used    map[string]model.Resources // committed
	pending map[string]model.Resources // of the candidate being checked
	node    string
	// groups are the scheduler's node groups in key order, sorted once for the pass.
	groups []*core.SchedGroup
	// noPDBBlocks: no budget forbids an eviction during this pass; open: whether each group
	// (by its place in groups) takes pods that select no nodes, worked out on first use;
	// deferred: the candidate being checked was settled without placing its pods
	// (scaledown_summary.go).
	noPDBBlocks bool
	open        []openness
	deferred    bool
}

// openness is a group's open, once known.
type openness uint8

const (
	opennessUnknown openness = iota
	opennessOpen
	opennessClosed
)

func (w *Autoscaler) newShadow(c *model.Cluster) *shadowFit {
	ix := w.core.PodIndex(c)
	groups := ix.SortedSchedGroups()
	return &shadowFit{used: map[string]model.Resources{}, pending: map[string]model.Resources{}, groups: groups, open: make([]openness, len(groups))}
}

func (s *shadowFit) begin(node string) {
	s.node, s.deferred = node, false
	clear(s.pending)
}

func (s *shadowFit) commit() {
	for n, r := range s.pending {
		s.used[n] = s.used[n].Add(r)
	}
	clear(s.pending)
}

// place finds another schedulable node, not being removed, that takes pod.
func (s *shadowFit) place(w *Autoscaler, c *model.Cluster, pod *model.Pod, removed map[string]bool) bool {
	spec := w.core.PodSpec(c, pod)
	for _, g := range s.groups {
		// The heap's top has the most free CPU of the group; what this pass has placed only
		// takes from it: if the pod's CPU does not fit there, it fits nowhere in the group.
		if len(g.Heap) == 0 || pod.Req.MilliCPU > g.Heap[0].Node.Free.MilliCPU || g.Rejects(spec) != "" {
			continue
		}
		for _, e := range g.Heap {
			sn := e.Node
			if sn.Name == s.node || removed[sn.Name] || sn.Pods >= g.MaxPods || w.core.SeparatedFrom(c, pod, sn.Name) {
				continue
			}
			free := sn.Free.Sub(s.used[sn.Name]).Sub(s.pending[sn.Name])
			if pod.Req.Fits(free) {
				s.pending[sn.Name] = s.pending[sn.Name].Add(pod.Req)
				return true
			}
		}
	}
	return false
}

// settled says whether node n's pods are known to fit elsewhere without looking at them: no
// pod of n is flagged (flagged is how many are, core.NodePods.Flagged), no budget blocks, and
// one schedulable node that every unflagged pod may go to has room for all of n's pods (their
// requests need, its DaemonSet pods aside) at once. Placing them one by one (shadowFit.place)
// then cannot fail: that node keeps room for each in turn. With onlyUnder (autoscaled
// blue-green) room is not checked: no blocker settles it.
func (s *shadowFit) settled(flagged int, need model.Resources, n string, removed map[string]bool, onlyUnder bool) bool {
	if !s.noPDBBlocks || flagged > 0 {
		return false
	}
	if onlyUnder {
		return true
	}
	for i, g := range s.groups {
		if !s.isOpen(i) {
			continue
		}
		// The heap's first entries are the group's roomiest nodes by CPU.
		for _, e := range g.Heap[:min(len(g.Heap), 3)] {
			sn := e.Node
			if sn.Name == n || removed[sn.Name] || sn.Pods >= g.MaxPods {
				continue
			}
			if need.Fits(sn.Free.Sub(s.used[sn.Name]).Sub(s.pending[sn.Name])) {
				return true
			}
		}
	}
	return false
}

// isOpen says whether every pod that selects no nodes may go to group s.groups[i]: it has no
// taint but PreferNoSchedule ones.
func (s *shadowFit) isOpen(i int) bool {
	if s.open[i] == opennessUnknown {
		s.open[i] = opennessOpen
		for _, t := range s.groups[i].Taints {
			if t.Effect != corev1.TaintEffectPreferNoSchedule {
				s.open[i] = opennessClosed
			}
		}
	}
	return s.open[i] == opennessOpen
}
