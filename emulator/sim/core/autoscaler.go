package core

// SafeToEvictAnnotation marks pods the autoscaler must not evict (R-CA-2, R-EXT-*).
const SafeToEvictAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict"
