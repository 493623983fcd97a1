package k8s_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Watches as the API server serves them: the WatchEvent stream, resourceVersion semantics, 410
// Expired beyond the history window, selectors, bookmarks, timeouts, tables, and the bounds
// that keep watchers from holding the simulation.

func TestWatchStreamsEveryChangeAfterAVersion(t *testing.T) {
	e := newEnv(t).WithBase()
	from := e.ListRV(servertest.K8sPods)
	s := e.Watch(servertest.K8sPods+"?watch=true&resourceVersion="+fmt.Sprint(from), "")
	if ct := s.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("watch Content-Type %q, want application/json", ct)
	}
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("web", 3, "10m"), nil)
	e.Advance(time.Minute)

	running := map[string]bool{}
	last := from
	events := s.Until(func(ev servertest.Received) bool {
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
		rv, name := ev.RV(t), ev.Meta(t).Name
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
	e.K8sOK("GET", servertest.K8sPods, "", "", &pods)
	for _, p := range pods.Items {
		if !seen[p.Name] {
			t.Errorf("pod %s is listed but the watch never showed it", p.Name)
		}
	}
	if n := e.ListRV(servertest.K8sPods); n < last {
		t.Errorf("list resourceVersion %d is behind the watch's %d", n, last)
	}

	// Deleting the Deployment: its pods terminate (MODIFIED) then go (DELETED).
	e.K8sOK("DELETE", servertest.K8sDeploy+"/web", "", "", nil)
	e.Advance(time.Minute)
	deleted := map[string]bool{}
	s.Until(func(ev servertest.Received) bool {
		if ev.Type == "DELETED" {
			deleted[ev.Meta(t).Name] = true
		}
		return len(deleted) == 3
	})
}

func TestWatchFromAVersionOutsideTheWindowIsExpired(t *testing.T) {
	e := newEnvWith(t, server.Options{}, sim.Options{Seed: 7, Start: servertest.Start, WatchHistory: 20})
	e.WithBase()
	from := e.ListRV(servertest.K8sPods)
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("web", 10, "10m"), nil)
	e.Advance(time.Minute)

	// The API server's answer: a 200 whose one event is the ERROR Status 410 Expired.
	s := e.Watch(servertest.K8sPods+"?watch=true&resourceVersion="+fmt.Sprint(from), "")
	ev, ok := s.Next()
	if !ok || ev.Type != "ERROR" {
		t.Fatalf("watch from %d beyond a window of 20 changes: %s %s, want an ERROR", from, ev.Type, ev.Object)
	}
	st := ev.Status(t)
	if st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired || !strings.HasPrefix(st.Message, fmt.Sprintf("too old resource version: %d (", from)) {
		t.Errorf("ERROR %+v, want 410 Expired too old resource version", st)
	}
	if _, ok := s.Next(); ok {
		t.Error("the stream goes on after the ERROR")
	}

	// Listing again gives a version the watch can start from.
	now := e.ListRV(servertest.K8sPods)
	s = e.Watch(servertest.K8sPods+"?watch=true&resourceVersion="+fmt.Sprint(now), "")
	e.K8sOK("DELETE", servertest.K8sDeploy+"/web", "", "", nil)
	// Read before the clock moves: the minute after the deletion makes more changes than the
	// window of 20 keeps, and a watcher that had not read yet would rightly get 410.
	if ev, _ := s.Next(); ev.Type != "MODIFIED" || ev.RV(t) <= now {
		t.Errorf("after listing again: %s at %d, want MODIFIED after %d", ev.Type, ev.RV(t), now)
	}
	e.Advance(time.Minute)

	// A version the cluster has not reached: the API server's timeout, Too large resource version.
	s = e.Watch(servertest.K8sPods+"?watch=true&resourceVersion="+fmt.Sprint(now+1_000_000), "")
	ev, _ = s.Next()
	if st := ev.Status(t); ev.Type != "ERROR" || st.Code != http.StatusGatewayTimeout || st.Details == nil ||
		len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge {
		t.Errorf("watch from a future version: %s %+v, want ERROR 504 ResourceVersionTooLarge", ev.Type, st)
	}
}

func TestWatchInitialEventsBookmarksAndTimeout(t *testing.T) {
	e := newEnv(t).WithBase()
	nodes := e.NodeNames()
	s := e.Watch(servertest.K8sBase+"/api/v1/nodes?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1", "")
	var added []string
	for {
		ev, ok := s.Next()
		if !ok {
			t.Fatal("the stream ended before the initial-events bookmark")
		}
		if ev.Type == "BOOKMARK" {
			if ev.Meta(t).Annotations[metav1.InitialEventsAnnotationKey] != "true" {
				t.Errorf("first BOOKMARK without %s: %s", metav1.InitialEventsAnnotationKey, ev.Object)
			}
			break
		}
		if ev.Type != "ADDED" {
			t.Fatalf("initial event %s, want ADDED", ev.Type)
		}
		added = append(added, ev.Meta(t).Name)
	}
	if strings.Join(added, ",") != strings.Join(nodes, ",") {
		t.Errorf("initial events for %v, want the nodes %v", added, nodes)
	}
	// timeoutSeconds ends the stream, a bookmark last.
	ev, ok := s.Next()
	if !ok || ev.Type != "BOOKMARK" || ev.RV(t) == 0 {
		t.Errorf("at the timeout: %s %s, want a BOOKMARK with the version seen", ev.Type, ev.Object)
	}
	if _, ok := s.Next(); ok {
		t.Error("the stream goes on after its timeout")
	}

	// sendInitialEvents needs bookmarks, as the API server says.
	code, _, body := e.K8sCall("GET", servertest.K8sBase+"/api/v1/nodes?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "", "", "")
	servertest.WantStatus(t, code, body, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "allowWatchBookmarks must be true")
}

func TestWatchSelectorsShowObjectsEnteringAndLeaving(t *testing.T) {
	e := newEnv(t).WithBase()
	from := e.ListRV(servertest.K8sPods)
	q := url.Values{"watch": {"true"}, "resourceVersion": {fmt.Sprint(from)}, "labelSelector": {"app=web"}, "fieldSelector": {"status.phase=Running"}}
	s := e.Watch(servertest.K8sPods+"?"+q.Encode(), "")
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("other", 2, "10m"), nil)
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("web", 2, "10m"), nil)
	e.Advance(time.Minute)
	e.K8sOK("DELETE", servertest.K8sDeploy+"/web", "", "", nil)
	e.Advance(time.Minute)
	var types []string
	names := map[string]int{}
	s.Until(func(ev servertest.Received) bool {
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
	e := newEnv(t).WithBase()
	from := e.ListRV(servertest.K8sBase + "/api/v1/nodes")
	s := e.Watch(servertest.K8sBase+"/api/v1/nodes?watch=true&resourceVersion="+fmt.Sprint(from), servertest.TableV1)
	if ct := s.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json;as=Table;v=v1;g=meta.k8s.io") {
		t.Errorf("Content-Type %q, want a Table", ct)
	}
	e.Mutate("POST", servertest.PoolA+":setSize", `{"nodeCount": 4}`)
	e.Advance(5 * time.Minute)
	first, _ := s.Next()
	second, _ := s.Next()
	for i, ev := range []servertest.Received{first, second} {
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
	e := newEnvWith(t, server.Options{MaxWatchesPerCluster: 1}, servertest.World())
	e.WithBase()
	e.Watch(servertest.K8sPods+"?watch=true", "")
	code, h, body := e.K8sCall("GET", servertest.K8sPods+"?watch=true", "", "", "")
	servertest.WantStatus(t, code, body, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, "serves at most 1 watches at once")
	if h.Get("Retry-After") == "" {
		t.Error("no Retry-After on the 429")
	}
}

// A watcher that does not read never holds the simulation: the clock moves on, the history
// window moves past the watcher, and when it reads again its stream ends with 410 Expired.
func TestSlowWatcherIsCutOffWithoutSlowingTheSimulation(t *testing.T) {
	e := newEnvWith(t, server.Options{}, sim.Options{Seed: 7, Start: servertest.Start, WatchHistory: 500})
	e.WithBase()
	u, err := url.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s?watch=true&resourceVersion=%d HTTP/1.1\r\nHost: %s\r\n\r\n", servertest.K8sPods, e.ListRV(servertest.K8sPods), u.Host)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil) // the head only: the events wait
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Thousands of pod changes, many megabytes of events the watcher cannot send.
	for i := range 20 {
		e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON(fmt.Sprintf("web-%d", i), 200, "1m"), nil)
		e.Advance(time.Minute)
		e.K8sOK("DELETE", servertest.K8sDeploy+fmt.Sprintf("/web-%d", i), "", "", nil)
		e.Advance(time.Minute)
	}
	if err := conn.SetReadDeadline(time.Now().Add(servertest.EventWait)); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(resp.Body)
	var last servertest.Received
	n := 0
	for {
		var ev servertest.Received
		if err := dec.Decode(&ev); err != nil {
			break
		}
		last = ev
		n++
	}
	if last.Type != "ERROR" || last.Status(t).Code != http.StatusGone {
		t.Fatalf("after %d events the slow watch ended with %s %.300s, want ERROR 410 Expired", n, last.Type, last.Object)
	}
	t.Logf("the slow watcher got %d events, then 410 Expired", n-1)
}

func TestWatchEventsOfTheEventLog(t *testing.T) {
	e := newEnv(t).WithBase()
	from := e.ListRV(servertest.K8sBase + "/api/v1/namespaces/default/events")
	s := e.Watch(servertest.K8sBase+"/api/v1/namespaces/default/events?watch=true&resourceVersion="+fmt.Sprint(from), "")
	e.K8sOK("POST", servertest.K8sDeploy, "application/json", servertest.DeploymentJSON("web", 1, "10m"), nil)
	e.Advance(time.Minute)
	evs := s.Until(func(ev servertest.Received) bool {
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
		if rv := ev.RV(t); rv <= last {
			t.Errorf("event %s at %d after %d", k.Reason, rv, last)
		} else {
			last = rv
		}
	}
}
