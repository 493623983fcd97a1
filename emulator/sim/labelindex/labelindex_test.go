package labelindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The index finds exactly the selectors that trying every one would: selectors with
// matchLabels of one or more pairs, with expressions only, empty (everything) and nil
// (nothing), in two namespaces, against random label sets.
func TestMatchingFindsWhatTryingEverySelectorFinds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	value := func() string { return fmt.Sprint("v", r.IntN(3)) }
	key := func() string { return fmt.Sprint("k", r.IntN(4)) }
	type filed struct {
		ns  string
		sel labels.Selector
	}
	var ix Index[int]
	var all []filed
	for i := range 200 {
		ns := []string{"a", "b"}[r.IntN(2)]
		var spec *metav1.LabelSelector
		switch r.IntN(5) {
		case 0: // nil: selects nothing
		case 1:
			spec = &metav1.LabelSelector{}
		case 2:
			spec = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key(), Operator: metav1.LabelSelectorOpExists}}}
		default:
			spec = &metav1.LabelSelector{MatchLabels: map[string]string{key(): value()}}
			if r.IntN(2) == 0 {
				spec.MatchLabels[key()] = value()
			}
		}
		sel := labels.Nothing()
		if spec != nil {
			s, err := metav1.LabelSelectorAsSelector(spec)
			if err != nil {
				t.Fatal(err)
			}
			sel = s
		}
		ix.Add(ns, i, spec, sel)
		all = append(all, filed{ns, sel})
	}
	if ix.Len() != 200 {
		t.Fatalf("Len = %d, want 200 (nil selectors counted too)", ix.Len())
	}
	found := 0
	for range 500 {
		ns := []string{"a", "b"}[r.IntN(2)]
		set := map[string]string{}
		for range r.IntN(4) {
			set[key()] = value()
		}
		var want, got []int
		for i, f := range all {
			if f.ns == ns && f.sel.Matches(labels.Set(set)) {
				want = append(want, i)
			}
		}
		ix.Matching(ns, set, func(i int) { got = append(got, i) })
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("labels %v in %s: index found %v, trying every selector %v", set, ns, got, want)
		}
		found += len(got)
	}
	if found == 0 {
		t.Fatal("no label set matched any selector: the test checks nothing")
	}
}
