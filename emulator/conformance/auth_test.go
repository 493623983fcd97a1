package conformance

import (
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/oauth2"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/option"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
	"github.com/gkesim/terraform-provider-gkesim/emulator/kubeconfig"
)

const authToken = "conformance-token"

// startEmulatorWithToken runs an emulator that requires authToken.
func startEmulatorWithToken(t *testing.T) string {
	t.Helper()
	_, url := emulatortest.Start(t, emulator.Options{TimeScale: timeScale, Seed: 11, Start: start, AuthToken: authToken})
	return url
}

// The official Go client sends the token as an OAuth access token: a static token source.
func TestGoClientWithAuthToken(t *testing.T) {
	url := startEmulatorWithToken(t)
	loc := "projects/" + project + "/locations/" + zone
	anonymous := goClient(t, url)
	_, err := anonymous.Projects.Locations.Clusters.List(loc).Do()
	wantCode(t, err, http.StatusUnauthorized)

	svc, err := container.NewService(t.Context(), option.WithEndpoint(url+"/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: authToken})))
	if err != nil {
		t.Fatal(err)
	}
	op, err := svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{Name: "auth", InitialNodeCount: 1}}).Do()
	if err != nil {
		t.Fatalf("clusters.create with the token: %v", err)
	}
	waitOperation(t, svc, op)
	if cl := getCluster(t, svc, loc+"/clusters/auth"); cl.Status != "RUNNING" {
		t.Errorf("cluster %s", cl.Status)
	}
}

// gcloud sends the token when its auth/access_token_file property names a file holding it
// (credentials enabled, no account needed); kubectl through the kubeconfig that
// `gkesim container clusters get-credentials` writes, which carries it.
func TestGcloudAndKubectlWithAuthToken(t *testing.T) {
	url := startEmulatorWithToken(t)
	if path, err := exec.LookPath("gcloud"); err != nil {
		t.Logf("gcloud is not installed (%v): its part is skipped", err)
	} else {
		g := newGcloud(t, path, url)
		_, stderr, err := g.run("container", "clusters", "list", "--zone", zone)
		if err == nil || !strings.Contains(stderr, "code=401") {
			t.Fatalf("gcloud without the token: %v\n%s\nwant a 401", err, stderr)
		}
		tokenFile := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(tokenFile, []byte(authToken), 0o600); err != nil {
			t.Fatal(err)
		}
		g.ok("config", "set", "auth/disable_credentials", "false")
		g.ok("config", "set", "auth/access_token_file", tokenFile)
		var created []gcloudCluster
		g.json(&created, "container", "clusters", "create", "auth-gcloud", "--zone", zone, "--num-nodes", "1", "--quiet")
		if len(created) != 1 || created[0].Status != "RUNNING" {
			t.Fatalf("gcloud clusters create with the token: %+v", created)
		}
	}

	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH")
	}
	svc, err := container.NewService(t.Context(), option.WithEndpoint(url+"/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: authToken})))
	if err != nil {
		t.Fatal(err)
	}
	loc := "projects/" + project + "/locations/" + zone
	op, err := svc.Projects.Locations.Clusters.Create(loc, &container.CreateClusterRequest{Cluster: &container.Cluster{Name: "auth-kubectl", InitialNodeCount: 2}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	waitOperation(t, svc, op)
	cl := getCluster(t, svc, loc+"/clusters/auth-kubectl")
	if cl.MasterAuth == nil || cl.MasterAuth.ClusterCaCertificate == "" {
		t.Fatalf("masterAuth of a cluster of an emulator with a token: %+v, want its CA", cl.MasterAuth)
	}
	ca, err := base64.StdEncoding.DecodeString(cl.MasterAuth.ClusterCaCertificate)
	if err != nil {
		t.Fatal(err)
	}
	server, err := kubeconfig.ServerURL(url, cl.Endpoint, true)
	if err != nil {
		t.Fatal(err)
	}
	// What get-credentials writes: the https endpoint, the CA, and (below) the token.
	kc := filepath.Join(t.TempDir(), "config")
	c := kubeconfig.Cluster{Project: project, Location: zone, Name: cl.Name, Server: server, CAData: ca}
	if _, err := kubeconfig.Write(kc, c); err != nil {
		t.Fatal(err)
	}
	k := newKubectl(t, path, kc)
	// Refused (kubectl, answered 401 without credentials, asks for a user name on stdin).
	if _, stderr, err := k.run("get", "nodes"); err == nil {
		t.Fatalf("kubectl without the token succeeded\n%s", stderr)
	}
	c.Token = authToken
	if _, err := kubeconfig.Write(kc, c); err != nil {
		t.Fatal(err)
	}
	if nodes := rows(k.ok("get", "nodes")); len(nodes) != 2 {
		t.Errorf("kubectl get nodes with the token: %v", nodes)
	}
	// The plain-HTTP clients share the port with kubectl's TLS.
	if _, err := svc.Projects.Locations.Clusters.List(loc).Do(); err != nil {
		t.Errorf("the Go client over plain HTTP after kubectl's TLS: %v", err)
	}
}
