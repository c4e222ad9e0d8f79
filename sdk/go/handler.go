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
	"strconv"
	"sync"
	"time"
)

// HandlerFunc handles one callback of a task type. Returning nil acknowledges it (200). Return a
// [RetryableError] to have the service retry later (503), a [PermanentError] to fail the task now
// (422); any other error is answered 500, which the service retries too.
type HandlerFunc func(ctx context.Context, cb *Callback) error

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

// IdempotencyStore remembers the Idempotency-Key of every callback handled successfully.
type IdempotencyStore interface {
	// Seen reports whether key was recorded.
	Seen(ctx context.Context, key string) (bool, error)
	// Record records key; it is called only after the handler succeeded.
	Record(ctx context.Context, key string) error
}

// MemoryStore is an in-process [IdempotencyStore] that forgets keys after a TTL. Use a shared
// store (a database table, Redis) when several processes receive callbacks.
type MemoryStore struct {
	ttl       time.Duration
	mu        sync.Mutex
	keys      map[string]time.Time
	nextPrune time.Time
}

// NewMemoryStore returns a store that remembers keys for ttl (0: 24 hours).
func NewMemoryStore(ttl time.Duration) *MemoryStore {
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	return &MemoryStore{ttl: ttl, keys: make(map[string]time.Time)}
}

// Seen reports whether key was recorded less than the TTL ago.
func (s *MemoryStore) Seen(_ context.Context, key string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	expires, ok := s.keys[key]
	return ok && time.Now().Before(expires), nil
}

// Record remembers key; expired keys are dropped at most once a minute.
func (s *MemoryStore) Record(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if now.After(s.nextPrune) {
		for k, expires := range s.keys {
			if !now.Before(expires) {
				delete(s.keys, k)
			}
		}
		s.nextPrune = now.Add(time.Minute)
	}
	s.keys[key] = now.Add(s.ttl)
	return nil
}

const defaultMaxBodyBytes = 1 << 20

// CallbackHandler is an [http.Handler] receiving callbacks: it verifies the signature (with
// [WithVerifier]), parses the body, skips keys already handled and calls the [HandlerFunc]
// registered for the task type.
//
//	Status answered: 200 handled (or handled before), 400 unparseable body, 401 bad signature,
//	405 not a POST, 422 PermanentError or unknown task type, 503 RetryableError, 500 other error.
type CallbackHandler struct {
	handlers map[string]HandlerFunc
	verifier *Verifier
	store    IdempotencyStore
	maxBody  int64
	logger   *slog.Logger
}

// HandlerOption configures a [CallbackHandler].
type HandlerOption func(*CallbackHandler)

// WithVerifier checks every callback's signature; without it signatures are not checked.
func WithVerifier(v *Verifier) HandlerOption {
	return func(h *CallbackHandler) { h.verifier = v }
}

// WithIdempotencyStore replaces the default [MemoryStore]; nil turns the check off.
func WithIdempotencyStore(s IdempotencyStore) HandlerOption {
	return func(h *CallbackHandler) { h.store = s }
}

// WithMaxBodyBytes limits the body read (default 1 MiB; the service sends at most 256 KiB of payload).
func WithMaxBodyBytes(n int64) HandlerOption {
	return func(h *CallbackHandler) { h.maxBody = n }
}

// WithLogger receives handler errors and rejected callbacks (default slog.Default()).
func WithLogger(l *slog.Logger) HandlerOption {
	return func(h *CallbackHandler) { h.logger = l }
}

// NewCallbackHandler returns a handler with no task types registered.
func NewCallbackHandler(opts ...HandlerOption) *CallbackHandler {
	h := &CallbackHandler{
		handlers: make(map[string]HandlerFunc),
		store:    NewMemoryStore(0),
		maxBody:  defaultMaxBodyBytes,
		logger:   slog.Default(),
	}
	for _, opt := range opts {
		opt(h)
	}
	return h
}

// Handle registers fn for taskType. It panics when taskType is already registered, like
// [http.ServeMux]; register every type before serving.
func (h *CallbackHandler) Handle(taskType string, fn HandlerFunc) {
	if _, dup := h.handlers[taskType]; dup {
		panic(fmt.Sprintf("delayedtasks: task type %q registered twice", taskType))
	}
	h.handlers[taskType] = fn
}

// ServeHTTP answers one callback delivery.
func (h *CallbackHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		reply(w, http.StatusMethodNotAllowed, "method_not_allowed")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		reply(w, http.StatusBadRequest, ReasonInvalidBody)
		return
	}
	if h.verifier != nil {
		if err := h.verifier.Verify(r.Header, body); err != nil {
			h.logger.WarnContext(r.Context(), "callback rejected", "error", err)
			reply(w, http.StatusUnauthorized, reasonOf(err))
			return
		}
	}
	cb, err := ParseCallback(body)
	if err != nil {
		reply(w, http.StatusBadRequest, ReasonInvalidBody)
		return
	}
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	if key != "" && h.store != nil {
		seen, err := h.store.Seen(ctx, key)
		if err != nil {
			h.logger.ErrorContext(ctx, "idempotency store", "error", err)
			reply(w, http.StatusInternalServerError, "internal")
			return
		}
		if seen {
			reply(w, http.StatusOK, "duplicate")
			return
		}
	}
	fn, ok := h.handlers[cb.TaskType]
	if !ok {
		reply(w, http.StatusUnprocessableEntity, "unknown_task_type")
		return
	}
	if err := fn(ctx, cb); err != nil {
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
	reply(w, http.StatusOK, "ok")
}

func (h *CallbackHandler) replyError(w http.ResponseWriter, r *http.Request, cb *Callback, err error) {
	attrs := []any{"taskId", cb.TaskID, "taskType", cb.TaskType, "attempt", cb.Attempt, "error", err}
	var retryable *RetryableError
	var permanent *PermanentError
	switch {
	case errors.As(err, &permanent):
		h.logger.WarnContext(r.Context(), "callback failed permanently", attrs...)
		reply(w, http.StatusUnprocessableEntity, "permanent_error")
	case errors.As(err, &retryable):
		h.logger.InfoContext(r.Context(), "callback to be retried", attrs...)
		if retryable.RetryAfter > 0 {
			secs := int64(math.Ceil(retryable.RetryAfter.Seconds()))
			w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		}
		reply(w, http.StatusServiceUnavailable, "retry")
	default:
		h.logger.ErrorContext(r.Context(), "callback handler failed", attrs...)
		reply(w, http.StatusInternalServerError, "internal")
	}
}

func reasonOf(err error) string {
	var we *WebhookError
	if errors.As(err, &we) {
		return we.Reason
	}
	return "invalid"
}

func reply(w http.ResponseWriter, status int, result string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"result": result})
}
