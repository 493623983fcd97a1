package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// get-credentials writes gcloud's context for the cluster, keeps what the kubeconfig held and
// makes the new context current; without --kubeconfig it writes the file $KUBECONFIG names.
func TestGetCredentials(t *testing.T) {
	url := startEmulator(t)
	createCluster(t, url, "us-central1-a", "cli")
	mustGkesim(t, url, "clock", "advance", "1h")

	dir := t.TempDir()
	kc := filepath.Join(dir, "config")
	existing := "apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster: {server: 'https://10.0.0.1'}\n" +
		"users:\n- name: prod\n  user: {token: secret}\ncontexts:\n- name: prod\n  context: {cluster: prod, user: prod, namespace: web}\ncurrent-context: prod\n"
	if err := os.WriteFile(kc, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	mustGkesim(t, url, "container", "clusters", "get-credentials", "cli", "--location", "us-central1-a", "--kubeconfig", kc)

	cfg, err := clientcmd.LoadFromFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	name := "gke_proj_us-central1-a_cli"
	if cfg.CurrentContext != name {
		t.Errorf("current-context %q, want %q", cfg.CurrentContext, name)
	}
	ctx := cfg.Contexts[name]
	if ctx == nil || ctx.Cluster != name || ctx.AuthInfo != name {
		t.Fatalf("context %s: %+v", name, ctx)
	}
	if want := url + "/k8s/projects/proj/locations/us-central1-a/clusters/cli"; cfg.Clusters[name].Server != want {
		t.Errorf("server %q, want %q", cfg.Clusters[name].Server, want)
	}
	if u := cfg.AuthInfos[name]; u == nil || u.Token != "" || u.Exec != nil {
		t.Errorf("user %s: %+v, want an empty entry (the emulator needs no credentials)", name, u)
	}
	if cfg.Contexts["prod"] == nil || cfg.Contexts["prod"].Namespace != "web" || cfg.AuthInfos["prod"].Token != "secret" ||
		cfg.Clusters["prod"].Server != "https://10.0.0.1" {
		t.Errorf("the existing prod entries were not kept: %+v %+v %+v", cfg.Contexts["prod"], cfg.AuthInfos["prod"], cfg.Clusters["prod"])
	}

	// Default file: $KUBECONFIG, created with its directory.
	envFile := filepath.Join(dir, "nested", "kubeconfig")
	t.Setenv("KUBECONFIG", envFile)
	mustGkesim(t, url, "container", "clusters", "get-credentials", "cli", "--zone", "us-central1-a")
	if cfg, err := clientcmd.LoadFromFile(envFile); err != nil || cfg.CurrentContext != name || len(cfg.Contexts) != 1 {
		t.Errorf("$KUBECONFIG file: %v %+v", err, cfg)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nope", "--location", "us-central1-a"}, "Not found: projects/proj/locations/us-central1-a/clusters/nope"},
		{[]string{"cli"}, "no location"},
	} {
		_, err := gkesim(t, url, append([]string{"container", "clusters", "get-credentials"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("get-credentials %v: %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}
