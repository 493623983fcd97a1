package sim

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is a GKE API error: an HTTP code, a google.rpc canonical status and the legacy
// errors[].reason that googleapi.Error (and terraform-provider-google's retry) read.
type Error struct {
	HTTPCode int
	Status   string
	Reason   string
	Message  string
}

func (e *Error) Error() string { return e.Message }

// AsError finds an *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func invalidArgument(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusBadRequest, Status: "INVALID_ARGUMENT", Reason: "badRequest",
		Message: fmt.Sprintf(format, args...)}
}

// invalidField names the field, the value and the rule, the way every validation error here does.
func invalidField(field string, value any, rule string, args ...any) *Error {
	return invalidArgument("Invalid value for field %q: %v. %s", field, value, fmt.Sprintf(rule, args...))
}

func failedPrecondition(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusBadRequest, Status: "FAILED_PRECONDITION", Reason: "failedPrecondition",
		Message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusNotFound, Status: "NOT_FOUND", Reason: "notFound",
		Message: "Not found: " + fmt.Sprintf(format, args...)}
}

func alreadyExists(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusConflict, Status: "ALREADY_EXISTS", Reason: "alreadyExists",
		Message: "Already exists: " + fmt.Sprintf(format, args...)}
}

func aborted(format string, args ...any) *Error {
	return &Error{HTTPCode: http.StatusConflict, Status: "ABORTED", Reason: "aborted",
		Message: fmt.Sprintf(format, args...)}
}
