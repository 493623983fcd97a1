// Package core is what every part of the simulation stands on: clusters' node groups and
// nodes (created, booted, cordoned, drained, deleted), pods with their index and the
// scheduler, PodDisruptionBudgets, volumes, compute classes, the workload controllers GKE runs
// in every cluster (Deployments and their ReplicaSets, DaemonSets, stand-ins), capacity and
// injected faults, the operations' lifecycle, and each cluster's change feed of the
// Kubernetes objects. It announces what happened through the engine's hooks and never calls
// a controller by name: an operation's work and the feed's renderers of objects that other
// parts own are wired in from the root package.
package core

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/feed"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Core holds a State's core objects and their derived indexes.
type Core struct {
	st     *model.State
	engine *engine.Engine
	// FeedRender renders the Services and stored objects of the change feeds.
	FeedRender FeedRenderers
	// OpWork runs the work of the operations' types.
	OpWork OpWork
	// Workloads are the steps of the workload controllers (package workloads) that the
	// core's own steps take.
	Workloads WorkloadSteps
	// FlagPod, when set, says which bound pods NodePods.Flagged counts per node.
	FlagPod func(c *model.Cluster, p *model.Pod) bool
	// Groups holds derived per-group indexes, rebuilt on demand after a restore.
	Groups map[*model.InstanceGroup]*GroupIndex
	// PodIndexes holds each cluster's derived Kubernetes indexes, rebuilt on demand.
	PodIndexes map[*model.Cluster]*PodIndex
	// PDBCount holds each PodDisruptionBudget's pod counts, rebuilt on demand.
	PDBCount map[*model.PDB]*PDBCount
	// Feeds are the clusters' change feeds (changefeed.go); dirtyFeeds the clusters with
	// changes to publish; WatchCap the feeds' history window (0: feed.DefaultWatchHistory).
	Feeds      map[*model.Cluster]*ChangeFeed
	dirtyFeeds []*model.Cluster
	WatchCap   int
	// following says whether anyone follows a cluster's feed (SetFeedFollowed; set from
	// any goroutine, before or after the runner starts).
	following feed.Following
	// drainParts are the NodeDraining lines' middles by drain policy (drainPart).
	drainParts map[model.DrainPolicy]string
}

// New makes the core of st; watchHistory is how many changes each cluster's feed keeps (0:
// feed.DefaultWatchHistory).
func New(st *model.State, e *engine.Engine, watchHistory int) *Core {
	return &Core{st: st, engine: e, WatchCap: watchHistory}
}

// WorkloadSteps are the workload controllers' steps (package workloads) that belong inside the
// core's own: a node that became ready gets the pods of an imported cluster's own DaemonSets,
// and a publish first sets the statuses the controllers derive from the pods (Deployments,
// their ReplicaSets, GKE's DaemonSets). The root package wires them.
type WorkloadSteps struct {
	StartOwnDaemonPods func(c *model.Cluster, n *model.Node)
	SyncStatus         func(c *model.Cluster, m *StatusMarks)
}
