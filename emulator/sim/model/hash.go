package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
)

// The stable hashes of the simulation: the same input gives the same value in every run,
// on every machine, so that names, ids and spreads are reproducible from the seed.

// UIDOf derives a stable UUID-shaped id from names.
func UIDOf(parts ...string) string {
	var h [16]byte
	x := uint64(1469598103934665603)
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			x ^= uint64(p[i])
			x *= 1099511628211
		}
		x ^= 0xff
	}
	for i := range h {
		x ^= x >> 29
		x *= 0xbf58476d1ce4e5b9
		h[i] = byte(x >> 56)
	}
	// 8-4-4-4-12 hex digits, as Kubernetes writes uids.
	var out [36]byte
	hex.Encode(out[0:8], h[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], h[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], h[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], h[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], h[10:16])
	return string(out[:])
}

// TemplateHash is the pod-template-hash of a template: stable for equal templates.
func TemplateHash(t *corev1.PodTemplateSpec) string {
	b, _ := json.Marshal(t)
	h := fnv.New32a()
	h.Write(b)
	v := h.Sum32()
	out := make([]byte, 0, 10)
	for i := 0; i < 10; i++ {
		out = append(out, SafeChars[v%uint32(len(SafeChars))])
		v = v/uint32(len(SafeChars)) ^ uint32(i)*2654435761
	}
	return string(out)
}

// Digest is the first n hexadecimal digits of the SHA-256 of b: a content hash for names and
// fingerprints that stays the same for the same content.
func Digest(b []byte, n int) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:n]
}

// FNV32 is the 32-bit FNV-1a hash of s: a stable spread of objects over a range.
func FNV32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
