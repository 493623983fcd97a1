package server

import (
	"reflect"
	"strings"
	"testing"
)

// An import's members are found where they lie in the body, whatever their JSON type.
func TestTopLevelMembers(t *testing.T) {
	for _, tc := range []struct {
		body string
		want map[string]string
	}{
		{`{}`, map[string]string{}},
		{` { "a" : 1 } `, map[string]string{"a": "1"}},
		{`{"a":1,"b":true,"c":null,"d":-2.5e3}`, map[string]string{"a": "1", "b": "true", "c": "null", "d": "-2.5e3"}},
		{"{\"cluster\": {\"name\": \"x}\\\"{\", \"l\": [1, {\"y\": []}]},\n\t\"objects\": [\"]\"] }",
			map[string]string{"cluster": `{"name": "x}\"{", "l": [1, {"y": []}]}`, "objects": `["]"]`}},
		{`{"k\"ey": "v\\"}`, map[string]string{`k"ey`: `"v\\"`}},
	} {
		got, err := topLevelMembers([]byte(tc.body))
		if err != nil {
			t.Errorf("%s: %v", tc.body, err)
			continue
		}
		gotS := map[string]string{}
		for k, v := range got {
			gotS[k] = string(v)
		}
		if !reflect.DeepEqual(gotS, tc.want) {
			t.Errorf("%s: members %q, want %q", tc.body, gotS, tc.want)
		}
	}
	for _, bad := range []string{`{"a":`, `[1]`, `"x"`, `{"a" 1}`} {
		if _, err := topLevelMembers([]byte(bad)); err == nil || !strings.Contains(err.Error(), "Invalid JSON payload") {
			t.Errorf("%s: %v, want an invalid payload", bad, err)
		}
	}
}
