package model

import (
	"net/http"
	"strconv"
)

// Resource names as the API server spells them in messages.
const (
	ResNamespaces  = "namespaces"
	ResDeployments = "deployments.apps"
	ResPods        = "pods"
	ResPDBs        = "poddisruptionbudgets.policy"
	ResNodes       = "nodes"
)

func RVString(rv int64) string { return strconv.FormatInt(rv, 10) }

// NamespaceFor checks that a namespace exists and takes objects.
func (c *Cluster) NamespaceFor(ns string) error {
	n := c.Namespaces[ns]
	if n == nil {
		return KubeNotFound(ResNamespaces, ns)
	}
	if n.Terminating {
		return KubeError(http.StatusForbidden, "Forbidden", "unable to create new content in namespace %s because it is being terminated", ns)
	}
	return nil
}
