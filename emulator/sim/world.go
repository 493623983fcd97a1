// Package sim is the domain model of the emulator and the simulation that runs it: clusters,
// node pools, instance groups, nodes and operations, moved forward by timed events on a
// virtual clock. Nothing here reads the wall clock or speaks HTTP.
package sim

import (
	"fmt"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/compute"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/views"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/workloads"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/autoscaler"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/autoupgrade"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kubeapi"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/clusterimport"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/gke"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/maintenance"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/upgrade"
)

// World owns a State and runs it. It is not safe for concurrent use: the Runner gives one
// goroutine ownership, a single writer that applies commands and due events in order, so the
// model needs no locks.
type World struct {
	st *model.State
	// engine is the clock, the event queue and its handlers, the random source, the event
	// log and the hook lists.
	engine *engine.Engine
	// core is the nodes, pods, workloads, operations and change feeds everything stands on.
	core *core.Core
	// maintenance evaluates the clusters' maintenance policies.
	maintenance *maintenance.Maintenance
	// The controllers, each a package of its own (ARCHITECTURE.md).
	workloads     *workloads.Workloads
	compute       *compute.Compute
	loadbalancers *loadbalancers.LoadBalancers
	autoscaler    *autoscaler.Autoscaler
	kubeapi       *kubeapi.API
	upgrade       *upgrade.Upgrades
	autoupgrade   *autoupgrade.AutoUpgrades
	views         *views.Views
	// gke is the GKE API's clusters, node pools and operations' work.
	gke *gke.GKE
	// clusterimport recreates real clusters from their snapshots.
	clusterimport *clusterimport.Imports
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
	st := &model.State{
		Now:        opts.Start.UTC().Truncate(time.Second),
		Seed:       opts.Seed,
		Clusters:   map[string]*model.Cluster{},
		Operations: map[string]*model.Operation{},
	}
	w := &World{st: st}
	if err := w.init(opts.WatchHistory); err != nil {
		panic(err) // a new state has no saved random position to fail on
	}
	return w
}

// SetWatchHistory sets how many changes each cluster's feed keeps (0: DefaultWatchHistory),
// before anything is published (a restored world's feeds are still empty).
func (w *World) SetWatchHistory(n int) {
	w.core.WatchCap = n
	for _, f := range w.core.Feeds {
		f.Resize(w.core.WatchHistory())
	}
}

// Restore rebuilds a world from a saved State.
func Restore(st *model.State) (*World, error) {
	if st.Clusters == nil {
		st.Clusters = map[string]*model.Cluster{}
	}
	if st.Operations == nil {
		st.Operations = map[string]*model.Operation{}
	}
	for _, c := range st.Clusters {
		if c != nil {
			c.InitMaps()
			c.KeyPods()  // a saved pod's namespace and name are its key in the map
			c.TidyPods() // states saved before zero times were left out hold an empty PodRare per pod
		}
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("the saved state is inconsistent, so it is not loaded (fix the file, or move the data directory away to start afresh): %w", err)
	}
	for _, c := range st.Clusters {
		c.ShareRepeats() // as the pods that were saved shared them
	}
	w := &World{st: st}
	st.Queue.Init()
	if err := w.init(0); err != nil {
		return nil, err
	}
	var unknown string
	st.Queue.Each(func(_ time.Time, ev model.Event) {
		if !w.engine.Handles(ev.Kind) && unknown == "" {
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
	for _, key := range model.SortedKeys(w.st.Clusters) {
		c := w.st.Clusters[key]
		w.core.PodIndex(c)
		w.loadbalancers.ServiceIndex(c)
		for _, p := range c.Pools {
			for _, g := range p.Groups {
				w.core.GroupIndex(c, g)
			}
		}
		for _, k := range model.SortedKeys(c.PDBs) {
			w.core.PDBCounts(c, c.PDBs[k])
		}
		w.core.Feed(c)
	}
}

// makeControllers makes the world's parts on engine e, each with the parts it stands on (no
// handlers registered, nothing wired).
func (w *World) makeControllers(e *engine.Engine, watchHistory int) {
	w.engine = e
	w.maintenance = maintenance.New(w.st, e)
	w.core = core.New(w.st, e, watchHistory)
	w.workloads = workloads.New(w.st, e, w.core)
	w.loadbalancers = loadbalancers.New(w.st, e, w.core)
	w.compute = compute.New(w.st, e, w.core, w.loadbalancers)
	w.autoscaler = autoscaler.New(w.st, e, w.core, w.workloads)
	w.kubeapi = kubeapi.New(w.st, e, w.core, w.loadbalancers, w.workloads)
	w.upgrade = upgrade.New(w.st, e, w.core, w.maintenance)
	w.autoupgrade = autoupgrade.New(w.st, e, w.core, w.maintenance, w.upgrade)
	w.views = views.New(w.st, e, w.core, w.maintenance, w.loadbalancers, w.upgrade)
	w.gke = gke.New(w.st, e, w.core, w.maintenance, w.loadbalancers, w.kubeapi, w.upgrade, w.autoupgrade, w.workloads)
	w.clusterimport = clusterimport.New(w.st, e, w.core, w.maintenance, w.loadbalancers, w.autoupgrade, w.gke, w.workloads)
}

func (w *World) init(watchHistory int) error {
	e, err := engine.New(w.st)
	if err != nil {
		return err
	}
	w.makeControllers(e, watchHistory)
	w.core.RegisterOperationHandlers()
	w.gke.RegisterWorkHandlers()
	w.core.RegisterNodeHandlers()
	w.core.RegisterPodHandlers()
	w.autoupgrade.RegisterMaintenanceHandlers()
	w.loadbalancers.RegisterLBHandlers()
	w.upgrade.RegisterBlueGreenHandlers()
	w.upgrade.RegisterShortLivedHandlers()
	w.core.RegisterCapacityHandlers()
	w.autoscaler.RegisterAutoscalerHandlers()
	w.workloads.RegisterHandlers()
	w.wireControllers()
	return nil
}

// State returns the world's state, with the random generator's position saved into it, for a
// store to serialise. The caller must not keep it past the current command.
func (w *World) State() *model.State {
	w.engine.SaveRand()
	return w.st
}

// RunUntil processes every event due at or before t, in order, moving the clock to each
// event's time, and leaves the clock at t. The clock never moves backwards. It returns the
// number of events run.
func (w *World) RunUntil(t time.Time) int {
	n := 0
	for w.runNext(t) {
		n++
	}
	w.core.Publish()
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
		w.core.Publish() // an instant ends: what happened in it is what clients may see
		w.st.Now = it.At
	}
	w.engine.Dispatch(it.Value)
	return true
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
