// Package conformance holds no code: its tests drive an in-process emulator with the real
// clients users point at GKE (the official Go client google.golang.org/api/container/v1 and the
// gcloud CLI) and check that what they read back is what GKE would answer.
package conformance
