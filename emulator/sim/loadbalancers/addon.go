package loadbalancers

import (
	"encoding/json"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The HttpLoadBalancing add-on (R-LB-8): GKE's load balancer controller for the load
// balancers built on backend services. GKE subsetting's internal load balancers (GCE_VM_IP
// NEGs) and backend service-based external passthrough load balancers need it; target pools
// and internal load balancers without subsetting are the cloud provider's and do not.

// AddonsField is the cluster field that keeps its add-ons configuration (GKE's addonsConfig,
// stored as sent).
const AddonsField = "addonsConfig"

// HTTPLoadBalancingDisabled says whether an addonsConfig turns the HttpLoadBalancing add-on
// off; it is on unless disabled, as in GKE.
func HTTPLoadBalancingDisabled(addons json.RawMessage) bool {
	var a struct {
		HTTPLoadBalancing *struct {
			Disabled bool `json:"disabled"`
		} `json:"httpLoadBalancing"`
	}
	return len(addons) > 0 && json.Unmarshal(addons, &a) == nil && a.HTTPLoadBalancing != nil && a.HTTPLoadBalancing.Disabled
}

// httpLBDisabled says whether the HttpLoadBalancing add-on is off on c.
func httpLBDisabled(c *model.Cluster) bool { return HTTPLoadBalancingDisabled(c.Extra[AddonsField]) }

// NeedsHTTPLoadBalancing says whether GKE builds a kind of load balancer only with the
// HttpLoadBalancing add-on (R-LB-8).
func NeedsHTTPLoadBalancing(kind string) bool { return GKEL4Controller(kind) }

// CheckAddons refuses an add-ons configuration (field names it) that turns HttpLoadBalancing
// off where GKE needs it: on an Autopilot cluster, and on a cluster with GKE subsetting, which
// cannot be turned off (R-LB-4, R-LB-8).
func CheckAddons(c *model.Cluster, addons json.RawMessage, field string) error {
	if !HTTPLoadBalancingDisabled(addons) {
		return nil
	}
	field += ".httpLoadBalancing.disabled"
	if c.Autopilot {
		return model.InvalidField(field, true, "Autopilot clusters require the HttpLoadBalancing add-on; it cannot be disabled (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-8)")
	}
	if c.L4ILBSubsetting {
		return model.InvalidField(field, true, "GKE subsetting (networkConfig.enableL4ilbSubsetting) is enabled on cluster %s and requires the HttpLoadBalancing add-on, which therefore cannot be disabled; subsetting cannot be disabled once enabled (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-8)", c.Name)
	}
	return nil
}

// addonMissing is why a load balancer of this kind is not built on c, or "".
func addonMissing(c *model.Cluster, kind string) string {
	if !NeedsHTTPLoadBalancing(kind) || !httpLBDisabled(c) {
		return ""
	}
	return "the HttpLoadBalancing add-on is disabled on cluster " + c.Name + ", and GKE builds " + kind +
		" load balancers only with it: enable addonsConfig.httpLoadBalancing (GKE then builds it), or remove the cloud.google.com/l4-rbs annotation and recreate the Service for a target pool-based one (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/load-balancers#r-lb-8)"
}

// AddonsChanged follows a change of c's add-ons (before is the previous addonsConfig): once
// HttpLoadBalancing is on again, GKE builds the load balancers it could not build without it.
func (w *LoadBalancers) AddonsChanged(c *model.Cluster, before json.RawMessage) {
	if !HTTPLoadBalancingDisabled(before) || httpLBDisabled(c) {
		return
	}
	for _, key := range model.SortedKeys(c.Services) {
		s := c.Services[key]
		if s.LB != nil && s.LB.Failed != "" && NeedsHTTPLoadBalancing(s.LB.Kind) && !s.Deleting {
			w.releaseLB(c, s, "the HttpLoadBalancing add-on is enabled again; building it")
			w.ensureLB(c, s)
		}
	}
}
