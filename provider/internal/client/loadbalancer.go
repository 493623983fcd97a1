package client

import (
	"context"
	"net/url"
)

// Services and the emulator's view of their load balancers.

// ServicePath is a namespace's Services, or one of them when name is given.
func ServicePath(ns, name string) string {
	return objectPath("/api/v1/namespaces/"+url.PathEscape(ns)+"/services", name)
}

// LoadBalancerStatus is what the emulator reports of a Service's load balancer (GET
// /emulator/v1/projects/P/locations/L/clusters/C/loadBalancers/NS/NAME).
type LoadBalancerStatus struct {
	Kind            string   `json:"kind"`
	State           string   `json:"state"`
	IP              string   `json:"ip"`
	Resources       []string `json:"resources"`
	BackendCount    int      `json:"backendCount"`
	HealthyBackends int      `json:"healthyBackends"`
	Warnings        []string `json:"warnings"`
	Backends        []struct {
		Node      string `json:"node"`
		Health    string `json:"health"`
		TransitAt string `json:"transitionAt"`
	} `json:"backends"`
}

// Settled says whether no backend's health is about to change.
func (s *LoadBalancerStatus) Settled() bool {
	for _, b := range s.Backends {
		if b.TransitAt != "" || b.Health == "" {
			return false
		}
	}
	return true
}

// LoadBalancer reads the status of a Service's load balancer.
func (c *Client) LoadBalancer(ctx context.Context, project, location, cluster, ns, name string) (*LoadBalancerStatus, error) {
	var out LoadBalancerStatus
	u := c.Endpoint + "/emulator/v1/" + ClusterName(project, location, cluster) + "/loadBalancers/" + url.PathEscape(ns) + "/" + url.PathEscape(name)
	if err := c.GetJSON(ctx, u, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
