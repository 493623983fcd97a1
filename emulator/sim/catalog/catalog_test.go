package catalog

import (
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Version
		ok   bool
	}{
		{"1.33.2-gke.1240000", Version{33, 2, 1240000}, true},
		{"1.36.0-gke.1000", Version{36, 0, 1000}, true},
		{"1.33", Version{}, false},
		{"1.33.2", Version{}, false},
		{"2.33.2-gke.1", Version{}, false},
		{"1.-1.2-gke.1", Version{}, false},
		{"", Version{}, false},
	} {
		got, ok := ParseVersion(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && got.String() != tc.in {
			t.Errorf("%q does not round-trip: %s", tc.in, got)
		}
	}
}

// Over two years of emulated time, every channel lists its versions newest first, its default
// is one of them, and a channel's newest minor is never ahead of a faster channel's.
func TestVersionTableOverTime(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := 0; d < 730; d += 7 {
		vt := VersionsAt(start.Add(time.Duration(d) * 24 * time.Hour))
		var prevNewest *Version
		for _, ch := range []string{api.ChannelRapid, api.ChannelRegular, api.ChannelStable} {
			cv := vt.Channels[ch]
			if len(cv.Valid) == 0 {
				t.Fatalf("day %d: channel %s lists no version", d, ch)
			}
			found := false
			for i, v := range cv.Valid {
				if i > 0 && cv.Valid[i-1].Compare(v) <= 0 {
					t.Fatalf("day %d: %s not newest first: %v", d, ch, cv.Valid)
				}
				found = found || v == cv.Default
			}
			if !found {
				t.Fatalf("day %d: %s default %s is not in its list", d, ch, cv.Default)
			}
			if prevNewest != nil && cv.Valid[0].Minor > prevNewest.Minor {
				t.Fatalf("day %d: %s has minor %d, ahead of the faster channel's %d", d, ch, cv.Valid[0].Minor, prevNewest.Minor)
			}
			prevNewest = &cv.Valid[0]
		}
	}
}

func TestMachineTypesAndLocations(t *testing.T) {
	mt, ok := LookupMachineType("e2-standard-4")
	if !ok || mt.VCPU != 4 || mt.AllocatableMilliCPU() >= mt.CapacityMilliCPU() {
		t.Fatalf("e2-standard-4 = %+v, %v; want 4 vCPUs with GKE's reservation taken off", mt, ok)
	}
	if _, ok := LookupMachineType("e2-nonsense-4"); ok {
		t.Fatal("an unknown machine type was found")
	}
	l, ok := ParseLocation("us-central1-a")
	if !ok || l.Region != "us-central1" || !l.Zonal {
		t.Fatalf("ParseLocation(us-central1-a) = %+v, %v", l, ok)
	}
	if zs := Zones("us-central1"); len(zs) < 3 {
		t.Fatalf("us-central1 has zones %v", zs)
	}
}
