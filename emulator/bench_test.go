package emulator_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
)

// BenchmarkDurableMutations32Clients measures acknowledged mutations per second with a data
// directory: 32 clients each creating namespaces in one cluster over HTTP, every answer sent
// only once its journal record is on disk (group commit shares the fsyncs).
func BenchmarkDurableMutations32Clients(b *testing.B) {
	st, err := store.NewDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	e, err := emulator.New(emulator.Options{Seed: 1, Start: start, Store: st})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	c := client{&testing.T{}, url}
	if code, out := c.call("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "shop", "initialNodeCount": 1}}); code != http.StatusOK {
		b.Fatalf("create cluster: %d %v", code, out)
	}
	c.call("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "20m"})
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	hc := &http.Client{Transport: tr}
	var n atomic.Int64
	b.SetParallelism(16) // 32 clients on 2 cores
	b.ResetTimer()
	startT := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns-%d"}}`, n.Add(1))
			resp, err := hc.Post(url+k8s+"/api/v1/namespaces", "application/json", bytes.NewReader([]byte(body)))
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Errorf("create namespace: HTTP %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(n.Load())/time.Since(startT).Seconds(), "acked-mutations/s")
}

// BenchmarkRestart15000Nodes measures how long an emulator takes to resume a data directory
// holding a 15,000-node cluster (5 pools x 1,000 nodes x 3 zones) running 150,000 pods: read
// and decode the snapshot, check it, rebuild the indexes, replay a journal of 1,000 commands.
func BenchmarkRestart15000Nodes(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "data")
	saveBigState(b, dir)
	fi, _ := os.Stat(filepath.Join(dir, "state.json"))
	var live int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		before := liveHeap()
		b.StartTimer()
		st, err := store.NewDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		e, err := emulator.New(emulator.Options{Store: st, ResumeTimeScale: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		live = int64(liveHeap()) - int64(before)
		if e.Replayed != 1000 {
			b.Fatalf("replayed %d records, want 1000", e.Replayed)
		}
		e.Runner.Do(b.Context(), func(w *sim.World) error {
			if n := len(w.Cluster("p", "us-central1", "big").Nodes); n != 15000 {
				b.Fatalf("%d nodes after the restart", n)
			}
			return nil
		})
		e.Abandon() // no last checkpoint: the next iteration replays the same journal
		b.StartTimer()
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "snapshot-MiB")
	b.ReportMetric(float64(live)/1e6, "live-MB") // what the resumed emulator holds
}

// liveHeap is the live heap after two full collections: what a sync.Pool held at the first
// (the store's encoding buffers after a checkpoint) is gone at the second.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// saveBigState builds the 15,000-node, 150,000-pod cluster through the API (frozen clock) in a
// data directory and leaves 1,000 namespace creations in its journal after the snapshot.
func saveBigState(b *testing.B, dir string) {
	b.Helper()
	st, err := store.NewDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	e, err := emulator.New(emulator.Options{Seed: 1, Start: start, Store: st})
	if err != nil {
		b.Fatal(err)
	}
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	c := client{&testing.T{}, url}
	var pools []any
	for i := range 5 {
		pools = append(pools, map[string]any{"name": fmt.Sprintf("pool-%d", i), "initialNodeCount": 1000, "config": map[string]any{"machineType": "e2-standard-8"}})
	}
	c.call("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "big", "nodePools": pools}})
	c.call("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "30m"})
	err = e.Runner.Do(b.Context(), func(w *sim.World) error {
		cl := w.Cluster("p", "us-central1", "big")
		for i := range 150 {
			if _, err := w.CreateDeployment(cl, "default", benchDeployment(fmt.Sprintf("app-%03d", i), 1000)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	c.call("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "1m"})
	if err := e.Close(); err != nil { // the final checkpoint holds it all
		b.Fatal(err)
	}
	st, _ = store.NewDir(dir)
	e, err = emulator.New(emulator.Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	url, _ = e.Listen("127.0.0.1:0")
	c = client{&testing.T{}, url}
	for i := range 1000 {
		c.call("POST", k8s[:len(k8s)-len("shop")]+"big/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": fmt.Sprintf("team-%d", i)}})
	}
	e.Abandon()
}

func benchDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: appsv1.DeploymentSpec{Replicas: &replicas,
		Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")}}}}}}}}
}

const memChildEnv = "GKESIM_MEMORY_CHILD"

// memNoStore is memChildEnv's value for an emulator that keeps its state in memory only.
const memNoStore = "in-memory"

// TestMemoryChild is the emulator BenchmarkServeMemory15000Nodes measures (it does nothing
// unless that benchmark runs it): one that keeps its state in memory only, or one that resumes
// the data directory the benchmark names, as `gkesim serve` does.
func TestMemoryChild(t *testing.T) {
	dir := os.Getenv(memChildEnv)
	if dir == "" {
		t.Skip("run by BenchmarkServeMemory15000Nodes")
	}
	fail := func(err error) {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	opts := emulator.Options{Seed: 1, Start: start}
	if dir != memNoStore {
		st, err := store.NewDir(dir)
		if err != nil {
			fail(err)
		}
		opts = emulator.Options{Store: st, ResumeTimeScale: true}
	}
	e, err := emulator.New(opts)
	if err != nil {
		fail(err)
	}
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	fmt.Println(url)
	select {}
}

// memoryChild starts TestMemoryChild on data directory dir (or memNoStore) and returns it
// with its URL.
func memoryChild(b *testing.B, dir string) (*exec.Cmd, string) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), memChildEnv+"="+dir)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if !strings.HasPrefix(line, "http") {
		cmd.Process.Kill()
		cmd.Wait()
		b.Fatalf("the emulator did not start: %s", line)
	}
	return cmd, strings.TrimSpace(line)
}

// residentMiB is a process's resident memory.
func residentMiB(b *testing.B, pid int) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/PID/status")
	return 0
}

// holds15000ReadyNodes checks, through its metrics, that an emulator holds the 15,000 nodes.
func holds15000ReadyNodes(b *testing.B, url string) {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(raw), `gkesim_nodes{state="ready"} 15000`) {
		b.Fatalf("the cluster is not 15,000 ready nodes:\n%s", raw)
	}
}

// BenchmarkServeMemory15000Nodes measures a running emulator's resident memory holding GKE's
// largest cluster: 15,000 nodes (5 pools x 1,000 nodes x 3 zones) running 150,000 pods, built
// through the API, as `gkesim serve` would hold it (rss-MiB); and one that resumes a data
// directory holding that cluster, just after resuming it (restart-rss-MiB).
func BenchmarkServeMemory15000Nodes(b *testing.B) {
	var rss, restarted float64
	dir := filepath.Join(b.TempDir(), "data")
	saveBigState(b, dir)
	for range b.N {
		cmd, url := memoryChild(b, memNoStore)
		c := client{&testing.T{}, url}
		var pools []any
		for i := range 5 {
			pools = append(pools, map[string]any{"name": fmt.Sprintf("pool-%d", i), "initialNodeCount": 1000, "config": map[string]any{"machineType": "e2-standard-8"}})
		}
		c.call("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "big", "nodePools": pools}})
		c.call("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "30m"})
		for i := range 150 {
			c.call("POST", "/k8s/projects/p/locations/us-central1/clusters/big/apis/apps/v1/namespaces/default/deployments", deployment(fmt.Sprintf("app-%03d", i), 1000))
		}
		c.call("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "2m"})
		rss = residentMiB(b, cmd.Process.Pid)
		holds15000ReadyNodes(b, url)
		cmd.Process.Kill()
		cmd.Wait()

		cmd, url = memoryChild(b, dir)
		restarted = residentMiB(b, cmd.Process.Pid)
		holds15000ReadyNodes(b, url)
		cmd.Process.Kill()
		cmd.Wait()
	}
	b.ReportMetric(rss, "rss-MiB")
	b.ReportMetric(restarted, "restart-rss-MiB")
}
