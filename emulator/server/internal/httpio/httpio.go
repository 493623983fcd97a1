// Package httpio is what the emulator's HTTP handlers share, in emulator/server and in the
// packages under it (emulator/server/k8s): how an answer is written (JSON, pretty-printed
// unless the client says prettyPrint=false), how large a request body may be, the base URL of
// a request's links (which the server's guard records in the Echo context), and the errors of
// requests refused before they reach the simulation. It holds no state.
package httpio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// MaxBodyBytes bounds request bodies.
const MaxBodyBytes = 8 << 20

// WriteJSON writes v, pretty-printed unless the client asked for prettyPrint=false (as the Go
// client does).
func WriteJSON(c echo.Context, code int, v any) error {
	b, err := EncodeJSON(c, v)
	if err != nil {
		return err
	}
	return c.Blob(code, echo.MIMEApplicationJSON, b)
}

// EncodeJSON renders v as the answer's body: indented unless the request says prettyPrint=false
// (every Google client does), with a final newline.
func EncodeJSON(c echo.Context, v any) ([]byte, error) {
	var b []byte
	var err error
	if m, ok := v.(json.Marshaler); ok {
		b, err = m.MarshalJSON() // ours: valid already, not worth encoding/json's re-validation
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return nil, err
	}
	if c.QueryParam("prettyPrint") != "false" {
		var out bytes.Buffer
		out.Grow(len(b) * 2)
		if err := json.Indent(&out, b, "", "  "); err != nil {
			return nil, err
		}
		out.WriteByte('\n')
		return out.Bytes(), nil
	}
	return append(b, '\n'), nil
}

// baseKey is where SetBaseURL leaves a request's base URL in the Echo context.
const baseKey = "gkesim.baseURL"

// SetBaseURL records the scheme and address of a request's links (the server's guard calls it
// for every request, before any handler).
func SetBaseURL(c echo.Context, base string) { c.Set(baseKey, base) }

// BaseURL is the scheme and address of self links: the advertise URL, or the address the
// request arrived on (the guard records it; never the Host header, which the client chooses).
func BaseURL(c echo.Context) string {
	if b, ok := c.Get(baseKey).(string); ok {
		return b
	}
	return "http://localhost"
}

// BadRequest is a request the server could not decode; it never reaches the simulation.
func BadRequest(format string, args ...any) error {
	return &sim.Error{HTTPCode: http.StatusBadRequest, Status: "INVALID_ARGUMENT", Reason: "badRequest", Message: fmt.Sprintf(format, args...)}
}

// NotFoundf is a 404 for what the request names and the emulator does not have.
func NotFoundf(format string, args ...any) error {
	return &sim.Error{HTTPCode: http.StatusNotFound, Status: "NOT_FOUND", Reason: "notFound", Message: fmt.Sprintf(format, args...)}
}
