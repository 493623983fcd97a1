// Package model is the simulation's data: every type a State saves (clusters, pools, instance
// groups, nodes, operations, the Kubernetes objects, Services and load balancers, upgrades,
// maintenance, faults, the event queue and the event log) and pure helpers on them (keys, names,
// stable hashes, durations, validation, errors in GKE's and Kubernetes' shapes). Every saved type
// is plain data (exported fields, no pointers shared between objects, no functions), so that the
// whole State can be serialised by a store and restored; nothing here changes the world.
//
// Files: state.go (State, Event), cluster.go, kubernetes.go, loadbalancers.go, upgrades.go and
// upgrade_settings.go, maintenance.go, imported.go (what an imported cluster keeps),
// computeclass.go, faults.go, eventlog.go; validate.go checks a loaded State.
package model
