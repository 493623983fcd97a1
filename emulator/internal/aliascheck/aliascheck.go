// Package aliascheck finds memory that an answer shares with the model it was rendered from.
//
// The simulation has one owner goroutine; HTTP handlers render answers on it and encode them on
// their own goroutines afterwards. An answer that holds a pointer into the model (a
// `Started: &p.Ready`, a label map handed on as it is, a slice that still backs the model's
// own) is read by the encoder while the simulation writes it: a data race that the race
// detector only sees when the timing is unlucky. This package sees it every time: Index walks
// the model and records every block of memory reachable from it (what pointers point at, the
// backing arrays of slices, maps), and Shared walks an answer and reports each pointer, slice
// or map of it that lands in one of those blocks.
//
// Strings are immutable and may be shared; *time.Location values are immutable tables shared
// by every time.Time and are not followed.
package aliascheck

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"time"
	"unsafe"
)

// Model is the memory reachable from a model root.
type Model struct {
	spans []span // sorted by start, after Index
	maps  map[unsafe.Pointer]string
}

type span struct {
	start, end uintptr
	path       string
}

var locationType = reflect.TypeFor[*time.Location]()

type visitKey struct {
	p   unsafe.Pointer
	t   reflect.Type
	len int
}

// block is a piece of memory a value refers to: what a pointer points at, a slice's backing
// array, or a map (known by its identity only).
type block struct {
	p     unsafe.Pointer
	size  uintptr
	isMap bool
}

// walk visits every block reachable from v, depth first. visit says whether to look inside the
// block; each block is looked inside once.
func walk(v reflect.Value, path string, visit func(b block, path string) bool) {
	seen := map[visitKey]bool{}
	var rec func(v reflect.Value, path string)
	enter := func(b block, k visitKey, path string) bool {
		if seen[k] || !visit(b, path) {
			return false
		}
		seen[k] = true
		return true
	}
	rec = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || v.Type() == locationType {
				return
			}
			if enter(block{p: v.UnsafePointer(), size: v.Type().Elem().Size()}, visitKey{v.UnsafePointer(), v.Type(), 0}, path) {
				rec(v.Elem(), path)
			}
		case reflect.Slice:
			if v.IsNil() || v.Cap() == 0 {
				return
			}
			b := block{p: v.UnsafePointer(), size: uintptr(v.Cap()) * v.Type().Elem().Size()}
			if enter(b, visitKey{v.UnsafePointer(), v.Type(), v.Len()}, path) {
				for i := 0; i < v.Len(); i++ {
					rec(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
				}
			}
		case reflect.Map:
			if v.IsNil() {
				return
			}
			if enter(block{p: v.UnsafePointer(), isMap: true}, visitKey{v.UnsafePointer(), v.Type(), 0}, path) {
				it := v.MapRange()
				for it.Next() {
					kp := fmt.Sprintf("%s[%v]", path, printable(it.Key()))
					rec(it.Key(), kp)
					rec(it.Value(), kp)
				}
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				rec(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Array:
			for i := 0; i < v.Len(); i++ {
				rec(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Interface:
			if !v.IsNil() {
				rec(v.Elem(), path)
			}
		}
	}
	rec(v, path)
}

// Index records the memory reachable from root (typically a pointer to the model). root must
// stay alive and unchanged while the Model is used.
func Index(root any) *Model {
	m := &Model{maps: map[unsafe.Pointer]string{}}
	walk(reflect.ValueOf(root), "model", func(b block, path string) bool {
		switch {
		case b.isMap:
			m.maps[b.p] = path
		case b.size > 0: // zero-sized values may all share one address
			m.spans = append(m.spans, span{start: uintptr(b.p), end: uintptr(b.p) + b.size, path: path})
		}
		return true
	})
	sort.Slice(m.spans, func(i, j int) bool { return m.spans[i].start < m.spans[j].start })
	return m
}

// owner names the model memory that block b overlaps, if any.
func (m *Model) owner(b block) (string, bool) {
	if b.isMap {
		path, ok := m.maps[b.p]
		return path, ok
	}
	if b.size == 0 {
		return "", false
	}
	start, end := uintptr(b.p), uintptr(b.p)+b.size
	// Spans may nest (a pointer into a struct that another pointer covers): look at every span
	// that starts before end, from the nearest down, until one overlaps. Spans are few enough
	// in tests for the linear fallback to be cheap.
	i := sort.Search(len(m.spans), func(i int) bool { return m.spans[i].start >= end })
	for j := i - 1; j >= 0; j-- {
		if s := m.spans[j]; s.end > start {
			return s.path, true
		}
	}
	return "", false
}

// Shared reports each pointer, slice and map reachable from out that points into the model,
// as "answer path -> model path". An empty result means out owns all its memory.
func (m *Model) Shared(out any) []string {
	var found []string
	walk(reflect.ValueOf(out), "answer", func(b block, path string) bool {
		if owner, ok := m.owner(b); ok {
			found = append(found, path+" -> "+owner)
			return false
		}
		return true
	})
	slices.Sort(found)
	return found
}

// printable is a map key as a path element (keys of unexported fields cannot be Interface()d).
func printable(k reflect.Value) string {
	switch k.Kind() {
	case reflect.String:
		return k.String()
	case reflect.Int, reflect.Int64, reflect.Int32:
		return fmt.Sprint(k.Int())
	}
	return k.Type().String()
}
