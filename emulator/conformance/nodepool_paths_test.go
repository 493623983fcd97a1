package conformance

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
)

// Every way the API offers to change a node pool behaves the same: the node-pool methods and
// the cluster-level update.desiredNodeVersion / desiredNodePoolAutoscaling with
// desiredNodePoolId, driven by gcloud and by the Go client.

// waitingWindow is a weekly Sunday window, 14 hours: the 2nd of November 2026, when the
// conformance emulator starts, is a Monday, so a change that respects it waits six days.
var waitingWindow = &container.MaintenancePolicy{Window: &container.MaintenanceWindow{RecurringWindow: &container.RecurringTimeWindow{
	Window:     &container.TimeWindow{StartTime: "2026-01-04T00:00:00Z", EndTime: "2026-01-04T14:00:00Z"},
	Recurrence: "FREQ=WEEKLY;BYDAY=SU",
}}}

// nextWindow is when waitingWindow next opens after the emulator's start.
var nextWindow = time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC)

// R-MW-5: a machine-type change waits for the window; upgrading the pool to the version it
// runs applies it at once. gcloud's documented way to do that, `gcloud container clusters
// upgrade C --node-pool NP --cluster-version V`, sends the cluster-level update
// {"desiredNodePoolId": NP, "desiredNodeVersion": V}; the Go client may send that or
// nodePools.update. Each path starts the waiting change at once, under the waiting operation.
func TestWaitingChangeAppliedNowByEveryPath(t *testing.T) {
	t.Parallel()
	gcloudPath, gcloudErr := exec.LookPath("gcloud")
	for _, tc := range []struct {
		name   string
		gcloud bool
		// apply upgrades default-pool of cluster to version; it returns the operation it got
		// (nil for gcloud, which waits for it itself).
		apply func(t *testing.T, svc *container.Service, g *gcloud, cluster, version string) (*container.Operation, error)
	}{
		{"gcloud container clusters upgrade --node-pool", true, func(t *testing.T, _ *container.Service, g *gcloud, cluster, version string) (*container.Operation, error) {
			g.ok("container", "clusters", "upgrade", lastPart(cluster), "--node-pool", "default-pool", "--cluster-version", version, "--zone", zone, "--quiet")
			return nil, nil
		}},
		{"Go client clusters.update desiredNodePoolId + desiredNodeVersion", false, func(t *testing.T, svc *container.Service, _ *gcloud, cluster, version string) (*container.Operation, error) {
			return svc.Projects.Locations.Clusters.Update(cluster, &container.UpdateClusterRequest{Update: &container.ClusterUpdate{
				DesiredNodePoolId: "default-pool", DesiredNodeVersion: version}}).Do()
		}},
		{"Go client nodePools.update nodeVersion", false, func(t *testing.T, svc *container.Service, _ *gcloud, cluster, version string) (*container.Operation, error) {
			return svc.Projects.Locations.Clusters.NodePools.Update(cluster+"/nodePools/default-pool", &container.UpdateNodePoolRequest{NodeVersion: version}).Do()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.gcloud && gcloudErr != nil {
				t.Skipf("gcloud is not installed (%v): install the Google Cloud CLI to run the gcloud conformance test", gcloudErr)
			}
			emu, url := startEmulator(t)
			svc := goClient(t, url)
			var g *gcloud
			if tc.gcloud {
				g = newGcloud(t, gcloudPath, url)
			}
			loc := "projects/" + project + "/locations/" + zone
			cluster := loc + "/clusters/conf-mw5"
			waitOperation(t, svc, must(svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
				Name: "conf-mw5", InitialNodeCount: 2, MaintenancePolicy: waitingWindow}}).Do()))
			version := getPool(t, svc, cluster+"/nodePools/default-pool").Version

			// The machine-type change waits for Sunday's window (the clock is held while it
			// starts, so that the test sees it waiting).
			thaw := freeze(t, emu)
			if tc.gcloud {
				g.ok("container", "node-pools", "update", "default-pool", "--cluster", "conf-mw5", "--zone", zone, "--machine-type", "e2-standard-4", "--async", "--quiet")
			} else {
				must(svc.Projects.Locations.Clusters.NodePools.Update(cluster+"/nodePools/default-pool", &container.UpdateNodePoolRequest{MachineType: "e2-standard-4"}).Do())
			}
			if err := emu.Runner.Advance(context.Background(), 2*time.Minute); err != nil {
				t.Fatal(err)
			}
			waiting := runningUpgrade(t, svc, loc)
			if waiting == nil || !strings.Contains(waiting.Detail, "waiting for a maintenance window") {
				t.Fatalf("after the machine-type change: %+v, want an UPGRADE_NODES operation waiting for the window (R-MW-5)", waiting)
			}

			if !tc.gcloud {
				// Through the Go client, the request is answered with the waiting operation, and
				// the same request while it runs gets GKE's please-wait, as from the other path.
				op, err := tc.apply(t, svc, nil, cluster, version)
				if err != nil || op.Name != waiting.Name {
					t.Fatalf("same-version upgrade: %v, %v; want the waiting operation %s back", op, err, waiting.Name)
				}
				_, err = tc.apply(t, svc, nil, cluster, version)
				wantPleaseWait(t, err, waiting.Name)
			}
			thaw()
			if tc.gcloud {
				tc.apply(t, svc, g, cluster, version) // returns once the operation is DONE
			}
			waitOperation(t, svc, waiting)
			np := getPool(t, svc, cluster+"/nodePools/default-pool")
			if np.Config.MachineType != "e2-standard-4" || np.Version != version {
				t.Fatalf("after the same-version upgrade: %s on %s, want e2-standard-4 on %s", np.Config.MachineType, np.Version, version)
			}
			forced := emulatorEvents(t, url, "conf-mw5", "UpgradeForced")
			created := emulatorEvents(t, url, "conf-mw5", "NodeCreating")
			last := created[len(created)-1]
			if len(forced) != 1 || !strings.Contains(last.Message, "e2-standard-4") || !last.Time.Before(nextWindow) {
				t.Fatalf("UpgradeForced %v; last node created %+v: want the change applied at once, before the window opens on %s (R-MW-5)",
					forced, last, nextWindow.Format(time.RFC3339))
			}
		})
	}
}

// desiredNodePoolAutoscaling (what `gcloud container clusters update --node-pool
// --enable-autoscaling` sends) and nodePools.setAutoscaling set the same autoscaling, and
// both refuse a bad value with the same rule, naming their own field.
func TestNodePoolAutoscalingByEveryPath(t *testing.T) {
	t.Parallel()
	_, url := startEmulator(t)
	svc := goClient(t, url)
	loc := "projects/" + project + "/locations/" + zone
	cluster := loc + "/clusters/conf-as"
	waitOperation(t, svc, must(svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: "conf-as", NodePools: []*container.NodePool{{Name: "a", InitialNodeCount: 1}, {Name: "b", InitialNodeCount: 1}}}}).Do()))

	if path, err := exec.LookPath("gcloud"); err == nil {
		g := newGcloud(t, path, url)
		g.ok("container", "clusters", "update", "conf-as", "--node-pool", "a", "--enable-autoscaling", "--min-nodes", "1", "--max-nodes", "4", "--zone", zone, "--quiet")
	} else {
		waitOperation(t, svc, must(svc.Projects.Locations.Clusters.Update(cluster, &container.UpdateClusterRequest{Update: &container.ClusterUpdate{
			DesiredNodePoolId: "a", DesiredNodePoolAutoscaling: &container.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 4}}}).Do()))
	}
	waitOperation(t, svc, must(svc.Projects.Locations.Clusters.NodePools.SetAutoscaling(cluster+"/nodePools/b", &container.SetNodePoolAutoscalingRequest{
		Autoscaling: &container.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 4}}).Do()))
	a, b := getPool(t, svc, cluster+"/nodePools/a").Autoscaling, getPool(t, svc, cluster+"/nodePools/b").Autoscaling
	if fmt.Sprintf("%+v", *a) != fmt.Sprintf("%+v", *b) || !a.Enabled || a.MaxNodeCount != 4 {
		t.Fatalf("autoscaling through the cluster-level update %+v, through setAutoscaling %+v: want the same, 1..4", a, b)
	}
	bad := &container.NodePoolAutoscaling{Enabled: true, MinNodeCount: 5, MaxNodeCount: 4}
	_, errCluster := svc.Projects.Locations.Clusters.Update(cluster, &container.UpdateClusterRequest{Update: &container.ClusterUpdate{
		DesiredNodePoolId: "a", DesiredNodePoolAutoscaling: bad}}).Do()
	_, errPool := svc.Projects.Locations.Clusters.NodePools.SetAutoscaling(cluster+"/nodePools/a", &container.SetNodePoolAutoscalingRequest{Autoscaling: bad}).Do()
	ec, ep := wantCode(t, errCluster, http.StatusBadRequest), wantCode(t, errPool, http.StatusBadRequest)
	if !strings.Contains(ec.Message, "update.desiredNodePoolAutoscaling") || strings.Replace(ec.Message, "update.desiredNodePoolAutoscaling", "autoscaling", -1) != ep.Message {
		t.Fatalf("min > max: cluster-level %q, setAutoscaling %q; want the same rule, each naming its field", ec.Message, ep.Message)
	}
}

// runningUpgrade returns the UPGRADE_NODES operation not yet done in a location, if any.
func runningUpgrade(t *testing.T, svc *container.Service, loc string) *container.Operation {
	t.Helper()
	ops := must(svc.Projects.Locations.Operations.List(loc).Do())
	for _, op := range ops.Operations {
		if op.OperationType == "UPGRADE_NODES" && op.Status != "DONE" {
			return op
		}
	}
	return nil
}

// emulatorEvent is the part of an event-log entry the tests read.
type emulatorEvent struct {
	Time    time.Time `json:"time"`
	Message string    `json:"message"`
}

// emulatorEvents reads a cluster's event-log entries of one type.
func emulatorEvents(t *testing.T, url, cluster, typ string) []emulatorEvent {
	t.Helper()
	var out struct {
		Events []emulatorEvent `json:"events"`
	}
	getJSON(t, url+"/emulator/v1/events?cluster="+cluster+"&type="+typ, &out)
	return out.Events
}

func lastPart(name string) string { return name[strings.LastIndex(name, "/")+1:] }
