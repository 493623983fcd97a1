package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Watches as the API server serves them: the WatchEvent stream, resourceVersion semantics, 410
// Expired beyond the history window, selectors, bookmarks, timeouts, tables, and the bounds
// that keep watchers from holding the simulation.

// eventWait bounds how long a test waits for an event the emulator must send (it comes at
// once: the clock is frozen and moves only when the test advances it).
const eventWait = 20 * time.Second

// received is a WatchEvent as a test reads it.
type received struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// meta is the object's metadata.
func (r received) meta(t *testing.T) metav1.ObjectMeta {
	t.Helper()
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(r.Object, &o); err != nil {
		t.Fatalf("watch event object: %v: %s", err, r.Object)
	}
	return o.Metadata
}

func (r received) rv(t *testing.T) int64 {
	t.Helper()
	n, err := strconv.ParseInt(r.meta(t).ResourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("watch event %s: resourceVersion %q", r.Type, r.meta(t).ResourceVersion)
	}
	return n
}

func (r received) status(t *testing.T) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(r.Object, &st); err != nil {
		t.Fatalf("ERROR event: %v: %s", err, r.Object)
	}
	return st
}

// stream is an open watch.
type stream struct {
	t      *testing.T
	events chan received
	resp   *http.Response
	header http.Header
}

// watch opens a watch (path with its query) and reads its events on a goroutine of its own.
func (e *env) watch(path, accept string) *stream {
	e.t.Helper()
	req, err := http.NewRequest("GET", e.url+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("watch %s: HTTP %d", path, resp.StatusCode)
	}
	s := &stream{t: e.t, events: make(chan received, 10_000), resp: resp, header: resp.Header}
	go func() {
		defer close(s.events)
		dec := json.NewDecoder(resp.Body)
		for {
			var ev received
			if err := dec.Decode(&ev); err != nil {
				return
			}
			s.events <- ev
		}
	}()
	e.t.Cleanup(func() { resp.Body.Close() })
	return s
}

// next is the next event; ok false when the stream ended.
func (s *stream) next() (received, bool) {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		return ev, ok
	case <-time.After(eventWait):
		s.t.Fatal("no watch event within the wait (the stream stalled)")
		return received{}, false
	}
}

// until reads events until done says stop, and returns them.
func (s *stream) until(done func(received) bool) []received {
	s.t.Helper()
	var out []received
	for {
		ev, ok := s.next()
		if !ok {
			s.t.Fatalf("the watch ended before the expected events; got %d", len(out))
		}
		out = append(out, ev)
		if done(ev) {
			return out
		}
	}
}

// listRV is the resourceVersion of a list.
func (e *env) listRV(path string) int64 {
	e.t.Helper()
	var l metav1.List
	e.k8sOK("GET", path, "", "", &l)
	n, err := strconv.ParseInt(l.ResourceVersion, 10, 64)
	if err != nil {
		e.t.Fatalf("GET %s: resourceVersion %q", path, l.ResourceVersion)
	}
	return n
}

func TestWatchStreamsEveryChangeAfterAVersion(t *testing.T) {
	e := newEnv(t).withBase()
	from := e.listRV(k8sPods)
	s := e.watch(k8sPods+"?watch=true&resourceVersion="+fmt.Sprint(from), "")
	if ct := s.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("watch Content-Type %q, want application/json", ct)
	}
	e.k8sOK("POST", k8sDeploy, "application/json", deploymentJSON("web", 3, "10m"), nil)
	e.advance(time.Minute)

	running := map[string]bool{}
	last := from
	events := s.until(func(ev received) bool {
		var p corev1.Pod
		if err := json.Unmarshal(ev.Object, &p); err != nil {
			t.Fatal(err)
		}
		if p.Status.Phase == corev1.PodRunning {
			running[p.Name] = true
		}
		return len(running) == 3
	})
	seen := map[string]bool{}
	for _, ev := range events {
		rv, name := ev.rv(t), ev.meta(t).Name
		if rv <= last {
			t.Errorf("%s %s at resourceVersion %d after %d: not after the list nor the previous event", ev.Type, name, rv, last)
		}
		last = rv
		want := "MODIFIED"
		if !seen[name] {
			want = "ADDED"
		}
		seen[name] = true
		if ev.Type != want {
			t.Errorf("%s %s, want %s", ev.Type, name, want)
		}
	}
	// The objects a list shows now are those the watch showed last, resourceVersion and all.
	var pods corev1.PodList
	e.k8sOK("GET", k8sPods, "", "", &pods)
	for _, p := range pods.Items {
		if !seen[p.Name] {
			t.Errorf("pod %s is listed but the watch never showed it", p.Name)
		}
	}
	if n := e.listRV(k8sPods); n < last {
		t.Errorf("list resourceVersion %d is behind the watch's %d", n, last)
	}

	// Deleting the Deployment: its pods terminate (MODIFIED) then go (DELETED).
	e.k8sOK("DELETE", k8sDeploy+"/web", "", "", nil)
	e.advance(time.Minute)
	deleted := map[string]bool{}
	s.until(func(ev received) bool {
		if ev.Type == "DELETED" {
			deleted[ev.meta(t).Name] = true
		}
		return len(deleted) == 3
	})
}

func TestWatchFromAVersionOutsideTheWindowIsExpired(t *testing.T) {
	e := newEnvWithWorld(t, Options{}, sim.Options{Seed: 7, Start: testStart, WatchHistory: 20})
	e.withBase()
	from := e.listRV(k8sPods)
	e.k8sOK("POST", k8sDeploy, "application/json", deploymentJSON("web", 10, "10m"), nil)
	e.advance(time.Minute)

	// The API server's answer: a 200 whose one event is the ERROR Status 410 Expired.
	s := e.watch(k8sPods+"?watch=true&resourceVersion="+fmt.Sprint(from), "")
	ev, ok := s.next()
	if !ok || ev.Type != "ERROR" {
		t.Fatalf("watch from %d beyond a window of 20 changes: %s %s, want an ERROR", from, ev.Type, ev.Object)
	}
	st := ev.status(t)
	if st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired || !strings.HasPrefix(st.Message, fmt.Sprintf("too old resource version: %d (", from)) {
		t.Errorf("ERROR %+v, want 410 Expired too old resource version", st)
	}
	if _, ok := s.next(); ok {
		t.Error("the stream goes on after the ERROR")
	}

	// Listing again gives a version the watch can start from.
	now := e.listRV(k8sPods)
	s = e.watch(k8sPods+"?watch=true&resourceVersion="+fmt.Sprint(now), "")
	e.k8sOK("DELETE", k8sDeploy+"/web", "", "", nil)
	e.advance(time.Minute)
	if ev, _ := s.next(); ev.Type != "MODIFIED" || ev.rv(t) <= now {
		t.Errorf("after listing again: %s at %d, want MODIFIED after %d", ev.Type, ev.rv(t), now)
	}

	// A version the cluster has not reached: the API server's timeout, Too large resource version.
	s = e.watch(k8sPods+"?watch=true&resourceVersion="+fmt.Sprint(now+1_000_000), "")
	ev, _ = s.next()
	if st := ev.status(t); ev.Type != "ERROR" || st.Code != http.StatusGatewayTimeout || st.Details == nil ||
		len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge {
		t.Errorf("watch from a future version: %s %+v, want ERROR 504 ResourceVersionTooLarge", ev.Type, st)
	}
}

func TestWatchInitialEventsBookmarksAndTimeout(t *testing.T) {
	e := newEnv(t).withBase()
	nodes := e.nodeNames()
	s := e.watch(k8sBase+"/api/v1/nodes?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1", "")
	var added []string
	for {
		ev, ok := s.next()
		if !ok {
			t.Fatal("the stream ended before the initial-events bookmark")
		}
		if ev.Type == "BOOKMARK" {
			if ev.meta(t).Annotations[metav1.InitialEventsAnnotationKey] != "true" {
				t.Errorf("first BOOKMARK without %s: %s", metav1.InitialEventsAnnotationKey, ev.Object)
			}
			break
		}
		if ev.Type != "ADDED" {
			t.Fatalf("initial event %s, want ADDED", ev.Type)
		}
		added = append(added, ev.meta(t).Name)
	}
	if strings.Join(added, ",") != strings.Join(nodes, ",") {
		t.Errorf("initial events for %v, want the nodes %v", added, nodes)
	}
	// timeoutSeconds ends the stream, a bookmark last.
	ev, ok := s.next()
	if !ok || ev.Type != "BOOKMARK" || ev.rv(t) == 0 {
		t.Errorf("at the timeout: %s %s, want a BOOKMARK with the version seen", ev.Type, ev.Object)
	}
	if _, ok := s.next(); ok {
		t.Error("the stream goes on after its timeout")
	}

	// sendInitialEvents needs bookmarks, as the API server says.
	code, _, body := e.k8sCall("GET", k8sBase+"/api/v1/nodes?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "", "", "")
	wantStatus(t, code, body, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "allowWatchBookmarks must be true")
}

func TestWatchSelectorsShowObjectsEnteringAndLeaving(t *testing.T) {
	e := newEnv(t).withBase()
	from := e.listRV(k8sPods)
	q := url.Values{"watch": {"true"}, "resourceVersion": {fmt.Sprint(from)}, "labelSelector": {"app=web"}, "fieldSelector": {"status.phase=Running"}}
	s := e.watch(k8sPods+"?"+q.Encode(), "")
	e.k8sOK("POST", k8sDeploy, "application/json", deploymentJSON("other", 2, "10m"), nil)
	e.k8sOK("POST", k8sDeploy, "application/json", deploymentJSON("web", 2, "10m"), nil)
	e.advance(time.Minute)
	e.k8sOK("DELETE", k8sDeploy+"/web", "", "", nil)
	e.advance(time.Minute)
	var types []string
	names := map[string]int{}
	s.until(func(ev received) bool {
		var p corev1.Pod
		_ = json.Unmarshal(ev.Object, &p)
		if p.Labels["app"] != "web" {
			t.Errorf("%s of pod %s (app=%s) through selector app=web", ev.Type, p.Name, p.Labels["app"])
		}
		types = append(types, ev.Type)
		names[p.Name]++
		return ev.Type == "DELETED" && len(types) >= 4 && strings.Count(strings.Join(types, ","), "DELETED") == 2
	})
	// Each web pod: ADDED when it runs (it enters status.phase=Running), MODIFIED when it
	// terminates, DELETED when it is gone.
	if strings.Count(strings.Join(types, ","), "ADDED") != 2 {
		t.Errorf("events %v: each pod should be ADDED once, when it starts running", types)
	}
	for n, c := range names {
		if c < 2 {
			t.Errorf("pod %s: %d events", n, c)
		}
	}
}

func TestWatchAsTableForKubectlGetW(t *testing.T) {
	e := newEnv(t).withBase()
	from := e.listRV(k8sBase + "/api/v1/nodes")
	s := e.watch(k8sBase+"/api/v1/nodes?watch=true&resourceVersion="+fmt.Sprint(from), tableV1)
	if ct := s.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json;as=Table;v=v1;g=meta.k8s.io") {
		t.Errorf("Content-Type %q, want a Table", ct)
	}
	e.mutate("POST", poolA+":setSize", `{"nodeCount": 4}`)
	e.advance(5 * time.Minute)
	first, _ := s.next()
	second, _ := s.next()
	for i, ev := range []received{first, second} {
		var tbl metav1.Table
		if err := json.Unmarshal(ev.Object, &tbl); err != nil || tbl.Kind != "Table" || len(tbl.Rows) != 1 {
			t.Fatalf("event %d: %s %s, want a one-row Table", i, ev.Type, ev.Object)
		}
		if (i == 0) != (len(tbl.ColumnDefinitions) > 0) {
			t.Errorf("event %d carries %d column definitions; only the first should", i, len(tbl.ColumnDefinitions))
		}
		if len(tbl.Rows[0].Cells) < 2 || tbl.Rows[0].Cells[1] != "Ready" {
			t.Errorf("event %d row %v", i, tbl.Rows[0].Cells)
		}
	}
}

func TestWatchesPerClusterAreBounded(t *testing.T) {
	e := newEnvWith(t, Options{MaxWatchesPerCluster: 1})
	e.withBase()
	e.watch(k8sPods+"?watch=true", "")
	code, h, body := e.k8sCall("GET", k8sPods+"?watch=true", "", "", "")
	wantStatus(t, code, body, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, "serves at most 1 watches at once")
	if h.Get("Retry-After") == "" {
		t.Error("no Retry-After on the 429")
	}
}

// A watcher that does not read never holds the simulation: the clock moves on, the history
// window moves past the watcher, and when it reads again its stream ends with 410 Expired.
func TestSlowWatcherIsCutOffWithoutSlowingTheSimulation(t *testing.T) {
	e := newEnvWithWorld(t, Options{}, sim.Options{Seed: 7, Start: testStart, WatchHistory: 500})
	e.withBase()
	u, err := url.Parse(e.url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s?watch=true&resourceVersion=%d HTTP/1.1\r\nHost: %s\r\n\r\n", k8sPods, e.listRV(k8sPods), u.Host)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil) // the head only: the events wait
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Thousands of pod changes, many megabytes of events the watcher cannot send.
	for i := range 20 {
		e.k8sOK("POST", k8sDeploy, "application/json", deploymentJSON(fmt.Sprintf("web-%d", i), 200, "1m"), nil)
		e.advance(time.Minute)
		e.k8sOK("DELETE", k8sDeploy+fmt.Sprintf("/web-%d", i), "", "", nil)
		e.advance(time.Minute)
	}
	if err := conn.SetReadDeadline(time.Now().Add(eventWait)); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(resp.Body)
	var last received
	n := 0
	for {
		var ev received
		if err := dec.Decode(&ev); err != nil {
			break
		}
		last = ev
		n++
	}
	if last.Type != "ERROR" || last.status(t).Code != http.StatusGone {
		t.Fatalf("after %d events the slow watch ended with %s %.300s, want ERROR 410 Expired", n, last.Type, last.Object)
	}
	t.Logf("the slow watcher got %d events, then 410 Expired", n-1)
}

func TestWatchEventsOfTheEventLog(t *testing.T) {
	e := newEnv(t).withBase()
	from := e.listRV(k8sBase + "/api/v1/namespaces/default/events")
	s := e.watch(k8sBase+"/api/v1/namespaces/default/events?watch=true&resourceVersion="+fmt.Sprint(from), "")
	e.k8sOK("POST", k8sDeploy, "application/json", deploymentJSON("web", 1, "10m"), nil)
	e.advance(time.Minute)
	evs := s.until(func(ev received) bool {
		var k corev1.Event
		_ = json.Unmarshal(ev.Object, &k)
		return k.Reason == "Scheduled"
	})
	last := from
	for _, ev := range evs {
		var k corev1.Event
		if err := json.Unmarshal(ev.Object, &k); err != nil || k.Kind != "Event" || ev.Type != "ADDED" || k.Namespace != "default" {
			t.Errorf("%s %s, want an ADDED Event in default", ev.Type, ev.Object)
		}
		if rv := ev.rv(t); rv <= last {
			t.Errorf("event %s at %d after %d", k.Reason, rv, last)
		} else {
			last = rv
		}
	}
}

// A cluster's feed records while someone follows it: a watch open, or a request to its
// Kubernetes API within the grace. Unfollowed, its window is empty; a watch from a version
// before that is 410 Expired (the client lists again), and one from a list's version misses
// nothing.
func TestTheFeedRecordsWhileTheClusterIsFollowed(t *testing.T) {
	e := newEnv(t)
	setGrace := e.srv.kube.SetFollowGrace
	setGrace(50 * time.Millisecond)
	e.withBase()
	key := sim.ClusterKey("proj", "us-central1-a", "base")

	// Followed (a watch is open): the deployment's pods stream as they come.
	from := e.listRV(k8sPods)
	s := e.watch(k8sPods+"?watch=true&resourceVersion="+fmt.Sprint(from), "")
	e.k8sOK("POST", k8sDeploy, "application/json", deploymentJSON("web", 3, "10m"), nil)
	e.advance(time.Minute)
	added := 0
	s.until(func(ev received) bool {
		if ev.Type == "ADDED" {
			added++
		}
		return added == 3
	})
	s.resp.Body.Close()

	// The watch closed and the grace passed: nobody follows. A change made through the GKE
	// API alone (a resize) is not recorded, and the window starts after it.
	deadline := time.Now().Add(eventWait)
	for e.srv.kube.Followed(key) {
		if time.Now().After(deadline) {
			t.Fatal("the cluster is still followed long after its watch closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.mutate("POST", poolA+":setSize", `{"nodeCount": 3}`)
	s = e.watch(k8sPods+"?watch=true&resourceVersion="+fmt.Sprint(from), "")
	if ev, _ := s.next(); ev.Type != "ERROR" || ev.status(t).Code != http.StatusGone {
		t.Fatalf("watch from %d after an unfollowed stretch: %s %s, want ERROR 410 Expired", from, ev.Type, ev.Object)
	}

	// Listing again follows the cluster at once: a watch from the list's version misses
	// nothing that happens after it while the grace lasts.
	setGrace(time.Hour)
	now := e.listRV("/k8s/projects/proj/locations/us-central1-a/clusters/base/api/v1/nodes")
	e.mutate("POST", poolA+":setSize", `{"nodeCount": 4}`)
	s = e.watch("/k8s/projects/proj/locations/us-central1-a/clusters/base/api/v1/nodes?watch=true&resourceVersion="+fmt.Sprint(now), "")
	got := s.until(func(ev received) bool { return ev.Type == "ADDED" })
	if last := got[len(got)-1]; last.rv(t) <= now {
		t.Errorf("ADDED node at %d, want after the list's %d", last.rv(t), now)
	}
}
