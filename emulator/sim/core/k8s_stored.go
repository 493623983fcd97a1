package core

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// APITime is a time as the API server keeps it in an object (metav1.Time, whole seconds): a
// time stamped into an object that is saved reads back the same after a restart.
func APITime(t time.Time) metav1.Time { return metav1.NewTime(t.Truncate(time.Second)) }
