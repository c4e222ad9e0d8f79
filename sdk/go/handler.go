package delayedtasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"
)

// CallbackHandler handles one callback of a task type. Returning nil acknowledges it (200). Return
// [Retry] to have the service deliver it again later (503), [Permanent] to fail the task now
// (422); any other error (or a panic) is answered 500, which the service retries too.
type CallbackHandler func(ctx context.Context, cb *Callback) error

// RetryableError asks the service to deliver the callback again, after RetryAfter when set.
type RetryableError struct {
	Err        error
	RetryAfter time.Duration
}

func (e *RetryableError) Error() string { return "retryable: " + errString(e.Err) }
func (e *RetryableError) Unwrap() error { return e.Err }

// PermanentError tells the service that retrying cannot help: the task fails at once.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return "permanent: " + errString(e.Err) }
func (e *PermanentError) Unwrap() error { return e.Err }

// Retry wraps err so that the callback is retried after at least retryAfter (0: the service's
// backoff).
func Retry(err error, retryAfter time.Duration) error {
	return &RetryableError{Err: err, RetryAfter: retryAfter}
}

// Permanent wraps err so that the task fails without further attempts.
func Permanent(err error) error { return &PermanentError{Err: err} }

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

const defaultMaxBodyBytes = 1 << 20

// ErrUnsignedReceiver is returned by [NewCallbackReceiver] given neither [WithVerifier] nor
// [AllowUnsigned]: a receiver never accepts unsigned callbacks by accident.
var ErrUnsignedReceiver = errors.New("delayedtasks: a callback handler needs WithVerifier (the webhook secrets), or AllowUnsigned() to accept unsigned callbacks")

// CallbackReceiver is an [http.Handler] receiving callbacks: it verifies the signature, parses the
// body, skips callbacks already handled (by their signed webhook-id, never the unsigned
// Idempotency-Key header) and calls the [CallbackHandler] registered for the task type. It answers
// with a JSON body, the same in every SDK of the service:
//
//	200 {"status":"handled"}                                     the handler returned nil
//	200 {"status":"duplicate"}                                   webhook-id handled before; the handler is not run
//	401 {"status":"refused","reason":"<CallbackRejectedError reason>"}    signature missing, invalid or expired
//	400 {"status":"refused","reason":"invalid_body"}             a signed body that is not a callback
//	503 {"status":"retry"} (+ Retry-After)                       the handler returned a RetryableError
//	422 {"status":"failed"}                                      the handler returned a PermanentError
//	422 {"status":"failed","reason":"no handler for task type"}  no handler for the task type
//	500 {"status":"error"}                                       any other error or a panic (logged, never sent)
//	405 {"status":"refused","reason":"method_not_allowed"}       not a POST
type CallbackReceiver struct {
	handlers      map[string]CallbackHandler
	verifier      *WebhookVerifier
	allowUnsigned bool
	store         IdempotencyStore
	maxBody       int64
	logger        *slog.Logger
}

// ReceiverOption configures a [CallbackReceiver].
type ReceiverOption func(*CallbackReceiver)

// WithVerifier checks every callback's signature with v.
func WithVerifier(v *WebhookVerifier) ReceiverOption {
	return func(h *CallbackReceiver) { h.verifier = v }
}

// AllowUnsigned lets a handler without [WithVerifier] accept unsigned callbacks (a local setup
// where the service signs nothing). It never weakens a verifier: with one, unsigned callbacks are
// refused all the same.
func AllowUnsigned() ReceiverOption {
	return func(h *CallbackReceiver) { h.allowUnsigned = true }
}

// WithIdempotencyStore replaces the default [InMemoryIdempotencyStore]; nil turns the check off.
func WithIdempotencyStore(s IdempotencyStore) ReceiverOption {
	return func(h *CallbackReceiver) { h.store = s }
}

// WithMaxBodyBytes limits the body read (default 1 MiB; the service sends at most 256 KiB of payload).
func WithMaxBodyBytes(n int64) ReceiverOption {
	return func(h *CallbackReceiver) { h.maxBody = n }
}

// WithLogger receives handler errors and refused callbacks (default slog.Default()).
func WithLogger(l *slog.Logger) ReceiverOption {
	return func(h *CallbackReceiver) { h.logger = l }
}

// NewCallbackReceiver returns a handler with no task types registered. It fails with
// [ErrUnsignedReceiver] given neither [WithVerifier] nor [AllowUnsigned].
func NewCallbackReceiver(opts ...ReceiverOption) (*CallbackReceiver, error) {
	h := &CallbackReceiver{
		handlers: make(map[string]CallbackHandler),
		store:    NewInMemoryIdempotencyStore(0),
		maxBody:  defaultMaxBodyBytes,
		logger:   slog.Default(),
	}
	for _, opt := range opts {
		opt(h)
	}
	if h.verifier == nil && !h.allowUnsigned {
		return nil, ErrUnsignedReceiver
	}
	return h, nil
}

// Handle registers fn for taskType. It panics when taskType is already registered, like
// [http.ServeMux]; register every type before serving.
func (h *CallbackReceiver) Handle(taskType string, fn CallbackHandler) {
	if _, dup := h.handlers[taskType]; dup {
		panic(fmt.Sprintf("delayedtasks: task type %q registered twice", taskType))
	}
	h.handlers[taskType] = fn
}

// The answers of a CallbackReceiver.
var (
	answerHandled   = answer{Status: "handled"}
	answerDuplicate = answer{Status: "duplicate"}
	answerRetry     = answer{Status: "retry"}
	answerFailed    = answer{Status: "failed"}
	answerNoHandler = answer{Status: "failed", Reason: "no handler for task type"}
	answerError     = answer{Status: "error"}
)

// answer is the JSON body of every reply of a CallbackReceiver.
type answer struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

func refused(reason string) answer { return answer{Status: "refused", Reason: reason} }

// ServeHTTP answers one callback delivery.
func (h *CallbackReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		reply(w, http.StatusMethodNotAllowed, refused("method_not_allowed"))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		reply(w, http.StatusBadRequest, refused(ReasonInvalidBody))
		return
	}
	if h.verifier != nil {
		if err := h.verifier.Verify(r.Header, body); err != nil {
			h.logger.WarnContext(ctx, "callback refused", "error", err)
			reply(w, http.StatusUnauthorized, refused(reasonOf(err)))
			return
		}
	}
	cb, err := ParseCallback(body)
	if err != nil {
		h.logger.WarnContext(ctx, "callback refused", "error", err)
		reply(w, http.StatusBadRequest, refused(ReasonInvalidBody))
		return
	}
	key := h.dedupeKey(r.Header, cb)
	if key != "" && h.store != nil {
		seen, err := h.store.Seen(ctx, key)
		if err != nil {
			h.logger.ErrorContext(ctx, "idempotency store", "error", err)
			reply(w, http.StatusInternalServerError, answerError)
			return
		}
		if seen {
			reply(w, http.StatusOK, answerDuplicate)
			return
		}
	}
	fn, ok := h.handlers[cb.TaskType]
	if !ok {
		h.logger.WarnContext(ctx, "callback of a task type without handler", "taskId", cb.TaskID, "taskType", cb.TaskType)
		reply(w, http.StatusUnprocessableEntity, answerNoHandler)
		return
	}
	if err := callHandler(ctx, fn, cb); err != nil {
		h.replyError(w, r, cb, err)
		return
	}
	if key != "" && h.store != nil {
		if err := h.store.Record(ctx, key); err != nil {
			// Handled but not recorded: a redelivery runs the handler again, which at-least-once
			// delivery asks handlers to tolerate anyway.
			h.logger.ErrorContext(ctx, "idempotency store", "error", err)
		}
	}
	reply(w, http.StatusOK, answerHandled)
}

// dedupeKey is what the signature covers, called only once it held: the webhook-id (the same on
// every attempt of a task, after a replay and a reset, and owner-scoped), as Verify read it. Never
// the Idempotency-Key header, which is not signed: a replay within the tolerance could drop it or
// swap in another task's. Unsigned (AllowUnsigned, no verifier), the body's task id, so that the
// key and the work come from the same bytes.
func (h *CallbackReceiver) dedupeKey(header http.Header, cb *Callback) string {
	if h.verifier != nil {
		return header.Get("webhook-id")
	}
	return cb.TaskID
}

// callHandler runs fn, turning a panic into an error (with its stack, for the log) so that the
// delivery is answered 500 like any other unexpected failure.
func callHandler(ctx context.Context, fn CallbackHandler, cb *Callback) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			err = fmt.Errorf("handler panicked: %v\n%s", v, debug.Stack())
		}
	}()
	return fn(ctx, cb)
}

func (h *CallbackReceiver) replyError(w http.ResponseWriter, r *http.Request, cb *Callback, err error) {
	attrs := []any{"taskId", cb.TaskID, "taskType", cb.TaskType, "attempt", cb.Attempt, "error", err}
	var retryable *RetryableError
	var permanent *PermanentError
	switch {
	case errors.As(err, &permanent):
		h.logger.WarnContext(r.Context(), "callback failed permanently", attrs...)
		reply(w, http.StatusUnprocessableEntity, answerFailed)
	case errors.As(err, &retryable):
		h.logger.InfoContext(r.Context(), "callback to be retried", attrs...)
		if retryable.RetryAfter > 0 {
			secs := int64(math.Ceil(retryable.RetryAfter.Seconds()))
			w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		}
		reply(w, http.StatusServiceUnavailable, answerRetry)
	default:
		h.logger.ErrorContext(r.Context(), "callback handler failed", attrs...)
		reply(w, http.StatusInternalServerError, answerError)
	}
}

func reasonOf(err error) string {
	var we *CallbackRejectedError
	if errors.As(err, &we) {
		return we.Reason
	}
	return ReasonNoMatchingSignature
}

func reply(w http.ResponseWriter, status int, a answer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(a)
}
