package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// One JSON error writer for the whole server: Google's envelope on the GKE, Compute and
// emulator routes, Kubernetes' Status on the Kubernetes-shaped routes.

// statusOfCode is the google.rpc canonical status and legacy reason of an HTTP code.
func statusOfCode(code int) (status, reason string) {
	switch code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT", "badRequest"
	case http.StatusNotFound:
		return "NOT_FOUND", "notFound"
	case http.StatusConflict:
		return "ALREADY_EXISTS", "alreadyExists"
	case http.StatusMethodNotAllowed:
		return "UNIMPLEMENTED", "methodNotAllowed"
	case http.StatusRequestEntityTooLarge:
		return "INVALID_ARGUMENT", "badRequest"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE", "backendError"
	default:
		return "INTERNAL", "backendError"
	}
}

// googleError renders an error in Google's envelope.
func googleError(code int, status, reason, message string) *api.ErrorBody {
	return &api.ErrorBody{Error: &api.ErrorDetail{
		Code: code, Message: message, Status: status,
		Errors: []*api.ErrorEntry{{Message: message, Domain: "global", Reason: reason}},
	}}
}

// errorHandler is Echo's HTTPErrorHandler.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	code, status, reason, message := http.StatusInternalServerError, "INTERNAL", "backendError", err.Error()
	var he *echo.HTTPError
	var details []any
	switch e, ok := sim.AsError(err); {
	case ok:
		code, status, reason, message = e.HTTPCode, e.Status, e.Reason, e.Message
		if len(e.FieldViolations) > 0 {
			details = []any{&api.BadRequest{Type: api.BadRequestType, FieldViolations: e.FieldViolations}}
		}
	case errors.As(err, &he):
		code = he.Code
		status, reason = statusOfCode(code)
		message = fmt.Sprint(he.Message)
		switch {
		case code == http.StatusNotFound && isK8sPath(c.Request().URL.Path):
			// What the API server says of a path it does not serve; kubectl reads the 404 as
			// "resource type not served" and falls back where it can.
			message = "the server could not find the requested resource"
		case code == http.StatusNotFound:
			message = fmt.Sprintf("The requested URL %s was not found on this server (gkesim serves the GKE v1 API under /v1/projects/{project}/locations/{location}/...).", c.Request().URL.Path)
		case code == http.StatusMethodNotAllowed && isK8sPath(c.Request().URL.Path):
			message = fmt.Sprintf("the server does not allow this method on the requested resource (gkesim does not implement %s here)", c.Request().Method)
		}
	case errors.Is(err, sim.ErrStopped):
		code, status, reason = http.StatusServiceUnavailable, "UNAVAILABLE", "backendError"
	case errors.As(err, new(*sim.NotDurableError)):
		code, status, reason = http.StatusServiceUnavailable, "UNAVAILABLE", "backendError"
		s.log.Error("request not acknowledged: the state could not be saved", "method", c.Request().Method, "path", c.Request().URL.Path, "error", err)
	default:
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "error", err)
	}
	var apiStatus apierrors.APIStatus
	if isK8sPath(c.Request().URL.Path) && errors.As(err, &apiStatus) {
		st := apiStatus.Status()
		st.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
		_ = httpio.WriteJSON(c, int(st.Code), &st)
		return
	}
	if isK8sPath(c.Request().URL.Path) {
		kr := metav1.StatusReason(k8sReason(code))
		var sd *metav1.StatusDetails
		if e, ok := sim.AsError(err); ok {
			if e.KubeReason != "" {
				kr = metav1.StatusReason(e.KubeReason)
			}
			sd = statusDetails(e.KubeDetails)
		}
		_ = httpio.WriteJSON(c, code, &metav1.Status{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
			Message: message, Reason: kr, Code: int32(code), Details: sd,
		})
		return
	}
	body := googleError(code, status, reason, message)
	body.Error.Details = details
	_ = httpio.WriteJSON(c, code, body)
}

// statusDetails are a Kubernetes Status's details, as the API server writes them for an object
// it refuses (nil when the error names none).
func statusDetails(d *sim.KubeDetails) *metav1.StatusDetails {
	if d == nil {
		return nil
	}
	out := &metav1.StatusDetails{Group: d.Group, Kind: d.Kind, Name: d.Name}
	for _, c := range d.Causes {
		out.Causes = append(out.Causes, metav1.StatusCause{Type: metav1.CauseType(c.Type), Message: c.Message, Field: c.Field})
	}
	return out
}

func k8sReason(code int) string {
	switch code {
	case http.StatusNotFound:
		return "NotFound"
	case http.StatusConflict:
		return "AlreadyExists"
	case http.StatusBadRequest:
		return "BadRequest"
	case http.StatusUnprocessableEntity:
		return "Invalid"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailable"
	case http.StatusMethodNotAllowed:
		return "MethodNotAllowed"
	}
	return "InternalError"
}

func isK8sPath(p string) bool { return strings.HasPrefix(p, "/k8s/") }

// decode reads a JSON request body into v. An empty body decodes as {}.
func decode(c echo.Context, v any) error {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, httpio.MaxBodyBytes+1))
	if err != nil {
		return httpio.BadRequest("Could not read the request body: %v", err)
	}
	if len(body) > httpio.MaxBodyBytes {
		return httpio.BadRequest("The request body is larger than %d bytes.", httpio.MaxBodyBytes)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	return decodeChecked(c, body, v)
}

// describeJSONError names the field a decoding error is about.
func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		where := fmt.Sprintf("%q", te.Field)
		if te.Field == "" {
			where = "the request body" // te.Struct would be a Go type name, meaningless to the client
		}
		return fmt.Sprintf("Invalid value at %s: %s is not a valid %s.", where, te.Value, jsonTypeName(te.Type))
	case errors.As(err, &se):
		return fmt.Sprintf("Syntax error at byte %d: %v.", se.Offset, se)
	}
	return err.Error() + "."
}

// jsonTypeName is how an error message calls the JSON type a Go type decodes from; struct
// names are the server's own (often a local "plain" alias), meaningless to the client.
func jsonTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "JSON object"
	case reflect.Slice, reflect.Array:
		return "JSON array"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	}
	return t.String()
}
