// Package googlejson reads request bodies the way Google's API front ends do: every member
// must be a field of the request message (Google answers `400 INVALID_ARGUMENT` with
// `Invalid JSON payload received. Unknown name "x" at 'cluster': Cannot find field.`), each
// value must have its field's JSON type, and a field may be named by its JSON name
// (`nodeConfig`) or its proto name (`node_config`).
//
// The schema of a message is read by reflection from a Go type whose json tags name its
// fields: for the GKE and Compute APIs, the official client's types
// (google.golang.org/api/container/v1, .../v1beta1, .../compute/v1), which know every field of
// the real API, so that a field GKE has and the emulator does not simulate is accepted (and
// stored) while a typo is refused.
package googlejson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// MaxViolations bounds the violations one body reports (a body of thousands of unknown
// members gets the first ones).
const MaxViolations = 50

// Violation is one google.rpc.BadRequest field violation.
type Violation struct {
	// Field is the proto path of the message that holds the bad member ("cluster.node_config"),
	// empty at the root.
	Field       string
	Description string
}

// Message is the schema of a request message.
type Message struct {
	name   string // "google.container.v1.Cluster"
	fields map[string]*field
	// byProto maps proto names (node_config) to JSON names (nodeConfig).
	byProto map[string]string
}

type kind int

const (
	kindAny kind = iota // any JSON value (google.protobuf.Value, opaque types)
	kindMessage
	kindString
	kindBytes
	kindBool
	kindInt32
	kindInt64
	kindUint64
	kindDouble
)

var typeNames = map[kind]string{kindString: "TYPE_STRING", kindBytes: "TYPE_BYTES", kindBool: "TYPE_BOOL",
	kindInt32: "TYPE_INT32", kindInt64: "TYPE_INT64", kindUint64: "TYPE_UINT64", kindDouble: "TYPE_DOUBLE"}

type field struct {
	json, proto string
	kind        kind
	repeated    bool
	isMap       bool
	// quoted: the official client writes this integer as a JSON string (proto int64/uint64).
	quoted bool
	msg    *Message
	// goType resolves msg lazily: message types are recursive.
	goType reflect.Type
}

var (
	cacheMu sync.Mutex
	cache   = map[reflect.Type]*Message{}
)

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// For returns the schema of the message a struct type (or pointer to one) describes.
func For(t reflect.Type) *Message {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	return forLocked(t)
}

// ForValue is For(reflect.TypeOf(v)).
func ForValue(v any) *Message { return For(reflect.TypeOf(v)) }

func forLocked(t reflect.Type) *Message {
	if m, ok := cache[t]; ok {
		return m
	}
	m := &Message{name: protoPackage(t.PkgPath()) + "." + t.Name(), fields: map[string]*field{}, byProto: map[string]string{}}
	cache[t] = m
	addFields(m, t)
	for _, f := range m.fields {
		if f.goType != nil {
			f.msg = forLocked(f.goType)
		}
	}
	return m
}

func addFields(m *Message, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			addFields(m, sf.Type) // promoted fields, as encoding/json sees them
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f := &field{json: name, proto: protoName(name)}
		f.quoted = strings.Contains(","+opts+",", ",string,")
		classify(f, sf.Type, strings.HasPrefix(t.PkgPath(), "google.golang.org/api/"))
		m.fields[name] = f
		m.byProto[f.proto] = name
	}
}

// classify sets a field's kind from its Go type. The official client (google) writes proto
// int32 and uint32 fields as Go int64 without the string option, and int64 fields with it.
func classify(f *field, t reflect.Type, google bool) {
	if t == rawMessageType || t.Kind() == reflect.Interface || t.Name() == "RawMessage" {
		f.kind = kindAny
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		classify(f, t.Elem(), google)
		return
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			f.kind = kindBytes
			return
		}
		f.repeated = true
		classify(f, t.Elem(), google)
		return
	case reflect.Map:
		f.isMap = true
		classify(f, t.Elem(), google)
		return
	}
	// A type of the emulator's own that decodes itself is taken as it decodes; the official
	// client's types decode themselves only to read floats, and are described by their fields.
	if reflect.PointerTo(t).Implements(unmarshalerType) && !strings.HasPrefix(t.PkgPath(), "google.golang.org/api/") {
		f.kind = kindAny
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		f.kind, f.goType = kindMessage, t
	case reflect.String:
		f.kind = kindString
	case reflect.Bool:
		f.kind = kindBool
	case reflect.Int8, reflect.Int16, reflect.Int32:
		f.kind = kindInt32
	case reflect.Int, reflect.Int64:
		f.kind = kindInt64
		if google && !f.quoted {
			f.kind = kindInt32
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f.kind = kindUint64
	case reflect.Float32, reflect.Float64:
		f.kind = kindDouble
	default:
		f.kind = kindAny
	}
}

// protoName is the proto field name of a JSON name: lowerCamelCase to snake_case.
func protoName(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// protoPackage is the proto package of a Go package of the official client.
func protoPackage(pkg string) string {
	switch {
	case strings.HasPrefix(pkg, "google.golang.org/api/container/"):
		return "google.container." + pkg[strings.LastIndexByte(pkg, '/')+1:]
	case strings.HasPrefix(pkg, "google.golang.org/api/compute/"):
		return "google.cloud.compute." + pkg[strings.LastIndexByte(pkg, '/')+1:]
	}
	return "gkesim.emulator.v1"
}

// ErrSyntax wraps a body that is not JSON at all.
var ErrSyntax = errors.New("not JSON")

// Check reads body as the message m (root is the proto name of the request field the body
// fills, "" when the body is the whole request). It returns the body with every member named
// by its JSON name and every scalar in the form the official client writes (int64 as a
// string, int32 as a number), and the violations, in the order of the body. A body that is not
// JSON returns an error wrapping ErrSyntax (and json's error).
func (m *Message) Check(body []byte, root string) ([]byte, []Violation, error) {
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		return nil, nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	c := &checker{}
	raw := bytes.TrimSpace(body)
	if valueKind(raw) != '{' {
		c.violate("", `Invalid JSON payload received. Unknown name "": Root element must be a message.`)
		return nil, c.violations, nil
	}
	c.object(raw, m, root)
	if len(c.violations) > 0 {
		return nil, c.violations, nil
	}
	return c.out.Bytes(), nil, nil
}

type checker struct {
	out        bytes.Buffer
	violations []Violation
}

func (c *checker) violate(path, format string, args ...any) {
	if len(c.violations) < MaxViolations {
		c.violations = append(c.violations, Violation{Field: path, Description: fmt.Sprintf(format, args...)})
	}
}

func at(path string) string {
	if path == "" {
		return ""
	}
	return " at '" + path + "'"
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// valueKind is the first byte of a JSON value: '{', '[', '"', 't', 'f', 'n' or a number's.
func valueKind(raw []byte) byte {
	if len(raw) == 0 {
		return 0
	}
	switch b := raw[0]; b {
	case 'f':
		return 't'
	default:
		return b
	}
}

type member struct {
	key   string
	value json.RawMessage
}

// members splits a valid JSON object into its members, in order.
func members(raw []byte) []member {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_, _ = dec.Token() // {
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, member{key: tok.(string), value: v})
	}
	return out
}

// elements splits a valid JSON array into its elements.
func elements(raw []byte) []json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	_, _ = dec.Token() // [
	var out []json.RawMessage
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, v)
	}
	return out
}

func (c *checker) object(raw []byte, m *Message, path string) {
	c.out.WriteByte('{')
	first := true
	for _, mb := range members(raw) {
		f := m.fields[mb.key]
		if f == nil {
			if name, ok := m.byProto[mb.key]; ok {
				f = m.fields[name]
			}
		}
		if f == nil {
			c.violate(path, "Invalid JSON payload received. Unknown name %q%s: Cannot find field.", mb.key, at(path))
			continue
		}
		if !first {
			c.out.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(f.json)
		c.out.Write(key)
		c.out.WriteByte(':')
		c.value(mb.value, f, path, join(path, f.proto))
	}
	c.out.WriteByte('}')
}

// value checks the value of field f (of the message at parent), whose own path is path.
func (c *checker) value(raw []byte, f *field, parent, path string) {
	switch k := valueKind(raw); {
	case k == 'n':
		c.out.WriteString("null")
	case f.kind == kindAny:
		c.out.Write(raw)
	case f.repeated:
		if k != '[' {
			c.invalidValue(path, f, raw)
			c.out.WriteString("null")
			return
		}
		c.out.WriteByte('[')
		for i, e := range elements(raw) {
			if i > 0 {
				c.out.WriteByte(',')
			}
			c.single(e, f, parent, fmt.Sprintf("%s[%d]", path, i))
		}
		c.out.WriteByte(']')
	case f.isMap:
		if k != '{' {
			c.invalidValue(path, f, raw)
			c.out.WriteString("null")
			return
		}
		c.out.WriteByte('{')
		for i, mb := range members(raw) {
			if i > 0 {
				c.out.WriteByte(',')
			}
			key, _ := json.Marshal(mb.key)
			c.out.Write(key)
			c.out.WriteByte(':')
			c.single(mb.value, f, parent, fmt.Sprintf("%s[%d].value", path, i))
		}
		c.out.WriteByte('}')
	default:
		c.single(raw, f, parent, path)
	}
}

// single checks one (not repeated) value of field f.
func (c *checker) single(raw []byte, f *field, parent, path string) {
	k := valueKind(raw)
	switch {
	case k == 'n':
		c.out.WriteString("null")
		return
	case k == '[':
		c.violate(parent, "Invalid JSON payload received. Unknown name %q%s: Proto field is not repeating, cannot start list.", f.json, at(parent))
		c.out.WriteString("null")
		return
	case f.kind == kindMessage:
		if k != '{' {
			c.invalidValue(path, f, raw)
			c.out.WriteString("null")
			return
		}
		c.object(raw, f.msg, path)
		return
	case k == '{' && f.kind != kindAny:
		c.violate(path, "Invalid value at '%s' (%s), Starting an object on a scalar field", path, c.typeName(f))
		c.out.WriteString("null")
		return
	}
	out, ok := scalar(raw, f)
	if !ok {
		c.invalidValue(path, f, raw)
		c.out.WriteString("null")
		return
	}
	c.out.Write(out)
}

func (c *checker) typeName(f *field) string {
	if f.kind == kindMessage {
		return "type.googleapis.com/" + f.msg.name
	}
	return typeNames[f.kind]
}

func (c *checker) invalidValue(path string, f *field, raw []byte) {
	v := string(raw)
	if len(v) > 80 {
		v = v[:80] + "..."
	}
	c.violate(path, "Invalid value at '%s' (%s), %s", path, c.typeName(f), v)
}

// scalar checks a scalar value against its field's type and writes it the way the official
// client does; proto JSON accepts integers as numbers or strings, and floats as numbers,
// numeric strings, "NaN" and "Infinity".
func scalar(raw []byte, f *field) ([]byte, bool) {
	k := valueKind(raw)
	switch f.kind {
	case kindString:
		return raw, k == '"'
	case kindBytes:
		// base64, standard or URL-safe, padded or not, as proto JSON reads bytes.
		var text string
		if k != '"' || json.Unmarshal(raw, &text) != nil {
			return nil, false
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(text); err == nil {
				out, _ := json.Marshal(b) // as encoding/json reads []byte
				return out, true
			}
		}
		return nil, false
	case kindBool:
		return raw, k == 't'
	case kindInt32, kindInt64, kindUint64:
		text := string(raw)
		switch {
		case k == '"':
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, false
			}
		case k != '-' && (k < '0' || k > '9'):
			return nil, false
		}
		n, ok := parseInteger(text, f.kind)
		if !ok {
			return nil, false
		}
		if f.quoted {
			return []byte(`"` + n + `"`), true
		}
		return []byte(n), true
	case kindDouble:
		if k == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, false
			}
			switch s {
			case "NaN", "Infinity", "-Infinity":
				return raw, true
			}
			// ParseFloat also reads "nan" and "inf", which proto JSON spells only as above.
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, false
			}
			return []byte(strconv.FormatFloat(v, 'g', -1, 64)), true
		}
		if k == 't' {
			return nil, false
		}
		v, err := strconv.ParseFloat(string(raw), 64)
		return raw, err == nil && !math.IsInf(v, 0)
	}
	return raw, true
}

// parseInteger reads an integer in proto JSON's forms ("12", "1.2e1") and checks its range.
func parseInteger(s string, k kind) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	if k == kindUint64 {
		if v, err := strconv.ParseUint(s, 10, 64); err == nil {
			return strconv.FormatUint(v, 10), true
		}
	} else if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if k == kindInt32 && (v < math.MinInt32 || v > math.MaxInt32) {
			return "", false
		}
		return strconv.FormatInt(v, 10), true
	}
	// An exponent or fraction form is accepted when it is a whole number in range.
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		return "", false
	}
	switch k {
	case kindInt32:
		if f < math.MinInt32 || f > math.MaxInt32 {
			return "", false
		}
	case kindUint64:
		if f < 0 || f >= 1<<64 {
			return "", false
		}
		return strconv.FormatUint(uint64(f), 10), true
	default:
		if f < -(1<<63) || f >= 1<<63 {
			return "", false
		}
	}
	return strconv.FormatInt(int64(f), 10), true
}
