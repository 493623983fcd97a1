package model

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// A Stamp reads and writes as the time.Time it replaced, so that a state saved before it
// reads alike and a state saved now is what an older gkesim wrote.
func TestStampSavesAsTime(t *testing.T) {
	for _, tm := range []time.Time{
		{},
		time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 10, 2, 0, 7, 123456789, time.UTC),
		time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC),
		time.Date(2261, 12, 31, 23, 59, 59, 0, time.UTC),
	} {
		want, _ := json.Marshal(tm)
		got, err := json.Marshal(StampOf(tm))
		if err != nil || string(got) != string(want) {
			t.Errorf("Stamp of %v writes %s (%v), want %s as time.Time does", tm, got, err, want)
		}
		var s Stamp
		if err := json.Unmarshal(want, &s); err != nil || !s.Time().Equal(tm) || s.Time().IsZero() != tm.IsZero() {
			t.Errorf("%s reads back as %v (%v), want %v", want, s.Time(), err, tm)
		}
		if !tm.IsZero() && s.Time().Location() != time.UTC {
			t.Errorf("%s reads back in %v, want UTC as the emulated clock keeps", want, s.Time().Location())
		}
	}
	// A time written with an offset is the same instant.
	var s Stamp
	if err := json.Unmarshal([]byte(`"2026-03-10T04:00:00+02:00"`), &s); err != nil || s != StampOf(time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC)) {
		t.Errorf("an offset time reads as %v (%v), want 02:00 UTC", s.Time(), err)
	}
	if err := json.Unmarshal([]byte(`"yesterday"`), &s); err == nil {
		t.Error("a time that is not RFC 3339 was read without an error")
	}
}

// Stamps order as the times do, 0 is no time, and the edges are kept as documented.
func TestStampOrderAndEdges(t *testing.T) {
	a, b := time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC), time.Date(2026, 3, 10, 2, 0, 0, 1, time.UTC)
	if !(StampOf(a) < StampOf(b)) || StampOf(a) != StampOf(a.In(time.FixedZone("x", 3600))) {
		t.Error("stamps do not order or compare as their times")
	}
	if !StampOf(time.Time{}).IsZero() || StampOf(time.Unix(0, 0)).IsZero() {
		t.Error("the zero time must be the zero stamp, and the epoch's instant must not be")
	}
	if got := StampOf(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)).Time(); got.Year() != 2262 {
		t.Errorf("a time past 2262 is kept as %v, want the latest instant a stamp holds", got)
	}
	if got := StampOf(time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)).Time(); got.Year() != 1677 {
		t.Errorf("a time before 1677 is kept as %v, want the earliest instant a stamp holds", got)
	}
}

// A pod is 176 bytes (a size class of Go's allocator): its times as Stamps, its owner's kind a
// byte, its address 4 bytes among the small fields (IP), its namespace and name parts of its
// key; 210,000 pods of a 15,000-node cluster keep 23 MB less than at 288, and their addresses
// take no allocation of their own.
func TestPodSize(t *testing.T) {
	if size := unsafe.Sizeof(Pod{}); size > 176 {
		t.Errorf("a Pod is %d bytes, want at most 176", size)
	}
}

// An IP reads and writes as the string it replaced: an IPv4 address as itself, any other
// text (an imported pod's IPv6 address) kept as it was given, the same text the same IP.
func TestIP(t *testing.T) {
	for _, s := range []string{"", "10.4.0.1", "255.255.255.255", "1.0.0.0", "fd20::11", "0.0.0.7", "10.4.0", "host"} {
		ip, err := ParseIP(s)
		if err != nil || ip.String() != s {
			t.Errorf("%q parses to %v (%v), writes %q", s, uint32(ip), err, ip.String())
		}
		b, _ := json.Marshal(ip)
		want, _ := json.Marshal(s)
		var back IP
		if string(b) != string(want) || json.Unmarshal(b, &back) != nil || back != ip {
			t.Errorf("%q saves as %s and reads back as %v", s, b, back)
		}
	}
	if a, _ := ParseIP("fd20::11"); a < 1 || a >= 1<<24 {
		t.Errorf("an IPv6 address stands as %d, want a number in 0.0.0.0/8", uint32(a))
	}
	if a, _ := ParseIP("10.4.0.1"); a != 10<<24|4<<16|1 {
		t.Errorf("10.4.0.1 is kept as %d, want itself", uint32(a))
	}
	// Every host-network pod parses its node's address: an IPv4 one costs no allocation.
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseIP("10.128.0.17") }); n != 0 {
		t.Errorf("parsing an IPv4 address allocates %v times, want 0", n)
	}
	// A pod saved without an address reads back without one; the field is left out as before.
	b, _ := json.Marshal(NewPod("a", "b"))
	if strings.Contains(string(b), `"ip"`) {
		t.Errorf("a pod without an address saves %s, want no ip field", b)
	}
}

// A pod event finds its pod through its handle while the pod is its cluster's, and by its key
// once the pod is removed (another may have the key now) or when the event was read back from
// a saved state (no handle).
func TestPodEventHandle(t *testing.T) {
	c := &Cluster{Pods: map[string]*Pod{}}
	old := NewPod("shop", "web-1")
	c.Pods[old.Key()] = old
	ev := PodEvent("pod.started", "p/l/c", old)
	if got := ev.PodIn(c); got != old {
		t.Fatalf("live pod: PodIn = %p, want the pod %p", got, old)
	}

	// Removed, and a new pod under the same key: the event finds what the key finds.
	delete(c.Pods, old.Key())
	old.MarkRemoved()
	if got := ev.PodIn(c); got != nil {
		t.Fatalf("removed pod: PodIn = %v, want nil", got)
	}
	again := NewPod("shop", "web-1")
	c.Pods[again.Key()] = again
	if got := ev.PodIn(c); got != again {
		t.Fatalf("key taken again: PodIn = %p, want the new pod %p", got, again)
	}

	// Read back from its saved form: no handle, the key.
	var saved Event
	b, _ := json.Marshal(ev)
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	if saved.pod != nil || saved.PodIn(c) != again || string(b) != `{"kind":"pod.started","cluster":"p/l/c","node":"shop/web-1"}` {
		t.Fatalf("saved event %s: handle %p, PodIn %p", b, saved.pod, saved.PodIn(c))
	}
}

// Marking a pod removed allocates nothing for a pod without rare fields; the shared mark is
// never written, and a removed pod's rare fields stay as they were.
func TestMarkRemovedSharesOneMarkAndKeepsRareFields(t *testing.T) {
	plain := NewPod("a", "x")
	if allocs := testing.AllocsPerRun(100, func() { plain.PodRare = nil; plain.MarkRemoved() }); allocs != 0 {
		t.Errorf("MarkRemoved allocated %v times", allocs)
	}
	plain.MarkRemoved() // marked twice (a pod that lost its key, then removed): the shared mark is not written
	if !plain.Removed() || plain.PodRare != &removedRare {
		t.Fatalf("a removed pod without rare fields has the shared mark: %+v", plain.PodRare)
	}
	plain.SetUnschedulable("") // clearing on the shared mark writes nothing
	plain.SetUnschedulable("0/3 nodes are available")
	if plain.PodRare == &removedRare || !plain.Removed() || plain.Unschedulable() == "" {
		t.Fatalf("writing a removed pod's rare field copies the mark first: %+v", plain.PodRare)
	}
	plain.SetUnschedulable("") // tidy keeps a removed pod's mark
	if !plain.Removed() || !reflect.DeepEqual(removedRare, PodRare{removed: true}) {
		t.Fatalf("mark lost or shared mark written: pod %+v, shared %+v", plain.PodRare, removedRare)
	}

	rare := NewPod("a", "y")
	rare.Rarely().DeletionTime = StampOf(time.Unix(100, 0))
	rare.MarkRemoved()
	if !rare.Removed() || rare.DeletionTime().Unix() != 100 {
		t.Fatalf("a removed pod keeps its rare fields: %+v", rare.PodRare)
	}
	if NewPod("a", "z").Removed() {
		t.Fatal("a new pod is not removed")
	}
}
