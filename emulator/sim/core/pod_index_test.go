package core

import (
	"cmp"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// comparePods orders pods by namespace, then name, even where their keys order otherwise: "-"
// sorts before "/", so the key a-b/y comes before a/x while namespace a comes before a-b.
func TestComparePodsOrdersByNamespaceThenName(t *testing.T) {
	keys := []string{"a/x", "a-b/y", "a/x-1", "a/", "ab/a", "a-b/a", "default/web-1", "default/web-10", "default/web-2", "kube-system/a", "/z", "b/a"}
	for _, x := range keys {
		for _, y := range keys {
			a, b := model.KeyedPod(x), model.KeyedPod(y)
			want := cmp.Or(cmp.Compare(a.Namespace(), b.Namespace()), cmp.Compare(a.Name(), b.Name()))
			if got := comparePods(a, b); got != want {
				t.Errorf("comparePods(%s, %s) = %d, want %d", x, y, got, want)
			}
		}
	}
}
