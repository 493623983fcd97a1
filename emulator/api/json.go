// Package api holds the wire types of the emulator: GKE v1 JSON (field names exactly as
// container.googleapis.com v1), the Google error body, Kubernetes-shaped objects and the
// emulator's own control objects. It holds no behaviour beyond JSON encoding.
package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Int64 is a proto3 int64: a JSON string on output ("110"); Google front ends accept a number
// or a string on input, and so does this type.
type Int64 int64

// MarshalText makes the encoder write a JSON string without re-validating a custom encoding.
func (i Int64) MarshalText() ([]byte, error) {
	return strconv.AppendInt(nil, int64(i), 10), nil
}

func (i *Int64) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		return nil
	}
	s = strings.Trim(s, `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[int64]()}
	}
	*i = Int64(v)
	return nil
}

// Extra holds the JSON members of a GKE object that the emulator stores but does not simulate
// (addons, logging, IP allocation ...). They are kept verbatim and echoed back so that clients
// written for real GKE read back what they wrote.
type Extra map[string]json.RawMessage

// Clone copies e and its values, so that the copy can be read while e changes.
func (e Extra) Clone() Extra {
	if e == nil {
		return nil
	}
	out := make(Extra, len(e))
	for k, v := range e {
		out[k] = bytes.Clone(v)
	}
	return out
}

var knownKeys sync.Map // reflect.Type -> map[string]bool

// jsonKeys returns the JSON member names a struct type declares.
func jsonKeys(t reflect.Type) map[string]bool {
	if v, ok := knownKeys.Load(t); ok {
		return v.(map[string]bool)
	}
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys[name] = true
	}
	knownKeys.Store(t, keys)
	return keys
}

// unmarshalKeepingExtra decodes data into known (a pointer to a struct without its own
// UnmarshalJSON) and stores the members that struct does not declare in extra.
func unmarshalKeepingExtra(data []byte, known any, extra *Extra) error {
	if err := json.Unmarshal(data, known); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	keys := jsonKeys(reflect.TypeOf(known).Elem())
	for k, v := range all {
		if keys[k] {
			continue
		}
		if *extra == nil {
			*extra = Extra{}
		}
		(*extra)[k] = v
	}
	return nil
}

// marshalWithExtra encodes known and appends the members of extra (in key order): Extra holds
// only names known does not declare, so they never collide with what known produced.
func marshalWithExtra(known any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(known)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = b[:len(b)-1] // the closing brace
	for _, k := range keys {
		if len(b) > 1 {
			b = append(b, ',')
		}
		name, _ := json.Marshal(k)
		b = append(append(append(b, name...), ':'), extra[k]...)
	}
	return append(b, '}'), nil
}

// ParseDuration reads a google.protobuf.Duration ("3600s", "1.5s"); for people typing at the
// emulator's own API, a Go duration ("1h30m") works too.
func ParseDuration(s string) (time.Duration, error) {
	if strings.HasSuffix(s, "s") {
		if f, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64); err == nil {
			// NaN, infinities and spans beyond time.Duration's 292 years have no Duration.
			if ns := f * float64(time.Second); !(ns >= math.MinInt64 && ns < math.MaxInt64) {
				return 0, fmt.Errorf("duration %q is out of range (at most about 292 years)", s)
			}
			return time.Duration(f * float64(time.Second)), nil
		}
	}
	return time.ParseDuration(s)
}

// FormatDuration writes a google.protobuf.Duration: whole seconds as "3600s".
func FormatDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
