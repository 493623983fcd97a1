package model

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Service is a core/v1 Service. Spec is kept as sent (defaulted and allocated); the status and
// GKE's annotations are rendered from the load balancer.
type Service struct {
	Namespace   string             `json:"namespace"`
	Name        string             `json:"name"`
	UID         string             `json:"uid"`
	Labels      map[string]string  `json:"labels,omitempty"`
	Annotations map[string]string  `json:"annotations,omitempty"`
	Spec        corev1.ServiceSpec `json:"spec"`
	CreateTime  time.Time          `json:"createTime"`
	RV          int64              `json:"rv"`
	// System marks the Services every cluster has (kubernetes, kube-dns).
	System bool `json:"system,omitempty"`
	// Deleting: the Service is deleted but keeps its finalizer until its load balancer is gone.
	Deleting     bool      `json:"deleting,omitempty"`
	DeletionTime time.Time `json:"deletionTime,omitempty"`
	// LB is what GKE built for it (type LoadBalancer), if anything.
	LB            *LoadBalancer               `json:"lb,omitempty"`
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// Key is namespace/name.
func (s *Service) Key() string { return NamespacedKey(s.Namespace, s.Name) }

func (s *Service) Local() bool {
	return s.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// ServicesByName returns the cluster's Services, making the map on first use.
func (c *Cluster) ServicesByName() map[string]*Service {
	if c.Services == nil {
		c.Services = map[string]*Service{}
	}
	return c.Services
}
