package aliascheck

import (
	"strings"
	"testing"
	"time"
)

type pod struct {
	Name   string
	Ready  bool
	Labels map[string]string
	IPs    []string
	Start  time.Time
	inner  *node
}

type node struct{ Zone string }

type model struct {
	Pods  map[string]*pod
	Nodes []node
}

type status struct {
	Started *bool
	Labels  map[string]string
	IPs     []string
	Node    *node
	Name    string
	Start   time.Time
}

func TestShared(t *testing.T) {
	n := &node{Zone: "us-central1-a"}
	p := &pod{Name: "web", Ready: true, Labels: map[string]string{"app": "web"}, IPs: []string{"10.0.0.1"},
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600)), inner: n}
	m := &model{Pods: map[string]*pod{"web": p}, Nodes: []node{{Zone: "z1"}, {Zone: "z2"}}}
	idx := Index(m)

	ready := p.Ready
	for _, tc := range []struct {
		name string
		out  any
		want []string
	}{
		{"owned copies", &status{Started: &ready, Labels: map[string]string{"app": "web"}, IPs: append([]string(nil), p.IPs...),
			Name: p.Name, Start: p.Start}, nil},
		{"interior pointer", &status{Started: &p.Ready}, []string{"answer.Started -> model.Pods[web]"}},
		{"shared map", &status{Labels: p.Labels}, []string{"answer.Labels -> model.Pods[web].Labels"}},
		{"shared slice", &status{IPs: p.IPs[:1]}, []string{"answer.IPs -> model.Pods[web].IPs"}},
		{"pointer reached through an unexported field", &status{Node: n}, []string{"answer.Node -> model.Pods[web].inner"}},
		{"pointer into a slice element", &status{Node: &m.Nodes[1]}, []string{"answer.Node -> model.Nodes"}},
		{"the model itself", []*pod{p}, []string{"answer[0] -> model.Pods[web]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := idx.Shared(tc.out)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Shared = %q, want %q", got, tc.want)
			}
		})
	}
}
