// Package sim is the domain model of the emulator and the simulation that runs it: clusters,
// node pools, instance groups, nodes and operations, moved forward by timed events on a
// virtual clock. Nothing here reads the wall clock or speaks HTTP.
package sim

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/eventq"
)

// Event is a scheduled simulation step. It is data (a kind plus references), not a closure,
// so that the queue can be persisted and replayed.
type Event struct {
	Kind    string `json:"kind"`
	Cluster string `json:"cluster,omitempty"`
	Pool    string `json:"pool,omitempty"`
	Node    string `json:"node,omitempty"`
	Op      string `json:"op,omitempty"`
	// Service is namespace/name of a Service (load balancer events).
	Service string `json:"service,omitempty"`
}

// State is everything the simulation knows. A store saves and restores it whole.
type State struct {
	Now        time.Time             `json:"now"`
	Seed       uint64                `json:"seed"`
	Rand       []byte                `json:"rand"`
	Clusters   map[string]*Cluster   `json:"clusters"`
	Operations map[string]*Operation `json:"operations"`
	OpSeq      int64                 `json:"opSeq"`
	Faults     []*Fault              `json:"faults,omitempty"`
	FaultSeq   int                   `json:"faultSeq,omitempty"`
	Queue      eventq.Queue[Event]   `json:"queue"`
	Log        EventLog              `json:"log"`
	// Compute is what users created in Compute Engine outside GKE (compute_user.go).
	Compute *UserCompute `json:"compute,omitempty"`
}

// World owns a State and runs it. It is not safe for concurrent use: the Runner gives one
// goroutine ownership, a single writer that applies commands and due events in order, so the
// model needs no locks.
type World struct {
	st       *State
	pcg      *rand.PCG
	rng      *rand.Rand
	handlers map[string]func(Event)
	// logWaiters is closed when the event log grows.
	logWaiters chan struct{}
	// groups holds derived per-group indexes, rebuilt on demand after a restore.
	groups map[*InstanceGroup]*groupIndex
	// k8s holds each cluster's derived Kubernetes indexes, rebuilt on demand.
	k8s map[*Cluster]*k8sIndex
	// pdbCount holds each PodDisruptionBudget's pod counts, rebuilt on demand.
	pdbCount map[*PDB]*pdbCount
	// maint holds each cluster's compiled maintenance window, rebuilt when its policy changes.
	maint map[string]*maintenanceCache
	// svcs holds each cluster's derived Service index (services.go), rebuilt on demand.
	svcs map[*Cluster]*svcIndex
	// blue holds each blue-green upgrade's sorted blue nodes (upgrade_bluegreen.go), rebuilt on demand.
	blue map[*NodePool]*blueList
	// hooks are the controllers' callbacks on node and pod changes (lifecycle.go).
	hooks hooks
	// feeds are the clusters' change feeds (changefeed.go); dirtyFeeds the clusters with
	// changes to publish; watchCap the feeds' history window (0: DefaultWatchHistory).
	feeds      map[*Cluster]*changeFeed
	dirtyFeeds []*Cluster
	watchCap   int
	// feedFollowed says whether anyone follows a cluster's feed (SetFeedFollowed; set from
	// any goroutine, before or after the runner starts).
	feedFollowed atomic.Pointer[func(cluster string) bool]
}

// Options configure a new World.
type Options struct {
	// Seed makes node names, operation ids, IPs and jitter reproducible.
	Seed uint64
	// Start is the emulated time the clock starts at.
	Start time.Time
	// WatchHistory is how many changes each cluster's feed keeps for watches (0:
	// DefaultWatchHistory).
	WatchHistory int
}

// New creates an empty world.
func New(opts Options) *World {
	st := &State{
		Now:        opts.Start.UTC().Truncate(time.Second),
		Seed:       opts.Seed,
		Clusters:   map[string]*Cluster{},
		Operations: map[string]*Operation{},
	}
	w := &World{st: st, pcg: rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15), watchCap: opts.WatchHistory}
	w.init()
	return w
}

// SetWatchHistory sets how many changes each cluster's feed keeps (0: DefaultWatchHistory),
// before anything is published (a restored world's feeds are still empty).
func (w *World) SetWatchHistory(n int) {
	w.watchCap = n
	for _, f := range w.feeds {
		if f.size == 0 {
			f.ring = make([]*Change, w.watchHistory())
		}
	}
}

// Restore rebuilds a world from a saved State.
func Restore(st *State) (*World, error) {
	if st.Clusters == nil {
		st.Clusters = map[string]*Cluster{}
	}
	if st.Operations == nil {
		st.Operations = map[string]*Operation{}
	}
	for _, c := range st.Clusters {
		if c != nil {
			c.initMaps()
		}
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("the saved state is inconsistent, so it is not loaded (fix the file, or move the data directory away to start afresh): %w", err)
	}
	w := &World{st: st, pcg: rand.NewPCG(st.Seed, st.Seed^0x9e3779b97f4a7c15)}
	if len(st.Rand) > 0 {
		if err := w.pcg.UnmarshalBinary(st.Rand); err != nil {
			return nil, fmt.Errorf("restore random state: %w", err)
		}
	}
	st.Queue.Init()
	w.init()
	var unknown string
	st.Queue.Each(func(_ time.Time, ev Event) {
		if _, ok := w.handlers[ev.Kind]; !ok && unknown == "" {
			unknown = ev.Kind
		}
	})
	if unknown != "" {
		return nil, fmt.Errorf("the saved state is inconsistent, so it is not loaded: a scheduled event has kind %q, which this gkesim does not know", unknown)
	}
	w.buildIndexes()
	return w, nil
}

// buildIndexes builds every derived index of a restored world at once, as the original had
// them, rather than on first use in the middle of some change.
func (w *World) buildIndexes() {
	for _, key := range sortedKeys(w.st.Clusters) {
		c := w.st.Clusters[key]
		w.podIndex(c)
		w.serviceIndex(c)
		for _, p := range c.Pools {
			for _, g := range p.Groups {
				w.index(c, g)
			}
		}
		for _, k := range sortedKeys(c.PDBs) {
			w.pdbCounts(c, c.PDBs[k])
		}
		w.feed(c)
	}
}

func (w *World) init() {
	w.rng = rand.New(w.pcg)
	w.logWaiters = make(chan struct{})
	w.handlers = map[string]func(Event){}
	w.registerOperationHandlers()
	w.registerWorkHandlers()
	w.registerNodeHandlers()
	w.registerPodHandlers()
	w.registerMaintenanceHandlers()
	w.registerLBHandlers()
	w.registerBlueGreenHandlers()
	w.registerShortLivedHandlers()
	w.registerCapacityHandlers()
	w.registerAutoscalerHandlers()
	w.registerReplicaSetHandlers()
	w.wireControllers()
}

// State returns the world's state, with the random generator's position saved into it, for a
// store to serialise. The caller must not keep it past the current command.
func (w *World) State() *State {
	b, err := w.pcg.MarshalBinary()
	if err == nil {
		w.st.Rand = b
	}
	return w.st
}

// Now is the emulated time.
func (w *World) Now() time.Time { return w.st.Now }

// schedule runs ev after d of emulated time.
func (w *World) schedule(d time.Duration, ev Event) {
	w.st.Queue.Push(w.st.Now.Add(d), ev)
}

// queuedFor calls fn with every queued event of cluster c (derived indexes that remember what
// they queued rebuild that memory from the queue).
func (w *World) queuedFor(c *Cluster, fn func(Event)) {
	key := c.Key()
	w.st.Queue.Each(func(_ time.Time, ev Event) {
		if ev.Cluster == key {
			fn(ev)
		}
	})
}

// NextEventAt is when the next scheduled step is due.
func (w *World) NextEventAt() (time.Time, bool) {
	it, ok := w.st.Queue.Peek()
	return it.At, ok
}

// PendingEvents is the number of scheduled steps.
func (w *World) PendingEvents() int { return w.st.Queue.Len() }

// RunUntil processes every event due at or before t, in order, moving the clock to each
// event's time, and leaves the clock at t. The clock never moves backwards. It returns the
// number of events run.
func (w *World) RunUntil(t time.Time) int {
	n := 0
	for w.runNext(t) {
		n++
	}
	w.publish()
	if t.After(w.st.Now) {
		w.st.Now = t
	}
	return n
}

// runNext runs the earliest event if it is due at or before t, moving the clock to its time;
// it reports whether there was one.
func (w *World) runNext(t time.Time) bool {
	it, ok := w.st.Queue.PopDue(t)
	if !ok {
		return false
	}
	if it.At.After(w.st.Now) {
		w.publish() // an instant ends: what happened in it is what clients may see
		w.st.Now = it.At
	}
	w.dispatch(it.Value)
	return true
}

func (w *World) dispatch(ev Event) {
	h, ok := w.handlers[ev.Kind]
	if !ok {
		panic(fmt.Sprintf("sim: no handler for event kind %q", ev.Kind))
	}
	h(ev)
}

func (w *World) on(kind string, h func(Event)) {
	if _, dup := w.handlers[kind]; dup {
		panic("sim: duplicate handler for " + kind)
	}
	w.handlers[kind] = h
}

// jitter returns base plus a random extra of up to spread, in whole seconds.
func (w *World) jitter(base, spread time.Duration) time.Duration {
	if spread <= 0 {
		return base
	}
	return base + time.Duration(w.rng.Int64N(int64(spread/time.Second)+1))*time.Second
}

// randHex returns n random lowercase hex digits.
func (w *World) randHex(n int) string {
	b := make([]byte, (n+1)/2)
	for i := range b {
		b[i] = byte(w.rng.UintN(256))
	}
	return hex.EncodeToString(b)[:n]
}

// randUint32 returns four random bytes, drawn as randHex(8) draws them.
func (w *World) randUint32() uint32 {
	var v uint32
	for range 4 {
		v = v<<8 | uint32(w.rng.UintN(256))
	}
	return v
}

// randAlnum returns n random characters from [a-z0-9], as GKE node name suffixes use.
func (w *World) randAlnum(n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[w.rng.IntN(len(chars))]
	}
	return string(b)
}

// Cluster finds a cluster by project, location and name.
func (w *World) Cluster(project, location, name string) *Cluster {
	return w.st.Clusters[ClusterKey(project, location, name)]
}

// clustersIn lists the clusters of a project in a location ("-" = every location), by name.
func (w *World) clustersIn(project, location string) []*Cluster {
	var out []*Cluster
	for _, c := range w.st.Clusters {
		if c.Project == project && (location == "-" || c.Location == location) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Location != out[j].Location {
			return out[i].Location < out[j].Location
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Stats summarises the world for /metrics.
type Stats struct {
	Now                time.Time
	Clusters           int
	NodePools          int
	NodesByState       map[string]int
	OperationsByStatus map[string]int
	PendingEvents      int
	LastEventSeq       int64
}

// Stats counts the world's objects.
func (w *World) Stats() Stats {
	st := Stats{Now: w.st.Now, Clusters: len(w.st.Clusters), NodesByState: map[string]int{},
		OperationsByStatus: map[string]int{}, PendingEvents: w.st.Queue.Len(), LastEventSeq: w.st.Log.LastSeq}
	for _, c := range w.st.Clusters {
		st.NodePools += len(c.Pools)
		for _, n := range c.Nodes {
			st.NodesByState[string(n.State)]++
		}
	}
	for _, op := range w.st.Operations {
		st.OperationsByStatus[op.Status]++
	}
	return st
}

// initMaps makes a cluster's object maps non-nil (new clusters, and states saved without them).
func (c *Cluster) initMaps() {
	if c.Nodes == nil {
		c.Nodes = map[string]*Node{}
	}
	if c.Namespaces == nil {
		c.Namespaces = map[string]*Namespace{}
	}
	if c.Deployments == nil {
		c.Deployments = map[string]*Deployment{}
	}
	if c.Pods == nil {
		c.Pods = map[string]*Pod{}
	}
	if c.PDBs == nil {
		c.PDBs = map[string]*PDB{}
	}
	// Empty maps are not saved (omitempty): a restored load balancer gets them back.
	for _, s := range c.Services {
		if lb := s.LB; lb != nil {
			if lb.Members == nil {
				lb.Members = map[string]string{}
			}
			if lb.Health == nil {
				lb.Health = map[string]*BackendHealth{}
			}
			if lb.Warned == nil {
				lb.Warned = map[string]bool{}
			}
		}
	}
}

// day is an emulated day.
const day = 24 * time.Hour
