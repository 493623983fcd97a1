package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// A repeated GET is answered from the bytes rendered for it while the world stands still, even
// with the simulation goroutine busy; any change (a mutation, the clock running events) makes
// the next GET render again, and the answer is what a fresh render gives.
func TestReadsAnsweredWhileTheSimulationIsBusy(t *testing.T) {
	e := newEnv(t).withBase()
	path := poolA + "?prettyPrint=false"
	code, first := e.Call("GET", path, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %s", path, code, first)
	}

	// Hold the simulation goroutine in a command; the same read is answered meanwhile.
	held, release := make(chan struct{}), make(chan struct{})
	doneHold := make(chan error, 1)
	go func() {
		doneHold <- e.srv.runner.Do(context.Background(), func(*sim.World) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	// The timeout bounds a failure (a read queued behind the held command); it times nothing.
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(e.URL + path)
	if err != nil {
		close(release)
		t.Fatalf("GET %s while the simulation was busy: %v (the read waited for it)", path, err)
	}
	var again []byte
	again, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	close(release)
	if err != nil || resp.StatusCode != http.StatusOK || string(again) != string(first) {
		t.Fatalf("GET %s while the simulation was busy: HTTP %d %v\n%s\nwant the same bytes as before\n%s", path, resp.StatusCode, err, again, first)
	}
	if err := <-doneHold; err != nil {
		t.Fatal(err)
	}

	// A mutation is seen at once, and so are the events the clock runs afterwards.
	var op api.Operation
	e.OK("POST", poolA+":setSize", `{"nodeCount": 3}`, &op)
	var np api.NodePool
	e.OK("GET", path, nil, &np)
	if np.Status != "RECONCILING" {
		t.Fatalf("pool is %s right after setSize was accepted, want RECONCILING", np.Status)
	}
	e.Wait(&op)
	e.OK("GET", path, nil, &np)
	if np.Status != "RUNNING" {
		t.Fatalf("pool is %s after its resize finished, want RUNNING", np.Status)
	}
	// What the cache answers is what a render gives: the pretty form (a different request) says
	// the same.
	_, compact := e.Call("GET", path, nil)
	_, pretty := e.Call("GET", poolA, nil)
	var a, b any
	if json.Unmarshal(compact, &a) != nil || json.Unmarshal(pretty, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("cached compact answer and a fresh pretty one differ:\n%s\n%s", compact, pretty)
	}
}

// answer is what a handler wrote: status, headers and body.
type answer struct {
	code   int
	header http.Header
	body   string
}

// serve sends a request to h in process (Host 127.0.0.1 unless header says otherwise) and
// returns what it answered.
func serve(h func(http.ResponseWriter, *http.Request), method, target string, header map[string]string) answer {
	req := httptest.NewRequest(method, target, nil)
	req.Host = "127.0.0.1"
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h(rec, req)
	return answer{rec.Code, rec.Result().Header, rec.Body.String()}
}

// takenAhead says whether serveCachedRead answers the request itself, and what it answered.
func (e *env) takenAhead(method, target string, header map[string]string) (bool, answer) {
	var taken bool
	a := serve(func(w http.ResponseWriter, r *http.Request) { taken = e.srv.serveCachedRead(w, r) }, method, target, header)
	return taken, a
}

// A repeated GKE read answered ahead of Echo's router (serveCachedRead) gets what the request
// chain answers, status, headers and bytes; every other request (a first read, a refused or
// unknown one, another method) is left to the chain, and ServeHTTP answers it as the chain does.
func TestCachedReadsAnswerAsTheRequestChain(t *testing.T) {
	e := newEnv(t).withBase()
	op := e.Mutate("POST", poolA+":setSize", `{"nodeCount": 2}`)
	v1beta1 := strings.Replace(poolA, "/v1/", "/v1beta1/", 1)
	for _, tc := range []struct {
		method, target string
		// ahead says whether serveCachedRead answers the request once the chain answered it.
		ahead bool
	}{
		{"GET", poolA + "?prettyPrint=false", true},
		{"GET", poolA, true},
		{"GET", poolA + "?fields=name,status&alt=json", true},
		{"GET", poolA + "?prettyPrint=false&fields=name", true}, // another query: another answer
		{"GET", v1beta1, true},
		{"GET", base, true},
		{"GET", base + "?prettyPrint=false", true},
		{"GET", pools, true},
		{"GET", clusters, true},
		{"GET", locPath + "/operations/" + op.Name, true},
		{"GET", locPath + "/operations", true},
		{"GET", poolA + "?fields=name%2Cstatus", true},                  // percent-encoded: its own key
		{"GET", strings.Replace(poolA, "pool-a", "pool-%61", 1), false}, // the router's 404 (Echo leaves %61 as is)
		{"GET", poolA + "/", false},                                     // trailing slash: the router's 404
		{"GET", pools + "/nope", false},                                 // not found: errors are never kept
		{"GET", poolA + ":explode", false},
		{"GET", locPath + "/operations/nope", false},
		{"GET", "/v1/projects/proj/locations/nowhere/clusters/c1", false},
		{"GET", locPath + "/serverConfig", false}, // not a cached read
		{"HEAD", poolA, false},
		{"OPTIONS", poolA, false},
		{"GET", "/healthz", false},
		{"GET", k8sBase + "/api/v1/nodes", false},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			first := serve(e.srv.e.ServeHTTP, tc.method, tc.target, nil) // the chain renders (and keeps)
			again := serve(e.srv.e.ServeHTTP, tc.method, tc.target, nil)
			taken, ahead := e.takenAhead(tc.method, tc.target, nil)
			if taken != tc.ahead {
				t.Fatalf("answered ahead of the router: %v, want %v (the chain answered HTTP %d)", taken, tc.ahead, first.code)
			}
			if taken && !reflect.DeepEqual(ahead, first) {
				t.Errorf("answered ahead of the router:\n%+v\nthe chain's first answer:\n%+v", ahead, first)
			}
			if served := serve(e.srv.ServeHTTP, tc.method, tc.target, nil); !reflect.DeepEqual(served, again) {
				t.Errorf("ServeHTTP answered\n%+v\nthe chain answers\n%+v", served, again)
			}
		})
	}
}

// Every check of the request chain applies to a read answered ahead of the router: a host the
// emulator does not answer to, a missing token and an injected fault get the chain's refusal,
// and the request is logged as the chain logs it.
func TestCachedReadsPassTheChainsChecks(t *testing.T) {
	target := poolA + "?prettyPrint=false"
	// wantChain checks that the request is left to the chain and answered as it answers.
	wantChain := func(t *testing.T, e *env, target string, header map[string]string, wantCode int) answer {
		t.Helper()
		if taken, _ := e.takenAhead("GET", target, header); taken {
			t.Fatalf("answered ahead of the router, want the chain's HTTP %d", wantCode)
		}
		served, chain := serve(e.srv.ServeHTTP, "GET", target, header), serve(e.srv.e.ServeHTTP, "GET", target, header)
		if served.code != wantCode || !reflect.DeepEqual(served, chain) {
			t.Fatalf("ServeHTTP answered\n%+v\nthe chain\n%+v\nwant HTTP %d", served, chain, wantCode)
		}
		return served
	}
	t.Run("host", func(t *testing.T) {
		e := newEnv(t).withBase()
		serve(e.srv.ServeHTTP, "GET", target, nil)
		wantChain(t, e, target, map[string]string{"Host": "rebound.example.com"}, http.StatusForbidden)
	})
	t.Run("token", func(t *testing.T) {
		const token = "s3cret"
		e := newEnvWith(t, Options{AuthToken: token})
		target := clusters + "?prettyPrint=false" // no cluster: the bench creates them without the token
		bearer := map[string]string{"Authorization": "Bearer " + token}
		first := serve(e.srv.ServeHTTP, "GET", target, bearer)
		if taken, ahead := e.takenAhead("GET", target, bearer); !taken || !reflect.DeepEqual(ahead, first) {
			t.Fatalf("with the token: answered ahead %v\n%+v\nwant\n%+v", taken, ahead, first)
		}
		for _, h := range []map[string]string{nil, {"Authorization": "Bearer nope"}, {"Authorization": "Basic " + token}} {
			a := wantChain(t, e, target, h, http.StatusUnauthorized)
			if a.header.Get("WWW-Authenticate") == "" || !strings.Contains(a.body, "UNAUTHENTICATED") {
				t.Errorf("without the token: %+v", a)
			}
		}
	})
	t.Run("fault", func(t *testing.T) {
		e := newEnv(t).withBase()
		e.OK("POST", "/emulator/v1/faults", sim.Fault{Kind: sim.FaultAPIError, Code: http.StatusServiceUnavailable, Rate: 0.5, PathPrefix: poolA}, nil)
		// The fault counts the requests it matches and fails the second of every two: each
		// request goes through it, the ones it lets pass too (whose answer the cache keeps).
		for i, want := range []int{http.StatusOK, http.StatusServiceUnavailable, http.StatusOK, http.StatusServiceUnavailable} {
			if taken, _ := e.takenAhead("GET", target, nil); taken {
				t.Fatalf("request %d under a fault answered ahead of the router", i+1)
			}
			a := serve(e.srv.ServeHTTP, "GET", target, nil)
			if a.code != want || want != http.StatusOK && !strings.Contains(a.body, "injected fault") {
				t.Fatalf("request %d under a fault of rate 0.5: %+v, want HTTP %d", i+1, a, want)
			}
		}
	})
	t.Run("log", func(t *testing.T) {
		var logged bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug,
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey || a.Key == "duration" {
					return slog.Attr{}
				}
				return a
			}}))
		e := newEnvWith(t, Options{Logger: log}).withBase()
		serve(e.srv.ServeHTTP, "GET", target, nil)
		logged.Reset()
		serve(e.srv.e.ServeHTTP, "GET", target, nil)
		chain := logged.String()
		logged.Reset()
		if taken, _ := e.takenAhead("GET", target, nil); !taken {
			t.Fatal("a repeated read was left to the chain")
		}
		if want := "level=DEBUG msg=request method=GET path=" + poolA + " status=200\n"; logged.String() != chain || chain != want {
			t.Errorf("logged ahead of the router %q, by the chain %q, want %q", logged.String(), chain, want)
		}
	})
}
