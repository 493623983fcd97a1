package model

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Error is a GKE API error: an HTTP code, a google.rpc canonical status and the legacy
// errors[].reason that googleapi.Error (and terraform-provider-google's retry) read.
type Error struct {
	HTTPCode int
	Status   string
	Reason   string
	Message  string
	// KubeReason is set on errors of the Kubernetes-shaped API (metav1.StatusReason: NotFound,
	// AlreadyExists, Invalid, Conflict, Forbidden, BadRequest).
	KubeReason string
	// FieldViolations are the google.rpc.BadRequest detail of a request body Google's front end
	// refuses (an unknown member, a value of the wrong type).
	FieldViolations []api.FieldViolation
	// KubeDetails are a Kubernetes Status's details: the object refused and, for an invalid one,
	// why, field by field (kubectl prints `The Pod "x" is invalid: ...` from them).
	KubeDetails *KubeDetails
}

// KubeDetails name the object a Kubernetes error is about, and its causes.
type KubeDetails struct {
	Group, Kind, Name string
	Causes            []KubeCause
}

// KubeCause is one field's cause: its type (a field.ErrorType, e.g. FieldValueInvalid), the
// message, the field's path.
type KubeCause struct {
	Type, Message, Field string
}

func (e *Error) Error() string { return e.Message }

// AsError finds an *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func InvalidArgument(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusBadRequest, Status: "INVALID_ARGUMENT", Reason: "badRequest",
		Message: fmt.Sprintf(format, args...)}
}

// InvalidField names the field, the value and the rule, the way every validation error here does.
func InvalidField(field string, value any, rule string, args ...any) *Error {
	return InvalidArgument("Invalid value for field %q: %v. %s", field, value, fmt.Sprintf(rule, args...))
}

func FailedPrecondition(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusBadRequest, Status: "FAILED_PRECONDITION", Reason: "failedPrecondition",
		Message: fmt.Sprintf(format, args...)}
}

func NotFound(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusNotFound, Status: "NOT_FOUND", Reason: "notFound",
		Message: "Not found: " + fmt.Sprintf(format, args...)}
}

func AlreadyExists(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusConflict, Status: "ALREADY_EXISTS", Reason: "alreadyExists",
		Message: "Already exists: " + fmt.Sprintf(format, args...)}
}

func Aborted(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusConflict, Status: "ABORTED", Reason: "aborted",
		Message: fmt.Sprintf(format, args...)}
}

// KubeError is an error of the Kubernetes-shaped API.
func KubeError(code int, reason, format string, args ...any) *Error {
	return &Error{HTTPCode: code, Status: reason, Reason: reason, KubeReason: reason, Message: fmt.Sprintf(format, args...)}
}

// KubeNotFound is the API server's 404: `deployments.apps "web" not found`.
func KubeNotFound(resource, name string) *Error {
	return KubeError(http.StatusNotFound, "NotFound", "%s %q not found", resource, name)
}

func KubeAlreadyExists(resource, name string) *Error {
	return KubeError(http.StatusConflict, "AlreadyExists", "%s %q already exists", resource, name)
}

// KubeInvalid is the API server's 422: `Deployment.apps "web" is invalid: spec.replicas: ...`,
// for causes written as field errors print themselves.
func KubeInvalid(kind, name string, causes ...string) *Error {
	parsed := make([]KubeCause, len(causes))
	for i, c := range causes {
		parsed[i] = kubeCause(c)
	}
	return kubeInvalid(kind, name, causes, parsed)
}

// KubeInvalidFields is the API server's 422 for the field errors of a validation: each cause
// with its field and type as the error says them.
func KubeInvalidFields(kind, name string, errs field.ErrorList) *Error {
	causes := make([]string, len(errs))
	details := make([]KubeCause, len(errs))
	for i, e := range errs {
		causes[i] = e.Error()
		details[i] = KubeCause{Type: string(e.Type), Message: e.ErrorBody(), Field: e.Field}
	}
	return kubeInvalid(kind, name, causes, details)
}

// kubeInvalid is the 422 of kind (Kind.group) name for causes, as the API server writes it;
// details[i] is causes[i] field by field.
func kubeInvalid(kind, name string, causes []string, details []KubeCause) *Error {
	// The API server aggregates its field errors: one as it is, several in brackets, each once.
	var uniq []string
	var uniqDetails []KubeCause
	seen := map[string]bool{}
	for i, c := range causes {
		if !seen[c] {
			seen[c] = true
			uniq = append(uniq, c)
			uniqDetails = append(uniqDetails, details[i])
		}
	}
	msg := fmt.Sprintf("%s %q is invalid", kind, name)
	switch len(uniq) {
	case 0:
	case 1:
		msg += ": " + uniq[0]
	default:
		msg += ": [" + strings.Join(uniq, ", ") + "]"
	}
	e := KubeError(http.StatusUnprocessableEntity, "Invalid", "%s", msg)
	kindName, group, _ := strings.Cut(kind, ".")
	e.KubeDetails = &KubeDetails{Group: group, Kind: kindName, Name: name, Causes: uniqDetails}
	return e
}

// kubeCause reads a cause written by hand as a field error prints itself ("spec.replicas:
// Invalid value: -1: must be ..."): the field's path, then its type's words and the detail.
func kubeCause(c string) KubeCause {
	fieldPath, body, ok := strings.Cut(c, ": ")
	if !ok || strings.ContainsAny(fieldPath, " ") {
		return KubeCause{Message: c}
	}
	cause := KubeCause{Field: fieldPath, Message: body}
	for _, t := range []field.ErrorType{field.ErrorTypeNotFound, field.ErrorTypeRequired, field.ErrorTypeDuplicate,
		field.ErrorTypeInvalid, field.ErrorTypeNotSupported, field.ErrorTypeForbidden, field.ErrorTypeTooLong,
		field.ErrorTypeTooMany, field.ErrorTypeInternal, field.ErrorTypeTypeInvalid} {
		if strings.HasPrefix(body, t.String()) {
			cause.Type = string(t)
			break
		}
	}
	return cause
}
func KubeConflict(resource, name string) *Error {
	return KubeError(http.StatusConflict, "Conflict",
		"Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", resource, name)
}

// ComputeError is an error of the Compute Engine API, with its errors[].reason: invalid,
// required, notFound, alreadyExists, resourceInUseByAnotherResource, memberAlreadyExists,
// instanceInMultipleLoadBalancedIgs.
func ComputeError(code int, reason, format string, args ...any) *Error {
	status := "INVALID_ARGUMENT"
	switch code {
	case http.StatusNotFound:
		status = "NOT_FOUND"
	case http.StatusConflict:
		status = "ALREADY_EXISTS"
	}
	return &Error{HTTPCode: code, Status: status, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Capitalized starts a message with a capital letter (a lower-level error as a sentence).
func Capitalized(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
