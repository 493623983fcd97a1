package catalog

import "testing"

// ParseVersion reads GKE versions ("1.33.4-gke.1200"): it never panics, and what it accepts is
// canonical (String gives the input back) and ordered consistently.
func FuzzParseVersion(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b string) {
		va, oka := ParseVersion(a)
		vb, okb := ParseVersion(b)
		if oka && va.String() != a {
			t.Fatalf("ParseVersion(%q) accepted it as %s", a, va)
		}
		if oka && okb && va.Compare(vb) != -vb.Compare(va) {
			t.Fatalf("Compare(%s, %s) = %d but Compare(%s, %s) = %d", va, vb, va.Compare(vb), vb, va, vb.Compare(va))
		}
	})
}
