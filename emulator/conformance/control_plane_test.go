package conformance

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/kubeconfig"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
)

// R-MW-6 through kubectl: while a zonal cluster's control plane is upgraded, every kubectl
// command (12 Deployment creations, a read) is refused as by an API server that cannot serve;
// the GKE API keeps answering reads and refuses mutations; afterwards kubectl works again and
// the pods that ran before still run.
func TestKubectlRefusedWhileZonalControlPlaneUpgrades(t *testing.T) {
	t.Parallel()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH: this test drives the real kubectl against the emulator")
	}
	emu, url := startEmulator(t)
	svc := goClient(t, url)
	reg := catalog.VersionsAt(start).Channels[api.ChannelRegular].Valid
	from, to := reg[1], reg[0]
	loc := "projects/" + project + "/locations/" + zone
	name := loc + "/clusters/zonal"
	waitOperation(t, svc, must(svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{
		Name: "zonal", InitialClusterVersion: from.String(), ReleaseChannel: &container.ReleaseChannel{Channel: api.ChannelUnspecified},
		NodePools: []*container.NodePool{{Name: "default-pool", InitialNodeCount: 2, Config: &container.NodeConfig{MachineType: "e2-standard-4"}}},
	}}).Do()))
	cl := getCluster(t, svc, name)
	kc := filepath.Join(t.TempDir(), "config")
	server, err := kubeconfig.ServerURL(url, cl.Endpoint, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubeconfig.Write(kc, kubeconfig.Cluster{Project: project, Location: zone, Name: cl.Name, Server: server}); err != nil {
		t.Fatal(err)
	}
	k := newKubectl(t, path, kc)
	k.ok("create", "deployment", "web", "--image=nginx", "--replicas=3")
	k.ok("rollout", "status", "deployment/web", "--timeout=20s")

	// The clock is held so that the upgrade stays in flight while kubectl runs.
	thaw := freeze(t, emu)
	op := must(svc.Projects.Locations.Clusters.Update(name, &container.UpdateClusterRequest{Update: &container.ClusterUpdate{DesiredMasterVersion: to.String()}}).Do())
	if err := emu.Runner.Advance(t.Context(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := getCluster(t, svc, name); got.Status != "RECONCILING" {
		t.Fatalf("clusters.get during the upgrade: status %s, want RECONCILING", got.Status)
	}
	_, err = svc.Projects.Locations.Clusters.NodePools.SetSize(name+"/nodePools/default-pool", &container.SetNodePoolSizeRequest{NodeCount: 3}).Do()
	wantPleaseWait(t, err, op.Name)

	const refusal = "the server is currently unable to handle the request"
	for i := range 12 {
		_, stderr, err := k.run("create", "deployment", fmt.Sprintf("during-%d", i), "--image=nginx")
		if err == nil || !strings.Contains(stderr, refusal) {
			t.Fatalf("kubectl create deployment during the upgrade: err %v, stderr %q, want the refusal %q", err, stderr, refusal)
		}
		if i == 0 {
			t.Logf("kubectl: %s", stderr)
		}
	}
	if _, stderr, err := k.run("get", "pods"); err == nil || !strings.Contains(stderr, "ServiceUnavailable") || !strings.Contains(stderr, "zonal cluster zonal") {
		t.Fatalf("kubectl get pods during the upgrade: err %v, stderr %q, want ServiceUnavailable naming the cluster", err, stderr)
	}

	if err := emu.Runner.Advance(t.Context(), 8*time.Minute); err != nil {
		t.Fatal(err)
	}
	thaw()
	waitOperation(t, svc, op)
	var pods struct {
		Items []struct {
			Status struct{ Phase string } `json:"status"`
		} `json:"items"`
	}
	k.json(&pods, "get", "pods", "-l", "app=web")
	running := 0
	for _, p := range pods.Items {
		if p.Status.Phase == "Running" {
			running++
		}
	}
	if running != 3 {
		t.Errorf("after the upgrade %d of web's pods run, want the 3 that ran before", running)
	}
	k.ok("create", "deployment", "after", "--image=nginx")
	if out := k.ok("get", "deployments", "-o", "name"); strings.Contains(out, "during-") || !strings.Contains(out, "deployment.apps/after") {
		t.Errorf("deployments after the upgrade:\n%s\nwant web and after, none of the refused ones", out)
	}

	down := emulatorEvents(t, url, "zonal", "KubernetesAPIUnavailable")
	up := emulatorEvents(t, url, "zonal", "KubernetesAPIAvailable")
	if len(down) != 1 || len(up) != 1 {
		t.Fatalf("event log: %d KubernetesAPIUnavailable and %d KubernetesAPIAvailable entries, want 1 each", len(down), len(up))
	}
	if d := up[0].Time.Sub(down[0].Time); d < 6*time.Minute || d > 7*time.Minute {
		t.Errorf("API down for %s by the event log, want 6-7 minutes", d)
	}
}
