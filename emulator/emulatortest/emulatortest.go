// Package emulatortest runs an emulator in-process for the tests of other packages (library
// mode, as fake-gcs-server's tests do): one call, a loopback port, closed when the test ends.
package emulatortest

import (
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
)

// Start runs an emulator with opts on a free loopback port until the test ends, and returns it
// and its base URL ("http://127.0.0.1:PORT").
func Start(t testing.TB, opts emulator.Options) (*emulator.Emulator, string) {
	t.Helper()
	e, err := emulator.New(opts)
	if err != nil {
		t.Fatalf("start emulator: %v", err)
	}
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		e.Close()
		t.Fatalf("start emulator: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("close emulator: %v", err)
		}
	})
	return e, url
}
