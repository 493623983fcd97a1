package feed

import (
	"errors"
	"net/http"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

func changes(rvs ...int64) []Change {
	out := make([]Change, len(rvs))
	for i, rv := range rvs {
		out[i] = Change{RV: rv, Type: ChangeModified, Resource: ResourcePods, Name: "p"}
	}
	return out
}

func rvsOf(cs []Change) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.RV
	}
	return out
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func status(t *testing.T, err error) int {
	t.Helper()
	var me *model.Error
	if !errors.As(err, &me) {
		t.Fatalf("error %v is not the API's", err)
	}
	return me.HTTPCode
}

// The window keeps the newest changes: once full, the oldest fall out and a watch from before
// them is 410 Expired; a watch from a version the cluster has not reached is 504.
func TestTheWindowKeepsTheNewestChanges(t *testing.T) {
	w := NewWindow(3, 10)
	w.StartRecording(10)
	w.Append(changes(11, 12))
	got, next, err := w.Read(10, 12, 100)
	if err != nil || !equal(rvsOf(got), []int64{11, 12}) || next != 12 {
		t.Fatalf("read from 10: %v next %d err %v, want [11 12] next 12", rvsOf(got), next, err)
	}
	w.Append(changes(13, 14, 15))
	if w.Len() != 3 || w.Start() != 12 {
		t.Fatalf("after 5 changes in a window of 3: len %d start %d, want 3 and 12", w.Len(), w.Start())
	}
	if got, _, err := w.Read(12, 15, 100); err != nil || !equal(rvsOf(got), []int64{13, 14, 15}) {
		t.Fatalf("read from 12: %v %v, want [13 14 15]", rvsOf(got), err)
	}
	if _, _, err := w.Read(11, 15, 100); status(t, err) != http.StatusGone {
		t.Errorf("read from 11, before the window: %v, want 410", err)
	}
	if _, _, err := w.Read(16, 15, 100); status(t, err) != http.StatusGatewayTimeout {
		t.Errorf("read from 16, beyond the cluster's version: %v, want 504", err)
	}
	// A page: at most limit changes, and the version the watch has seen up to.
	if got, next, _ := w.Read(12, 15, 2); !equal(rvsOf(got), []int64{13, 14}) || next != 14 {
		t.Errorf("a page of 2 from 12: %v next %d, want [13 14] next 14", rvsOf(got), next)
	}
	// More changes at once than the window holds: the newest stay.
	w.Append(changes(16, 17, 18, 19))
	if got, _, _ := w.Read(w.Start(), 19, 100); !equal(rvsOf(got), []int64{17, 18, 19}) || w.Start() != 16 {
		t.Errorf("after a batch of 4: %v start %d, want [17 18 19] start 16", rvsOf(got), w.Start())
	}
}

// A window that stops recording is empty and starts at the cluster's version; a publish wakes
// the watchers and, while nothing records, moves the start.
func TestAWindowThatStopsRecordingStartsAgain(t *testing.T) {
	w := NewWindow(4, 1)
	w.StartRecording(1)
	w.Append(changes(2, 3))
	w.StopRecording(3)
	if w.Recording || w.Len() != 0 || w.Start() != 3 {
		t.Fatalf("stopped: recording %v len %d start %d, want false 0 3", w.Recording, w.Len(), w.Start())
	}
	wake := w.Waiter()
	w.Published(7)
	select {
	case <-wake:
	default:
		t.Error("a publish did not wake the watchers")
	}
	if w.Start() != 7 {
		t.Errorf("start after a publish while not recording: %d, want 7", w.Start())
	}
	w.Resize(8)
	w.StartRecording(7)
	w.Append(changes(8, 9, 10, 11, 12, 13))
	if w.Len() != 6 {
		t.Errorf("a resized window holds %d, want 6", w.Len())
	}
}

// Entries come in resourceVersion order: one out of order is a bug, and panics.
func TestAChangeOutOfOrderPanics(t *testing.T) {
	w := NewWindow(4, 0)
	w.Append(changes(5))
	defer func() {
		if recover() == nil {
			t.Error("a change at 4 after 5 was accepted")
		}
	}()
	w.Append(changes(4))
}

func TestFollowing(t *testing.T) {
	var f Following
	if !f.Followed("p/l/c") {
		t.Error("with nothing set, a cluster is not followed")
	}
	f.Set(func(key string) bool { return key == "p/l/a" })
	if !f.Followed("p/l/a") || f.Followed("p/l/b") {
		t.Error("the function set is not asked")
	}
	f.Set(nil)
	if !f.Followed("p/l/b") {
		t.Error("after Set(nil), a cluster is not followed")
	}
}

// Each change kept takes a slot of the ring below its capacity, the one the change it
// replaces had; Read hands out rendered objects, never the snapshot a slot holds.
func TestKeepGivesEachChangeItsRingSlot(t *testing.T) {
	w := NewWindow(3, 10)
	w.StartRecording(10)
	var slots []int
	w.Keep = func(slot int, ch *Change) { slots = append(slots, slot); ch.Snap = Rendered{} }
	w.Append(changes(11, 12))
	w.Append(changes(13, 14, 15))
	w.Append(changes(16, 17, 18, 19)) // more than the window: the oldest never takes a slot
	if want := []int{0, 1, 2, 0, 1, 2, 0, 1}; len(slots) != len(want) || !equal(int64s(slots), int64s(want)) {
		t.Errorf("slots %v, want %v", slots, want)
	}
	got, _, _ := w.Read(w.Start(), 19, 100)
	for _, ch := range got {
		if ch.Snap != nil {
			t.Errorf("change %d read with its snapshot", ch.RV)
		}
	}
}

func int64s(is []int) []int64 {
	out := make([]int64, len(is))
	for i, v := range is {
		out[i] = int64(v)
	}
	return out
}
