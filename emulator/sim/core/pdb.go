package core

import (
	"maps"
	"reflect"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/labelindex"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	policyv1 "k8s.io/api/policy/v1"
)

// PodDisruptionBudgets: how many of the pods a budget selects may be disrupted (evicted) now.
// As in Kubernetes, the expected pod count comes from the controllers' scale (a Deployment's
// replicas), so evicting one pod does not lower the bar for the next; bare pods count
// themselves. Each budget keeps counts of its pods, adjusted as pods change, so an eviction
// check does not scan the cluster.

type PDBCount struct {
	Healthy int
	Bare    int
	// owners counts the selected, not terminating pods of each Deployment.
	Owners map[string]int
}

// expected is the number of pods the budget protects.
func (cnt *PDBCount) expected(c *model.Cluster) int {
	n := cnt.Bare
	for key, pods := range cnt.Owners {
		if d := c.Deployments[key]; d != nil && pods > 0 {
			n += d.DesiredReplicas()
		} else {
			n += pods
		}
	}
	return n
}

func (cnt *PDBCount) add(p *model.Pod, d int) {
	if p.OwnerKind == model.OwnerDeployment {
		cnt.Owners[p.OwnerKey()] += d
	} else {
		cnt.Bare += d
	}
	if p.Ready {
		cnt.Healthy += d
	}
}

// SelectorOf compiles (once) an object's label selector.
func (w *Core) SelectorOf(c *model.Cluster, owner any, sel *metav1.LabelSelector) labels.Selector {
	ix := w.PodIndex(c)
	if s, ok := ix.Selectors[owner]; ok {
		return s
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || sel == nil {
		s = labels.Nothing()
	}
	ix.Selectors[owner] = s
	return s
}

// PdbsOf lists the budgets that select pod p, in key order (the first blocking one is the one
// reported).
func (w *Core) PdbsOf(c *model.Cluster, p *model.Pod) []*model.PDB {
	ix := w.PodIndex(c)
	if ix.PDBs == nil || ix.PDBs.Len() != len(c.PDBs) { // first use, or a budget added since
		ix.PDBs = &labelindex.Index[*model.PDB]{}
		for _, b := range c.PDBs {
			ix.PDBs.Add(b.Namespace, b, b.Spec.Selector, w.SelectorOf(c, b, b.Spec.Selector))
		}
	}
	var out []*model.PDB
	ix.PDBs.Matching(p.Namespace(), p.Labels, func(b *model.PDB) { out = append(out, b) })
	if len(out) > 1 {
		sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	}
	return out
}

// PDBTrack adds (or removes) pod p's contribution to the counts of the budgets selecting it.
// Callers remove it before changing the pod and add it back after.
func (w *Core) PDBTrack(c *model.Cluster, p *model.Pod, add bool) {
	if len(c.PDBs) == 0 || p.Terminating {
		return
	}
	d := 1
	if !add {
		d = -1
	}
	f := w.Feed(c)
	for _, b := range w.PdbsOf(c, p) {
		w.PDBCounts(c, b).add(p, d)
		if f != nil { // its status may change
			f.marks.PDBs[b] = struct{}{}
			w.NoteDirty(c, f)
		}
	}
}

// PDBCounts returns a budget's counts, counting its pods on first use.
func (w *Core) PDBCounts(c *model.Cluster, b *model.PDB) *PDBCount {
	if w.PDBCount == nil {
		w.PDBCount = map[*model.PDB]*PDBCount{}
	}
	if cnt, ok := w.PDBCount[b]; ok {
		return cnt
	}
	fresh := map[*model.PDB]*PDBCount{b: {Owners: map[string]int{}}}
	if c.PDBs[b.Key()] != b { // not (or no longer) one of c's budgets: counted alone
		sel := w.SelectorOf(c, b, b.Spec.Selector)
		for _, p := range c.Pods {
			if p.Namespace() == b.Namespace && !p.Terminating && sel.Matches(labels.Set(p.Labels)) {
				fresh[b].add(p, 1)
			}
		}
	} else {
		// Every budget of c not yet counted is counted in the same walk of the pods.
		for _, x := range c.PDBs {
			if _, ok := w.PDBCount[x]; !ok {
				fresh[x] = &PDBCount{Owners: map[string]int{}}
			}
		}
		for _, p := range c.Pods {
			if !p.Terminating {
				for _, x := range w.PdbsOf(c, p) {
					if cnt := fresh[x]; cnt != nil {
						cnt.add(p, 1)
					}
				}
			}
		}
	}
	maps.Copy(w.PDBCount, fresh)
	return fresh[b]
}

// ForgetPDB drops a budget's derived data (it was changed or deleted). Whatever changes a
// budget's selector or deletes a budget calls it first: PdbsOf's index is rebuilt after it, or
// when c holds more or fewer budgets than the index was built from (one added).
func (w *Core) ForgetPDB(c *model.Cluster, b *model.PDB) {
	delete(w.PDBCount, b)
	ix := w.PodIndex(c)
	delete(ix.Selectors, b)
	ix.PDBs = nil
}

// PDBStatus computes a budget's status: desiredHealthy from minAvailable (rounded up) or from
// expected - maxUnavailable (rounded up), and the disruptions allowed now.
func (w *Core) PDBStatus(c *model.Cluster, b *model.PDB) policyv1.PodDisruptionBudgetStatus {
	cnt := w.PDBCounts(c, b)
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
		CurrentHealthy:     int32(cnt.Healthy),
		DesiredHealthy:     int32(desired),
		DisruptionsAllowed: int32(max(cnt.Healthy-desired, 0)),
	}
}

// EvictionBlocker returns the budget that forbids evicting p now, or nil. An unready pod may
// be evicted while its budgets are satisfied (the default unhealthyPodEvictionPolicy).
func (w *Core) EvictionBlocker(c *model.Cluster, p *model.Pod) *model.PDB {
	for _, b := range w.PdbsOf(c, p) {
		st := w.PDBStatus(c, b)
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

// syncPDBStatus sets the budgets' statuses (allowed disruptions), derived from the pods that
// changed in this batch, after the workload controllers' statuses.
func (w *Core) syncPDBStatus(c *model.Cluster, m *StatusMarks) {
	if len(m.PDBs) > 0 {
		bs := make([]*model.PDB, 0, len(m.PDBs))
		for b := range m.PDBs {
			if c.PDBs[b.Key()] == b {
				bs = append(bs, b)
			}
		}
		sort.Slice(bs, func(i, j int) bool { return bs[i].Key() < bs[j].Key() })
		for _, b := range bs {
			if st := w.PDBStatus(c, b); !reflect.DeepEqual(st, b.Status) {
				b.Status = st
				w.TouchObject(c, b, false)
			}
		}
		clear(m.PDBs)
	}
}
