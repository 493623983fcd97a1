package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// A repeated GET is answered from the bytes rendered for it while the world stands still, even
// with the simulation goroutine busy; any change (a mutation, the clock running events) makes
// the next GET render again, and the answer is what a fresh render gives.
func TestReadsAnsweredWhileTheSimulationIsBusy(t *testing.T) {
	e := newEnv(t).withBase()
	path := poolA + "?prettyPrint=false"
	code, first := e.Call("GET", path, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %s", path, code, first)
	}

	// Hold the simulation goroutine in a command; the same read is answered meanwhile.
	held, release := make(chan struct{}), make(chan struct{})
	doneHold := make(chan error, 1)
	go func() {
		doneHold <- e.srv.runner.Do(context.Background(), func(*sim.World) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	// The timeout bounds a failure (a read queued behind the held command); it times nothing.
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(e.URL + path)
	if err != nil {
		close(release)
		t.Fatalf("GET %s while the simulation was busy: %v (the read waited for it)", path, err)
	}
	var again []byte
	again, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	close(release)
	if err != nil || resp.StatusCode != http.StatusOK || string(again) != string(first) {
		t.Fatalf("GET %s while the simulation was busy: HTTP %d %v\n%s\nwant the same bytes as before\n%s", path, resp.StatusCode, err, again, first)
	}
	if err := <-doneHold; err != nil {
		t.Fatal(err)
	}

	// A mutation is seen at once, and so are the events the clock runs afterwards.
	var op api.Operation
	e.OK("POST", poolA+":setSize", `{"nodeCount": 3}`, &op)
	var np api.NodePool
	e.OK("GET", path, nil, &np)
	if np.Status != "RECONCILING" {
		t.Fatalf("pool is %s right after setSize was accepted, want RECONCILING", np.Status)
	}
	e.Wait(&op)
	e.OK("GET", path, nil, &np)
	if np.Status != "RUNNING" {
		t.Fatalf("pool is %s after its resize finished, want RUNNING", np.Status)
	}
	// What the cache answers is what a render gives: the pretty form (a different request) says
	// the same.
	_, compact := e.Call("GET", path, nil)
	_, pretty := e.Call("GET", poolA, nil)
	var a, b any
	if json.Unmarshal(compact, &a) != nil || json.Unmarshal(pretty, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("cached compact answer and a fresh pretty one differ:\n%s\n%s", compact, pretty)
	}
}
