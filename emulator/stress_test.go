package emulator_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

// The emulator under concurrent load while its clock runs: readers of every kind of object
// (GKE, Kubernetes, Compute, the event log and metrics), writers that resize pools, scale
// Deployments, create and delete pods, Services and faults, cordon nodes and advance the clock,
// all at once on a loopback port. Run under the race detector (`make test` does) it proves
// that nothing an answer holds is written by the simulation while the answer is encoded.
// Every request must be answered without a 5xx; the mutations may meet GKE's own refusals
// (an operation in progress, a resourceVersion conflict, a budget refusing an eviction).
func TestConcurrentClientsWhileTheClockRuns(t *testing.T) {
	const (
		clients    = 24
		iterations = 30
		loc        = "/v1/projects/stress/locations/us-central1-a"
		k8s        = "/k8s/projects/stress/locations/us-central1-a/clusters/c1"
	)
	_, url := emulatortest.Start(t, emulator.Options{TimeScale: 2000, Seed: 3, Start: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)})
	httpc := &http.Client{Timeout: time.Minute}
	send := func(method, path, contentType, body string) (int, string, error) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, url+path, rd)
		if err != nil {
			return 0, "", err
		}
		if body != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := httpc.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	must := func(method, path, body string) {
		t.Helper()
		code, b, err := send(method, path, "application/json", body)
		if err != nil || code >= 300 {
			t.Fatalf("%s %s: %d %v %s", method, path, code, err, b)
		}
	}
	must("POST", loc+"/clusters", `{"cluster": {"name": "c1", "nodePools": [{"name": "np", "initialNodeCount": 3}]}}`)
	// The control plane comes up in a few emulated minutes: wait for the Kubernetes API by
	// advancing the clock, not the wall.
	must("POST", "/emulator/v1/clock:advance", `{"duration": "600s"}`)
	must("POST", k8s+"/apis/apps/v1/namespaces/default/deployments", `{"metadata": {"name": "web", "labels": {"app": "web"}},
		"spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
		"spec": {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "50m"}}}]}}}}`)
	must("POST", k8s+"/apis/policy/v1/namespaces/default/poddisruptionbudgets", `{"metadata": {"name": "web"},
		"spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}}`)

	reads := []string{
		loc + "/clusters", loc + "/clusters/c1", loc + "/clusters/c1/nodePools", loc + "/clusters/c1/nodePools/np", loc + "/operations",
		loc + "/serverConfig", k8s + "/api/v1/nodes", k8s + "/api/v1/pods", k8s + "/api/v1/namespaces/default/services",
		k8s + "/apis/apps/v1/deployments", k8s + "/apis/policy/v1/poddisruptionbudgets", k8s + "/api/v1/events",
		k8s + "/apis/coordination.k8s.io/v1/leases", "/compute/v1/projects/stress/zones/us-central1-a/instanceGroupManagers",
		"/compute/v1/projects/stress/regions/us-central1/forwardingRules", "/emulator/v1/events?limit=100", "/emulator/v1/clock",
		"/emulator/v1/faults", "/emulator/v1/projects/stress/locations/us-central1-a/clusters/c1/loadBalancers", "/metrics",
	}
	type step struct{ method, path, contentType, body string }
	writes := func(client, i int) []step {
		pod := fmt.Sprintf("p-%d-%d", client, i)
		svc := fmt.Sprintf("s-%d", client)
		return []step{
			{"POST", k8s + "/api/v1/namespaces/default/pods", "application/json",
				`{"metadata": {"name": "` + pod + `", "labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}`},
			{"PATCH", k8s + "/apis/apps/v1/namespaces/default/deployments/web/scale", "application/merge-patch+json",
				fmt.Sprintf(`{"spec": {"replicas": %d}}`, 2+(client+i)%6)},
			{"DELETE", k8s + "/api/v1/namespaces/default/pods/" + pod, "", ""},
			{"POST", k8s + "/api/v1/namespaces/default/services", "application/json",
				`{"metadata": {"name": "` + svc + `"}, "spec": {"type": "LoadBalancer", "selector": {"app": "web"}, "ports": [{"port": 80}]}}`},
			{"POST", loc + "/clusters/c1/nodePools/np:setSize", "application/json", fmt.Sprintf(`{"nodeCount": %d}`, 2+i%3)},
			{"DELETE", k8s + "/api/v1/namespaces/default/services/" + svc, "", ""},
			{"POST", "/emulator/v1/faults", "application/json", `{"kind": "LATENCY", "latency": "1ms", "pathPrefix": "/nothing"}`},
			{"POST", "/emulator/v1/clock:advance", "application/json", `{"duration": "5s"}`},
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, clients*iterations*4)
	for client := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range iterations {
				steps := []step{{"GET", reads[(client+i)%len(reads)], "", ""}, {"GET", reads[(client*7+i)%len(reads)], "", ""}}
				if client%2 == 0 {
					w := writes(client, i)
					steps = append(steps, w[i%len(w)])
				} else if i%5 == 0 {
					// A node cordoned and uncordoned through the Kubernetes API.
					code, body, err := send("GET", k8s+"/api/v1/nodes", "", "")
					if err == nil && code == http.StatusOK {
						if at := strings.Index(body, `"name": "gke-c1-np-`); at >= 0 {
							name := strings.SplitN(body[at+9:], `"`, 2)[0]
							steps = append(steps, step{"PATCH", k8s + "/api/v1/nodes/" + name, "application/strategic-merge-patch+json",
								fmt.Sprintf(`{"spec": {"unschedulable": %t}}`, i%10 == 0)})
						}
					}
				}
				for _, s := range steps {
					code, body, err := send(s.method, s.path, s.contentType, s.body)
					switch {
					case err != nil:
						errs <- fmt.Sprintf("%s %s: %v", s.method, s.path, err)
					case code >= 500:
						errs <- fmt.Sprintf("%s %s: HTTP %d: %.300s", s.method, s.path, code, body)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A request body that trickles in is cut off by the read timeout, as slow headers already are;
// a long answer (the event stream) is not.
func TestTricklingBodyIsCutOff(t *testing.T) {
	_, url := emulatortest.Start(t, emulator.Options{ReadTimeout: 300 * time.Millisecond, Start: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"kind": "STOCKOUT", "zone": "us-central1-a"}`
	fmt.Fprintf(conn, "POST /emulator/v1/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	start := time.Now()
	cut := false
	for i := 0; i < len(body) && time.Since(start) < 5*time.Second; i++ {
		if _, err := conn.Write([]byte{body[i]}); err != nil {
			cut = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Either the server closed the connection while the body trickled, or it answered with
	// an error without waiting for the rest.
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	answer, _ := io.ReadAll(conn)
	if !cut && strings.Contains(string(answer), " 200 OK") {
		t.Fatalf("a body sent over %s with a 300ms read timeout was accepted: %q", time.Since(start), answer)
	}
	if strings.Contains(string(answer), "fault-1") {
		t.Fatalf("the fault was injected: %q", answer)
	}

	// The event stream outlives the read timeout.
	resp, err := http.Get(url + "/emulator/v1/events?follow=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(time.Second)
	if _, err := http.Post(url+"/emulator/v1/faults", "application/json", strings.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		b := make([]byte, 4096)
		n, _ := resp.Body.Read(b)
		line <- string(b[:n])
	}()
	select {
	case l := <-line:
		if !strings.Contains(l, "FaultInjected") {
			t.Errorf("event stream after the read timeout: %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream stopped at the read timeout")
	}
}
