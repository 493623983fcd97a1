package server

import (
	"net/http"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// API_ERROR faults on the same path fire independently: each fails its own share of the
// requests, rather than the first one all of them.
func TestAPIErrorFaultsFireIndependently(t *testing.T) {
	run := func(t *testing.T, faults []sim.Fault, n int) map[int]int {
		e := newEnv(t).withBase()
		for _, f := range faults {
			e.OK("POST", "/emulator/v1/faults", f, nil)
		}
		got := map[int]int{}
		for i := 0; i < n; i++ {
			code, _ := e.Call("GET", poolA, nil)
			got[code]++
		}
		return got
	}
	fault := func(code int, rate float64) sim.Fault {
		return sim.Fault{Kind: sim.FaultAPIError, Code: code, Rate: rate, PathPrefix: clusters}
	}
	// The count: 199 requests under 429 at 0.2 and 503 at 0.2 gave 39 x 429 and no
	// 503. Each fault is due on its requests 5, 10, ... 195; when both are due the 429 answers
	// that request and the 503 the next one.
	got := run(t, []sim.Fault{fault(http.StatusTooManyRequests, 0.2), fault(http.StatusServiceUnavailable, 0.2)}, 199)
	if got[http.StatusTooManyRequests] != 39 || got[http.StatusServiceUnavailable] != 39 || got[http.StatusOK] != 121 {
		t.Fatalf("199 requests under two 0.2 faults: %v, want 39 x 429, 39 x 503, 121 x 200", got)
	}
	// Three faults, 0.2 + 0.2 + 0.1: of 103 requests (the last errors due on request 100 are
	// answered on 101 and 102), 20, 20 and 10 fail.
	got = run(t, []sim.Fault{fault(http.StatusTooManyRequests, 0.2), fault(http.StatusServiceUnavailable, 0.2), fault(http.StatusInternalServerError, 0.1)}, 103)
	if got[http.StatusTooManyRequests] != 20 || got[http.StatusServiceUnavailable] != 20 || got[http.StatusInternalServerError] != 10 || got[http.StatusOK] != 53 {
		t.Fatalf("103 requests under 0.2 + 0.2 + 0.1 faults: %v, want 20 x 429, 20 x 503, 10 x 500, 53 x 200", got)
	}
}
