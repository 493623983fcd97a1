package client

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"
)

// Node pool upgrades as the APIs show them: the pool's UPGRADE_NODES operations (GKE has no
// "current upgrade" field; the operation list is where gcloud finds it too), the ETA the
// emulator writes at the end of an upgrade operation's detail, and the pool's nodes by zone
// and version from the cluster's Kubernetes API.

// OpUpgradeNodes is the operation type of node-pool upgrades (and other node-pool updates).
const OpUpgradeNodes = "UPGRADE_NODES"

// UpgradeOperations lists the UPGRADE_NODES operations of the node pools of a cluster, oldest
// first. pool narrows them to one pool when not empty.
func (c *Client) UpgradeOperations(ctx context.Context, project, location, cluster, pool string) ([]*container.Operation, error) {
	resp, err := c.GKE.Projects.Locations.Operations.List("projects/" + project + "/locations/" + location).Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("list operations in %s: %s", location, Message(err))
	}
	target := "/clusters/" + cluster + "/nodePools/"
	if pool != "" {
		target += pool
	}
	var out []*container.Operation
	for _, op := range resp.Operations {
		if op.OperationType != OpUpgradeNodes || (op.Location != "" && op.Location != location) {
			continue
		}
		i := strings.Index(op.TargetLink, target)
		if i < 0 || (pool != "" && i+len(target) != len(op.TargetLink)) {
			continue
		}
		out = append(out, op)
	}
	return out, nil
}

// Running says whether an operation is not done yet.
func Running(op *container.Operation) bool {
	return op != nil && op.Status != "DONE"
}

// PoolOf is the node pool an operation targets ("" when it targets a cluster).
func PoolOf(op *container.Operation) string {
	if i := strings.LastIndex(op.TargetLink, "/nodePools/"); i >= 0 {
		return op.TargetLink[i+len("/nodePools/"):]
	}
	return ""
}

var etaRE = regexp.MustCompile(`; ETA (\S+)$`)

// OperationETA is the estimated end of an upgrade: the emulator ends an UPGRADE_NODES
// operation's detail with "; ETA <RFC 3339 time>" once it can tell.
func OperationETA(op *container.Operation) (time.Time, bool) {
	if op == nil {
		return time.Time{}, false
	}
	m := etaRE.FindStringSubmatch(op.Detail)
	if m == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, m[1])
	return t, err == nil
}

// Metric is an operation's progress metric by name: its integer or string value.
func Metric(op *container.Operation, name string) (int64, string, bool) {
	if op == nil || op.Progress == nil {
		return 0, "", false
	}
	for _, m := range op.Progress.Metrics {
		if m.Name == name {
			return m.IntValue, m.StringValue, true
		}
	}
	return 0, "", false
}

// ZoneVersions counts a pool's nodes per zone and version.
type ZoneVersions map[string]map[string]int64

// Zones lists the zones, sorted.
func (z ZoneVersions) Zones() []string {
	out := make([]string, 0, len(z))
	for zone := range z {
		out = append(out, zone)
	}
	sort.Strings(out)
	return out
}

// Versions totals the counts over the zones.
func (z ZoneVersions) Versions() map[string]int64 {
	out := map[string]int64{}
	for _, vs := range z {
		for v, n := range vs {
			out[v] += n
		}
	}
	return out
}

// PoolNodeVersions counts the Ready nodes of a pool per zone and kubelet version, from the
// cluster's Kubernetes API (VMs still booting are not nodes yet; nodes being deleted are not
// Ready).
func (c *Client) PoolNodeVersions(ctx context.Context, project, location, cluster, pool string) (ZoneVersions, error) {
	var nodes corev1.NodeList
	q := url.Values{"labelSelector": {"cloud.google.com/gke-nodepool=" + pool}}
	if err := c.Kube(project, location, cluster).List(ctx, NodesPath(), q, &nodes); err != nil {
		return nil, fmt.Errorf("list the nodes of node pool %s: %w", pool, err)
	}
	out := ZoneVersions{}
	for _, n := range nodes.Items {
		if !nodeReady(&n) {
			continue
		}
		zone := n.Labels["topology.kubernetes.io/zone"]
		if out[zone] == nil {
			out[zone] = map[string]int64{}
		}
		out[zone][strings.TrimPrefix(n.Status.NodeInfo.KubeletVersion, "v")]++
	}
	return out, nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
