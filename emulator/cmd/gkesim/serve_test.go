package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startServe runs `gkesim serve args...` in-process until the test ends; it returns what serve
// prints and a channel with its result.
func startServe(t *testing.T, args ...string) (*syncBuffer, <-chan error) {
	t.Helper()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := newRootCmd(out, out)
	cmd.SetArgs(append([]string{"serve"}, args...))
	done, finished := make(chan error, 1), make(chan struct{})
	go func() {
		done <- cmd.ExecuteContext(ctx)
		close(finished)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
	return out, done
}

// The pipeline recipe: serve on a free port writing its address to a file, wait for it, use
// it, stop it; the file is gone afterwards.
func TestServeAddrFileAndWait(t *testing.T) {
	dir := t.TempDir()
	addrFile := filepath.Join(dir, "addr")
	// A file left by an earlier run names an address nobody serves: serve replaces it.
	if err := os.WriteFile(addrFile, []byte(unusedAddr(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, done := startServe(t, "--listen", "127.0.0.1:0", "--addr-file", addrFile, "--time-scale", "0")
	endpoint := strings.TrimSpace(mustGkesim(t, "http://unused", "wait", "--addr-file", addrFile, "--timeout", "20s", "--pid", strconv.Itoa(os.Getpid())))
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
		t.Fatalf("gkesim wait printed %q, want the emulator's address", endpoint)
	}
	if !strings.Contains(out.String(), "\nGKESIM_ENDPOINT="+endpoint+"\n") {
		t.Errorf("serve printed:\n%s\nwant a line GKESIM_ENDPOINT=%s", out, endpoint)
	}
	if got := mustGkesim(t, endpoint, "clock"); !strings.Contains(got, "frozen") {
		t.Errorf("clock at the waited-for endpoint: %s", got)
	}
	// The address given directly works too.
	if got := strings.TrimSpace(mustGkesim(t, endpoint, "wait")); got != endpoint {
		t.Errorf("gkesim wait --endpoint %s printed %q", endpoint, got)
	}
	select {
	case err := <-done:
		t.Fatalf("serve stopped: %v", err)
	default:
	}
}

func TestServeAddrFileRemovedOnExit(t *testing.T) {
	addrFile := filepath.Join(t.TempDir(), "addr")
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := newRootCmd(out, out)
	cmd.SetArgs([]string{"serve", "--listen", "127.0.0.1:0", "--addr-file", addrFile})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	mustGkesim(t, "http://unused", "wait", "--addr-file", addrFile, "--timeout", "20s")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if _, err := os.Stat(addrFile); !os.IsNotExist(err) {
		t.Errorf("after serve stopped, %s: %v, want it gone", addrFile, err)
	}
}

// What a pipeline runs into, each in one line that says what to do.
func TestServeAndWaitErrors(t *testing.T) {
	t.Run("port taken", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		_, done := startServe(t, "--listen", ln.Addr().String())
		err = <-done
		wantOneLine(t, err, "cannot listen on "+ln.Addr().String()+": the address is in use", "--listen 127.0.0.1:0")
	})
	t.Run("data directory in use", func(t *testing.T) {
		dir := t.TempDir()
		addrFile := filepath.Join(t.TempDir(), "addr")
		startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir, "--addr-file", addrFile)
		mustGkesim(t, "http://unused", "wait", "--addr-file", addrFile, "--timeout", "20s")
		_, done := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
		wantOneLine(t, <-done, "the data directory "+dir+" is in use by another gkesim (pid "+strconv.Itoa(os.Getpid())+")", "give this one another --data-dir")
	})
	t.Run("bad flag from the environment", func(t *testing.T) {
		t.Setenv("GKESIM_TIME_SCALE", "-1")
		_, done := startServe(t, "--listen", "127.0.0.1:0")
		wantOneLine(t, <-done, `GKESIM_TIME_SCALE="-1" (--time-scale): must be 0`)
	})
	t.Run("wait: nothing listens", func(t *testing.T) {
		addr := unusedAddr(t)
		_, err := gkesim(t, addr, "wait", "--timeout", "300ms")
		wantOneLine(t, err, "the emulator at "+addr+" did not answer within 300ms (connection refused)", "start it with `gkesim serve`", "GKESIM_ENDPOINT")
	})
	t.Run("wait: no address file", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "addr")
		_, err := gkesim(t, "http://unused", "wait", "--addr-file", f, "--timeout", "300ms")
		wantOneLine(t, err, "no address in "+f+" after 300ms", "gkesim serve --addr-file "+f)
	})
	t.Run("wait: the emulator exited", func(t *testing.T) {
		gone := exec.Command(os.Args[0], "-test.run=^$")
		if err := gone.Run(); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), "addr")
		_, err := gkesim(t, "http://unused", "wait", "--addr-file", f, "--pid", strconv.Itoa(gone.Process.Pid), "--timeout", "1m")
		wantOneLine(t, err, "the emulator (pid "+strconv.Itoa(gone.Process.Pid)+") exited before it answered")
	})
}

func wantOneLine(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q\nwant it to contain %q", msg, w)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is more than one line: %q", msg)
	}
}

// A resumed --data-dir runs with the seed its state was saved with, and the banner says so,
// whatever --seed says (its default, or another value).
func TestServeResumedStateSaysItsSeed(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, want string
		args       []string
	}{
		{"new state", "seed 7, state in " + dir + "\n", []string{"--seed", "7"}},
		{"resumed with the default seed", "seed 7, state in " + dir + " (resumed", nil},
		{"resumed with another seed", "seed 7, state in " + dir + " (resumed", []string{"--seed", "9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addrFile := filepath.Join(t.TempDir(), "addr")
			out := &syncBuffer{}
			ctx, cancel := context.WithCancel(context.Background())
			cmd := newRootCmd(out, out)
			cmd.SetArgs(append([]string{"serve", "--listen", "127.0.0.1:0", "--addr-file", addrFile, "--data-dir", dir, "--time-scale", "0"}, tc.args...))
			done := make(chan error, 1)
			go func() { done <- cmd.ExecuteContext(ctx) }()
			mustGkesim(t, "http://unused", "wait", "--addr-file", addrFile, "--timeout", "20s")
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("serve: %v", err)
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("serve %v printed:\n%s\nwant %q", tc.args, out, tc.want)
			}
		})
	}
}
