//go:build !linux

package tmpfs

import "testing"

// Mount skips the test: a tmpfs of the test's own is mounted on Linux only.
func Mount(t testing.TB, size string) string {
	t.Skip("a full disk is tested on a tmpfs, which these tests mount on Linux only")
	return ""
}

// Fill is not reached: Mount skipped the test.
func Fill(t testing.TB, dir string) string {
	t.Skip("a full disk is tested on a tmpfs, which these tests mount on Linux only")
	return ""
}
