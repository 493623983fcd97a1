// Package servertest is the test bench of the emulator's HTTP server, shared by the tests of
// emulator/server and of the packages under it (emulator/server/k8s): an emulator on a frozen
// virtual clock behind an httptest server, the requests the tests send it (GKE, Kubernetes,
// watches) and the checks of its error bodies. It builds no server itself: emulator/server's
// own tests could not import a package that imports emulator/server, so each test package
// hands New its constructor.
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/wall"
)

// Start is the emulated time the tests' worlds start at.
var Start = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// World is the options of the world most tests run: seed 7, starting at Start.
func World() sim.Options { return sim.Options{Seed: 7, Start: Start} }

// The paths of the cluster most tests start from (Env.WithBase), in the GKE API and in its
// Kubernetes API.
const (
	LocPath  = "/v1/projects/proj/locations/us-central1-a"
	Clusters = LocPath + "/clusters"
	Base     = Clusters + "/base"
	Pools    = Base + "/nodePools"
	PoolA    = Pools + "/pool-a"

	K8sBase   = "/k8s/projects/proj/locations/us-central1-a/clusters/base"
	K8sDeploy = K8sBase + "/apis/apps/v1/namespaces/default/deployments"
	K8sPods   = K8sBase + "/api/v1/namespaces/default/pods"
	K8sSvcs   = K8sBase + "/api/v1/namespaces/default/services"
	// TableV1 is the Accept header of kubectl get: a Table, else the object.
	TableV1 = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)

// EventWait bounds how long a test waits for an event the emulator must send (it comes at
// once: the clock is frozen and moves only when the test advances it).
const EventWait = 20 * time.Second

// Env is an emulator on a frozen virtual clock behind an httptest server: emulated time moves
// only through POST /emulator/v1/clock:advance, so every run of a test sees the same world.
type Env struct {
	T   *testing.T
	URL string
}

// New runs a world of options wopts on a frozen clock, serves it with the handler newHandler
// makes (the emulator's server) on an httptest server, and stops both when the test ends.
func New(t *testing.T, wopts sim.Options, newHandler func(*sim.Runner) (http.Handler, error)) *Env {
	t.Helper()
	w := sim.New(wopts)
	r := sim.NewRunner(w, sim.RunnerOptions{Wall: wall.System{}, TimeScale: 0})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	h, err := newHandler(r)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		cancel()
		<-done
	})
	return &Env{T: t, URL: ts.URL}
}

// Call sends a request and returns the status code and body. body is nil, a raw JSON string,
// or a value to encode.
func (e *Env) Call(method, path string, body any) (int, []byte) {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			e.T.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	code, _, out := e.Send(method, path, http.Header{"Content-Type": {"application/json"}}, rd)
	return code, out
}

// Send sends a request with headers and returns the status code, the headers and the body.
func (e *Env) Send(method, path string, header http.Header, body io.Reader) (int, http.Header, []byte) {
	e.T.Helper()
	req, err := http.NewRequest(method, e.URL+path, body)
	if err != nil {
		e.T.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		e.T.Fatal(err)
	}
	return resp.StatusCode, resp.Header, out
}

// OK sends a request that must succeed and decodes the answer into out (if not nil).
func (e *Env) OK(method, path string, body, out any) {
	e.T.Helper()
	code, b := e.Call(method, path, body)
	if code != http.StatusOK {
		e.T.Fatalf("%s %s: HTTP %d: %s", method, path, code, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.T.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

// Advance moves the emulated clock d ahead.
func (e *Env) Advance(d time.Duration) *api.Clock {
	e.T.Helper()
	var c api.Clock
	e.OK("POST", "/emulator/v1/clock:advance", &api.AdvanceClockRequest{Duration: fmt.Sprintf("%gs", d.Seconds())}, &c)
	return &c
}

// Operation reads an operation.
func (e *Env) Operation(location, name string) *api.Operation {
	e.T.Helper()
	var op api.Operation
	e.OK("GET", "/v1/projects/proj/locations/"+location+"/operations/"+name, nil, &op)
	return &op
}

// Wait advances the clock in 30 s steps until op is DONE, for at most two emulated hours.
func (e *Env) Wait(op *api.Operation) *api.Operation {
	e.T.Helper()
	for range 240 {
		got := e.Operation(op.Location, op.Name)
		if got.Status == api.OpStatusDone {
			if got.StatusMessage != "" {
				e.T.Fatalf("operation %s (%s) failed: %s", got.Name, got.OperationType, got.StatusMessage)
			}
			return got
		}
		e.Advance(30 * time.Second)
	}
	e.T.Fatalf("operation %s (%s) not DONE after two emulated hours", op.Name, op.OperationType)
	return nil
}

// Mutate sends a mutation that must return an operation, and waits for it.
func (e *Env) Mutate(method, path string, body any) *api.Operation {
	e.T.Helper()
	var op api.Operation
	e.OK(method, path, body, &op)
	return e.Wait(&op)
}

// WithBase creates the cluster most tests start from: base in us-central1-a (release channel
// REGULAR by default) with pool-a of two nodes, all operations done.
func (e *Env) WithBase() *Env {
	e.T.Helper()
	e.Mutate("POST", Clusters, `{"cluster": {"name": "base", "nodePools": [{"name": "pool-a", "initialNodeCount": 2}]}}`)
	return e
}

// WantError checks Google's error envelope: code, canonical status, one errors[] entry with the
// legacy reason and the same message, and the message fragments.
func WantError(t *testing.T, gotCode int, body []byte, code int, status, reason string, fragments ...string) {
	t.Helper()
	if gotCode != code {
		t.Fatalf("HTTP %d, want %d: %s", gotCode, code, body)
	}
	var eb api.ErrorBody
	if err := json.Unmarshal(body, &eb); err != nil || eb.Error == nil {
		t.Fatalf("not a Google error envelope (%v): %s", err, body)
	}
	d := eb.Error
	if d.Code != code || d.Status != status {
		t.Errorf("error code/status = %d %s, want %d %s", d.Code, d.Status, code, status)
	}
	if len(d.Errors) != 1 || d.Errors[0].Reason != reason || d.Errors[0].Message != d.Message || d.Errors[0].Domain != "global" {
		t.Errorf("errors[] = %s, want one entry with reason %q, domain global and the message", MustJSON(d.Errors), reason)
	}
	for _, f := range fragments {
		if !strings.Contains(d.Message, f) {
			t.Errorf("message %q does not contain %q", d.Message, f)
		}
	}
}

// MustJSON is v as JSON.
func MustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// K8sCall sends a request with a content type and an Accept header ("" for none).
func (e *Env) K8sCall(method, path, contentType, accept, body string) (int, http.Header, []byte) {
	e.T.Helper()
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	if accept != "" {
		h.Set("Accept", accept)
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	return e.Send(method, path, h, rd)
}

// K8sOK sends a request that must succeed (2xx) and decodes the answer into out.
func (e *Env) K8sOK(method, path, contentType, body string, out any) {
	e.T.Helper()
	code, _, b := e.K8sCall(method, path, contentType, "application/json", body)
	if code/100 != 2 {
		e.T.Fatalf("%s %s: HTTP %d: %s", method, path, code, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.T.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

// WantStatus checks a Kubernetes Status error body.
func WantStatus(t *testing.T, code int, body []byte, wantCode int, reason metav1.StatusReason, fragments ...string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("HTTP %d, want %d: %s", code, wantCode, body)
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("not a Status: %v: %s", err, body)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != metav1.StatusFailure || st.Code != int32(wantCode) || st.Reason != reason {
		t.Errorf("Status = %s %s %s code %d reason %s, want Status v1 Failure %d %s", st.Kind, st.APIVersion, st.Status, st.Code, st.Reason, wantCode, reason)
	}
	for _, f := range fragments {
		if !strings.Contains(st.Message, f) {
			t.Errorf("Status message %q does not contain %q", st.Message, f)
		}
	}
}

// DeploymentJSON is a Deployment of replicas pods labelled app=name, each requesting cpu.
func DeploymentJSON(name string, replicas int, cpu string) string {
	return fmt.Sprintf(`{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": %[1]q, "labels": {"app": %[1]q}},
		"spec": {"replicas": %[2]d, "selector": {"matchLabels": {"app": %[1]q}},
		"template": {"metadata": {"labels": {"app": %[1]q}}, "spec": {"containers": [{"name": "app", "image": "nginx:1.27",
		"resources": {"requests": {"cpu": %[3]q, "memory": "32Mi"}}}]}}}}`, name, replicas, cpu)
}

// NodeNames lists the registered nodes of base through the Kubernetes-shaped API.
func (e *Env) NodeNames() []string {
	e.T.Helper()
	var nodes corev1.NodeList
	e.K8sOK("GET", K8sBase+"/api/v1/nodes", "", "", &nodes)
	var out []string
	for _, n := range nodes.Items {
		out = append(out, n.Name)
	}
	return out
}

// Received is a WatchEvent as a test reads it.
type Received struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// Meta is the object's metadata.
func (r Received) Meta(t *testing.T) metav1.ObjectMeta {
	t.Helper()
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(r.Object, &o); err != nil {
		t.Fatalf("watch event object: %v: %s", err, r.Object)
	}
	return o.Metadata
}

// RV is the object's resourceVersion.
func (r Received) RV(t *testing.T) int64 {
	t.Helper()
	n, err := strconv.ParseInt(r.Meta(t).ResourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("watch event %s: resourceVersion %q", r.Type, r.Meta(t).ResourceVersion)
	}
	return n
}

// Status is the Status an ERROR event carries.
func (r Received) Status(t *testing.T) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(r.Object, &st); err != nil {
		t.Fatalf("ERROR event: %v: %s", err, r.Object)
	}
	return st
}

// Stream is an open watch.
type Stream struct {
	t      *testing.T
	events chan Received
	Resp   *http.Response
	Header http.Header
}

// Watch opens a watch (path with its query) and reads its events on a goroutine of its own.
func (e *Env) Watch(path, accept string) *Stream {
	e.T.Helper()
	req, err := http.NewRequest("GET", e.URL+path, nil)
	if err != nil {
		e.T.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		e.T.Fatalf("watch %s: HTTP %d", path, resp.StatusCode)
	}
	s := &Stream{t: e.T, events: make(chan Received, 10_000), Resp: resp, Header: resp.Header}
	go func() {
		defer close(s.events)
		dec := json.NewDecoder(resp.Body)
		for {
			var ev Received
			if err := dec.Decode(&ev); err != nil {
				return
			}
			s.events <- ev
		}
	}()
	e.T.Cleanup(func() { resp.Body.Close() })
	return s
}

// Next is the next event; ok false when the stream ended.
func (s *Stream) Next() (Received, bool) {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		return ev, ok
	case <-time.After(EventWait):
		s.t.Fatal("no watch event within the wait (the stream stalled)")
		return Received{}, false
	}
}

// Until reads events until done says stop, and returns them.
func (s *Stream) Until(done func(Received) bool) []Received {
	s.t.Helper()
	var out []Received
	for {
		ev, ok := s.Next()
		if !ok {
			s.t.Fatalf("the watch ended before the expected events; got %d", len(out))
		}
		out = append(out, ev)
		if done(ev) {
			return out
		}
	}
}

// ListRV is the resourceVersion of a list.
func (e *Env) ListRV(path string) int64 {
	e.T.Helper()
	var l metav1.List
	e.K8sOK("GET", path, "", "", &l)
	n, err := strconv.ParseInt(l.ResourceVersion, 10, 64)
	if err != nil {
		e.T.Fatalf("GET %s: resourceVersion %q", path, l.ResourceVersion)
	}
	return n
}
