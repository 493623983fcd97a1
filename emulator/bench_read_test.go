package emulator_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
)

// The read path's benchmarks: what a GET of a node pool costs the server, alone, at a fixed
// rate, and beside a bare net/http server answering the same bytes.

// readBench is an emulator with a running cluster and node pool, frozen clock, for the read
// benchmarks.
func readBench(b testing.TB) (*emulator.Emulator, string, string) {
	b.Helper()
	e, err := emulator.New(emulator.Options{Seed: 1, Start: start})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	url, err := e.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	c := client{&testing.T{}, url}
	c.call("POST", loc+"/clusters", map[string]any{"cluster": map[string]any{"name": "shop",
		"nodePools": []any{map[string]any{"name": "web", "initialNodeCount": 3}}}})
	c.call("POST", "/emulator/v1/clock:advance", map[string]any{"duration": "30m"})
	return e, url, loc + "/clusters/shop/nodePools/web?prettyPrint=false"
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkServeGetNodePool is the server's CPU per GET of a node pool, the handler alone (no
// network, no client): what every GKE client's polling costs the emulator.
func BenchmarkServeGetNodePool(b *testing.B) {
	e, _, path := readBench(b)
	h := e.Handler()
	b.ReportAllocs()
	b.SetParallelism(25) // 50 concurrent readers on 2 cores
	cpu0 := cpuTime()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("GET", path, nil)
			req.Host = "127.0.0.1"
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Errorf("GET: HTTP %d %s", rec.Code, rec.Body)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkGetNodePoolLatencyAt5000rps sends GETs of a node pool over loopback at a fixed 5,000
// requests per second (open loop, as a fleet of pollers would) and reports the 50th and 99th
// percentile latency.
func BenchmarkGetNodePoolLatencyAt5000rps(b *testing.B) {
	// The emulator runs in a process of its own, as `gkesim serve` does: the load generator's
	// goroutines and garbage do not stall it, though both share the machine's cores.
	url, path, _ := strings.Cut(startBenchChild(b, "TestReadChild", readChildEnv+"=1").line, " ")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		b.Fatalf("the emulator process said %q, want its URL and the path to read", url+" "+path)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	const rate = 5000
	b.ResetTimer()
	begin := time.Now()
	for i := 0; i < b.N; i++ {
		due := begin.Add(time.Duration(i) * time.Second / rate)
		time.Sleep(time.Until(due))
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			resp, err := hc.Get(url + path)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
			}
			lat[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

const readChildEnv = "GKESIM_READ_CHILD"

// TestReadChild is the emulator the read benchmarks drive in a process of their own (it does
// nothing unless one of them runs it): it prints its URL and the node pool's path, and serves
// until its standard input closes.
func TestReadChild(t *testing.T) {
	if os.Getenv(readChildEnv) == "" {
		t.Skip("run by the read benchmarks")
	}
	_, url, path := readBench(t)
	serveChild(url + " " + path)
}

// childProfileEnv names a directory where each child process of the read benchmarks writes its
// CPU profile (TestReadChild.pprof, TestBareChild.pprof) when it stops:
// GKESIM_CHILD_CPUPROFILE=/tmp/prof go test ./emulator -run '^$' -bench VsBareServer.
const childProfileEnv = "GKESIM_CHILD_CPUPROFILE"

// benchChild is a process of this test binary running one of the Test*Child functions.
type benchChild struct {
	cmd *exec.Cmd
	// line is what the child printed first: what it serves.
	line string
}

// startBenchChild runs the test function named test in a process of its own with env added, and
// waits for the line it prints. The child stops when the benchmark ends (its standard input is
// closed; so it also stops if the benchmark dies).
func startBenchChild(b *testing.B, test string, env ...string) *benchChild {
	b.Helper()
	args := []string{"-test.run=^" + test + "$", "-test.count=1"}
	if dir := os.Getenv(childProfileEnv); dir != "" {
		args = append(args, "-test.cpuprofile="+filepath.Join(dir, test+".pprof"))
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.StdoutPipe()
	in, _ := cmd.StdinPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, _ := bufio.NewReader(out).ReadString('\n')
	go io.Copy(io.Discard, out) // the test binary's own report when it stops
	return &benchChild{cmd: cmd, line: strings.TrimSpace(line)}
}

// serveChild prints what a child serves and blocks until its standard input closes.
func serveChild(line string) {
	fmt.Println(line)
	io.Copy(io.Discard, os.Stdin)
}

// cpu is the CPU time the child has used so far, all its threads: the scheduler's
// nanosecond count (/proc/PID/task/*/schedstat), else utime+stime (/proc/PID/stat, in ticks).
func (c *benchChild) cpu(b *testing.B) time.Duration {
	pid := c.cmd.Process.Pid
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum time.Duration
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that just ended
		}
		f := strings.Fields(string(raw))
		if len(f) == 0 {
			continue
		}
		ns, _ := strconv.ParseInt(f[0], 10, 64)
		sum += time.Duration(ns)
	}
	if sum > 0 {
		return sum
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatalf("the CPU time of process %d: %v", pid, err)
	}
	// The fields after the command's name, which ends with the last ')': utime and stime are
	// the 14th and 15th fields of the line.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

const bareChildEnv = "GKESIM_BARE_CHILD"

// bareAnswer is what the bare server answers to every request: the emulator's bytes with its
// headers (Date aside, which net/http writes).
type bareAnswer struct {
	Header http.Header
	Body   []byte
}

// TestBareChild is the bare net/http server BenchmarkGetNodePoolVsBareServer compares the
// emulator with (it does nothing unless that benchmark runs it): it answers every request with
// the answer in the file GKESIM_BARE_CHILD names, prints its URL, and serves until its
// standard input closes.
func TestBareChild(t *testing.T) {
	file := os.Getenv(bareChildEnv)
	if file == "" {
		t.Skip("run by BenchmarkGetNodePoolVsBareServer")
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var answer bareAnswer
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for k, v := range answer.Header {
			h[k] = v
		}
		w.Write(answer.Body)
	})}
	go srv.Serve(ln)
	serveChild("http://" + ln.Addr().String())
	srv.Close()
}

// BenchmarkGetNodePoolVsBareServer is the read path's floor: the emulator's CPU per GET of a
// node pool over loopback beside a bare net/http server's answering the same bytes with the
// same headers, in the same run. Each server runs in a process of its own (the emulator as
// `gkesim serve` runs it); the same client (50 keep-alive connections) drives them in turn,
// in rounds that alternate which goes first, so that the machine's other work falls on both
// alike. It reports each server's CPU per request (the process's, all threads) and their
// ratio, x-bare (ns/op is left out: it would be the wall time of two requests). A fixed
// number of requests gives steadier figures: -benchtime 20000x.
func BenchmarkGetNodePoolVsBareServer(b *testing.B) {
	gk := startBenchChild(b, "TestReadChild", readChildEnv+"=1")
	url, path, _ := strings.Cut(gk.line, " ")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		b.Fatalf("the emulator process said %q, want its URL and the path to read", gk.line)
	}
	resp, err := http.Get(url + path)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: HTTP %d %v %s", path, resp.StatusCode, err, body)
	}
	answer := bareAnswer{Header: resp.Header.Clone(), Body: body}
	answer.Header.Del("Date")
	raw, _ := json.Marshal(answer)
	file := filepath.Join(b.TempDir(), "answer.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	bare := startBenchChild(b, "TestBareChild", bareChildEnv+"="+file)
	if !strings.HasPrefix(bare.line, "http://127.0.0.1:") {
		b.Fatalf("the bare server said %q, want its URL", bare.line)
	}
	servers := []struct {
		proc *benchChild
		load *readLoad
		cpu  time.Duration
	}{
		{proc: gk, load: newReadLoad(url+path, resp, body)},
		{proc: bare, load: newReadLoad(bare.line+path, resp, body)},
	}
	for _, s := range servers { // warm up: connections open, caches filled
		if err := s.load.run(readConns * 20); err != nil {
			b.Fatal(err)
		}
	}
	// Short rounds (1,000 requests each, tens of milliseconds) so that both servers see the
	// machine in the same state.
	rounds := min(max(b.N/1000, 1), 100)
	b.ResetTimer()
	for r := range rounds {
		n := b.N/rounds + btoi(r < b.N%rounds)
		for i := range servers {
			s := &servers[(i+r)%2] // alternate which server goes first
			cpu0 := s.proc.cpu(b)
			if err := s.load.run(n); err != nil {
				b.Fatal(err)
			}
			s.cpu += s.proc.cpu(b) - cpu0
		}
	}
	b.StopTimer()
	perOp := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(perOp(servers[0].cpu), "cpu-µs/op")
	b.ReportMetric(perOp(servers[1].cpu), "bare-cpu-µs/op")
	b.ReportMetric(float64(servers[0].cpu)/float64(max(servers[1].cpu, 1)), "x-bare")
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// readConns is how many keep-alive connections the read benchmarks' clients hold.
const readConns = 50

// readLoad sends GETs of one URL over readConns keep-alive connections and checks every
// answer against the first one's status, Content-Type, length and bytes.
type readLoad struct {
	url     string
	hc      *http.Client
	ctype   string
	length  int64
	want    []byte
	scratch sync.Pool
}

func newReadLoad(url string, first *http.Response, body []byte) *readLoad {
	tr := &http.Transport{MaxConnsPerHost: readConns, MaxIdleConnsPerHost: readConns}
	return &readLoad{url: url, hc: &http.Client{Transport: tr}, ctype: first.Header.Get("Content-Type"),
		length: first.ContentLength, want: body,
		scratch: sync.Pool{New: func() any { return new(bytes.Buffer) }}}
}

// run sends n GETs from readConns goroutines and returns the first wrong answer.
func (l *readLoad) run(n int) error {
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range readConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := l.scratch.Get().(*bytes.Buffer)
			defer l.scratch.Put(buf)
			for next.Add(1) <= int64(n) && failed.Load() == nil {
				if err := l.get(buf); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		return *err
	}
	return nil
}

func (l *readLoad) get(buf *bytes.Buffer) error {
	resp, err := l.hc.Get(l.url)
	if err != nil {
		return err
	}
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		return err
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("GET %s: HTTP %d %s", l.url, resp.StatusCode, buf.Bytes())
	case resp.Header.Get("Content-Type") != l.ctype || resp.ContentLength != l.length:
		return fmt.Errorf("GET %s: Content-Type %q, length %d; want %q, %d", l.url, resp.Header.Get("Content-Type"), resp.ContentLength, l.ctype, l.length)
	case !bytes.Equal(buf.Bytes(), l.want):
		return fmt.Errorf("GET %s: the answer changed:\n%s\nwant\n%s", l.url, buf.Bytes(), l.want)
	}
	return nil
}
