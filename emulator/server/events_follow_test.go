package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
	"github.com/gkesim/terraform-provider-gkesim/emulator/wall"
)

// fullLogServer serves a world whose event log holds entries entries (the log's capacity is
// sim.DefaultLogCapacity) and one cluster, "base", to read.
func fullLogServer(tb testing.TB, entries int, opts Options) (string, *Server) {
	tb.Helper()
	st := sim.New(sim.Options{Seed: 7, Start: testStart}).State()
	type entry struct {
		Seq     int64     `json:"seq"`
		Time    time.Time `json:"time"`
		Type    string    `json:"type"`
		Cluster string    `json:"cluster"`
		Message string    `json:"message"`
	}
	log := struct {
		Entries []entry `json:"entries"`
		LastSeq int64   `json:"lastSeq"`
	}{LastSeq: int64(entries)}
	for i := range entries {
		log.Entries = append(log.Entries, entry{Seq: int64(i + 1), Time: testStart, Type: "NodeReady",
			Cluster: "projects/p/locations/us-central1/clusters/old", Message: fmt.Sprintf("node gke-old-%06d is ready, after its boot and the kubelet's registration", i)})
	}
	raw, _ := json.Marshal(log)
	if err := json.Unmarshal(raw, &st.Log); err != nil {
		tb.Fatal(err)
	}
	w, err := sim.Restore(st)
	if err != nil {
		tb.Fatal(err)
	}
	r := sim.NewRunner(w, sim.RunnerOptions{Wall: wall.System{}, TimeScale: 0})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	srv, err := New(r, opts)
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ConnContext = ConnContext // as emulator.Listen serves
	ts.Start()
	tb.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		cancel()
		<-done
	})
	resp, err := http.Post(ts.URL+clusters, "application/json", strings.NewReader(`{"cluster": {"name": "base", "initialNodeCount": 2}}`))
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("create the cluster to read: %v %v", resp, err)
	}
	resp.Body.Close()
	return ts.URL, srv
}

// slowFollower asks to follow the whole log and never reads: what it is sent fills the socket
// buffers, then the server's write blocks.
func slowFollower(tb testing.TB, base string) net.Conn {
	tb.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		tb.Fatal(err)
	}
	_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(conn, "GET /emulator/v1/events?follow=true&afterSeq=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	tb.Cleanup(func() { conn.Close() })
	return conn
}

// followers is how many followers the server counts now.
func (s *Server) followersNow() int {
	s.followers.mu.Lock()
	defer s.followers.mu.Unlock()
	return s.followers.n
}

// gkeReadLatencies reads the cluster, its node pools and its operations n times, while the
// clock moves every 20 ms (so that reads are rendered, not served from the read cache), and
// returns the latencies sorted.
func gkeReadLatencies(tb testing.TB, base string, n int) []time.Duration {
	tb.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if resp, err := http.Post(base+"/emulator/v1/clock:advance", "application/json", strings.NewReader(`{"duration": "1s"}`)); err == nil {
				resp.Body.Close()
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	paths := []string{base + "/v1/" + strings.TrimPrefix(clusters, "/v1/") + "/base", base + pools, base + locPath + "/operations"}
	lat := make([]time.Duration, 0, n)
	for i := range n {
		began := time.Now()
		resp, err := http.Get(paths[i%len(paths)])
		if err != nil {
			tb.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			tb.Fatalf("GET %s: HTTP %d", paths[i%len(paths)], resp.StatusCode)
		}
		lat = append(lat, time.Since(began))
	}
	slices.Sort(lat)
	return lat
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// Issue 25's case: 40 followers of a long log that do not read. Each holds at most a page, the
// simulation hands the backlog out a page at a time, GKE reads stay fast, and the followers
// are cut off once their connection stops taking pages. The log has 50,000 entries (10 MB of
// JSON per follower, far beyond what its socket takes) so that building it stays quick under
// the race detector; BenchmarkGKEReadsWithSlowFollowers uses a full one (200,000).
func TestSlowFollowersAreBoundedAndCutOff(t *testing.T) {
	old := followWriteTimeout
	followWriteTimeout = time.Second
	t.Cleanup(func() { followWriteTimeout = old }) // after the server's cleanup has stopped its handlers
	began := time.Now()
	const entries = 50_000
	base, srv := fullLogServer(t, entries, Options{})
	t.Logf("a server with a full log in %s", time.Since(began).Round(time.Millisecond))
	gkeReadLatencies(t, base, 30) // warm up: what the first reads build stays
	before := heapInUse()
	for range 40 {
		slowFollower(t, base)
	}
	for i := 0; srv.followersNow() < 40; i++ {
		if i == 500 {
			t.Fatalf("%d of 40 followers started", srv.followersNow())
		}
		time.Sleep(10 * time.Millisecond)
	}
	lat := gkeReadLatencies(t, base, 300)
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	grown := int64(heapInUse()) - int64(before)
	t.Logf("40 slow followers of a %d-entry log: GKE reads p50 %s, p99 %s; heap grew %.1f MiB", entries, p50, p99, float64(grown)/(1<<20))
	// A generous bound for a loaded machine under the race detector (the issue measured 7 s);
	// BenchmarkGKEReadsWithSlowFollowers measures the figure.
	if p99 > time.Second {
		t.Errorf("GKE reads p99 %s with 40 slow followers, want well under a second", p99)
	}
	// The whole log each follower asked for is ~10 MiB; a page is ~100 KiB.
	if grown > 64<<20 {
		t.Errorf("40 slow followers grew the heap by %d MiB, want a page or so each", grown>>20)
	}
	// Each is cut off once its socket buffers are full and a page has waited a second: how
	// long filling 40 sockets' buffers takes depends on the machine (minutes under the race
	// detector on a loaded one); the bound only says it ends.
	cutFrom := time.Now()
	defer func() {
		t.Logf("the slow followers were all cut off %s after the reads", time.Since(cutFrom).Round(time.Millisecond))
	}()
	for i := 0; srv.followersNow() > 0; i++ {
		if i == 18000 {
			t.Fatalf("%d slow followers still followed 3 minutes after their connections stopped taking pages", srv.followersNow())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Followers beyond the bound get 429 with Retry-After; a place freed is taken again.
func TestEventFollowersAreCapped(t *testing.T) {
	base, srv := fullLogServer(t, 10, Options{MaxEventFollowers: 3})
	follow := func() *http.Response {
		resp, err := http.Get(base + "/emulator/v1/events?follow=true")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	var open []*http.Response
	for range 3 {
		resp := follow()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("follower within the bound: HTTP %d", resp.StatusCode)
		}
		open = append(open, resp)
	}
	resp := follow()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "at most 3 event-log followers") {
		t.Fatalf("follower beyond the bound: HTTP %d, Retry-After %q, %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	open[0].Body.Close()
	for i := 0; srv.followersNow() > 2; i++ {
		if i == 500 {
			t.Fatal("a closed follower still counts after 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if resp := follow(); resp.StatusCode != http.StatusOK {
		t.Fatalf("follower in a freed place: HTTP %d", resp.StatusCode)
	}
}

// A follower starts at the newest entry unless it says where (as a watch without a
// resourceVersion starts now); afterSeq=0 streams the whole log, a page at a time, then what
// comes.
func TestFollowStartsNowUnlessToldWhere(t *testing.T) {
	const backlog = 3*followPage + 7
	base, _ := fullLogServer(t, backlog, Options{})
	first := func(query string, want int) []api.Event {
		resp, err := http.Get(base + "/emulator/v1/events?follow=true" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		// Something new after the follower started.
		if r, err := http.Post(base+"/emulator/v1/faults", "application/json", strings.NewReader(`{"kind": "STOCKOUT", "zone": "us-central1-a"}`)); err == nil {
			r.Body.Close()
		}
		var evs []api.Event
		sc := bufio.NewScanner(resp.Body)
		for len(evs) < want && sc.Scan() {
			var ev api.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
		}
		return evs
	}
	now := first("", 1)
	if len(now) != 1 || now[0].Seq <= backlog || now[0].Type != "FaultInjected" {
		t.Fatalf("a follower without afterSeq got %+v first, want the new FaultInjected entry", now)
	}
	all := first("&afterSeq=0", backlog+1)
	if len(all) != backlog+1 || all[0].Seq != 1 || all[backlog-1].Seq != backlog || all[backlog].Seq <= backlog {
		t.Fatalf("a follower from afterSeq=0 got %d entries (first %d), want the %d of the backlog, in order, then the new ones", len(all), all[0].Seq, backlog)
	}
	for i := 1; i < backlog; i++ {
		if all[i].Seq != all[i-1].Seq+1 {
			t.Fatalf("the backlog skips from %d to %d", all[i-1].Seq, all[i].Seq)
		}
	}
}

// The figure the issue asks for: GKE reads with 40 followers of a full log that do not read
// (reported as p99-ms, target under 100 ms).
func BenchmarkGKEReadsWithSlowFollowers(b *testing.B) {
	base, _ := fullLogServer(b, sim.DefaultLogCapacity, Options{})
	for range 40 {
		slowFollower(b, base)
	}
	time.Sleep(500 * time.Millisecond) // the followers take their first pages
	b.ResetTimer()
	lat := gkeReadLatencies(b, base, max(b.N, 100))
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
