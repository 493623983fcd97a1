package model

import (
	"testing"
	"time"
)

// The stable hashes name objects and spread them: their values must not change between
// versions (saved states and golden traces carry names made from them).
func TestStableHashesKeepTheirValues(t *testing.T) {
	if got := Digest([]byte("cluster-id/abc"), 16); got != Digest([]byte("cluster-id/abc"), 16) || len(got) != 16 {
		t.Fatalf("Digest is not stable or not 16 digits: %q", got)
	}
	if got, want := Digest([]byte(""), 8), "e3b0c442"; got != want { // SHA-256 of nothing
		t.Errorf("Digest of nothing = %q, want %q", got, want)
	}
	if got, want := FNV32("a"), uint32(0xe40c292c); got != want { // FNV-1a of "a"
		t.Errorf("FNV32(a) = %#x, want %#x", got, want)
	}
	if a, b := UIDOf("c1", "ns", "kube-system"), UIDOf("c1", "ns", "kube-system"); a != b || a == UIDOf("c2", "ns", "kube-system") {
		t.Errorf("UIDOf is not stable, or not different per cluster: %s %s", a, b)
	}
}

func TestDurationFormats(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{ShortDuration(4 * time.Hour), "4h"},
		{ShortDuration(90 * time.Minute), "1h30m"},
		{ShortDuration(45 * time.Second), "45s"},
		{DaysDuration(30 * Day), "30 days"},
		{DaysDuration(2*Day + 4*time.Hour), "2 days 4h0m0s"},
		{HoursDuration(4 * time.Hour), "4h"},
		{HoursDuration(90 * time.Minute), "1.5h"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestKeysAndEvents(t *testing.T) {
	p := NewPod("shop", "web-1")
	p.Owner = "web"
	if p.Key() != "shop/web-1" || p.OwnerKey() != "shop/web" || NamespacedKey("a", "b") != "a/b" {
		t.Errorf("keys: %s %s", p.Key(), p.OwnerKey())
	}
	if ev := PodEvent("pod.started", "p/l/c", p); ev.PodKey() != "shop/web-1" || ev.Node != "shop/web-1" {
		t.Errorf("a pod event keeps its pod in the node field (the saved form): %+v", ev)
	}
	if ev := DeploymentEvent("deployment.sync", "p/l/c", "shop/web"); ev.DeploymentKey() != "shop/web" {
		t.Errorf("deployment event: %+v", ev)
	}
	if ev := LBEvent("lb.health", "p/l/c", "shop/web", "node-1", 3); ev.LBGeneration() != "3" || ev.Node != "node-1" || ev.Service != "shop/web" {
		t.Errorf("load balancer event: %+v", ev)
	}
	if QuoteList([]string{"a", "b"}) != `"a", "b"` {
		t.Errorf("QuoteList: %s", QuoteList([]string{"a", "b"}))
	}
}
