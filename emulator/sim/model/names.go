package model

import (
	"fmt"
	"regexp"
	"strings"
)

// GKE resource names: lowercase letters, digits and hyphens, starting with a letter, ending with
// a letter or digit, at most 40 characters (clusters and node pools alike).
var resourceNameRE = regexp.MustCompile(`^[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?$`)

func ValidateResourceName(field, name string) error {
	if name == "" {
		return InvalidArgument("Required field %q is missing. Give the resource a name.", field)
	}
	if !resourceNameRE.MatchString(name) {
		return InvalidField(field, fmt.Sprintf("%q", name),
			"Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)' (only lowercase letters, digits and '-' allowed, must start with a letter and end with a letter or digit, and must be at most 40 characters)")
	}
	return nil
}

// NodeNameBase is the "gke-CLUSTER-POOL" part of instance group and node names. GKE shortens
// the cluster and pool names so that a node name (base-HASH8-XXXX) stays at most 40 characters.
func NodeNameBase(cluster, pool string) string {
	c, p := nodeNameParts(cluster, pool)
	return "gke-" + c + "-" + p
}

// nodeNameParts are the cluster's and the pool's parts of their nodes' names (NodeNameBase).
func nodeNameParts(cluster, pool string) (string, string) {
	const budget = 40 - len("gke-") - len("-12345678-abcd") - 1 // cluster + pool
	c, p := cluster, pool
	if len(c)+len(p) > budget {
		keepC := max(budget-len(p), budget/2)
		if len(c) > keepC {
			c = c[:keepC]
		}
		if len(c)+len(p) > budget {
			p = p[:budget-len(c)]
		}
	}
	return strings.TrimRight(c, "-"), strings.TrimRight(p, "-")
}

// InstanceGroupName is the managed instance group of a pool in a zone: gke-C-P-HASH-grp.
func InstanceGroupName(cluster, pool, hash string) string {
	return NodeNameBase(cluster, pool) + "-" + hash + "-grp"
}

// NodeName is a node of an instance group: gke-C-P-HASH-XXXX.
func NodeName(cluster, pool, hash, suffix string) string {
	c, p := nodeNameParts(cluster, pool)
	return "gke-" + c + "-" + p + "-" + hash + "-" + suffix // one string built, not two
}

// QuoteList writes names as a comma-separated list of quoted strings: "a", "b".
func QuoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// NamespacedKey is the key of a namespaced object: namespace/name.
func NamespacedKey(namespace, name string) string { return namespace + "/" + name }

// cachedKey is NamespacedKey(namespace, name), kept in *cache: a Deployment's key is built
// once, not at every lookup (a pod's key is the pod's own field, its names parts of it). The
// cache is checked against the names, so an object renamed after its key was taken (an import
// setting fields one by one) still gets its own key.
func cachedKey(cache *string, namespace, name string) string {
	if k := *cache; len(k) == len(namespace)+1+len(name) && k[len(namespace)] == '/' && k[:len(namespace)] == namespace && k[len(namespace)+1:] == name {
		return k
	}
	*cache = NamespacedKey(namespace, name)
	return *cache
}

// KeyedPod is a new pod named by key (namespace/name): its Namespace and Name are parts of that
// one string, its key.
func KeyedPod(key string) *Pod { return &Pod{key: key} }

// NewPod is a new pod named name in namespace.
func NewPod(namespace, name string) *Pod { return KeyedPod(NamespacedKey(namespace, name)) }

// OwnerKey is the key (namespace/name) of the pod's owner, in the map of its owner's kind.
// A pod named after its owner (as a controller names its pods) takes it from its own key,
// without building a string.
func (p *Pod) OwnerKey() string {
	if name := p.Name(); strings.HasPrefix(name, p.Owner) {
		return p.key[:len(p.key)-len(name)+len(p.Owner)]
	}
	return NamespacedKey(p.Namespace(), p.Owner)
}

func LastSegment(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}
