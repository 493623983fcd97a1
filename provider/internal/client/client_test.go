package client

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// A request to an endpoint where nothing listens gives up after UnreachableFor, not after
// max_retries (20 retries backing off to 5 s took 82 s), with one error that names the
// endpoint and says how to start the emulator.
func TestUnreachableEndpoint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused

	c, err := New(context.Background(), Config{Endpoint: endpoint, RequestTimeout: 30 * time.Second, MaxRetries: 20, PollInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err = c.GKE.Projects.Locations.Clusters.Get(ClusterName("p", "us-central1", "c")).Context(ctx).Do()
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("Get: %v, want an UnreachableError", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("Get retried until the test's deadline instead of giving up after %s: %v", UnreachableFor, err)
	}
	msg := Message(err)
	for _, want := range []string{"cannot reach the gkesim emulator at " + endpoint + " (connection refused)", "start it with `gkesim serve`", "GKESIM_ENDPOINT"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Message = %q, want it to contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("Message is more than one line: %q", msg)
	}

	// The Kubernetes-shaped API's requests say the same.
	err = c.Kube("p", "us-central1", "c").Get(ctx, "/api/v1/nodes", nil)
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "cannot reach the gkesim emulator at "+endpoint) {
		t.Errorf("kube GET: %v, want the UnreachableError itself", err)
	}
}
