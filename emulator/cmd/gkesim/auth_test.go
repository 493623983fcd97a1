package main

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

// The CLI sends the emulator's auth token (GKESIM_AUTH_TOKEN or --auth-token) on every call,
// and get-credentials writes it into the kubeconfig for kubectl.
func TestCommandsSendTheAuthToken(t *testing.T) {
	const token = "cli-token"
	_, url := emulatortest.Start(t, emulator.Options{Seed: 3, Start: testStart, AuthToken: token})
	if _, err := gkesim(t, url, "clock"); err == nil || !strings.Contains(err.Error(), "UNAUTHENTICATED") {
		t.Fatalf("without the token: %v, want UNAUTHENTICATED", err)
	}
	if out, err := gkesim(t, url, "--auth-token", token, "clock"); err != nil || !strings.Contains(out, "2026-11-02") {
		t.Fatalf("with --auth-token: %v %s", err, out)
	}
	t.Setenv("GKESIM_AUTH_TOKEN", token)
	mustGkesim(t, url, "container", "clusters", "list")
	if out := mustGkesim(t, url, "events", "--limit", "1"); out != "" {
		t.Logf("events: %s", out)
	}

	// get-credentials: a cluster created with the token, then its kubeconfig entry carries it.
	kc := filepath.Join(t.TempDir(), "config")
	createClusterWithToken(t, url, token)
	mustGkesim(t, url, "clock", "advance", "1h")
	mustGkesim(t, url, "container", "clusters", "get-credentials", "tok", "--location", "us-central1-a", "--kubeconfig", kc)
	cfg, err := clientcmd.LoadFromFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	name := "gke_proj_us-central1-a_tok"
	if u := cfg.AuthInfos[name]; u == nil || u.Token != token {
		t.Errorf("kubeconfig user: %+v, want the token", u)
	}
	// kubectl sends a token only over TLS: the emulator serves it too, with its CA in the
	// cluster's masterAuth, and the entry names the https endpoint and that CA.
	cl := cfg.Clusters[name]
	if want := "https://" + strings.TrimPrefix(url, "http://") + "/k8s/projects/proj/locations/us-central1-a/clusters/tok"; cl == nil || cl.Server != want ||
		!strings.Contains(string(cl.CertificateAuthorityData), "BEGIN CERTIFICATE") {
		t.Errorf("kubeconfig cluster: %+v, want server %s and the emulator's CA", cl, want)
	}
}

func createClusterWithToken(t *testing.T, url, token string) {
	t.Helper()
	c := &client{base: url, token: token, http: http.DefaultClient}
	if err := c.call("POST", "/v1/projects/proj/locations/us-central1-a/clusters", nil,
		map[string]any{"cluster": map[string]any{"name": "tok", "initialNodeCount": 1}}, nil); err != nil {
		t.Fatal(err)
	}
}

// Listening beyond loopback without a token prints a warning; with one, or on loopback, not.
func TestExposureWarning(t *testing.T) {
	for _, tc := range []struct {
		url, token string
		warn       bool
	}{
		{"http://[::]:8790", "", true}, {"http://0.0.0.0:8790", "", true}, {"http://10.1.2.3:8790", "", true},
		{"http://0.0.0.0:8790", "x", false}, {"http://127.0.0.1:8790", "", false}, {"http://[::1]:8790", "", false},
		{"http://localhost:8790", "", false},
	} {
		if got := exposureWarning(tc.url, tc.token); (got != "") != tc.warn || tc.warn && !strings.Contains(got, "without an auth token") {
			t.Errorf("exposureWarning(%s, %q) = %q, want a warning: %v", tc.url, tc.token, got, tc.warn)
		}
	}
}

// serve prints where it listens and, with a token, that requests need it.
func TestServeWithAToken(t *testing.T) {
	t.Setenv("GKESIM_AUTH_TOKEN", "from-env")
	var out, errOut syncBuffer
	cmd := newRootCmd(&out, &errOut)
	cmd.SetArgs([]string{"serve", "--time-scale", "0", "--listen", "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	for i := 0; i < 500 && !strings.Contains(out.String(), "auth:"); i++ {
		time.Sleep(10 * time.Millisecond) // wall time: the server starting, not an emulated process
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Authorization: Bearer") || strings.Contains(out.String()+errOut.String(), "from-env") {
		t.Errorf("serve printed:\n%s\n%s\nwant the auth line, never the token", out.String(), errOut.String())
	}
}

// syncBuffer is a bytes.Buffer the serve command writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
