package model

import (
	"encoding/hex"
	"strings"
)

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

func LastSegment(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}
