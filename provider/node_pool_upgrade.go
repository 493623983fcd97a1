package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/provider/internal/client"
)

// Waiting for node upgrades, and returning early from blue-green ones.
//
// A node-recreating change (R-UPG-1) waits for its UPGRADE_NODES operation; client.Wait logs the
// operation's detail (phase, nodes done, ETA) as it changes. With blue_green_return_at_soak the
// apply returns once a blue-green upgrade has drained the blue pool (NODE_POOL_SOAKING, or
// DELETING_BLUE_POOL when there is no soak) instead of waiting through the soak and the blue pool
// deletion (terraform-provider-google #16770). The operation keeps running; the resource's private
// state remembers it, and until it ends Read keeps the configured version and machine attributes in
// state (GKE reports the pool's old ones until the upgrade is done), so the next plan is empty. A
// cancelled (paused) or rolled-back upgrade drops that, so the plan shows the change again and an
// apply resumes it (R-BG-7).
//
// GKE refuses any other change to the cluster while an upgrade operation runs ("Please wait and
// try again once it is done"). Node pool creates, updates and deletes first wait for the running
// upgrade operations of the cluster's pools; other resources rely on the client's retries of that
// answer (max_retries, with backoff up to 5 s).

// pendingUpgradeKey is the private state key of a blue-green upgrade an apply returned from early.
const pendingUpgradeKey = "blue_green_upgrade"

// pendingUpgrade is the blue-green upgrade an apply left running at its soak.
type pendingUpgrade struct {
	Operation        string `json:"operation"`
	GreenPoolVersion string `json:"greenPoolVersion"`
}

// Blue-green phases (NodePool.UpdateInfo.BlueGreenInfo.phase).
const (
	phaseSoaking      = "NODE_POOL_SOAKING"
	phaseDeletingBlue = "DELETING_BLUE_POOL"
)

// blueDrained gives the phase of a blue-green upgrade of np that has drained its blue pool:
// every workload runs on the green nodes.
func blueDrained(np *container.NodePool) (*container.BlueGreenInfo, bool) {
	if np == nil || np.UpdateInfo == nil || np.UpdateInfo.BlueGreenInfo == nil {
		return nil, false
	}
	info := np.UpdateInfo.BlueGreenInfo
	return info, info.Phase == phaseSoaking || info.Phase == phaseDeletingBlue
}

// awaitPoolUpgrades waits for the running UPGRADE_NODES operations on the cluster's node pools, so
// that the change that follows is not refused. How those operations end is theirs to report.
func awaitPoolUpgrades(ctx context.Context, c *client.Client, project, location, cluster string, diags *diag.Diagnostics) bool {
	ops, err := c.UpgradeOperations(ctx, project, location, cluster, "")
	if err != nil {
		diags.AddError("Error reading node pool upgrades", err.Error())
		return false
	}
	for _, op := range ops {
		if !client.Running(op) {
			continue
		}
		tflog.Info(ctx, fmt.Sprintf("waiting for operation %s on node pool %s to finish first: GKE accepts no other change to cluster %s until it does",
			op.Name, client.PoolOf(op), cluster), map[string]any{"operation": op.Name})
		if err := c.Wait(ctx, project, location, op); err != nil {
			if ctx.Err() != nil {
				diags.AddError("Error waiting for a node pool upgrade", err.Error())
				return false
			}
			tflog.Warn(ctx, err.Error())
		}
	}
	return true
}

// upgradeNodes sends a node-recreating change and waits for it: to the end, or with returnAtSoak
// until a blue-green upgrade has drained its blue pool, when it returns the upgrade still running.
func upgradeNodes(ctx context.Context, c *client.Client, project, location, name string, u *container.UpdateNodePoolRequest, returnAtSoak bool) (*pendingUpgrade, error) {
	pools := c.GKE.Projects.Locations.Clusters.NodePools
	op, err := pools.Update(name, u).Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("%s", client.Message(err))
	}
	if !returnAtSoak {
		return nil, c.Wait(ctx, project, location, op)
	}
	var pending *pendingUpgrade
	err = c.WaitUntil(ctx, project, location, op, func(ctx context.Context) (bool, error) {
		np, err := pools.Get(name).Context(ctx).Do()
		if err != nil {
			return false, fmt.Errorf("read node pool %s: %s", name, client.Message(err))
		}
		info, drained := blueDrained(np)
		if !drained {
			return false, nil
		}
		pending = &pendingUpgrade{Operation: op.Name, GreenPoolVersion: info.GreenPoolVersion}
		tflog.Info(ctx, fmt.Sprintf("blue-green upgrade of %s reached %s: returning (blue_green_return_at_soak); operation %s goes on with the soak and the blue pool deletion (which starts at %s)",
			name, info.Phase, op.Name, info.BluePoolDeletionStartTime), map[string]any{"operation": op.Name})
		return true, nil
	})
	return pending, err
}

// savePending records (or, with nil, forgets) a blue-green upgrade left running.
func savePending(ctx context.Context, private interface {
	SetKey(context.Context, string, []byte) diag.Diagnostics
}, p *pendingUpgrade, diags *diag.Diagnostics) {
	var b []byte
	if p != nil {
		b, _ = json.Marshal(p)
	}
	diags.Append(private.SetKey(ctx, pendingUpgradeKey, b)...)
}

func loadPending(ctx context.Context, private interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
}, diags *diag.Diagnostics) *pendingUpgrade {
	b, d := private.GetKey(ctx, pendingUpgradeKey)
	diags.Append(d...)
	if len(b) == 0 {
		return nil
	}
	var p pendingUpgrade
	if json.Unmarshal(b, &p) != nil || p.Operation == "" {
		return nil
	}
	return &p
}

// pendingGoesOn says whether the blue-green upgrade an apply returned from is still under way
// towards its target: its operation runs (not cancelled, which pauses it) and its blue pool is
// drained (not rolled back).
func pendingGoesOn(ctx context.Context, c *client.Client, project, location string, np *container.NodePool, p *pendingUpgrade) (bool, error) {
	info, drained := blueDrained(np)
	if !drained || info.GreenPoolVersion != p.GreenPoolVersion {
		return false, nil
	}
	op, err := c.GKE.Projects.Locations.Operations.Get("projects/" + project + "/locations/" + location + "/operations/" + p.Operation).Context(ctx).Do()
	if client.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read operation %s: %s", p.Operation, client.Message(err))
	}
	return client.Running(op), nil
}

// keepUpgradeTarget puts back what the apply set and GKE reports only once the upgrade is done:
// the version, the machine attributes and the per-zone size (the blue and green groups both
// count meanwhile).
func keepUpgradeTarget(target nodePoolAttrs, m *nodePoolAttrs) {
	m.Version, m.NodeCount = target.Version, target.NodeCount
	if len(target.NodeConfig) > 0 && len(m.NodeConfig) > 0 {
		t, nc := target.NodeConfig[0], &m.NodeConfig[0]
		nc.MachineType, nc.DiskType, nc.DiskSizeGb, nc.ImageType = t.MachineType, t.DiskType, t.DiskSizeGb, t.ImageType
	}
}

// unlessNodesChange keeps a computed attribute's state value unless the plan recreates the nodes
// (a blue-green upgrade replaces the instance groups, and the pool reconciles meanwhile), the
// state was read while the pool was not at rest (an upgrade left running at its soak), or one of
// the watched attributes changes.
type unlessNodesChange struct {
	watch stateUnlessChanged
}

func keepUnlessNodesChange(watch ...string) unlessNodesChange {
	return unlessNodesChange{watch: useStateUnlessChanged(watch...)}
}

func (m unlessNodesChange) Description(ctx context.Context) string {
	return "keeps the current value unless the nodes are recreated"
}

func (m unlessNodesChange) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (m unlessNodesChange) keep(ctx context.Context, state tfsdk.State, plan tfsdk.Plan) bool {
	if state.Raw.IsNull() || plan.Raw.IsNull() {
		return false
	}
	var ps, ss nodePoolModel
	if plan.Get(ctx, &ps).HasError() || state.Get(ctx, &ss).HasError() || ss.Status.ValueString() != "RUNNING" {
		return false
	}
	_, what := nodeSpecChanges(ps, ss)
	return len(what) == 0
}

func (m unlessNodesChange) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.PlanValue.IsUnknown() && m.keep(ctx, req.State, req.Plan) {
		m.watch.PlanModifyString(ctx, req, resp)
	}
}

func (m unlessNodesChange) PlanModifyList(ctx context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	if req.PlanValue.IsUnknown() && m.keep(ctx, req.State, req.Plan) {
		m.watch.PlanModifyList(ctx, req, resp)
	}
}
