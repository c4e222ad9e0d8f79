package delayedtasks

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RejectionReason is why a callback was rejected (a string alias: one of the Reason* constants).
type RejectionReason = string

// Reasons a callback is rejected, as [CallbackRejectedError.Reason].
const (
	ReasonMissingHeader       RejectionReason = "missing_header"
	ReasonInvalidTimestamp    RejectionReason = "invalid_timestamp"
	ReasonTimestampTooOld     RejectionReason = "timestamp_too_old"
	ReasonTimestampTooNew     RejectionReason = "timestamp_too_new"
	ReasonNoMatchingSignature RejectionReason = "no_matching_signature"
	ReasonInvalidSecret       RejectionReason = "invalid_secret"
	ReasonInvalidBody         RejectionReason = "invalid_body"
)

// DefaultTolerance is how far a callback's webhook-timestamp may be from now, either way.
const DefaultTolerance = 300 * time.Second

// CallbackRejectedError is why a callback was rejected: one of the Reason* constants.
type CallbackRejectedError struct {
	Reason RejectionReason
	// Err is the underlying cause (a JSON syntax error, a base64 error), or nil.
	Err error
}

func (e *CallbackRejectedError) Error() string {
	if e.Err != nil {
		return "delayedtasks: callback rejected: " + e.Reason + ": " + e.Err.Error()
	}
	return "delayedtasks: callback rejected: " + e.Reason
}

func (e *CallbackRejectedError) Unwrap() error { return e.Err }

// Callback is the body of a callback request. Payload numbers are [encoding/json.Number], so
// integers and decimals arrive exactly as sent.
type Callback struct {
	TaskID         string         `json:"taskId"`
	TaskType       string         `json:"taskType"`
	Payload        map[string]any `json:"payload"`
	PayloadVersion int            `json:"payloadVersion"`
	ExecuteAt      time.Time      `json:"executeAt"`
	// Attempt is 1 on the first delivery and grows on every retry.
	Attempt int `json:"attempt"`
	// TraceID is the task's trace id; nil when it has none.
	TraceID *string `json:"traceId"`
	// Schedule is set when the task is an occurrence of a schedule; nil for a one-shot task.
	Schedule *CallbackSchedule `json:"schedule"`
}

// CallbackSchedule is the schedule an occurrence runs for.
type CallbackSchedule struct {
	ScheduleID string `json:"scheduleId"`
	// ScheduledAt is the nominal time the occurrence runs for (before jitter; for a backfill, the
	// past run time).
	ScheduledAt time.Time `json:"scheduledAt"`
}

// ParseCallback reads a raw callback body. It fails with a *[CallbackRejectedError] of reason
// invalid_body when the body is not one JSON object with a string taskId and taskType, an
// object payload and an RFC 3339 executeAt.
func ParseCallback(body []byte) (*Callback, error) {
	var wire struct {
		TaskID         *string           `json:"taskId"`
		TaskType       *string           `json:"taskType"`
		Payload        *map[string]any   `json:"payload"`
		PayloadVersion *int              `json:"payloadVersion"`
		ExecuteAt      *time.Time        `json:"executeAt"`
		Attempt        *int              `json:"attempt"`
		TraceID        *string           `json:"traceId"`
		Schedule       *CallbackSchedule `json:"schedule"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&wire); err != nil {
		return nil, &CallbackRejectedError{Reason: ReasonInvalidBody, Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &CallbackRejectedError{Reason: ReasonInvalidBody, Err: errors.New("data after the JSON object")}
	}
	var missing []string
	if wire.TaskID == nil {
		missing = append(missing, "taskId")
	}
	if wire.TaskType == nil {
		missing = append(missing, "taskType")
	}
	if wire.Payload == nil || *wire.Payload == nil {
		missing = append(missing, "payload")
	}
	if wire.ExecuteAt == nil {
		missing = append(missing, "executeAt")
	}
	if wire.Schedule != nil && (wire.Schedule.ScheduleID == "" || wire.Schedule.ScheduledAt.IsZero()) {
		missing = append(missing, "schedule.scheduleId or schedule.scheduledAt")
	}
	if len(missing) > 0 {
		return nil, &CallbackRejectedError{Reason: ReasonInvalidBody, Err: errors.New("missing " + strings.Join(missing, ", "))}
	}
	cb := &Callback{
		TaskID:         *wire.TaskID,
		TaskType:       *wire.TaskType,
		Payload:        *wire.Payload,
		PayloadVersion: 1,
		ExecuteAt:      *wire.ExecuteAt,
		Attempt:        1,
		Schedule:       wire.Schedule,
	}
	if wire.PayloadVersion != nil {
		cb.PayloadVersion = *wire.PayloadVersion
	}
	if wire.Attempt != nil {
		cb.Attempt = *wire.Attempt
	}
	cb.TraceID = wire.TraceID
	return cb, nil
}

// WebhookVerifier checks the Standard Webhooks signature of callbacks
// (https://www.standardwebhooks.com): the headers webhook-id, webhook-timestamp and
// webhook-signature, an HMAC-SHA256 of "id.timestamp.body" with any of its secrets.
type WebhookVerifier struct {
	keys      [][]byte
	tolerance time.Duration
	now       func() time.Time
}

// VerifierOption configures a [WebhookVerifier].
type VerifierOption func(*WebhookVerifier)

// WithTolerance sets how far webhook-timestamp may be from now, either way (default 300 s).
func WithTolerance(d time.Duration) VerifierOption {
	return func(v *WebhookVerifier) { v.tolerance = d }
}

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) VerifierOption {
	return func(v *WebhookVerifier) { v.now = now }
}

// NewWebhookVerifier accepts callbacks signed with any of secrets ("whsec_<base64>"; several
// while a secret is being rotated). It fails with reason invalid_secret when there is none or a
// secret does not decode.
func NewWebhookVerifier(secrets []string, opts ...VerifierOption) (*WebhookVerifier, error) {
	if len(secrets) == 0 {
		return nil, &CallbackRejectedError{Reason: ReasonInvalidSecret, Err: errors.New("no secret given")}
	}
	v := &WebhookVerifier{tolerance: DefaultTolerance, now: time.Now}
	for _, s := range secrets {
		encoded, ok := strings.CutPrefix(s, "whsec_")
		if !ok {
			return nil, &CallbackRejectedError{Reason: ReasonInvalidSecret, Err: errors.New(`secret does not start with "whsec_"`)}
		}
		key, err := base64.StdEncoding.DecodeString(encoded)
		if err != nil || len(key) == 0 {
			if err == nil {
				err = errors.New("empty secret")
			}
			return nil, &CallbackRejectedError{Reason: ReasonInvalidSecret, Err: err}
		}
		v.keys = append(v.keys, key)
	}
	for _, opt := range opts {
		opt(v)
	}
	return v, nil
}

// Verify checks the signature of body, the raw bytes of the request, against header. It returns
// nil or a *[CallbackRejectedError].
func (v *WebhookVerifier) Verify(header http.Header, body []byte) error {
	id := header.Get("webhook-id")
	ts := header.Get("webhook-timestamp")
	signatures := header.Get("webhook-signature")
	if id == "" || ts == "" || signatures == "" {
		return &CallbackRejectedError{Reason: ReasonMissingHeader}
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || ts[0] == '+' || ts[0] == '-' {
		return &CallbackRejectedError{Reason: ReasonInvalidTimestamp}
	}
	now := v.now().Unix()
	tolerance := int64(v.tolerance / time.Second)
	switch {
	case now-secs > tolerance:
		return &CallbackRejectedError{Reason: ReasonTimestampTooOld}
	case secs-now > tolerance:
		return &CallbackRejectedError{Reason: ReasonTimestampTooNew}
	}
	signed := make([]byte, 0, len(id)+len(ts)+len(body)+2)
	signed = append(append(append(append(append(signed, id...), '.'), ts...), '.'), body...)
	for _, key := range v.keys {
		mac := hmac.New(sha256.New, key)
		mac.Write(signed)
		want := mac.Sum(nil)
		for _, entry := range strings.Fields(signatures) {
			version, sig, ok := strings.Cut(entry, ",")
			if !ok || version != "v1" {
				continue
			}
			got, err := base64.StdEncoding.DecodeString(sig)
			if err == nil && hmac.Equal(got, want) {
				return nil
			}
		}
	}
	return &CallbackRejectedError{Reason: ReasonNoMatchingSignature}
}

// VerifyAndParse verifies the signature, then parses the body.
func (v *WebhookVerifier) VerifyAndParse(header http.Header, body []byte) (*Callback, error) {
	if err := v.Verify(header, body); err != nil {
		return nil, err
	}
	return ParseCallback(body)
}
