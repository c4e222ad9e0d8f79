package delayedtasks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// ErrorCode is a machine code of the service's error catalog. It is a string (an alias, not a new
// type) so that a code a newer server sends, not listed here, passes through and compares with ==.
type ErrorCode = string

// Error codes the service answers with. A code a newer server sends that is not listed here is
// passed through unchanged in [DelayedTaskError.Code].
const (
	CodeInvalidArgument       ErrorCode = "INVALID_ARGUMENT"
	CodePayloadTooLarge       ErrorCode = "PAYLOAD_TOO_LARGE"
	CodeUnauthenticated       ErrorCode = "UNAUTHENTICATED"
	CodePermissionDenied      ErrorCode = "PERMISSION_DENIED"
	CodeTaskNotFound          ErrorCode = "TASK_NOT_FOUND"
	CodeNotFound              ErrorCode = "NOT_FOUND"
	CodeTaskConflict          ErrorCode = "TASK_CONFLICT"
	CodeScheduleNotFound      ErrorCode = "SCHEDULE_NOT_FOUND"
	CodeScheduleConflict      ErrorCode = "SCHEDULE_CONFLICT"
	CodeScheduleLimitExceeded ErrorCode = "SCHEDULE_LIMIT_EXCEEDED"
	CodeFailedPrecondition    ErrorCode = "FAILED_PRECONDITION"
	CodeMethodNotAllowed      ErrorCode = "METHOD_NOT_ALLOWED"
	CodeUnsupportedMediaType  ErrorCode = "UNSUPPORTED_MEDIA_TYPE"
	CodeResourceExhausted     ErrorCode = "RESOURCE_EXHAUSTED"
	CodeUnavailable           ErrorCode = "UNAVAILABLE"
	CodeInternal              ErrorCode = "INTERNAL"
	// CodeRequestTimeout and CodeHeadersTooLarge come before any route: the request's headers
	// were too slow or too large, and nothing was done.
	CodeRequestTimeout  ErrorCode = "REQUEST_TIMEOUT"
	CodeHeadersTooLarge ErrorCode = "HEADERS_TOO_LARGE"
	// CodeUnknown is used when an error response has no JSON error body.
	CodeUnknown ErrorCode = "UNKNOWN"
)

// requestIDHeader is the header the service echoes its request id in.
const requestIDHeader = "X-Request-Id"

// ErrorDetail names one offending field (a dotted path such as "payload.items.2") and why.
type ErrorDetail struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// String is "<field> <reason>", e.g. "delaySeconds must not be negative".
func (d ErrorDetail) String() string { return d.Field + " " + d.Reason }

// DelayedTaskError is the one error type of the client. It is returned for error responses, for
// requests refused before sending (Code INVALID_ARGUMENT, Status 0, the faults in Details) and for
// network failures after the last retry (Code UNAVAILABLE, Status 0, the cause in Err).
type DelayedTaskError struct {
	// Code is the service's stable machine code, e.g. "TASK_NOT_FOUND".
	Code string
	// Status is the HTTP status code; 0 when no response was received (or nothing was sent).
	Status int
	// Message is the human-readable text: the service's, or "<field> <reason>" of each fault
	// found before sending.
	Message string
	// Details lists the offending fields, when the error has any.
	Details []ErrorDetail
	// RequestID is the X-Request-Id response header, when present.
	RequestID string
	// Err is the underlying cause of a network failure, or nil.
	Err error
}

// Error reads "delayedtasks: CODE (HTTP status): message; <field> <reason>...", each fault once:
// a detail the message already states is not repeated.
func (e *DelayedTaskError) Error() string {
	var b strings.Builder
	b.WriteString("delayedtasks: ")
	b.WriteString(e.Code)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	sep := ": "
	if e.Message != "" {
		b.WriteString(sep + e.Message)
		sep = "; "
	}
	for _, d := range e.Details {
		if text := d.String(); !strings.Contains(e.Message, text) {
			b.WriteString(sep + text)
			sep = "; "
		}
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the network error behind an UNAVAILABLE error with status 0, if any.
func (e *DelayedTaskError) Unwrap() error { return e.Err }

// errorBody is the service's error envelope.
type errorBody struct {
	Error *wireError `json:"error"`
}

// wireError is the service's {code, message, details}, of a response or of one batch item.
type wireError struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	Details []ErrorDetail `json:"details"`
}

// apiError is the *DelayedTaskError of an error the service sent with status; a missing code is UNKNOWN.
func (w *wireError) apiError(status int, requestID string) *DelayedTaskError {
	if w == nil || w.Code == "" {
		return &DelayedTaskError{Code: CodeUnknown, Message: http.StatusText(status), Status: status, RequestID: requestID}
	}
	return &DelayedTaskError{Code: w.Code, Message: w.Message, Details: w.Details, Status: status, RequestID: requestID}
}

// checkResponse returns nil for a 2xx response and a *DelayedTaskError for any other.
func checkResponse(resp *http.Response, body []byte) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	var envelope errorBody
	if json.Unmarshal(body, &envelope) != nil {
		envelope.Error = nil
	}
	return envelope.Error.apiError(resp.StatusCode, resp.Header.Get(requestIDHeader))
}

// invalidArgument is the error of a request refused before sending: its message states every
// fault as "<field> <reason>".
func invalidArgument(details []ErrorDetail) *DelayedTaskError {
	texts := make([]string, len(details))
	for i, d := range details {
		texts[i] = d.String()
	}
	return &DelayedTaskError{Code: CodeInvalidArgument, Message: strings.Join(texts, "; "), Details: details}
}
