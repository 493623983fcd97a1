package core

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/feed"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The change feed of a cluster's Kubernetes API, what watches stream.
//
// Every object the API serves carries a resourceVersion from one counter per cluster
// (Cluster.RV), bumped by every change, so a list answers with the counter and a watch from a
// version asks for everything after it. The simulation changes objects many times within one
// emulated instant (a pod created, bound and started by the events of one second); no client
// can see the world in the middle of an instant, because the runner answers requests only
// between instants and commands. So the feed takes its entries when an instant ends, a command
// ends, or the clock is about to move (publish): one entry per object that changed, as it is
// then, at its newest resourceVersion, in resourceVersion order. Everything a client could have
// seen, in a list or an answer, has its entry.
//
// Taking the entries is part of the simulation and deterministic (the same changes, the same
// publish points, live or replayed); nothing in it depends on watchers, which only read the
// feed through Runner.Do on their own goroutines. The controllers whose status is derived from
// other objects (a Deployment's replicas, its ReplicaSets, the DaemonSets, budgets' allowed
// disruptions) set that status at the same points, like a controller reconciling after the
// pods it watches changed.
//
// The feed keeps the newest entries (the history window, WatchHistory per cluster). A watch
// from a version older than the window, or from before a restart (the feed is not saved),
// gets the API server's 410 Gone "Expired" and the client lists again.
//
// Entries are only worth taking while some client follows the cluster: rendering an entry for
// each of the million pod changes of a large upgrade, to keep the last 10,000 for nobody, was
// most of the simulation's time. So a feed records while it is followed: from any request to
// the cluster's Kubernetes API (FollowFeed, called inside the loop, between instants, so the
// version a list answers is never older than the window), until the follower says nobody
// follows any more (SetFeedFollowed; the server counts open watches and a grace after the last
// request). A feed that stops recording empties its window: it starts at the cluster's version
// then, and a watch from an older version gets 410 and lists again, as after a restart. What
// the model derives at publish points (statuses, resourceVersions, which nodes are in view) is
// the same either way.

// pendingChange is an object that changed since the last publish.
type pendingChange struct {
	obj any
	// added: it came into being (or into view) since the last publish.
	added bool
	// gone is its DELETED entry once it has gone (1 + its index in ChangeFeed.gone; 0: none).
	gone int32
}

// ChangeFeed is a cluster's feed: a ring of the newest changes, and what changed since the last
// publish.
type ChangeFeed struct {
	// Window holds the entries watches read.
	*feed.Window
	// pending: the objects changed since the last publish, by object (their index in
	// pendingOrder) and in the order they first changed (a publish walks the slice: walking a
	// map that once held a large batch costs its old size, as Go maps never shrink).
	pending      map[any]int32
	pendingOrder []pendingChange
	// batch: the changes of the next publish (the log's first); gone: the DELETED entries;
	// snaps: the pods' snapshots since the last publish (nsnaps of them); slots: those of the
	// pod changes in the window, by their slot in its ring (Window.Keep).
	batch, gone  []feed.Change
	snaps, slots feed.Slots[kuberender.PodSnap]
	nsnaps       int
	// rvs is publishCutoff's scratch.
	rvs []int64
	// marks are what the controllers derive statuses from at a publish (status_marks.go).
	marks *StatusMarks
	// nodes are the nodes as last published, the visible ones (registered with the API):
	// which changes are ADDED or DELETED, and what a DELETED carries.
	nodes map[*model.Node]*kuberender.NodeSnap
	// queued: the cluster is in Core.dirtyFeeds.
	queued bool
}

func (w *Core) WatchHistory() int {
	if w.WatchCap > 0 {
		return w.WatchCap
	}
	return feed.DefaultWatchHistory
}

// Feed returns the change feed of c, or nil before its control plane is up (nothing is served
// then). A restored world builds the feeds of its clusters empty: the window starts at each
// cluster's resourceVersion.
func (w *Core) Feed(c *model.Cluster) *ChangeFeed {
	if f, ok := w.Feeds[c]; ok {
		return f
	}
	if !c.ControlPlaneReady {
		return nil
	}
	return w.NewFeed(c)
}

func (w *Core) NewFeed(c *model.Cluster) *ChangeFeed {
	if w.Feeds == nil {
		w.Feeds = map[*model.Cluster]*ChangeFeed{}
	}
	f := &ChangeFeed{Window: feed.NewWindow(w.WatchHistory(), c.RV),
		pending: map[any]int32{}, nodes: map[*model.Node]*kuberender.NodeSnap{}, marks: newStatusMarks()}
	f.Keep = f.keep
	for _, n := range c.Nodes {
		if n.State != model.NodeProvisioning {
			f.nodes[n] = unrecorded
		}
	}
	for _, p := range c.Pods {
		f.marks.trackDaemonPod(p)
	}
	f.marks.DaemonSets = false // the stored statuses are those of the state as it is
	if f.Recording = w.followed(c); f.Recording {
		w.recordNodes(c, f)
	}
	w.Feeds[c] = f
	return f
}

// DropFeed forgets a deleted cluster's feed; its watchers wake and find the cluster gone.
func (w *Core) DropFeed(c *model.Cluster) {
	if f := w.Feeds[c]; f != nil {
		f.Close()
		delete(w.Feeds, c)
	}
}

// mark notes that obj changed since the last publish.
func (w *Core) mark(c *model.Cluster, obj any, added bool) *ChangeFeed {
	f := w.Feed(c)
	if f == nil {
		return nil
	}
	if _, isNode := obj.(*model.Node); !f.Recording && !isNode {
		// Not recording: a publish needs only the nodes in view (they decide which node
		// changes take a resourceVersion).
		w.NoteDirty(c, f)
		return f
	}
	if _, ok := f.pending[obj]; !ok {
		f.pending[obj] = int32(len(f.pendingOrder))
		f.pendingOrder = append(f.pendingOrder, pendingChange{obj: obj, added: added})
	}
	w.NoteDirty(c, f)
	return f
}

// ---- what the model calls when an object changes ----

// TouchPod gives a pod a new resourceVersion: it changed.
func (w *Core) TouchPod(c *model.Cluster, p *model.Pod) {
	p.RV = c.NextRV()
	w.podChanged(c, p, false)
}

// podCreated is touchPod for a new pod.
func (w *Core) podCreated(c *model.Cluster, p *model.Pod) {
	p.RV = c.NextRV()
	w.podChanged(c, p, true)
}

func (w *Core) podChanged(c *model.Cluster, p *model.Pod, added bool) {
	f := w.mark(c, p, added)
	if f == nil {
		return
	}
	f.marks.trackDaemonPod(p)
	if p.OwnerKind == model.OwnerDeployment {
		if d := c.Deployments[p.OwnerKey()]; d != nil {
			f.marks.Deployments[d] = struct{}{}
		}
	}
}

// podRemoved notes that a pod left the cluster (rv is the resourceVersion of its deletion).
func (w *Core) podRemoved(c *model.Cluster, p *model.Pod, rv int64) {
	f := w.mark(c, p, false)
	if f == nil {
		return
	}
	f.marks.untrackDaemonPod(p)
	if f.Recording {
		f.setGone(p, feed.Change{RV: rv, Type: feed.ChangeDeleted, Resource: feed.ResourcePods, Namespace: p.Namespace(), Name: p.Name(),
			Snap: w.batchSnap(c, f, p)})
	}
	if p.OwnerKind == model.OwnerDeployment {
		if d := c.Deployments[p.OwnerKey()]; d != nil {
			f.marks.Deployments[d] = struct{}{}
		}
	}
}

// TouchNode gives a node a new resourceVersion: its state, cordon, labels, taints, health or
// the pods on it changed. Nodes still booting are not registered yet: nothing to tell.
func (w *Core) TouchNode(c *model.Cluster, n *model.Node) {
	f := w.Feeds[c]
	visible := n.State != model.NodeProvisioning && c.Nodes[n.Name] == n
	if !visible && (f == nil || f.nodes[n] == nil) {
		return
	}
	n.RV = c.NextRV()
	n.ChangeTime = w.st.Now
	if f != nil {
		w.mark(c, n, false)
		f.marks.DaemonSets = true // a node in or out of service changes the DaemonSets' desired count
	}
}

// TouchPoolNodes touches every node of a pool (its labels or taints changed in place).
func (w *Core) TouchPoolNodes(c *model.Cluster, p *model.NodePool) {
	for _, g := range p.Groups {
		for _, n := range w.GroupIndex(c, g).Nodes {
			w.TouchNode(c, n)
		}
	}
}

// TouchObject gives an object (a namespace, Deployment, budget, Service, stored object) a new
// resourceVersion and notes the change; created says it is new.
func (w *Core) TouchObject(c *model.Cluster, obj any, created bool) int64 {
	rv := c.NextRV()
	switch o := obj.(type) {
	case *model.Namespace:
		o.RV = rv
	case *model.Deployment:
		o.RV = rv
	case *model.PDB:
		o.RV = rv
	case *model.Service:
		o.RV = rv
	case *model.StoredObject:
		o.RV = rv
	case *model.ReplicaSet:
		o.RV = rv
	case *model.DaemonSetState:
		o.RV = rv
	default:
		panic(fmt.Sprintf("sim: touchObject of %T", obj))
	}
	if f := w.mark(c, obj, created); f != nil {
		switch o := obj.(type) {
		case *model.Deployment:
			f.marks.Deployments[o] = struct{}{}
		case *model.PDB:
			f.marks.PDBs[o] = struct{}{}
		}
	}
	return rv
}

// ObjectRemoved notes that an object was deleted; its DELETED entry carries it as it was, at a
// new resourceVersion.
func (w *Core) ObjectRemoved(c *model.Cluster, obj any) {
	rv := c.NextRV()
	f := w.mark(c, obj, false)
	if f == nil {
		return
	}
	if f.Recording {
		ch := w.changeOf(c, f, obj)
		ch.RV, ch.Type = rv, feed.ChangeDeleted
		f.setGone(obj, ch)
	}
	switch o := obj.(type) {
	case *model.Deployment:
		delete(f.marks.Deployments, o)
	case *model.PDB:
		delete(f.marks.PDBs, o)
	}
}

// RecordChange puts the newest entry of the event log, which is about cluster c, in c's feed
// at a new resourceVersion (Kubernetes Events are objects of the cluster like any other),
// written out only when a client follows the cluster.
func (w *Core) RecordChange(c *model.Cluster, log *model.EventLog) {
	f := w.Feeds[c]
	if f == nil {
		return
	}
	w.NoteDirty(c, f)
	rv := c.NextRV()
	if !f.Recording {
		return
	}
	if keep := f.Capacity() + 1; len(f.batch) == 2*keep {
		// Only the newest keep changes of a publish can stay in the window (publishCutoff):
		// the batch holds only events until the publish, in order, so the older half goes.
		clear(f.batch[copy(f.batch, f.batch[keep:]):])
		f.batch = f.batch[:keep]
	}
	f.batch = append(f.batch, feed.EventChange(rv, log.Kept(log.Len()-1)))
}

// setGone makes ch the DELETED entry of obj, pending.
func (f *ChangeFeed) setGone(obj any, ch feed.Change) {
	f.gone = append(f.gone, ch)
	f.pendingOrder[f.pending[obj]].gone = int32(len(f.gone))
}

// batchSnap is a snapshot of p as it is now, in the batch's storage (ChangeFeed.snaps).
func (w *Core) batchSnap(c *model.Cluster, f *ChangeFeed, p *model.Pod) *kuberender.PodSnap {
	s := f.snaps.At(f.nsnaps)
	f.nsnaps++
	w.snapPod(s, c, p)
	return s
}

// keep moves the snapshot of a pod's change into the storage of the ring slot it takes.
func (f *ChangeFeed) keep(slot int, ch *feed.Change) {
	if s, ok := ch.Snap.(*kuberender.PodSnap); ok {
		d := f.slots.At(slot)
		s.CopyTo(d)
		ch.Snap = d
	}
}

// FeedRenderers render the kinds whose API objects other parts of the simulation own: a
// Service (its load balancer's annotations and status), a stored kind, a Deployment's
// ReplicaSet and GKE's DaemonSets (their controllers' status), wired by wireControllers.
type FeedRenderers struct {
	Service    func(c *model.Cluster, s *model.Service) runtime.Object
	Stored     func(o *model.StoredObject) runtime.Object
	ReplicaSet func(c *model.Cluster, d *model.Deployment, rs *model.ReplicaSet) runtime.Object
	DaemonSet  func(c *model.Cluster, ds *catalog.GKEDaemonSet, state *model.DaemonSetState) runtime.Object
}

// changeOf is the change entry of an object as it is now, at its resourceVersion, for f's batch.
func (w *Core) changeOf(c *model.Cluster, f *ChangeFeed, obj any) feed.Change {
	switch o := obj.(type) {
	case *model.Pod:
		return feed.Change{RV: o.RV, Resource: feed.ResourcePods, Namespace: o.Namespace(), Name: o.Name(), Snap: w.batchSnap(c, f, o)}
	case *model.Node:
		return feed.Change{RV: o.RV, Resource: feed.ResourceNodes, Name: o.Name, Snap: w.nodeSnapshot(c, o)}
	case *model.Namespace:
		return feed.Change{RV: o.RV, Resource: feed.ResourceNamespaces, Name: o.Name, Snap: feed.Rendered{Obj: kuberender.RenderNamespace(o)}}
	case *model.Deployment:
		return feed.Change{RV: o.RV, Resource: feed.ResourceDeployments, Namespace: o.Namespace, Name: o.Name, Snap: feed.Rendered{Obj: kuberender.RenderDeployment(o)}}
	case *model.ReplicaSet:
		d := c.Deployments[o.Deployment]
		return feed.Change{RV: o.RV, Resource: feed.ResourceReplicaSets, Namespace: d.Namespace, Name: o.Name(d), Snap: feed.Rendered{Obj: w.FeedRender.ReplicaSet(c, d, o)}}
	case *model.DaemonSetState:
		return feed.Change{RV: o.RV, Resource: feed.ResourceDaemonSets, Namespace: "kube-system", Name: o.Name, Snap: feed.Rendered{Obj: w.FeedRender.DaemonSet(c, catalog.SystemDaemonSetNamed(o.Name), o)}}
	case *model.PDB:
		return feed.Change{RV: o.RV, Resource: feed.ResourcePDBs, Namespace: o.Namespace, Name: o.Name, Snap: feed.Rendered{Obj: kuberender.RenderPDB(o)}}
	case *model.Service:
		return feed.Change{RV: o.RV, Resource: feed.ResourceServices, Namespace: o.Namespace, Name: o.Name, Snap: feed.Rendered{Obj: w.FeedRender.Service(c, o)}}
	case *model.StoredObject:
		return feed.Change{RV: o.RV, Resource: o.Resource, Namespace: o.Namespace, Name: o.Name, Snap: feed.Rendered{Obj: w.FeedRender.Stored(o)}}
	}
	panic(fmt.Sprintf("sim: changeOf %T", obj))
}

// exists says whether obj is still in c (and, for a node, registered).
func (w *Core) exists(c *model.Cluster, obj any) bool {
	switch o := obj.(type) {
	case *model.Pod:
		return c.Pods[o.Key()] == o
	case *model.Node:
		return c.Nodes[o.Name] == o && o.State != model.NodeProvisioning
	case *model.Namespace:
		return c.Namespaces[o.Name] == o
	case *model.Deployment:
		return c.Deployments[o.Key()] == o
	case *model.ReplicaSet:
		d := c.Deployments[o.Deployment]
		return d != nil && d.ReplicaSets[o.Hash] == o
	case *model.DaemonSetState:
		return c.DaemonSetStates[o.Name] == o
	case *model.PDB:
		return c.PDBs[o.Key()] == o
	case *model.Service:
		return c.Services[o.Key()] == o
	case *model.StoredObject:
		return c.Objects[o.Resource][o.Key()] == o
	}
	return false
}

// ---- publishing ----

// CompactPodsMin is the fewest removals after which compactPods builds a map of pods anew. The
// simulation's tests lower it, so that every scenario they check byte for byte runs with the
// rebuilds.
var CompactPodsMin = 1024

// compactPods builds the cluster's map of pods anew once as many pods have been removed from it
// as it holds (and at least CompactPodsMin). A Go map never shrinks, and one whose entries are replaced
// over and over, as an upgrade replaces every pod of its pool, keeps splitting its tables: after
// a surge upgrade of 15,000 nodes the map of 210,000 pods took 13.4 MB, twice what a new one
// does. A publish is between two instants, when nothing walks the map; its order was never
// anything to rely on, and a rebuild every that many removals costs each removal a copy of
// about one entry.
func (w *Core) compactPods(c *model.Cluster) {
	ix, ok := w.PodIndexes[c]
	if !ok || ix.removed < max(len(c.Pods), CompactPodsMin) {
		return
	}
	ix.removed = 0
	pods := make(map[string]*model.Pod, len(c.Pods))
	maps.Copy(pods, c.Pods)
	c.Pods = pods
}

// Publish ends a batch of changes: controllers derive the statuses that follow from them, and
// every cluster's changes go to its feed. The runner calls it after each command and before
// the clock moves on; it changes the model only as a deterministic function of it.
func (w *Core) Publish() {
	if len(w.dirtyFeeds) == 0 {
		return
	}
	// Kept for the next batch; a publish dirties only its cluster, queued until the publish ends.
	for i := 0; i < len(w.dirtyFeeds); i++ {
		if c := w.dirtyFeeds[i]; w.Feeds[c] != nil {
			w.publishCluster(c, w.Feeds[c])
		}
	}
	clear(w.dirtyFeeds)
	w.dirtyFeeds = w.dirtyFeeds[:0]
}

func (w *Core) publishCluster(c *model.Cluster, f *ChangeFeed) {
	w.compactPods(c)
	w.Workloads.SyncStatus(c, f.marks)
	w.syncPDBStatus(c, f.marks)
	cutoff := w.publishCutoff(c, f)
	for i := range f.pendingOrder {
		pc := &f.pendingOrder[i]
		rv, exists, makes := w.pendingRV(c, f, pc)
		if n, ok := pc.obj.(*model.Node); ok {
			// Nodes come into view when they register and leave it when they go, or when
			// they are recreated in place (booting again). The snapshot is taken even when
			// the change is not kept: it is what a later DELETED carries.
			switch {
			case exists && !f.Recording:
				f.nodes[n] = unrecorded
			case exists:
				ch := w.changeOf(c, f, n)
				ch.Type = feed.ChangeModified
				if f.nodes[n] == nil {
					ch.Type = feed.ChangeAdded
				}
				f.nodes[n] = ch.Snap.(*kuberender.NodeSnap)
				if rv >= cutoff {
					f.batch = append(f.batch, ch)
				}
			case makes:
				if rv >= cutoff {
					f.batch = append(f.batch, feed.Change{RV: rv, Type: feed.ChangeDeleted, Resource: feed.ResourceNodes, Name: n.Name, Snap: f.nodes[n]})
				}
				delete(f.nodes, n)
			}
			continue
		}
		switch {
		case !f.Recording || !makes || rv < cutoff:
		case exists:
			ch := w.changeOf(c, f, pc.obj)
			ch.Type = feed.ChangeModified
			if pc.added {
				ch.Type = feed.ChangeAdded
			}
			f.batch = append(f.batch, ch)
		default:
			f.batch = append(f.batch, f.gone[pc.gone-1])
		}
	}
	if f.Recording {
		sort.Slice(f.batch, func(i, j int) bool { return f.batch[i].RV < f.batch[j].RV })
		f.Append(f.batch)
		if !w.followed(c) {
			f.StopRecording(c.RV)
			f.slots = feed.Slots[kuberender.PodSnap]{}
		}
	}
	f.resetPending()
	f.queued = false
	f.Published(c.RV)
}

// publishCutoff is the oldest resourceVersion of the changes of this publish that its window can
// keep, or math.MinInt64 when it can keep them all. A window keeps the newest Capacity changes
// of a publish and starts after the newest one it drops (feed.Window.Append): the publish makes
// those Capacity+1 changes only, so that a publish larger than the window (a pool's nodes
// becoming ready, a Deployment of a thousand pods) does not render snapshots it would drop at
// once. The events' changes, already in the batch and in order, are cut to the same ones.
func (w *Core) publishCutoff(c *model.Cluster, f *ChangeFeed) int64 {
	keep := f.Capacity() + 1
	if !f.Recording || len(f.batch)+len(f.pendingOrder) <= keep {
		return math.MinInt64
	}
	rvs := f.rvs[:0]
	for i := range f.batch {
		rvs = append(rvs, f.batch[i].RV)
	}
	for i := range f.pendingOrder {
		if rv, _, makes := w.pendingRV(c, f, &f.pendingOrder[i]); makes {
			rvs = append(rvs, rv)
		}
	}
	f.rvs = rvs
	if len(rvs) <= keep {
		return math.MinInt64
	}
	slices.Sort(rvs)
	cutoff := rvs[len(rvs)-keep]
	i, _ := slices.BinarySearchFunc(f.batch, cutoff, func(ch feed.Change, rv int64) int { return cmp.Compare(ch.RV, rv) })
	clear(f.batch[copy(f.batch, f.batch[i:]):])
	f.batch = f.batch[:len(f.batch)-i]
	return cutoff
}

// pendingRV is the resourceVersion of the change a recording publish makes of pc, whether pc's
// object is still there (exists), and whether a change is made at all: for an object still
// there, a node in view that has gone, or an object gone that was there before the batch.
// publishCluster makes the changes and publishCutoff counts them: both decide through it.
func (w *Core) pendingRV(c *model.Cluster, f *ChangeFeed, pc *pendingChange) (rv int64, exists, makes bool) {
	n, isNode := pc.obj.(*model.Node)
	switch {
	case w.exists(c, pc.obj):
		return objectRV(pc.obj), true, true
	case isNode:
		return n.RV, false, f.nodes[n] != nil
	case pc.gone > 0 && !pc.added:
		return f.gone[pc.gone-1].RV, false, true
	}
	return 0, false, false
}

// objectRV is the resourceVersion of one of the kinds a feed carries (changeOf).
func objectRV(obj any) int64 {
	switch o := obj.(type) {
	case *model.Pod:
		return o.RV
	case *model.Node:
		return o.RV
	case *model.Namespace:
		return o.RV
	case *model.Deployment:
		return o.RV
	case *model.ReplicaSet:
		return o.RV
	case *model.DaemonSetState:
		return o.RV
	case *model.PDB:
		return o.RV
	case *model.Service:
		return o.RV
	case *model.StoredObject:
		return o.RV
	}
	panic(fmt.Sprintf("sim: objectRV %T", obj))
}

// FollowFeed says a client reads c's Kubernetes API: its feed records from now on, until the
// function given to SetFeedFollowed says nobody follows it. Called at a publish point (inside
// the runner, as every request is): nothing of a batch is lost, nodes are as last published.
func (w *Core) FollowFeed(c *model.Cluster) {
	if f := w.Feed(c); f != nil && !f.Recording {
		f.StartRecording(c.RV)
		w.recordNodes(c, f)
	}
}

// unrecorded stands in ChangeFeed.nodes for a node in view while nobody follows the feed: only
// a DELETED entry reads a node's last snapshot, so none is taken until recording starts.
var unrecorded = &kuberender.NodeSnap{}

// recordNodes takes the snapshots that unrecorded stands for as recording starts, between
// commands and instants: what the nodes are now is what was last published.
func (w *Core) recordNodes(c *model.Cluster, f *ChangeFeed) {
	for n, s := range f.nodes {
		if s == unrecorded {
			f.nodes[n] = w.nodeSnapshot(c, n)
		}
	}
}

// SetFeedFollowed sets the function a publish asks, for a recording feed, whether anyone still
// follows the cluster (by its key); nil (the default) keeps every feed recording. It may be
// called from any goroutine.
func (w *Core) SetFeedFollowed(followed func(cluster string) bool) {
	w.following.Set(followed)
}

// followed says whether anyone follows c's feed (always, when nothing was set).
func (w *Core) followed(c *model.Cluster) bool {
	return w.following.Followed(c.Key())
}

// resetPending empties the pending set and the batch for the next one. A map that held a
// large batch is dropped rather than cleared (clearing costs its size), and so are the lists
// and the snapshots' storage of a publish larger than the window (a publish makes at most the
// window's size and one more changes, publishCutoff, but its events may have taken twice
// that); otherwise they are kept, so that a publish costs no growth.
func (f *ChangeFeed) resetPending() {
	if len(f.pendingOrder) > 1024 {
		f.pending = map[any]int32{}
	}
	clear(f.pending)
	if keep := f.Capacity() + 1; len(f.pendingOrder) > keep || len(f.gone) > keep || cap(f.batch) > keep || f.nsnaps > keep {
		// (A pod's DELETED entry takes its snapshot when the pod goes, before the publish
		// knows which changes it keeps: the snapshots can outnumber them.)
		f.pendingOrder, f.gone, f.batch, f.rvs = nil, nil, nil, nil
		f.snaps = feed.Slots[kuberender.PodSnap]{}
	}
	clear(f.pendingOrder)
	clear(f.batch)
	clear(f.gone)
	f.pendingOrder, f.batch, f.gone, f.nsnaps = f.pendingOrder[:0], f.batch[:0], f.gone[:0], 0
}

// NoteDirty remembers that c has changes to publish.
func (w *Core) NoteDirty(c *model.Cluster, f *ChangeFeed) {
	if !f.queued {
		f.queued = true
		w.dirtyFeeds = append(w.dirtyFeeds, c)
	}
}
