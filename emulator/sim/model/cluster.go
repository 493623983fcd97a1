package model

import (
	"strings"
)

// ValidateEnum checks a proto enum value; "" means unset.
func ValidateEnum(field, value string, allowed ...string) error {
	if value == "" || Contains(allowed, value) {
		return nil
	}
	return InvalidArgument("Invalid value at %q: %q is not a valid enum value. Allowed values: %s.", field, value, strings.Join(allowed, ", "))
}

// TargetPool is the pool a cluster-level node update applies to: the named one, or the only one.
func (c *Cluster) TargetPool(id string) (*NodePool, error) {
	if id == "" {
		if len(c.Pools) == 1 {
			return c.Pools[0], nil
		}
		return nil, InvalidArgument("The cluster has %d node pools; set update.desiredNodePoolId to the pool to change.", len(c.Pools))
	}
	p := c.Pool(id)
	if p == nil {
		return nil, NotFound("node pool %q not found.", id)
	}
	return p, nil
}
