//go:build linux

package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// The container image: its entrypoint is the gkesim binary alone (ko's), and that binary, built
// with main.image=true, runs `gkesim serve` listening on every interface of the container.
//
// `make test` runs the fast check: .goreleaser.yml's kos section builds the image that way, and
// this test binary, re-run as the image's entrypoint would run (no arguments, main.image=true),
// serves on 0.0.0.0:8790. `make image` builds the image itself with goreleaser and ko, then runs
// this test with GKESIM_IMAGE naming the image's OCI layout: the test unpacks the image and
// runs its own entrypoint, with its own environment.
//
// The entrypoint listens on every interface, which a test must not do on the machine it runs
// on, so it runs in a network namespace of its own (a new user namespace makes that possible
// without root); /proc/PID/net/tcp shows the sockets of that namespace.

// imageEnv, when set, makes this test binary run as the image's gkesim (see TestMain).
const imageEnv = "GKESIM_TEST_AS_IMAGE"

func TestMain(m *testing.M) {
	if os.Getenv(imageEnv) == "1" {
		os.Unsetenv(imageEnv)
		image = "true"
		os.Args = os.Args[:1]
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// goreleaserKo is the part of .goreleaser.yml this test reads.
type goreleaserKo struct {
	Builds []struct {
		ID   string `json:"id"`
		Main string `json:"main"`
	} `json:"builds"`
	Kos []struct {
		ID        string   `json:"id"`
		Build     string   `json:"build"`
		Main      string   `json:"main"`
		Ldflags   []string `json:"ldflags"`
		Platforms []string `json:"platforms"`
		Bare      bool     `json:"bare"`
		User      string   `json:"user"`
	} `json:"kos"`
}

func TestImageConfiguration(t *testing.T) {
	b, err := os.ReadFile("../../../.goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserKo
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Kos) != 1 {
		t.Fatalf(".goreleaser.yml has %d kos entries, want the gkesim image", len(cfg.Kos))
	}
	ko := cfg.Kos[0]
	if ko.Build != "gkesim" || ko.Main != "./emulator/cmd/gkesim" {
		t.Errorf("kos builds %q from %q, want build gkesim from ./emulator/cmd/gkesim", ko.Build, ko.Main)
	}
	found := false
	for _, b := range cfg.Builds {
		found = found || (b.ID == ko.Build && b.Main == ko.Main)
	}
	if !found {
		t.Errorf("kos build %q is not a build of %s", ko.Build, ko.Main)
	}
	if !strings.Contains(strings.Join(ko.Ldflags, " "), "-X main.image=true") {
		t.Errorf("kos ldflags %q do not set main.image=true: the image's entrypoint would print help instead of serving", ko.Ldflags)
	}
	if !ko.Bare || ko.User == "" || strings.HasPrefix(ko.User, "0") {
		t.Errorf("kos: bare %v, user %q; want the binary at /ko-app/gkesim, run as a non-root user", ko.Bare, ko.User)
	}
	if strings.Join(ko.Platforms, ",") != "linux/amd64,linux/arm64" {
		t.Errorf("kos platforms %v", ko.Platforms)
	}
}

// The fast check: this test binary as the image's entrypoint.
func TestImageEntrypointServesOnEveryInterface(t *testing.T) {
	env := append(os.Environ(), imageEnv+"=1")
	checkEntrypoint(t, os.Args[0], env, "0.0.0.0:8790")
	t.Run("GKESIM_LISTEN", func(t *testing.T) {
		checkEntrypoint(t, os.Args[0], append(env, "GKESIM_LISTEN=127.0.0.1:9000"), "127.0.0.1:9000")
	})
}

// The image itself, when make image has built it.
func TestImage(t *testing.T) {
	layout := os.Getenv("GKESIM_IMAGE")
	if layout == "" {
		t.Skip("GKESIM_IMAGE names no image: `make image` builds it and runs this test")
	}
	cfg, layers := imageForPlatform(t, layout, "linux", runtime.GOARCH)
	c := cfg.Config
	if strings.Join(c.Entrypoint, " ") != "/ko-app/gkesim" || len(c.Cmd) != 0 {
		t.Errorf("entrypoint %q, cmd %q: want /ko-app/gkesim without arguments", c.Entrypoint, c.Cmd)
	}
	if c.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532 (not root)", c.User)
	}
	var size int64
	for _, l := range layers {
		size += l.Size
	}
	t.Logf("image for linux/%s: %d layers, %.1f MB compressed", runtime.GOARCH, len(layers), float64(size)/1e6)

	root := t.TempDir()
	for _, l := range layers {
		unpackLayer(t, filepath.Join(layout, "blobs", strings.Replace(l.Digest, ":", "/", 1)), root)
	}
	bin := filepath.Join(root, c.Entrypoint[0])
	// The image's own environment, and nothing from the test's: what the container sees.
	checkEntrypoint(t, bin, c.Env, "0.0.0.0:8790")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "gkesim version ") {
		t.Errorf("gkesim --version: %v %s", err, out)
	}
}

// checkEntrypoint runs bin without arguments, as a container runtime runs the entrypoint, in
// a network namespace of its own, and checks it serves on addr: its banner says so, the
// namespace has a socket listening there, and it stops cleanly on SIGTERM.
func checkEntrypoint(t *testing.T, bin string, env []string, addr string) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 65532, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 65532, HostID: os.Getgid(), Size: 1}},
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) {
			t.Skipf("cannot create a user and network namespace here (%v): the entrypoint listens on every interface, which this test runs only in a namespace of its own", err)
		}
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var printed []string
	endpoint := addr
	if strings.HasPrefix(addr, "0.0.0.0:") {
		endpoint = "127.0.0.1:" + strings.TrimPrefix(addr, "0.0.0.0:") // what clients beside it use
	}
	want := "GKESIM_ENDPOINT=http://" + endpoint
	timeout := time.After(30 * time.Second)
	for len(printed) == 0 || printed[len(printed)-1] != want {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the entrypoint exited before it served; it printed:\n%s", strings.Join(printed, "\n"))
			}
			printed = append(printed, l)
		case <-timeout:
			t.Fatalf("no line %q within 30 s; the entrypoint printed:\n%s", want, strings.Join(printed, "\n"))
		}
	}
	if endpoint != addr && !strings.HasSuffix(printed[0], "(every interface)") {
		t.Errorf("banner %q, want it serving on every interface", printed[0])
	}
	if !listening(t, cmd.Process.Pid, addr) {
		t.Errorf("no socket listening on %s in the entrypoint's network namespace", addr)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		printed = append(printed, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the entrypoint did not stop cleanly on SIGTERM: %v; it printed:\n%s", err, strings.Join(printed, "\n"))
	}
}

// listening says whether the network namespace of process pid has a TCP socket listening on
// addr (host:port; a host of 0.0.0.0 means every interface, IPv4 or dual-stack), from
// /proc/PID/net/tcp and tcp6.
func listening(t *testing.T, pid int, addr string) bool {
	t.Helper()
	var a, b, c, d, port int
	if _, err := fmt.Sscanf(strings.Replace(addr, ":", " ", 1), "%d.%d.%d.%d %d", &a, &b, &c, &d, &port); err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	// The kernel prints an address as little-endian 32-bit words and the port big-endian.
	locals := map[string]string{"tcp": fmt.Sprintf("%02X%02X%02X%02X:%04X", d, c, b, a, port)}
	if a+b+c+d == 0 {
		locals["tcp6"] = strings.Repeat("0", 32) + fmt.Sprintf(":%04X", port)
	}
	for table, local := range locals {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 3 && f[1] == local && f[3] == "0A" { // 0A: LISTEN
				return true
			}
		}
	}
	return false
}

// OCI image layout types, as much of them as the test reads.
type ociDescriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
	Platform  *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

type ociIndex struct {
	Manifests []ociDescriptor `json:"manifests"`
}

type ociManifest struct {
	Config ociDescriptor   `json:"config"`
	Layers []ociDescriptor `json:"layers"`
}

type ociConfig struct {
	Config struct {
		Entrypoint []string `json:"Entrypoint"`
		Cmd        []string `json:"Cmd"`
		Env        []string `json:"Env"`
		User       string   `json:"User"`
	} `json:"config"`
}

func readBlob(t *testing.T, layout, digest string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(layout, "blobs", strings.Replace(digest, ":", "/", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("blob %s: %v", digest, err)
	}
}

// imageForPlatform finds the image for os/arch in the layout (through nested indexes) and
// returns its config and layers.
func imageForPlatform(t *testing.T, layout, os_, arch string) (ociConfig, []ociDescriptor) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(layout, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx ociIndex
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	cfg, layers, ok := findImage(t, layout, idx, os_, arch, 0)
	if !ok {
		t.Fatalf("no image for %s/%s in %s", os_, arch, layout)
	}
	return cfg, layers
}

func findImage(t *testing.T, layout string, idx ociIndex, os_, arch string, depth int) (ociConfig, []ociDescriptor, bool) {
	for _, d := range idx.Manifests {
		if strings.HasSuffix(d.MediaType, "image.index.v1+json") || strings.HasSuffix(d.MediaType, "manifest.list.v2+json") {
			var next ociIndex
			readBlob(t, layout, d.Digest, &next)
			if depth < 3 {
				if cfg, layers, ok := findImage(t, layout, next, os_, arch, depth+1); ok {
					return cfg, layers, true
				}
			}
			continue
		}
		if d.Platform != nil && d.Platform.OS == os_ && d.Platform.Architecture == arch {
			var m ociManifest
			readBlob(t, layout, d.Digest, &m)
			var cfg ociConfig
			readBlob(t, layout, m.Config.Digest, &cfg)
			return cfg, m.Layers, true
		}
	}
	return ociConfig{}, nil, false
}

// unpackLayer extracts a gzipped layer's regular files and directories under root.
func unpackLayer(t *testing.T, blob, root string) {
	t.Helper()
	f, err := os.Open(blob)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("layer %s: %v", blob, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("layer %s: %v", blob, err)
		}
		name := filepath.Join(root, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(name, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(out, tr); err != nil {
				t.Fatal(err)
			}
			out.Close()
		}
	}
}
