package emulator_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/store"
)

// The crash test: a child emulator with a data directory is killed with SIGKILL at random
// moments while clients mutate it, then started again on the same directory. Everything the
// child acknowledged must be there after the restart, operation and fault ids must still name
// what they named, and the emulated clock must not be behind any time a client saw.

const crashDirEnv = "GKESIM_CRASH_CHILD_DIR"

// TestCrashChild is the child emulator (it does nothing unless the crash test runs it).
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("run by TestCrashKill9 as its child emulator")
	}
	st, err := store.NewDir(dir)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	// Small checkpoints, so that kills also land during compaction.
	e, err := emulator.New(emulator.Options{TimeScale: 1000, Seed: 9, Start: start, Store: st, ResumeTimeScale: true,
		CheckpointBytes: 16 << 10, CheckpointEvents: 2000})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	fmt.Println(url)
	select {} // until killed
}

// child is a running child emulator.
type child struct {
	cmd  *exec.Cmd
	url  string
	once sync.Once
}

func startChild(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := &child{cmd: cmd}
	t.Cleanup(ch.kill) // a failed test must not leave a child holding the test's output open
	line, err := bufio.NewReader(out).ReadString('\n')
	line = strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("child emulator did not start: %q %v", line, err)
	}
	ch.url = line
	return ch
}

func (c *child) kill() {
	c.once.Do(func() {
		c.cmd.Process.Kill() // SIGKILL: no shutdown, no last checkpoint
		c.cmd.Wait()
	})
}

// ledger is what the child acknowledged.
type ledger struct {
	mu sync.Mutex
	// clusters: name -> "created", "deleted", or "unknown" while a deletion's answer is not in
	clusters map[string]string
	// ops: operation id -> "TYPE target"
	ops map[string]string
	// faults: id -> zone, "" once deleted, "?" while a deletion's answer is not in
	faults map[string]string
	// deployments: name in the base cluster
	deployments map[string]bool
	maxClock    time.Time
	acks        int
}

func (l *ledger) set(m map[string]string, k, v string) {
	l.mu.Lock()
	m[k] = v
	l.mu.Unlock()
}

func (l *ledger) get(m map[string]string, k string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return m[k]
}

func (l *ledger) clock(now string) {
	t, err := time.Parse(time.RFC3339Nano, now)
	if err != nil {
		return
	}
	l.mu.Lock()
	if t.After(l.maxClock) {
		l.maxClock = t
	}
	l.mu.Unlock()
}

func (l *ledger) op(out map[string]any) {
	id, _ := out["name"].(string)
	typ, _ := out["operationType"].(string)
	target, _ := out["targetLink"].(string)
	l.mu.Lock()
	l.ops[id] = typ + " " + target[strings.LastIndex(target, "/projects/")+1:]
	l.acks++
	l.mu.Unlock()
}

// actor mutates the child until ctx ends, recording what was acknowledged.
func actor(ctx context.Context, url string, l *ledger, trial, id int, rng *rand.Rand) {
	n := 0
	call := func(method, path string, body any) (int, map[string]any) {
		code, out, err := tryCall(ctx, url, method, path, body)
		if err != nil {
			return 0, nil
		}
		return code, out
	}
	for ctx.Err() == nil {
		n++
		switch rng.IntN(7) {
		case 0: // a new cluster of this actor
			name := fmt.Sprintf("c%d-%d-%d", trial, id, n)
			if code, out := call("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": name, "initialNodeCount": 1,
				"locations": []string{"us-central1-a"}}}); code == http.StatusOK {
				l.op(out)
				l.mu.Lock()
				l.clusters[name] = "created"
				l.mu.Unlock()
			}
		case 1: // delete one of this actor's clusters from an earlier trial
			l.mu.Lock()
			var victim string
			for name, st := range l.clusters {
				var tr, owner, k int
				if _, err := fmt.Sscanf(name, "c%d-%d-%d", &tr, &owner, &k); err != nil || st != "created" || owner != id || tr == trial {
					continue
				}
				if victim == "" || name < victim {
					victim = name
				}
			}
			l.mu.Unlock()
			if victim == "" {
				continue
			}
			l.set(l.clusters, victim, "unknown") // until the answer arrives, either outcome is right
			if code, out := call("DELETE", loc+"/clusters/"+victim, nil); code == http.StatusOK {
				l.op(out)
				l.set(l.clusters, victim, "deleted")
			} else if code != 0 {
				l.set(l.clusters, victim, "created")
			}
		case 2: // a surge upgrade of the base pool (refused while one runs)
			mt := []string{"e2-standard-2", "e2-standard-4"}[rng.IntN(2)]
			if code, out := call("PUT", loc+"/clusters/base/nodePools/web", map[string]any{"machineType": mt}); code == http.StatusOK {
				l.op(out)
			}
		case 3: // a fault, added or removed
			zone := fmt.Sprintf("us-east1-%c", 'b'+rng.IntN(3))
			if code, out := call("POST", "/emulator/v1/faults", map[string]any{"kind": "STOCKOUT", "zone": zone, "machineFamily": "n2"}); code == http.StatusOK {
				l.mu.Lock()
				l.faults[out["id"].(string)] = zone
				l.acks++
				l.mu.Unlock()
			}
		case 4:
			l.mu.Lock()
			var del string
			for fid, z := range l.faults {
				if z != "" && z != "?" && (del == "" || fid < del) {
					del = fid
				}
			}
			l.mu.Unlock()
			if del != "" {
				zone := l.get(l.faults, del)
				l.set(l.faults, del, "?")
				switch code, _ := call("DELETE", "/emulator/v1/faults/"+del, nil); code {
				case http.StatusOK:
					l.set(l.faults, del, "")
					l.mu.Lock()
					l.acks++
					l.mu.Unlock()
				case http.StatusNotFound: // another actor deleted it
				case 0:
				default:
					l.set(l.faults, del, zone)
				}
			}
		case 5: // a Deployment in the base cluster
			name := fmt.Sprintf("d%d-%d-%d", trial, id, n)
			if code, _ := call("POST", "/k8s/projects/p/locations/us-central1/clusters/base/apis/apps/v1/namespaces/default/deployments",
				deployment(name, 1+rng.IntN(3))); code == http.StatusCreated || code == http.StatusOK {
				l.mu.Lock()
				l.deployments[name] = true
				l.acks++
				l.mu.Unlock()
			}
		case 6: // reads: the clock, operations
			if code, out := call("GET", "/emulator/v1/clock", nil); code == http.StatusOK {
				l.clock(out["now"].(string))
			}
			call("GET", loc+"/operations", nil)
		}
	}
}

func tryCall(ctx context.Context, base, method, path string, body any) (int, map[string]any, error) {
	raw, _ := json.Marshal(body)
	if body == nil {
		raw = nil
	}
	req, _ := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return 0, nil, err // the answer did not arrive whole: not acknowledged
	}
	return resp.StatusCode, out, nil
}

func deployment(name string, replicas int) map[string]any {
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx",
					"resources": map[string]any{"requests": map[string]any{"cpu": "100m"}}}}}}}}
}

// verify checks every acknowledgement against a restarted child.
func verify(t *testing.T, url string, l *ledger, trial int) {
	t.Helper()
	c := client{t, url}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := c.ok("GET", "/emulator/v1/clock", nil)["now"].(string)
	if got, _ := time.Parse(time.RFC3339Nano, now); got.Before(l.maxClock) {
		t.Fatalf("trial %d: after the restart the clock is at %s, before %s, which a client saw", trial, got, l.maxClock)
	}
	// Check with the clock stopped: reads of a frozen clock need no clock mark (no fsync each).
	c.ok("PATCH", "/emulator/v1/clock", map[string]any{"timeScale": 0})
	defer c.ok("PATCH", "/emulator/v1/clock", map[string]any{"timeScale": 1000})
	for name, st := range l.clusters {
		code, out := c.call("GET", loc+"/clusters/"+name, nil)
		switch {
		case st == "unknown" && code == http.StatusOK && out["status"] != "STOPPING":
			l.clusters[name] = "created"
		case st == "unknown":
			l.clusters[name] = "deleted"
		case st == "created" && code != http.StatusOK:
			t.Fatalf("trial %d: cluster %s was acknowledged but is gone: HTTP %d %v", trial, name, code, out)
		case st == "deleted" && code == http.StatusOK && out["status"] != "STOPPING":
			t.Fatalf("trial %d: cluster %s's deletion was acknowledged but it is %v", trial, name, out["status"])
		}
	}
	for id, what := range l.ops {
		code, out := c.call("GET", loc+"/operations/"+id, nil)
		if code != http.StatusOK {
			_, list := c.call("GET", loc+"/operations", nil)
			for _, o := range list["operations"].([]any) {
				m := o.(map[string]any)
				if strings.HasSuffix(fmt.Sprint(m["targetLink"]), what[strings.LastIndex(what, "/"):]) {
					t.Logf("op for same target: %v %v %v %v", m["name"], m["operationType"], m["startTime"], m["status"])
				}
			}
			t.Fatalf("trial %d: operation %s (%s) was acknowledged but is gone: HTTP %d", trial, id, what, code)
		}
		target, _ := out["targetLink"].(string)
		if got := fmt.Sprint(out["operationType"]) + " " + target[strings.LastIndex(target, "/projects/")+1:]; got != what {
			t.Fatalf("trial %d: operation %s was %q and is now %q", trial, id, what, got)
		}
	}
	faults := c.ok("GET", "/emulator/v1/faults", nil)["faults"].([]any)
	have := map[string]string{}
	for _, f := range faults {
		m := f.(map[string]any)
		have[m["id"].(string)] = fmt.Sprint(m["zone"])
	}
	for id, zone := range l.faults {
		if zone == "?" {
			l.faults[id] = have[id]
			continue
		}
		if have[id] != zone {
			t.Fatalf("trial %d: fault %s should be %q (empty: deleted), is %q", trial, id, zone, have[id])
		}
	}
	for name := range l.deployments {
		if code, _ := c.call("GET", "/k8s/projects/p/locations/us-central1/clusters/base/apis/apps/v1/namespaces/default/deployments/"+name, nil); code != http.StatusOK {
			t.Fatalf("trial %d: Deployment %s was acknowledged but is gone (HTTP %d)", trial, name, code)
		}
	}
}

// 100 kill -9 trials at random moments (mid-upgrade, mid-create, mid-checkpoint) lose nothing
// that was acknowledged.
func TestCrashKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 trials take about a minute")
	}
	trials := 100
	if v := os.Getenv("GKESIM_CRASH_TRIALS"); v != "" {
		trials, _ = strconv.Atoi(v)
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("GKESIM_CRASH_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("crash test seed %d (GKESIM_CRASH_SEED=%d reproduces the kill times)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	dir := t.TempDir()
	l := &ledger{clusters: map[string]string{}, ops: map[string]string{}, faults: map[string]string{}, deployments: map[string]bool{}}

	ch := startChild(t, dir)
	base := client{t, ch.url}
	l.op(base.ok("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "base", "locations": []string{"us-central1-a"},
		"nodePools": []any{map[string]any{"name": "web", "initialNodeCount": 3}}}}))
	l.clusters["base"] = "created"
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, out := base.call("GET", loc+"/clusters/base", nil); out["status"] == "RUNNING" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("base cluster not running after 30 s")
		}
	}
	for trial := range trials {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for id := range 6 {
			wg.Add(1)
			r := rand.New(rand.NewPCG(rng.Uint64(), uint64(id)))
			go func() { defer wg.Done(); actor(ctx, ch.url, l, trial, id, r) }()
		}
		time.Sleep(time.Duration(10+rng.IntN(150)) * time.Millisecond)
		ch.kill()
		cancel()
		wg.Wait()
		ch = startChild(t, dir)
		verify(t, ch.url, l, trial)
	}
	// In-flight operations resume and finish.
	c := client{t, ch.url}
	c.ok("PATCH", "/emulator/v1/clock", map[string]any{"timeScale": 0})
	c.ok("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "24h"})
	for id := range l.ops {
		if _, out := c.call("GET", loc+"/operations/"+id, nil); out["status"] != "DONE" {
			t.Errorf("operation %s is %v a day after the last restart", id, out["status"])
		}
	}
	ch.kill()
	t.Logf("%d trials: %d acknowledged mutations, %d operations, all found after kill -9", trials, l.acks, len(l.ops))
}
