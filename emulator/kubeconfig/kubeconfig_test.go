package kubeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func TestServerURL(t *testing.T) {
	for _, tc := range []struct {
		emulator, endpoint, want, err string
		hasCA                         bool
	}{
		{"http://127.0.0.1:8790", "127.0.0.1:8790/k8s/projects/p/locations/l/clusters/c", "http://127.0.0.1:8790/k8s/projects/p/locations/l/clusters/c", "", false},
		{"https://gkesim.local", "gkesim.local/k8s/projects/p/locations/l/clusters/c", "https://gkesim.local/k8s/projects/p/locations/l/clusters/c", "", false},
		{"127.0.0.1:8790", "127.0.0.1:8790/k8s/x", "http://127.0.0.1:8790/k8s/x", "", false},
		{"http://127.0.0.1:8790", "", "", "no endpoint yet", false},
		// A cluster with a CA (an emulator with a token serves TLS too): https for kubectl.
		{"http://127.0.0.1:8790", "127.0.0.1:8790/k8s/x", "https://127.0.0.1:8790/k8s/x", "", true},
	} {
		got, err := ServerURL(tc.emulator, tc.endpoint, tc.hasCA)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ServerURL(%q, %q) = %q, %v; want %q, error %q", tc.emulator, tc.endpoint, got, err, tc.want, tc.err)
		}
	}
}

// Writing twice replaces the cluster's entries (a new server address) and keeps one context.
func TestWriteReplacesEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kube", "config")
	for _, server := range []string{"http://127.0.0.1:1/k8s/a", "http://127.0.0.1:2/k8s/a"} {
		got, err := Write(path, Cluster{Project: "p", Location: "us-central1", Name: "a", Server: server})
		if err != nil || got != path {
			t.Fatalf("Write: %q, %v", got, err)
		}
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := ContextName("p", "us-central1", "a")
	if name != "gke_p_us-central1_a" || cfg.CurrentContext != name || len(cfg.Contexts) != 1 || cfg.Clusters[name].Server != "http://127.0.0.1:2/k8s/a" {
		t.Errorf("after two writes: current %q, %d contexts, server %q", cfg.CurrentContext, len(cfg.Contexts), cfg.Clusters[name].Server)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode: %v %v, want 0600", fi.Mode(), err)
	}
}
