package core

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Long-running operations: every GKE mutation returns one. It is PENDING when created, RUNNING
// once its work starts, and DONE when the work is finished (with error and statusMessage set if
// it failed or was cancelled).

const (
	evOpStart = "operation.start"
	// opStartDelay is how long an operation stays PENDING before its work starts.
	OpStartDelay = 1 * time.Second
	// metadataOpDuration is how long operations that change only metadata take.
	MetadataOpDuration = 5 * time.Second
)

// Error codes of google.rpc.Code used in Operation.error.
const (
	CodeCancelled = 1
	codeInternal  = 13
)

func (w *Core) RegisterOperationHandlers() {
	w.engine.On(evOpStart, w.onOperationStart)
}

// opVerb is how the "please wait" error describes what an operation is doing to a cluster.
func opVerb(typ string) string {
	switch typ {
	case api.OpCreateCluster:
		return "creating"
	case api.OpDeleteCluster:
		return "deleting"
	case api.OpUpgradeMaster, api.OpUpgradeNodes:
		return "upgrading"
	case api.OpCreateNodePool:
		return "creating a node pool for"
	case api.OpDeleteNodePool:
		return "deleting a node pool for"
	default:
		return "operating on"
	}
}

// CheckClusterFree refuses a mutation while another operation holds the cluster, with the
// message real GKE gives (clients retry on it).
func (w *Core) CheckClusterFree(c *model.Cluster) error {
	for _, id := range c.OpenOps {
		if op := w.st.Operations[id]; op != nil && op.Holds {
			return model.FailedPrecondition("Operation %s is currently %s cluster %s. Please wait and try again once it is done.",
				op.ID, opVerb(op.Type), c.Name)
		}
	}
	return nil
}

// StartOperation creates an operation on cluster c (and pool, if any). A holding operation
// locks the cluster until it is done.
func (w *Core) StartOperation(typ string, c *model.Cluster, pool string, holds bool) *model.Operation {
	op := &model.Operation{
		ID:        fmt.Sprintf("operation-%d-%s", w.st.Now.UnixMilli(), w.engine.RandHex(8)),
		Type:      typ,
		Project:   c.Project,
		Location:  c.Location,
		Cluster:   c.Name,
		Pool:      pool,
		Status:    api.OpStatusPending,
		StartTime: w.st.Now,
		Holds:     holds,
	}
	w.st.OpSeq++
	op.Seq = w.st.OpSeq
	w.st.Operations[op.ID] = op
	c.OpenOps = append(c.OpenOps, op.ID)
	w.engine.Schedule(OpStartDelay, model.Event{Kind: evOpStart, Cluster: c.Key(), Op: op.ID})
	w.engine.Record("OperationPending", c, pool, "", op.ID, "%s operation %s created", typ, op.ID)
	return op
}

// OpWork is what an operation's type does once it runs: begin its work, say whether the work
// is done, and complete it (gke/operation_work.go, wired by wireControllers).
type OpWork struct {
	Begin    func(c *model.Cluster, op *model.Operation)
	Done     func(c *model.Cluster, op *model.Operation) bool
	Complete func(c *model.Cluster, op *model.Operation)
}

func (w *Core) onOperationStart(ev model.Event) {
	op := w.st.Operations[ev.Op]
	if op == nil || op.Status != api.OpStatusPending {
		return
	}
	op.Status = api.OpStatusRunning
	c := w.st.Clusters[op.ClusterKey()]
	w.engine.Record("OperationRunning", c, op.Pool, "", op.ID, "%s operation %s running", op.Type, op.ID)
	if c == nil {
		w.FinishOperation(op, codeInternal, "cluster no longer exists")
		return
	}
	w.OpWork.Begin(c, op)
	w.CheckOperations(c)
}

// FinishOperation marks op DONE; a non-zero code makes it a failure with that message. What
// the operation said while it ran (its detail: phase, zone, ETA; the position metrics) no
// longer holds once it is done: the detail is cleared (a caller may set a summary of what was
// done) and only the count metrics stay.
func (w *Core) FinishOperation(op *model.Operation, code int32, message string) {
	op.Status = api.OpStatusDone
	op.EndTime = w.st.Now
	op.ErrorCode = code
	op.StatusMessage = message
	op.Detail = ""
	counts := op.Metrics[:0]
	for _, m := range op.Metrics {
		if m.IsInt {
			counts = append(counts, m)
		}
	}
	op.Metrics = counts
	c := w.st.Clusters[op.ClusterKey()]
	if c != nil {
		for i, id := range c.OpenOps {
			if id == op.ID {
				c.OpenOps = slices.Delete(c.OpenOps, i, i+1)
				break
			}
		}
	}
	if code != 0 {
		w.engine.Record("OperationFailed", c, op.Pool, "", op.ID, "%s operation %s failed: %s", op.Type, op.ID, message)
		return
	}
	w.engine.Record("OperationDone", c, op.Pool, "", op.ID, "%s operation %s done in %s", op.Type, op.ID,
		op.EndTime.Sub(op.StartTime).Round(time.Second))
}

// CheckOperations finishes the running operations on c whose work is complete.
func (w *Core) CheckOperations(c *model.Cluster) {
	var buf [4]string // a copy, as Complete changes the list; on the stack for a few operations
	for _, id := range append(buf[:0], c.OpenOps...) {
		op := w.st.Operations[id]
		if op != nil && op.Status == api.OpStatusRunning && w.OpWork.Done(c, op) {
			w.OpWork.Complete(c, op)
		}
	}
}

// GetOperation finds an operation of a project by id. Like GKE, the location in the request
// must be the operation's location (or "-").
func (w *Core) GetOperation(project, location, id string) (*model.Operation, error) {
	op := w.st.Operations[id]
	if op == nil || op.Project != project || (location != "-" && op.Location != location) {
		return nil, model.NotFound("projects/%s/locations/%s/operations/%s", project, location, id)
	}
	return op, nil
}

// ListOperations lists a project's operations in a location ("-" = all), oldest first.
func (w *Core) ListOperations(project, location string) []*model.Operation {
	var out []*model.Operation
	for _, op := range w.st.Operations {
		if op.Project == project && (location == "-" || op.Location == location) {
			out = append(out, op)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// RenderOperation renders op in GKE's JSON shape. links builds self and target links.
func (w *Core) RenderOperation(op *model.Operation, links Links) *api.Operation {
	out := &api.Operation{
		Name:          op.ID,
		Zone:          op.Location,
		Location:      op.Location,
		OperationType: op.Type,
		Status:        op.Status,
		Detail:        op.Detail,
		StatusMessage: op.StatusMessage,
		SelfLink:      links.Container("projects/%s/locations/%s/operations/%s", op.Project, op.Location, op.ID),
		StartTime:     op.StartTime.Format(time.RFC3339Nano),
	}
	target := "projects/" + op.Project + "/locations/" + op.Location + "/clusters/" + op.Cluster
	if op.Pool != "" {
		target += "/nodePools/" + op.Pool
	}
	out.TargetLink = links.Container("%s", target)
	if !op.EndTime.IsZero() {
		out.EndTime = op.EndTime.Format(time.RFC3339Nano)
	}
	if op.ErrorCode != 0 {
		out.Error = &api.Status{Code: op.ErrorCode, Message: op.StatusMessage}
	}
	if len(op.Metrics) > 0 {
		pr := &api.OperationProgress{Status: op.Status}
		for _, m := range op.Metrics {
			am := &api.Metric{Name: m.Name, StringValue: m.Str}
			if m.IsInt {
				v := api.Int64(m.Int)
				am.IntValue = &v
			}
			pr.Metrics = append(pr.Metrics, am)
		}
		out.Progress = pr
	}
	return out
}

// SetMetrics replaces an operation's progress metrics with name/value pairs.
func SetMetrics(op *model.Operation, kv ...any) {
	op.Metrics = op.Metrics[:0]
	for i := 0; i+1 < len(kv); i += 2 {
		name := kv[i].(string)
		switch v := kv[i+1].(type) {
		case int:
			op.Metrics = append(op.Metrics, model.Metric{Name: name, Int: int64(v), IsInt: true})
		case string:
			op.Metrics = append(op.Metrics, model.Metric{Name: name, Str: v})
		}
	}
}

// Links builds absolute URLs for selfLink-style fields.
type Links struct {
	// ContainerBase is the base of GKE API links, e.g. "http://127.0.0.1:8790/v1/".
	ContainerBase string
	// ComputeBase is the base of Compute Engine links.
	ComputeBase string
}

// Container joins a GKE resource path to the container base.
func (l Links) Container(format string, args ...any) string {
	return strings.TrimSuffix(l.ContainerBase, "/") + "/" + fmt.Sprintf(format, args...)
}

// Compute joins a Compute Engine resource path to the compute base.
func (l Links) Compute(format string, args ...any) string {
	return strings.TrimSuffix(l.ComputeBase, "/") + "/" + fmt.Sprintf(format, args...)
}
