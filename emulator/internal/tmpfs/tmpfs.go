//go:build linux

// Package tmpfs gives tests a small filesystem of their own to fill: a full disk that frees
// up is then a real one, not an injected error.
package tmpfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size (as mount takes it: "4m") on a new temporary directory and
// unmounts it when the test ends. Mounting needs root: without it the test is skipped.
func Mount(t testing.TB, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk is tested on a tmpfs of the test's own, which only root can mount: run this test as root (CI does)")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs on %s (%v): a container without CAP_SYS_ADMIN cannot; run this test where root may mount", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// Fill writes a file in dir until its filesystem is full and returns the file's name:
// removing it frees the space.
func Fill(t testing.TB, dir string) string {
	t.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	for range 1 << 16 { // bounded: 4 GiB, far beyond any tmpfs a test mounts
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			// What a partial block left fits no more records: fill to the last byte.
			for _, n := range []int{4096, 512, 64, 1} {
				for range 1 << 10 {
					if _, err := f.Write(block[:n]); err != nil {
						break
					}
				}
			}
			return name
		}
	}
	t.Fatalf("%s did not fill up", dir)
	return ""
}
