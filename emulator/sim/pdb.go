package sim

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	policyv1 "k8s.io/api/policy/v1"
)

// PodDisruptionBudgets: how many of the pods a budget selects may be disrupted (evicted) now.
// As in Kubernetes, the expected pod count comes from the controllers' scale (a Deployment's
// replicas), so evicting one pod does not lower the bar for the next; bare pods count
// themselves. Each budget keeps counts of its pods, adjusted as pods change, so an eviction
// check does not scan the cluster.

type pdbCount struct {
	healthy int
	bare    int
	// owners counts the selected, not terminating pods of each Deployment.
	owners map[string]int
}

// expected is the number of pods the budget protects.
func (cnt *pdbCount) expected(c *model.Cluster) int {
	n := cnt.bare
	for key, pods := range cnt.owners {
		if d := c.Deployments[key]; d != nil && pods > 0 {
			n += replicasOf(d)
		} else {
			n += pods
		}
	}
	return n
}

func (cnt *pdbCount) add(p *model.Pod, d int) {
	if p.OwnerKind == model.OwnerDeployment {
		cnt.owners[p.Namespace+"/"+p.Owner] += d
	} else {
		cnt.bare += d
	}
	if p.Ready {
		cnt.healthy += d
	}
}

// selectorOf compiles (once) an object's label selector.
func (w *World) selectorOf(c *model.Cluster, owner any, sel *metav1.LabelSelector) labels.Selector {
	ix := w.podIndex(c)
	if s, ok := ix.selectors[owner]; ok {
		return s
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || sel == nil {
		s = labels.Nothing()
	}
	ix.selectors[owner] = s
	return s
}

// pdbsOf lists the budgets that select pod p.
func (w *World) pdbsOf(c *model.Cluster, p *model.Pod) []*model.PDB {
	var out []*model.PDB
	for _, b := range c.PDBs {
		if b.Namespace == p.Namespace && w.selectorOf(c, b, b.Spec.Selector).Matches(labels.Set(p.Labels)) {
			out = append(out, b)
		}
	}
	if len(out) > 1 { // the first blocking budget is the one reported
		sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	}
	return out
}

// pdbTrack adds (or removes) pod p's contribution to the counts of the budgets selecting it.
// Callers remove it before changing the pod and add it back after.
func (w *World) pdbTrack(c *model.Cluster, p *model.Pod, add bool) {
	if len(c.PDBs) == 0 || p.Terminating {
		return
	}
	d := 1
	if !add {
		d = -1
	}
	f := w.feed(c)
	for _, b := range w.pdbsOf(c, p) {
		w.pdbCounts(c, b).add(p, d)
		if f != nil { // its status may change
			f.pdbs[b] = struct{}{}
			w.noteDirty(c, f)
		}
	}
}

// pdbCounts returns a budget's counts, counting its pods on first use.
func (w *World) pdbCounts(c *model.Cluster, b *model.PDB) *pdbCount {
	if w.pdbCount == nil {
		w.pdbCount = map[*model.PDB]*pdbCount{}
	}
	if cnt, ok := w.pdbCount[b]; ok {
		return cnt
	}
	cnt := &pdbCount{owners: map[string]int{}}
	sel := w.selectorOf(c, b, b.Spec.Selector)
	for _, p := range c.Pods {
		if p.Namespace == b.Namespace && !p.Terminating && sel.Matches(labels.Set(p.Labels)) {
			cnt.add(p, 1)
		}
	}
	w.pdbCount[b] = cnt
	return cnt
}

// forgetPDB drops a budget's derived data (it was changed or deleted).
func (w *World) forgetPDB(c *model.Cluster, b *model.PDB) {
	delete(w.pdbCount, b)
	delete(w.podIndex(c).selectors, b)
}

// pdbStatus computes a budget's status: desiredHealthy from minAvailable (rounded up) or from
// expected - maxUnavailable (rounded up), and the disruptions allowed now.
func (w *World) pdbStatus(c *model.Cluster, b *model.PDB) policyv1.PodDisruptionBudgetStatus {
	cnt := w.pdbCounts(c, b)
	expected := cnt.expected(c)
	desired := 0
	switch {
	case b.Spec.MinAvailable != nil:
		desired, _ = intstr.GetScaledValueFromIntOrPercent(b.Spec.MinAvailable, expected, true)
	case b.Spec.MaxUnavailable != nil:
		mu, _ := intstr.GetScaledValueFromIntOrPercent(b.Spec.MaxUnavailable, expected, true)
		desired = max(expected-mu, 0)
	}
	return policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: b.Generation,
		ExpectedPods:       int32(expected),
		CurrentHealthy:     int32(cnt.healthy),
		DesiredHealthy:     int32(desired),
		DisruptionsAllowed: int32(max(cnt.healthy-desired, 0)),
	}
}

// evictionBlocker returns the budget that forbids evicting p now, or nil. An unready pod may
// be evicted while its budgets are satisfied (the default unhealthyPodEvictionPolicy).
func (w *World) evictionBlocker(c *model.Cluster, p *model.Pod) *model.PDB {
	for _, b := range w.pdbsOf(c, p) {
		st := w.pdbStatus(c, b)
		if p.Ready && st.DisruptionsAllowed > 0 {
			continue
		}
		if !p.Ready && st.CurrentHealthy >= st.DesiredHealthy {
			continue
		}
		return b
	}
	return nil
}
