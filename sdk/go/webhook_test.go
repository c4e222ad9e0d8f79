package delayedtasks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// The example of the Standard Webhooks specification, signed by its authors.
const (
	specSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specTimestamp = "1614265330"
	specBody      = `{"test": 2432232314}`
	specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func specHeader(signature string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", specID)
	h.Set("webhook-timestamp", specTimestamp)
	h.Set("webhook-signature", signature)
	return h
}

func at(unix int64) dt.VerifierOption {
	return dt.WithClock(func() time.Time { return time.Unix(unix, 0) })
}

func reason(err error) string {
	var we *dt.CallbackRejectedError
	if errors.As(err, &we) {
		return we.Reason
	}
	return "<not a CallbackRejectedError: " + errString(err) + ">"
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func TestVerifySpecExample(t *testing.T) {
	v, err := dt.NewWebhookVerifier([]string{"whsec_" + base64.StdEncoding.EncodeToString([]byte("old")), specSecret}, at(1614265330+299))
	if err != nil {
		t.Fatal(err)
	}
	// Several entries while rotating; unknown versions are ignored.
	if err := v.Verify(specHeader("v2,abc v1,bm90IGl0 "+specSignature), []byte(specBody)); err != nil {
		t.Fatalf("spec example rejected: %v", err)
	}
	cases := []struct {
		name, want string
		header     http.Header
		body       string
		opts       []dt.VerifierOption
	}{
		{"tampered body", dt.ReasonNoMatchingSignature, specHeader(specSignature), `{"test": 2432232315}`, nil},
		{"v2 only", dt.ReasonNoMatchingSignature, specHeader(strings.Replace(specSignature, "v1,", "v2,", 1)), specBody, nil},
		{"no signature header", dt.ReasonMissingHeader, specHeader(""), specBody, nil},
		{"too old", dt.ReasonTimestampTooOld, specHeader(specSignature), specBody, []dt.VerifierOption{at(1614265330 + 301)}},
		{"too new", dt.ReasonTimestampTooNew, specHeader(specSignature), specBody, []dt.VerifierOption{at(1614265330 - 301)}},
		{"tolerance option", dt.ReasonTimestampTooOld, specHeader(specSignature), specBody, []dt.VerifierOption{at(1614265330 + 11), dt.WithTolerance(10 * time.Second)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := dt.NewWebhookVerifier([]string{specSecret}, append([]dt.VerifierOption{at(1614265330)}, tc.opts...)...)
			if got := reason(v.Verify(tc.header, []byte(tc.body))); got != tc.want {
				t.Errorf("reason %s, want %s", got, tc.want)
			}
		})
	}
	bad := specHeader(specSignature)
	bad.Set("webhook-timestamp", "1614265330.5")
	if got := reason(v.Verify(bad, []byte(specBody))); got != dt.ReasonInvalidTimestamp {
		t.Errorf("fractional timestamp: %s", got)
	}
	if _, err := dt.NewWebhookVerifier([]string{"whsec_not base64!"}); reason(err) != dt.ReasonInvalidSecret {
		t.Errorf("bad secret: %v", err)
	}
}

func TestParseCallbackKeepsNumbersExact(t *testing.T) {
	cb, err := dt.ParseCallback([]byte(`{"taskId":"t-1","taskType":"order.close","payload":{"id":9007199254740993,"amount":0.1},"payloadVersion":2,"executeAt":"2026-12-03T10:00:00.000Z","attempt":3,"traceId":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if cb.Payload["id"] != json.Number("9007199254740993") || cb.Payload["amount"] != json.Number("0.1") ||
		cb.Attempt != 3 || cb.PayloadVersion != 2 || cb.TraceID != nil || cb.ExecuteAt.Unix() != 1796292000 {
		t.Errorf("%+v", cb)
	}
	for _, body := range []string{``, `[]`, `{"taskId":"t"}`, `{"taskId":"t","taskType":"x","payload":[],"executeAt":"2026-12-03T10:00:00Z"}`,
		`{"taskId":"t","taskType":"x","payload":{},"executeAt":"2026-12-03 10:00"}`, `{"taskId":"t","taskType":"x","payload":{},"executeAt":"2026-12-03T10:00:00Z"} {}`} {
		if _, err := dt.ParseCallback([]byte(body)); reason(err) != dt.ReasonInvalidBody {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// signed builds a callback request signed the way the service signs.
func signed(t *testing.T, secret string, taskType, key string, now time.Time) *http.Request {
	t.Helper()
	body := `{"taskId":"` + key + `","taskType":"` + taskType + `","payload":{"n":1},"payloadVersion":1,"executeAt":"2026-12-03T10:00:00.000Z","attempt":1,"traceId":null}`
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	id, ts := "msg-"+key, strconv.FormatInt(now.Unix(), 10)
	mac := hmac.New(sha256.New, raw)
	mac.Write([]byte(id + "." + ts + "." + body))
	r := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(body))
	r.Header.Set("webhook-id", id)
	r.Header.Set("webhook-timestamp", ts)
	r.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	r.Header.Set("Idempotency-Key", key)
	return r
}

// newHandler builds a CallbackReceiver that logs nowhere.
func newHandler(t *testing.T, opts ...dt.ReceiverOption) *dt.CallbackReceiver {
	t.Helper()
	opts = append([]dt.ReceiverOption{dt.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	h, err := dt.NewCallbackReceiver(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestCallbackHandlerRefusesToBeBuiltUnsigned(t *testing.T) {
	if _, err := dt.NewCallbackReceiver(); !errors.Is(err, dt.ErrUnsignedReceiver) {
		t.Errorf("no verifier, no AllowUnsigned: got %v, want ErrUnsignedReceiver", err)
	}
	if _, err := dt.NewCallbackReceiver(dt.WithVerifier(nil)); !errors.Is(err, dt.ErrUnsignedReceiver) {
		t.Errorf("a nil verifier: got %v, want ErrUnsignedReceiver", err)
	}
}

func serveOnce(h http.Handler, r *http.Request) *http.Response {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func TestCallbackHandlerStatuses(t *testing.T) {
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("handler-test-secret"))
	v, err := dt.NewWebhookVerifier([]string{secret})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	failFirst := true
	h := newHandler(t, dt.WithVerifier(v))
	h.Handle("ok", func(_ context.Context, cb *dt.Callback) error {
		calls.Add(1)
		if cb.Payload["n"] != json.Number("1") {
			return dt.Permanent(errors.New("bad payload"))
		}
		return nil
	})
	h.Handle("flaky", func(context.Context, *dt.Callback) error {
		calls.Add(1)
		if failFirst {
			failFirst = false
			return dt.Retry(errors.New("db busy"), 1500*time.Millisecond)
		}
		return nil
	})
	h.Handle("permanent", func(context.Context, *dt.Callback) error { return dt.Permanent(errors.New("no such order")) })
	h.Handle("broken", func(context.Context, *dt.Callback) error { return errors.New("nil pointer somewhere") })
	h.Handle("panics", func(context.Context, *dt.Callback) error { panic("index out of range") })
	now := time.Now()

	check := func(name string, r *http.Request, wantStatus int, wantBody string, wantCalls int32) *http.Response {
		t.Helper()
		before := calls.Load()
		resp := serveOnce(h, r)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != wantStatus || strings.TrimSpace(string(body)) != wantBody {
			t.Errorf("%s: %d %s, want %d %s", name, resp.StatusCode, body, wantStatus, wantBody)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: content-type %q", name, ct)
		}
		if got := calls.Load() - before; got != wantCalls {
			t.Errorf("%s: handler ran %d times, want %d", name, got, wantCalls)
		}
		return resp
	}
	check("success", signed(t, secret, "ok", "k1", now), 200, `{"status":"handled"}`, 1)
	check("repeat of a handled key", signed(t, secret, "ok", "k1", now), 200, `{"status":"duplicate"}`, 0)
	resp := check("retryable", signed(t, secret, "flaky", "k2", now), 503, `{"status":"retry"}`, 1)
	if resp.Header.Get("Retry-After") != "2" {
		t.Errorf("Retry-After %q, want 2 (rounded up)", resp.Header.Get("Retry-After"))
	}
	check("retry of a failed key runs again", signed(t, secret, "flaky", "k2", now), 200, `{"status":"handled"}`, 1)
	check("permanent", signed(t, secret, "permanent", "k3", now), 422, `{"status":"failed"}`, 0)
	check("unexpected error", signed(t, secret, "broken", "k4", now), 500, `{"status":"error"}`, 0)
	check("a panic", signed(t, secret, "panics", "k4p", now), 500, `{"status":"error"}`, 0)
	check("unknown task type", signed(t, secret, "nobody", "k5", now), 422, `{"status":"failed","reason":"no handler for task type"}`, 0)
	check("stale signature", signed(t, secret, "ok", "k6", now.Add(-10*time.Minute)), 401, `{"status":"refused","reason":"timestamp_too_old"}`, 0)
	other := "whsec_" + base64.StdEncoding.EncodeToString([]byte("attacker"))
	check("signed with another secret", signed(t, other, "ok", "k7", now), 401, `{"status":"refused","reason":"no_matching_signature"}`, 0)
	unsigned := signed(t, secret, "ok", "k8", now)
	unsigned.Header.Del("webhook-signature")
	check("unsigned", unsigned, 401, `{"status":"refused","reason":"missing_header"}`, 0)
	check("GET", httptest.NewRequest(http.MethodGet, "/callbacks", nil), 405, `{"status":"refused","reason":"method_not_allowed"}`, 0)

	noVerify := newHandler(t, dt.AllowUnsigned())
	noVerify.Handle("ok", func(context.Context, *dt.Callback) error { return nil })
	if resp := serveOnce(noVerify, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"taskId":`))); resp.StatusCode != 400 {
		t.Errorf("unparseable body: %d", resp.StatusCode)
	}
}

func TestHandleTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	h := newHandler(t, dt.AllowUnsigned())
	h.Handle("x", func(context.Context, *dt.Callback) error { return nil })
	h.Handle("x", func(context.Context, *dt.Callback) error { return nil })
}

// failingStore is an idempotency store whose backend is down.
type failingStore struct{ recorded []string }

func (s *failingStore) Seen(_ context.Context, key string) (bool, error) {
	if key == "down" {
		return false, errors.New("redis: connection refused")
	}
	return false, nil
}

func (s *failingStore) Record(_ context.Context, key string) error {
	s.recorded = append(s.recorded, key)
	return nil
}

func TestCallbackHandlerWithPluggableStore(t *testing.T) {
	unsigned := dt.AllowUnsigned()
	store := &failingStore{}
	ran := 0
	h := newHandler(t, dt.WithIdempotencyStore(store), unsigned)
	h.Handle("ok", func(context.Context, *dt.Callback) error { ran++; return nil })
	if resp := serveOnce(h, signed(t, "whsec_AAAA", "ok", "down", time.Now())); resp.StatusCode != 500 || ran != 0 {
		t.Errorf("store down: status %d, handler ran %d times; want 500 (retried) and not run", resp.StatusCode, ran)
	}
	if resp := serveOnce(h, signed(t, "whsec_AAAA", "ok", "k1", time.Now())); resp.StatusCode != 200 || ran != 1 || len(store.recorded) != 1 || store.recorded[0] != "k1" {
		t.Errorf("status %d, ran %d, recorded %v", resp.StatusCode, ran, store.recorded)
	}

	off := newHandler(t, dt.WithIdempotencyStore(nil), unsigned)
	off.Handle("ok", func(context.Context, *dt.Callback) error { ran++; return nil })
	serveOnce(off, signed(t, "whsec_AAAA", "ok", "k2", time.Now()))
	serveOnce(off, signed(t, "whsec_AAAA", "ok", "k2", time.Now()))
	if ran != 3 {
		t.Errorf("without a store every delivery runs the handler: ran %d, want 3", ran)
	}

	small := newHandler(t, dt.WithMaxBodyBytes(10), unsigned)
	small.Handle("ok", func(context.Context, *dt.Callback) error { ran++; return nil })
	if resp := serveOnce(small, signed(t, "whsec_AAAA", "ok", "k3", time.Now())); resp.StatusCode != 400 || ran != 3 {
		t.Errorf("body over the limit: status %d", resp.StatusCode)
	}
}
