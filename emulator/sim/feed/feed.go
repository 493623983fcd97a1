// Package feed is the window of a cluster's change feed that watches read: the newest changes
// in resourceVersion order (a ring of WatchHistory entries), where the window starts, the
// channel that wakes watchers at each publish, and whether anyone follows the cluster. The core
// decides what goes in (core/changefeed.go: which objects changed, as what, at which publish);
// this package keeps the entries and answers the watches' reads.
package feed

import (
	"fmt"
	"net/http"
	"sort"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// DefaultWatchHistory is how many changes each cluster's feed keeps.
const DefaultWatchHistory = 10_000

// Change types, as a watch event spells them.
const (
	ChangeAdded    = "ADDED"
	ChangeModified = "MODIFIED"
	ChangeDeleted  = "DELETED"
)

// Resource names of the objects the feed carries, as the API paths spell them.
const (
	ResourcePods        = "pods"
	ResourceNodes       = "nodes"
	ResourceNamespaces  = "namespaces"
	ResourceDeployments = "deployments"
	ResourceReplicaSets = "replicasets"
	ResourceDaemonSets  = "daemonsets"
	ResourcePDBs        = "poddisruptionbudgets"
	ResourceServices    = "services"
	ResourceEvents      = "events"
)

// Change is one entry of a cluster's change feed: an object as it was at RV.
type Change struct {
	RV        int64
	Type      string
	Resource  string
	Namespace string
	Name      string
	// Object is the Kubernetes object (nil for events, which carry Event).
	Object runtime.Object
	// Event is the event-log entry of an "events" change, written out from Logged when first
	// read.
	Event *api.Event
	// Logged is the entry of an "events" change as the log keeps it (neither its time nor its
	// message written out yet).
	Logged model.KeptEntry
	// Snap is what the object was when it changed, rendered into Object when first read (Read
	// returns the change without it: a snapshot may live in storage that the ring reuses).
	Snap Snapshot
}

// EventChange is the change that puts the event-log entry e in the feed at resourceVersion rv.
func EventChange(rv int64, e model.KeptEntry) Change {
	return Change{RV: rv, Type: ChangeAdded, Resource: ResourceEvents, Logged: e}
}

// event writes an "events" change's entry out as the API's event.
func (ch *Change) event() *api.Event {
	e := ch.Logged.Entry()
	return e.API()
}

// Snapshot is what an object was when it changed, from which its API object renders later.
// Pods and nodes change far more often than anyone watches them, so theirs are copies of the
// model, rendered only when a watcher reads them; other kinds render at once (Rendered).
type Snapshot interface{ Render() runtime.Object }

// Rendered is the snapshot of an object rendered when it changed.
type Rendered struct{ Obj runtime.Object }

// Render returns the object.
func (s Rendered) Render() runtime.Object { return s.Obj }

// Window is the part of a cluster's feed that watches read.
type Window struct {
	// ring holds the changes as values (a change costs no object of its own); it grows to
	// capacity, then wraps.
	ring       []Change
	capacity   int
	head, size int
	// Keep, when set, is called with each change as it takes the ring's slot (an index below
	// the capacity, reused as the ring wraps): it may move what the change carries into
	// storage of its own for that slot (see Slots).
	Keep func(slot int, ch *Change)
	// start: a watch from any resourceVersion >= start misses nothing the ring holds.
	start int64
	// wake is closed at the next publish; it is made when a watcher first asks for it
	// (Waiter), so that a publish nobody waits for makes no channel.
	wake chan struct{}
	// Recording: entries are taken (someone follows the cluster); when false the window is
	// empty.
	Recording bool
}

// NewWindow makes an empty window of capacity changes that starts at resourceVersion start.
func NewWindow(capacity int, start int64) *Window {
	return &Window{capacity: capacity, start: start}
}

// Resize gives an empty window a new capacity (a window that holds changes keeps its own).
func (f *Window) Resize(capacity int) {
	if f.size == 0 {
		f.ring, f.head, f.capacity = nil, 0, capacity
	}
}

// Append adds changes (in resourceVersion order) to the ring; older ones fall out of the window.
func (f *Window) Append(changes []Change) {
	capacity := f.capacity
	if len(changes) > capacity {
		f.start = changes[len(changes)-capacity-1].RV
		changes = changes[len(changes)-capacity:]
	}
	for i := range changes {
		ch := &changes[i]
		if f.size > 0 && ch.RV <= f.at(f.size-1).RV {
			panic(fmt.Sprintf("sim: change feed out of order: %s %s/%s at %d after %d", ch.Resource, ch.Namespace, ch.Name, ch.RV, f.at(f.size-1).RV))
		}
		slot := (f.head + f.size) % capacity
		if f.size == capacity {
			// The oldest entry falls out: a watch must now start at it or later. (After a
			// batch larger than the window, the start is already past it.)
			f.start = max(f.start, f.ring[f.head].RV)
			slot = f.head
			f.head = (f.head + 1) % capacity
		} else {
			f.size++
		}
		if f.Keep != nil {
			f.Keep(slot, ch)
		}
		if slot == len(f.ring) {
			f.ring = append(f.ring, *ch)
		} else {
			f.ring[slot] = *ch
		}
	}
}

// StartRecording takes entries from now on; the window starts at rv, the cluster's version.
func (f *Window) StartRecording(rv int64) {
	f.Recording = true
	f.start = rv
}

// StopRecording empties the window: nothing is kept for watches until the feed is followed
// again, and a watch must start from rv, the cluster's version as it is now.
func (f *Window) StopRecording(rv int64) {
	f.Recording = false
	f.ring = nil
	f.head, f.size, f.start = 0, 0, rv
}

// Published ends a publish at the cluster's version rv: a window that does not record starts
// there, and the watchers wake.
func (f *Window) Published(rv int64) {
	if !f.Recording {
		f.start = rv
	}
	if f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

// Close wakes the watchers for the last time: the cluster is gone. The channel stays closed,
// so that a watcher asking later is woken at once.
func (f *Window) Close() {
	if f.wake == nil {
		f.wake = make(chan struct{})
	}
	close(f.wake)
}

func (f *Window) at(i int) *Change { return &f.ring[(f.head+i)%f.capacity] }

// Read returns up to limit changes after resourceVersion after, rendered, and the
// resourceVersion a watch has then seen up to; current is the cluster's version. A version
// older than the window (or from before a restart) is 410 Expired; one the cluster has not
// reached is a timeout, as the API server answers.
func (f *Window) Read(after, current int64, limit int) ([]Change, int64, error) {
	if after < f.start {
		return nil, 0, ExpiredError(after, f.start)
	}
	if after > current {
		return nil, 0, model.KubeError(http.StatusGatewayTimeout, "Timeout", "Too large resource version: %d, current: %d", after, current)
	}
	i := sort.Search(f.size, func(i int) bool { return f.at(i).RV > after })
	var out []Change
	for ; i < f.size && len(out) < limit; i++ {
		ch := f.at(i)
		if ch.Object == nil && ch.Snap != nil {
			ch.Object = ch.Snap.Render()
		}
		if ch.Event == nil && ch.Resource == ResourceEvents {
			ch.Event = ch.event()
		}
		out = append(out, *ch)
		out[len(out)-1].Snap = nil
	}
	next := current
	if i < f.size {
		next = out[len(out)-1].RV
	}
	return out, next, nil
}

// ExpiredError is the API server's 410 for a watch from a version it no longer has.
func ExpiredError(rv, oldest int64) *model.Error {
	return model.KubeError(http.StatusGone, "Expired", "too old resource version: %d (%d)", rv, oldest)
}

// Waiter returns a channel that is closed when the feed next publishes (or its cluster goes).
func (f *Window) Waiter() <-chan struct{} {
	if f.wake == nil {
		f.wake = make(chan struct{})
	}
	return f.wake
}

// Start is the oldest resourceVersion a watch may start from.
func (f *Window) Start() int64 { return f.start }

// EventResourceVersions maps the event-log entries the window holds to their resourceVersions,
// and gives the oldest version it holds (older events stand at it).
func (f *Window) EventResourceVersions() (map[int64]int64, int64) {
	out := map[int64]int64{}
	for i := 0; i < f.size; i++ {
		if ch := f.at(i); ch.Resource == ResourceEvents {
			out[ch.Logged.Seq] = ch.RV
		}
	}
	return out, f.start
}

// Following says whether anyone follows a cluster's feed. Its function may be set from any
// goroutine, before or after the runner starts.
type Following struct {
	fn atomic.Pointer[func(cluster string) bool]
}

// Set sets the function asked whether anyone still follows a cluster (by its key); nil (the
// default) says every cluster is followed.
func (f *Following) Set(followed func(cluster string) bool) {
	if followed == nil {
		f.fn.Store(nil)
		return
	}
	f.fn.Store(&followed)
}

// Followed says whether anyone follows the cluster of key (always, when nothing was set).
func (f *Following) Followed(key string) bool {
	fn := f.fn.Load()
	return fn == nil || (*fn)(key)
}

// Capacity is how many changes the window holds at most.
func (f *Window) Capacity() int { return f.capacity }

// Len is how many changes the window holds.
func (f *Window) Len() int { return f.size }

// Slots is storage by slot of the ring for what changes carry (Window.Keep), in chunks made
// as the ring first reaches them and reused as it wraps: a change that takes a slot overwrites
// what its predecessor there kept, which has left the window (Read hands out rendered objects,
// never what a slot holds). The zero Slots is empty.
type Slots[T any] struct{ chunks [][]T }

const slotChunk = 256

// At is the storage of slot i.
func (s *Slots[T]) At(i int) *T {
	for len(s.chunks) <= i/slotChunk {
		s.chunks = append(s.chunks, make([]T, slotChunk))
	}
	return &s.chunks[i/slotChunk][i%slotChunk]
}
