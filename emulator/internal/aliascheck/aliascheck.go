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

// Index records the memory reachable from root (typically a pointer to the model). root must
// stay alive and unchanged while the Model is used.
func Index(root any) *Model {
	m := &Model{maps: map[unsafe.Pointer]string{}}
	seen := map[visitKey]bool{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || v.Type() == locationType {
				return
			}
			k := visitKey{v.UnsafePointer(), v.Type(), 0}
			if seen[k] {
				return
			}
			seen[k] = true
			m.add(v.UnsafePointer(), v.Type().Elem().Size(), path)
			walk(v.Elem(), path)
		case reflect.Slice:
			if v.IsNil() || v.Cap() == 0 {
				return
			}
			k := visitKey{v.UnsafePointer(), v.Type(), v.Len()}
			if seen[k] {
				return
			}
			seen[k] = true
			m.add(v.UnsafePointer(), uintptr(v.Cap())*v.Type().Elem().Size(), path)
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Map:
			if v.IsNil() {
				return
			}
			p := v.UnsafePointer()
			if _, ok := m.maps[p]; ok {
				return
			}
			m.maps[p] = path
			it := v.MapRange()
			for it.Next() {
				kp := fmt.Sprintf("%s[%v]", path, printable(it.Key()))
				walk(it.Key(), kp)
				walk(it.Value(), kp)
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		}
	}
	walk(reflect.ValueOf(root), "model")
	sort.Slice(m.spans, func(i, j int) bool { return m.spans[i].start < m.spans[j].start })
	return m
}

func (m *Model) add(p unsafe.Pointer, size uintptr, path string) {
	if size == 0 {
		return // zero-sized values may all share one address
	}
	start := uintptr(p)
	m.spans = append(m.spans, span{start: start, end: start + size, path: path})
}

// owner names the model memory that [start, start+size) overlaps, if any.
func (m *Model) owner(p unsafe.Pointer, size uintptr) (string, bool) {
	if size == 0 {
		return "", false
	}
	start, end := uintptr(p), uintptr(p)+size
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
	seen := map[visitKey]bool{}
	var walk func(v reflect.Value, path string)
	report := func(path, model string) { found = append(found, path+" -> "+model) }
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || v.Type() == locationType {
				return
			}
			if owner, ok := m.owner(v.UnsafePointer(), v.Type().Elem().Size()); ok {
				report(path, owner)
				return
			}
			k := visitKey{v.UnsafePointer(), v.Type(), 0}
			if seen[k] {
				return
			}
			seen[k] = true
			walk(v.Elem(), path)
		case reflect.Slice:
			if v.IsNil() || v.Cap() == 0 {
				return
			}
			if owner, ok := m.owner(v.UnsafePointer(), uintptr(v.Cap())*v.Type().Elem().Size()); ok {
				report(path, owner)
				return
			}
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Map:
			if v.IsNil() {
				return
			}
			if owner, ok := m.maps[v.UnsafePointer()]; ok {
				report(path, owner)
				return
			}
			it := v.MapRange()
			for it.Next() {
				kp := fmt.Sprintf("%s[%v]", path, printable(it.Key()))
				walk(it.Key(), kp)
				walk(it.Value(), kp)
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		}
	}
	walk(reflect.ValueOf(out), "answer")
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
