// Package workloads holds the workload controllers GKE's clusters run: the Deployment controller
// with its ReplicaSets (rollouts with maxSurge and maxUnavailable, the status and conditions it
// reports), GKE's kube-system DaemonSets and an imported cluster's own, and the stand-ins for
// the controllers gkesim has no model of (StatefulSets, Jobs, bare ReplicaSets) in an imported
// cluster. They act on pods and nodes through the core; the core takes their steps that belong
// inside its own through core.WorkloadSteps, wired by the root package.
package workloads

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/engine"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Workloads runs the workload controllers of a State's clusters.
type Workloads struct {
	st     *model.State
	engine *engine.Engine
	core   *core.Core
	// marked is SyncStatus's list of the Deployments it sets, kept for the next pass (empty
	// between passes).
	marked []keyedDeployment
	// rsTexts are the Progressing condition's messages by ReplicaSet (progress_messages.go).
	rsTexts map[rsTextsKey]*rsTexts
}

// New makes the workload controllers of st.
func New(st *model.State, e *engine.Engine, c *core.Core) *Workloads {
	return &Workloads{st: st, engine: e, core: c}
}

// RegisterHandlers registers the controllers' event handlers: a Deployment's controller pass
// and its progress deadline.
func (w *Workloads) RegisterHandlers() {
	w.registerDeploymentHandlers()
	w.registerReplicaSetHandlers()
}
