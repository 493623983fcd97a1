// Package labelindex finds the label selectors that match a label set without trying every
// selector: a selector with matchLabels is filed under one of its pairs, which any set it
// matches must hold, so a lookup tries only the selectors filed under the set's own pairs, and
// those without matchLabels (matchExpressions only, or empty). A cluster with hundreds of
// PodDisruptionBudgets asks which ones select a pod at every eviction and every pod change.
package labelindex

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Index holds selectors by namespace; a selector matches only label sets of its namespace.
// The zero value is empty and ready to use.
type Index[K comparable] struct {
	byPair map[pair][]entry[K]
	// keys are, by namespace, the label keys selectors are filed under: a lookup reads those
	// of the set (most often one, such as app), not every label it has.
	keys   map[string][]string
	always map[string][]entry[K] // by namespace
	size   int
}

type pair struct{ namespace, key, value string }

type entry[K comparable] struct {
	key K
	sel labels.Selector
}

// Add files selector sel, compiled from spec, under key. A nil spec selects nothing: it is
// counted (Len) but not filed.
func (ix *Index[K]) Add(namespace string, key K, spec *metav1.LabelSelector, sel labels.Selector) {
	ix.size++
	if spec == nil {
		return
	}
	e := entry[K]{key: key, sel: sel}
	if len(spec.MatchLabels) == 0 {
		if ix.always == nil {
			ix.always = map[string][]entry[K]{}
		}
		ix.always[namespace] = append(ix.always[namespace], e)
		return
	}
	// Any one pair will do; the smallest key keeps the filing independent of map order.
	first, found := "", false
	for k := range spec.MatchLabels {
		if !found || k < first {
			first, found = k, true
		}
	}
	if ix.byPair == nil {
		ix.byPair, ix.keys = map[pair][]entry[K]{}, map[string][]string{}
	}
	if !slices.Contains(ix.keys[namespace], first) {
		ix.keys[namespace] = append(ix.keys[namespace], first)
	}
	p := pair{namespace, first, spec.MatchLabels[first]}
	ix.byPair[p] = append(ix.byPair[p], e)
}

// Len is the number of selectors added.
func (ix *Index[K]) Len() int { return ix.size }

// Matching calls yield with the key of each selector of the namespace that matches set, each
// once, in no particular order.
func (ix *Index[K]) Matching(namespace string, set map[string]string, yield func(K)) {
	for _, e := range ix.always[namespace] {
		if e.sel.Matches(labels.Set(set)) {
			yield(e.key)
		}
	}
	for _, k := range ix.keys[namespace] {
		v, ok := set[k]
		if !ok {
			continue
		}
		for _, e := range ix.byPair[pair{namespace, k, v}] {
			if e.sel.Matches(labels.Set(set)) {
				yield(e.key)
			}
		}
	}
}
