package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

// client-go against an emulated cluster, as a controller would run: a SharedInformerFactory on
// the kubeconfig `gkesim container clusters get-credentials` writes, watching nodes and pods
// through a blue-green upgrade (R-BG-2). Every node the upgrade adds or deletes, as the event
// log records it, reaches the informer's handlers exactly once, including across a 410 Expired
// forced mid-upgrade (a burst of pod changes larger than the cluster's watch history), after
// which the informers list again and go on.

// nodeEvents records what an informer's handlers saw of nodes.
type nodeEvents struct {
	mu            sync.Mutex
	adds, deletes []string
}

func (n *nodeEvents) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.adds = append(n.adds, obj.(*corev1.Node).Name)
		},
		DeleteFunc: func(obj any) {
			n.mu.Lock()
			defer n.mu.Unlock()
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			n.deletes = append(n.deletes, obj.(*corev1.Node).Name)
		},
	}
}

func (n *nodeEvents) snapshot() (adds, deletes []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Sorted(slices.Values(n.adds)), slices.Sorted(slices.Values(n.deletes))
}

// requests counts the requests client-go sends, by kind: lists and watches per resource, and
// watches that ended with 410 Expired.
type requests struct {
	mu    sync.Mutex
	count map[string]int
}

func (r *requests) RoundTrip(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		kind := "list"
		if req.URL.Query().Get("watch") == "true" {
			kind = "watch"
		}
		resource := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
		r.add(kind + " " + resource)
		resp, err := rt.RoundTrip(req)
		if err == nil && kind == "watch" {
			resp.Body = &expiredWatch{ReadCloser: resp.Body, expired: func() { r.add("expired " + resource) }}
		}
		return resp, err
	})
}

func (r *requests) add(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count[key]++
}

// expiredWatch notes a watch stream that carries the 410 Expired ERROR.
type expiredWatch struct {
	io.ReadCloser
	expired func()
	seen    bool
}

func (e *expiredWatch) Read(p []byte) (int, error) {
	n, err := e.ReadCloser.Read(p)
	if !e.seen && bytes.Contains(p[:n], []byte(`"type":"ERROR"`)) && bytes.Contains(p[:n], []byte(`"code":410`)) {
		e.seen = true
		e.expired()
	}
	return n, err
}

func (r *requests) get(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[key]
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// logNodes lists the nodes the event log says registered (NodeReady of a new node) and went
// (NodeDeleted) after seq.
func logNodes(t *testing.T, url string, after int64) (added, deleted []string) {
	t.Helper()
	var resp api.ListEventsResponse
	apiGet(t, url, fmt.Sprintf("/emulator/v1/events?cluster=bg&afterSeq=%d", after), &resp)
	for _, e := range resp.Events {
		switch e.Type {
		case "NodeReady":
			added = append(added, e.Node)
		case "NodeDeleted":
			deleted = append(deleted, e.Node)
		}
	}
	sort.Strings(added)
	sort.Strings(deleted)
	return added, deleted
}

func apiGet(t *testing.T, url, path string, out any) {
	t.Helper()
	resp, err := http.Get(url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	if err := jsonDecode(resp, out); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond (a client-side cache catching up) at most 20 wall seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within 20 s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestInformersSeeEveryNodeOfABlueGreenUpgrade(t *testing.T) {
	// A history window of 400 changes: large for the upgrade's instants, small for the burst.
	_, url := emulatortest.Start(t, emulator.Options{TimeScale: 0, Seed: 5, Start: testStart, WatchHistory: 400})
	apiCall(t, url, "POST", "/clusters", `{"cluster": {"name": "bg", "nodePools": [{"name": "pool-a", "initialNodeCount": 3,
		"upgradeSettings": {"strategy": "BLUE_GREEN", "blueGreenSettings": {"standardRolloutPolicy": {"batchNodeCount": 1,
		"batchSoakDuration": "60s"}, "nodePoolSoakDuration": "600s"}}}]}}`, nil)
	mustGkesim(t, url, "clock", "advance", "1h")

	kc := filepath.Join(t.TempDir(), "config")
	mustGkesim(t, url, "container", "clusters", "get-credentials", "bg", "--location", upZone, "--kubeconfig", kc)
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	reqs := &requests{count: map[string]int{}}
	cfg.Wrap(reqs.RoundTrip)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	nodes, pods := factory.Core().V1().Nodes().Informer(), factory.Core().V1().Pods().Informer()
	seen := &nodeEvents{}
	if _, err := nodes.AddEventHandler(seen.handler()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("informer of %v did not sync", typ)
		}
	}
	// The handlers hear of the first sync's nodes on their own goroutine.
	eventually(t, "the first sync's 3 nodes reaching the handler", func() bool {
		adds, _ := seen.snapshot()
		return len(adds) == 3
	})
	seen.mu.Lock()
	seen.adds = nil
	seen.mu.Unlock()
	var events api.ListEventsResponse
	apiGet(t, url, "/emulator/v1/events?limit=1&cluster=bg&type=NoSuchType", &events)
	from := events.NextSeq

	// The blue-green upgrade, a minute of emulated time at a time; in the middle of it a burst
	// of 600 pod changes in one instant, beyond the window of 400: both informers' watches
	// end with 410 Expired and they list again.
	var op api.Operation
	apiCall(t, url, "PUT", "/clusters/bg/nodePools/pool-a", `{"machineType": "e2-standard-4"}`, &op)
	burst := false
	for i := 0; ; i++ {
		var cur api.Operation
		apiCall(t, url, "GET", "/operations/"+op.Name, "", &cur)
		if cur.Status == api.OpStatusDone {
			break
		}
		if i == 180 {
			t.Fatalf("the blue-green upgrade is not done after 3 emulated hours: %s", cur.Detail)
		}
		if i == 5 {
			createDeployment(t, cs, "burst", 600)
			burst = true
		}
		mustGkesim(t, url, "clock", "advance", "1m")
	}
	if !burst {
		t.Fatal("the upgrade ended before the burst")
	}
	wantAdded, wantDeleted := logNodes(t, url, from)
	if len(wantAdded) != 3 || len(wantDeleted) != 3 {
		t.Fatalf("the event log has %d nodes registered and %d deleted, want the 3 green and the 3 blue", len(wantAdded), len(wantDeleted))
	}
	eventually(t, "the node informer seeing the upgrade", func() bool {
		adds, deletes := seen.snapshot()
		return len(adds) >= len(wantAdded) && len(deletes) >= len(wantDeleted)
	})
	adds, deletes := seen.snapshot()
	if !slices.Equal(adds, wantAdded) || !slices.Equal(deletes, wantDeleted) {
		t.Errorf("the informer saw\n  adds    %v\n  deletes %v\nthe event log has\n  added   %v\n  deleted %v", adds, deletes, wantAdded, wantDeleted)
	}
	// Their caches hold what the API lists now.
	list, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the pod informer holding every pod the API lists", func() bool {
		synced, _ := strconv.ParseInt(pods.LastSyncResourceVersion(), 10, 64)
		listed, _ := strconv.ParseInt(list.ResourceVersion, 10, 64)
		return len(pods.GetStore().ListKeys()) == len(list.Items) && synced >= listed
	})
	for _, p := range list.Items {
		got, ok, _ := pods.GetStore().GetByKey(p.Namespace + "/" + p.Name)
		if !ok || got.(*corev1.Pod).ResourceVersion != p.ResourceVersion {
			t.Errorf("pod %s/%s at %s: the informer holds %v", p.Namespace, p.Name, p.ResourceVersion, got)
		}
	}
	// The 410: both watches ended with it, and the informers started again (client-go's
	// reflector lists and watches anew after a back-off of its own).
	for _, r := range []string{"nodes", "pods"} {
		eventually(t, "the "+r+" informer watching again after 410 Expired", func() bool {
			return reqs.get("expired "+r) > 0 && reqs.get("watch "+r) >= 2
		})
	}

	t.Logf("client-go sent %v", reqs.count)
}

// createDeployment creates a Deployment of tiny pods through client-go.
func createDeployment(t *testing.T, cs kubernetes.Interface, name string, replicas int32) {
	t.Helper()
	labels := map[string]string{"app": name}
	_, err := cs.AppsV1().Deployments("default").Create(t.Context(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1m"), corev1.ResourceMemory: resource.MustParse("1Mi")}}}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create deployment %s through client-go: %v", name, err)
	}
}

func jsonDecode(resp *http.Response, out any) error { return json.NewDecoder(resp.Body).Decode(out) }
