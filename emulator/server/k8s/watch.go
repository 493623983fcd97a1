package k8s

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Watches: ?watch=true on every list route, the Kubernetes protocol. The answer is a stream of
// JSON WatchEvents ({"type": "ADDED", "object": {...}}), one per line, of the changes after
// the request's resourceVersion, read from the cluster's change feed (sim/core/changefeed.go):
//
//   - resourceVersion unset or "0": the objects there are now as ADDED events, then the changes
//     after; sendInitialEvents=true does the same and ends the initial events with a BOOKMARK
//     annotated k8s.io/initial-events-end, as client-go's streaming lists expect;
//   - resourceVersion N: every change after N; a version the feed no longer holds (older than
//     its history window, or from before a restart) ends the stream with an ERROR event, the
//     Status 410 Expired "too old resource version", and clients list again;
//   - allowWatchBookmarks=true: BOOKMARK events carry the resourceVersion the stream has seen up
//     to, at least once a minute while nothing else is sent, and before the stream ends, so
//     that a client resumes from a recent version;
//   - timeoutSeconds (default 30 minutes) ends the stream; label and field selectors filter it
//     (an object leaving a selector the client was shown is DELETED, one entering it ADDED);
//   - with kubectl's Accept for a Table (kubectl get -w), each event carries a one-row Table,
//     the column definitions only in the first.
//
// Each watch reads the feed on its own goroutine, a batch at a time through Runner.Do (so with
// --data-dir it sends only what is durable); the simulation never waits for a watcher. A
// watcher that falls behind the history window is cut off with the 410 ERROR; one whose client
// stops reading is cut off after writeStall; a cluster serves at most MaxWatchesPerCluster
// watches at once (429 beyond).

const (
	// DefaultMaxWatchesPerCluster bounds the watches a cluster serves at once.
	DefaultMaxWatchesPerCluster = 200
	// defaultWatchTimeout ends a watch that did not ask for a timeout (kube-apiserver: 30 to 60
	// minutes).
	defaultWatchTimeout = 30 * time.Minute
	// watchBatch bounds the changes read in one Runner.Do.
	watchBatch = 500
	// bookmarkEvery is how often a quiet watch with bookmarks gets one.
	bookmarkEvery = time.Minute
	// writeStall cuts off a client that does not read what it is sent.
	writeStall = 30 * time.Second
	// initialEventsEnd annotates the BOOKMARK that ends sendInitialEvents.
	initialEventsEnd = "k8s.io/initial-events-end"
)

// watchSpec is how a list route's watch reads the change feed.
type watchSpec struct {
	// feed is the feed's resource the route's objects come from.
	feed string
	// convert makes the route's object of a change's object (leases of nodes); nil: the object.
	convert func(obj runtime.Object) runtime.Object
	// empty is an object of the route's kind, for bookmarks.
	empty func() runtime.Object
}

// watchSpecs are the watches of the list routes, by resource.
var watchSpecs = map[string]watchSpec{
	"namespaces":           {feed: sim.ResourceNamespaces, empty: func() runtime.Object { return &corev1.Namespace{} }},
	"nodes":                {feed: sim.ResourceNodes, empty: func() runtime.Object { return &corev1.Node{} }},
	"pods":                 {feed: sim.ResourcePods, empty: func() runtime.Object { return &corev1.Pod{} }},
	"services":             {feed: sim.ResourceServices, empty: func() runtime.Object { return &corev1.Service{} }},
	"events":               {feed: sim.ResourceEvents, empty: func() runtime.Object { return &corev1.Event{} }},
	"deployments":          {feed: sim.ResourceDeployments, empty: emptyOf("apps/v1", "Deployment")},
	"replicasets":          {feed: sim.ResourceReplicaSets, empty: emptyOf("apps/v1", "ReplicaSet")},
	"daemonsets":           {feed: sim.ResourceDaemonSets, empty: emptyOf("apps/v1", "DaemonSet")},
	"poddisruptionbudgets": {feed: sim.ResourcePDBs, empty: emptyOf("policy/v1", "PodDisruptionBudget")},
	"leases": {feed: sim.ResourceNodes, empty: emptyOf("coordination.k8s.io/v1", "Lease"),
		convert: func(obj runtime.Object) runtime.Object { return nodeLease(obj.(*corev1.Node)) }},
}

func init() {
	for _, k := range sim.StoredKinds {
		watchSpecs[k.Resource] = watchSpec{feed: k.Resource, empty: k.New}
	}
}

// emptyOf is a bookmark's object of a kind whose Go type the server does not need.
func emptyOf(apiVersion, kind string) func() runtime.Object {
	return func() runtime.Object {
		return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}}
	}
}

// FeedFollowGrace is how long after the last request to a cluster's Kubernetes API its change
// feed keeps recording when no watch is open: long enough for a client to list and then watch
// from the version the list gave, or to advance the clock and then watch.
const FeedFollowGrace = 5 * time.Minute

// watchLimits counts each cluster's open watches, and when its Kubernetes API was last
// requested: together they say whether anyone follows the cluster's change feed.
type watchLimits struct {
	mu     sync.Mutex
	open   map[string]int
	readAt map[string]time.Time
	max    int
	// grace is FeedFollowGrace unless a test shortens it.
	grace time.Duration
}

// touch notes a request to cluster's Kubernetes API.
func (l *watchLimits) touch(cluster string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.readAt == nil {
		l.readAt = map[string]time.Time{}
	}
	l.readAt[cluster] = time.Now()
}

// followed says whether a watch of cluster is open or its API was requested within the grace.
// The simulation asks it at publish points (sim.World.SetFeedFollowed).
func (l *watchLimits) followed(cluster string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[cluster] > 0 {
		return true
	}
	grace := l.grace
	if grace <= 0 {
		grace = FeedFollowGrace
	}
	at, ok := l.readAt[cluster]
	if ok && time.Since(at) >= grace {
		delete(l.readAt, cluster)
		return false
	}
	return ok
}

// SetFollowGrace replaces FeedFollowGrace for this server (tests shorten it).
func (s *Server) SetFollowGrace(d time.Duration) {
	s.watches.mu.Lock()
	defer s.watches.mu.Unlock()
	s.watches.grace = d
}

// Followed says whether anyone follows cluster's change feed: a watch of it is open, or its
// Kubernetes API was requested within FeedFollowGrace. The simulation asks it at publish
// points (give it to sim.Runner.SetFeedFollowed).
func (s *Server) Followed(cluster string) bool { return s.watches.followed(cluster) }

func (l *watchLimits) acquire(cluster string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open == nil {
		l.open = map[string]int{}
	}
	limit := l.max
	if limit <= 0 {
		limit = DefaultMaxWatchesPerCluster
	}
	if l.open[cluster] >= limit {
		return false
	}
	l.open[cluster]++
	return true
}

func (l *watchLimits) release(cluster string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[cluster]--; l.open[cluster] <= 0 {
		delete(l.open, cluster)
	}
}

// watchEvent is a WatchEvent as the stream carries it.
type watchEvent struct {
	Type   string `json:"type"`
	Object any    `json:"object"`
}

// watcher is one watch stream.
type watcher struct {
	s        *Server
	c        echo.Context
	spec     watchSpec
	filter   listFilter
	ns       string
	tr       tableRequest
	bookmark bool
	// shown holds the objects the client was shown, for watches whose selectors an object may
	// enter or leave (nil: no such selector).
	shown map[string]bool
	// headers: the next Table event carries the column definitions.
	headers bool
	enc     *json.Encoder
	// now is the emulated time of the batch being sent (the tables' AGE).
	now time.Time
}

// k8sWatch serves a watch of a list route.
func (s *Server) k8sWatch(c echo.Context, resource string, f listFilter, o sim.ListOptions, list listFunc) error {
	spec, ok := watchSpecs[resource]
	if !ok {
		return &sim.Error{HTTPCode: http.StatusMethodNotAllowed, Status: "MethodNotAllowed", KubeReason: "MethodNotAllowed",
			Message: fmt.Sprintf("gkesim does not serve watches of %s", resource)}
	}
	q := c.QueryParams()
	tr, err := parseTableRequest(c.Request().Header.Get(echo.HeaderAccept), q.Get("includeObject"))
	if err != nil {
		return err
	}
	timeout := defaultWatchTimeout
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return kubeBadRequest(fmt.Errorf("timeoutSeconds: Invalid value: %q: must be a non-negative integer", v))
		}
		if n > 0 {
			timeout = time.Duration(n) * time.Second
		}
	}
	rv, initial := q.Get("resourceVersion"), false
	var from int64
	switch sendInitial := q.Get("sendInitialEvents"); {
	case sendInitial == "true":
		if q.Get("allowWatchBookmarks") != "true" {
			return kubeInvalidList("sendInitialEvents", "allowWatchBookmarks: Required value: allowWatchBookmarks must be true when sendInitialEvents is true")
		}
		if q.Get("resourceVersionMatch") != string(metav1.ResourceVersionMatchNotOlderThan) {
			return kubeInvalidList("sendInitialEvents", "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
		}
		initial = true
	case rv == "" || rv == "0":
		initial = sendInitial != "false"
	default:
		if from, err = strconv.ParseInt(rv, 10, 64); err != nil || from < 0 {
			return kubeInvalidList("resourceVersion", fmt.Sprintf("resourceVersion: Invalid value: %q: must be an unsigned integer", rv))
		}
	}
	key := sim.ClusterKey(c.Param("project"), c.Param("location"), c.Param("cluster"))
	if !s.watches.acquire(key) {
		c.Response().Header().Set("Retry-After", "1")
		return &sim.Error{HTTPCode: http.StatusTooManyRequests, Status: "TooManyRequests", KubeReason: "TooManyRequests",
			Message: fmt.Sprintf("cluster %s serves at most %d watches at once; close some (or retry later)", c.Param("cluster"), s.watchMax())}
	}
	defer s.watches.release(key)

	ctx, cancel := context.WithTimeout(c.Request().Context(), timeout)
	defer cancel()
	wt := &watcher{s: s, c: c, spec: spec, filter: f, ns: o.Namespace, tr: tr, bookmark: q.Get("allowWatchBookmarks") == "true", headers: true}
	if f.changes() {
		wt.shown = map[string]bool{}
	}
	// The objects there are now, and the version they stand at.
	var items []runtime.Object
	_, err = s.runner.Read(ctx, func(w *sim.World) error { // reads only: GKE reads stay cached
		cl, err := k8sCluster(c, w)
		if err != nil {
			return err
		}
		wt.now = w.Now()
		oldest, newest := w.WatchWindow(cl)
		switch {
		case initial:
			lst := list(w, cl, o, f)
			if items, err = meta.ExtractList(lst); err != nil {
				return err
			}
			from = newest
		case from > newest:
			return &sim.Error{HTTPCode: http.StatusGatewayTimeout, Status: "Timeout", KubeReason: "Timeout",
				Message: fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", from, newest)}
		case from < oldest:
			return sim.ExpiredError(from, oldest)
		case wt.shown != nil:
			// Resumed: what matches now and has not changed since the version was shown.
			lst := list(w, cl, o, f)
			its, _ := meta.ExtractList(lst)
			for _, it := range its {
				if m, err := meta.Accessor(it); err == nil {
					if n, _ := strconv.ParseInt(m.GetResourceVersion(), 10, 64); n <= from && f.matches(it) {
						wt.shown[objectKey(m)] = true
					}
				}
			}
		}
		if s.inspect != nil {
			s.inspect(w, items)
		}
		return nil
	})
	if err != nil {
		var sErr *sim.Error
		if e, ok := sim.AsError(err); ok && (e.HTTPCode == http.StatusGone || e.HTTPCode == http.StatusGatewayTimeout) {
			sErr = e // the API server reports these in the stream
		} else {
			return err
		}
		wt.start()
		wt.sendError(sErr)
		return nil
	}
	wt.start()
	for _, it := range items {
		if f.matches(it) {
			wt.markShown(it, true)
			if !wt.send("ADDED", it) {
				return nil
			}
		}
	}
	if q.Get("sendInitialEvents") == "true" && !wt.sendBookmark(from, true) {
		return nil
	}
	wt.flush()
	wt.follow(ctx, from)
	return nil
}

// kubeInvalidList is the API server's 422 for invalid list options.
func kubeInvalidList(param, msg string) error {
	return &sim.Error{HTTPCode: http.StatusUnprocessableEntity, Status: "Invalid", KubeReason: "Invalid",
		Message: fmt.Sprintf("ListOptions.meta.k8s.io %q is invalid: %s", "", msg)}
}

func (s *Server) watchMax() int {
	if s.watches.max > 0 {
		return s.watches.max
	}
	return DefaultMaxWatchesPerCluster
}

// start writes the response head.
func (wt *watcher) start() {
	res := wt.c.Response()
	ct := "application/json"
	if wt.tr.version != "" {
		ct = "application/json;as=Table;v=" + wt.tr.version + ";g=meta.k8s.io"
	}
	res.Header().Set(echo.HeaderContentType, ct)
	res.Header().Set("Cache-Control", "no-cache, private")
	res.WriteHeader(http.StatusOK)
	res.Flush()
	wt.enc = json.NewEncoder(res)
}

// follow streams the feed's changes after version pos until ctx ends, the client goes, or the
// watch falls out of the feed's window.
func (wt *watcher) follow(ctx context.Context, pos int64) {
	lastSent := time.Now()
	sentPos := pos
	for {
		var changes []sim.Change
		var next int64
		var wake <-chan struct{}
		var objs []runtime.Object
		_, err := wt.s.runner.Read(ctx, func(w *sim.World) error { // reads only: GKE reads stay cached
			cl, err := k8sCluster(wt.c, w)
			if err != nil {
				return err
			}
			changes, next, err = w.Changes(cl, pos, watchBatch)
			if err != nil {
				return err
			}
			wake = w.ChangesWaiter(cl)
			wt.now = w.Now()
			objs = make([]runtime.Object, len(changes))
			for i, ch := range changes {
				if ch.Resource == wt.spec.feed {
					objs[i] = wt.objectOf(w, cl, ch)
				}
			}
			if wt.s.inspect != nil {
				wt.s.inspect(w, objs)
			}
			return nil
		})
		if err != nil {
			if e, ok := sim.AsError(err); ok && ctx.Err() == nil {
				wt.sendError(e) // fell out of the window, or the cluster is gone
			} else if ctx.Err() != nil && ctx.Err() == context.DeadlineExceeded && wt.bookmark {
				wt.sendBookmark(sentPos, false)
				wt.flush()
			}
			return
		}
		sentAny := false
		for i, ch := range changes {
			obj := objs[i]
			if obj == nil {
				continue
			}
			typ, ok := wt.eventType(ch.Type, obj)
			if !ok {
				continue
			}
			if !wt.send(typ, obj) {
				return
			}
			sentAny = true
		}
		if next > pos {
			pos = next
		}
		if sentAny {
			lastSent, sentPos = time.Now(), pos
		} else if wt.bookmark && pos > sentPos && time.Since(lastSent) >= bookmarkEvery {
			if !wt.sendBookmark(pos, false) {
				return
			}
			lastSent, sentPos = time.Now(), pos
		}
		if !wt.flush() {
			return
		}
		if len(changes) == watchBatch {
			continue // more is waiting
		}
		if !wt.wait(ctx, wake, pos) {
			return
		}
	}
}

// wait waits for the feed to publish, a bookmark to fall due, or the end of the watch (then,
// at its timeout, a last bookmark); false when the watch is over.
func (wt *watcher) wait(ctx context.Context, wake <-chan struct{}, pos int64) bool {
	var tick <-chan time.Time
	if wt.bookmark {
		t := time.NewTimer(bookmarkEvery)
		defer t.Stop()
		tick = t.C
	}
	select {
	case <-wake:
	case <-tick:
	case <-ctx.Done():
		if ctx.Err() == context.DeadlineExceeded && wt.bookmark {
			wt.sendBookmark(pos, false)
			wt.flush()
		}
		return false
	}
	return true
}

// objectOf renders a change as the route's object (on the simulation goroutine).
func (wt *watcher) objectOf(w *sim.World, cl *sim.Cluster, ch sim.Change) runtime.Object {
	if ch.Event != nil {
		ev := eventOf(w, cl, ch.Event, nil)
		if ev == nil {
			return nil
		}
		ev.ResourceVersion = strconv.FormatInt(ch.RV, 10)
		return ev
	}
	if ch.Object == nil {
		return nil
	}
	if wt.spec.convert != nil {
		return wt.spec.convert(ch.Object)
	}
	return ch.Object
}

// eventType is the event a change makes for this watch: its own type for a watch without
// selectors that objects enter or leave; otherwise ADDED when the object enters the selection,
// DELETED when it leaves it, nothing when it stays out.
func (wt *watcher) eventType(typ string, obj runtime.Object) (string, bool) {
	m, err := meta.Accessor(obj)
	if err != nil || (wt.ns != "" && m.GetNamespace() != wt.ns) {
		return "", false
	}
	match := wt.filter.matches(obj)
	if wt.shown == nil {
		return typ, match
	}
	key := objectKey(m)
	was := wt.shown[key]
	switch {
	case typ == sim.ChangeDeleted:
		delete(wt.shown, key)
		return typ, was || match
	case match && !was:
		wt.shown[key] = true
		return sim.ChangeAdded, true
	case !match && was:
		delete(wt.shown, key)
		return sim.ChangeDeleted, true
	}
	return typ, match
}

func (wt *watcher) markShown(obj runtime.Object, shown bool) {
	if wt.shown == nil {
		return
	}
	if m, err := meta.Accessor(obj); err == nil && shown {
		wt.shown[objectKey(m)] = true
	}
}

func objectKey(m metav1.Object) string { return m.GetNamespace() + "/" + m.GetName() }

// send writes one event; false when the client is gone.
func (wt *watcher) send(typ string, obj runtime.Object) bool {
	var out any = obj
	if wt.tr.version != "" {
		if t, ok, err := toTable(obj, wt.now, wt.tr); err == nil && ok {
			if !wt.headers {
				t.ColumnDefinitions = nil
			}
			wt.headers = false
			out = t
		}
	}
	return wt.write(watchEvent{Type: typ, Object: out})
}

func (wt *watcher) write(ev watchEvent) bool {
	rc := http.NewResponseController(wt.c.Response().Writer)
	_ = rc.SetWriteDeadline(time.Now().Add(writeStall))
	return wt.enc.Encode(ev) == nil
}

func (wt *watcher) flush() bool {
	rc := http.NewResponseController(wt.c.Response().Writer)
	_ = rc.SetWriteDeadline(time.Now().Add(writeStall))
	return rc.Flush() == nil
}

// sendBookmark sends a BOOKMARK at version rv (the end of the initial events when end).
func (wt *watcher) sendBookmark(rv int64, end bool) bool {
	obj := wt.spec.empty()
	m, err := meta.Accessor(obj)
	if err != nil {
		return true
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		obj = withKind(obj)
		m, _ = meta.Accessor(obj)
	}
	m.SetResourceVersion(strconv.FormatInt(rv, 10))
	if end {
		m.SetAnnotations(map[string]string{initialEventsEnd: "true"})
	}
	return wt.write(watchEvent{Type: "BOOKMARK", Object: obj})
}

// withKind sets the kind of a typed empty object (typed Go objects come without it).
func withKind(obj runtime.Object) runtime.Object {
	switch o := obj.(type) {
	case *corev1.Namespace:
		o.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}
	case *corev1.Node:
		o.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
	case *corev1.Pod:
		o.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	case *corev1.Service:
		o.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}
	case *corev1.Event:
		o.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}
	case *coordinationv1.Lease:
		o.TypeMeta = metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"}
	}
	return obj
}

// sendError ends the stream with an ERROR event carrying the Status.
func (wt *watcher) sendError(e *sim.Error) {
	reason := metav1.StatusReason(e.KubeReason)
	st := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
		Message: e.Message, Reason: reason, Code: int32(e.HTTPCode)}
	if reason == metav1.StatusReasonTimeout {
		st.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}}
	}
	wt.write(watchEvent{Type: "ERROR", Object: st})
	wt.flush()
}
