package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/internal/tmpfs"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
)

const serveChildEnv = "GKESIM_SERVE_CHILD_ARGS"

// TestServeChild is `gkesim serve` in a process of its own, as main runs it, for tests that
// signal it (it does nothing unless such a test runs it).
func TestServeChild(t *testing.T) {
	args := os.Getenv(serveChildEnv)
	if args == "" {
		t.Skip("run by TestServeStopsAfterAStorageFailure as the process it stops")
	}
	cmd := newRootCmd(os.Stdout, os.Stderr)
	cmd.SetArgs(strings.Split(args, "\n"))
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "ERROR:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// SIGTERM after a storage failure finishes within a bound (the store's close timeout plus the
// server's shutdown) and says what it could not save; it used to wait forever for a
// checkpoint the failed writer had dropped. The disk is a full tmpfs of the test's own.
func TestServeStopsAfterAStorageFailure(t *testing.T) {
	dir := tmpfs.Mount(t, "8m")
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), serveChildEnv+"="+strings.Join([]string{"serve", "--listen", "127.0.0.1:0", "--addr-file", addrFile,
		"--time-scale", "0", "--data-dir", filepath.Join(dir, "data")}, "\n"))
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	endpoint := strings.TrimSpace(mustGkesim(t, "http://unused", "wait", "--addr-file", addrFile, "--timeout", "30s"))

	create := func(name string) int {
		body := fmt.Sprintf(`{"cluster": {"name": %q, "initialNodeCount": 1}}`, name)
		resp, err := http.Post(endpoint+"/v1/projects/p/locations/us-central1/clusters", "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := create("before"); code != http.StatusOK {
		t.Fatalf("create before the disk fills: HTTP %d", code)
	}
	tmpfs.Fill(t, dir)
	failed := false
	for i := range 50 {
		if code := create(fmt.Sprintf("during-%d", i)); code == http.StatusServiceUnavailable {
			failed = true
			break
		}
	}
	if !failed {
		t.Fatal("no change was refused on the full disk")
	}

	began := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The store's bound, the server's shutdown (5 s, idle here) and room for a loaded machine.
	bound := store.DefaultCloseTimeout + 10*time.Second
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		t.Logf("SIGTERM after a failed write: stopped in %s, exit %v", time.Since(began).Round(time.Millisecond), err)
	case <-time.After(bound):
		t.Fatalf("SIGTERM after a failed write: still running after %s\n%s", bound, out)
	}
	if _, msg, ok := strings.Cut(out.String(), "ERROR:"); ok {
		t.Logf("serve said: ERROR:%s", msg)
	}
	for _, want := range []string{"gkesim: shutting down", "ERROR:", "could not save journal records", "none of them acknowledged", "no space left on device"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("what serve said does not contain %q:\n%s", want, out)
		}
	}
}
