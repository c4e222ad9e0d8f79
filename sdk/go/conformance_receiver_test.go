package delayedtasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// receiverCase is one case of conformance/callbacks/receiver.json: a CallbackReceiver built from
// Receiver and sent every delivery in order.
type receiverCase struct {
	Name     string `json:"name"`
	Receiver struct {
		Secrets          []string          `json:"secrets"`
		AllowUnsigned    bool              `json:"allowUnsigned"`
		Now              json.Number       `json:"now"`
		ToleranceSeconds *json.Number      `json:"toleranceSeconds"`
		Handlers         map[string]string `json:"handlers"`
	} `json:"receiver"`
	Deliveries []struct {
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
		Expect  struct {
			Status       int               `json:"status"`
			Body         any               `json:"body"`
			Headers      map[string]string `json:"headers"`
			HandlerCalls int               `json:"handlerCalls"`
		} `json:"expect"`
	} `json:"deliveries"`
	Expect struct {
		RefusedToBuild bool `json:"refusedToBuild"`
	} `json:"expect"`
}

// testHandler is what a vector's handler does, in Go's way: "handle" returns nil, "retry" asks
// to be delivered again in 30 seconds, "fail" fails for good, "throw" returns any other error.
func testHandler(kind string, calls *int) (dt.CallbackHandler, error) {
	var result error
	switch kind {
	case "handle":
	case "retry":
		result = dt.Retry(errors.New("the database is busy"), 30*time.Second)
	case "fail":
		result = dt.Permanent(errors.New("no such order"))
	case "throw":
		result = errors.New("internal: connection to 10.0.0.7 refused")
	default:
		return nil, errors.New("unknown handler kind " + kind)
	}
	return func(context.Context, *dt.Callback) error {
		*calls++
		return result
	}, nil
}

func runReceiverCase(t *testing.T, tc receiverCase) {
	cfg := tc.Receiver
	opts := []dt.ReceiverOption{
		dt.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		dt.WithIdempotencyStore(dt.NewInMemoryIdempotencyStore(0)),
	}
	if len(cfg.Secrets) > 0 {
		now, err := cfg.Now.Int64()
		if err != nil {
			t.Fatalf("vector: now %q: %v", cfg.Now, err)
		}
		vopts := []dt.VerifierOption{dt.WithClock(func() time.Time { return time.Unix(now, 0) })}
		if cfg.ToleranceSeconds != nil {
			secs, _ := cfg.ToleranceSeconds.Int64()
			vopts = append(vopts, dt.WithTolerance(time.Duration(secs)*time.Second))
		}
		v, err := dt.NewWebhookVerifier(cfg.Secrets, vopts...)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, dt.WithVerifier(v))
	}
	if cfg.AllowUnsigned {
		opts = append(opts, dt.AllowUnsigned())
	}
	h, err := dt.NewCallbackReceiver(opts...)
	if tc.Expect.RefusedToBuild {
		if err == nil {
			t.Fatal("the receiver was built; want it refused (no secrets, AllowUnsigned not set)")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for taskType, kind := range cfg.Handlers {
		fn, err := testHandler(kind, &calls)
		if err != nil {
			t.Fatalf("vector: %v", err)
		}
		h.Handle(taskType, fn)
	}
	for i, d := range tc.Deliveries {
		r := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(d.Body))
		for k, v := range d.Headers {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		want := d.Expect
		if w.Code != want.Status {
			t.Errorf("delivery %d: status %d, want %d (body %s)", i, w.Code, want.Status, w.Body)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("delivery %d: content-type %q, want application/json", i, ct)
		}
		body, err := decodeJSON(w.Body.Bytes())
		if err != nil {
			t.Errorf("delivery %d: body %q is not JSON: %v", i, w.Body, err)
		} else if err := (&matcher{}).match("body", want.Body, body); err != nil {
			t.Errorf("delivery %d: %v\n got %s", i, err, w.Body)
		}
		for name, value := range want.Headers {
			if got := w.Header().Get(name); got != value {
				t.Errorf("delivery %d: header %s = %q, want %q", i, name, got, value)
			}
		}
		if calls != want.HandlerCalls {
			t.Errorf("delivery %d: handlers ran %d times so far, want %d", i, calls, want.HandlerCalls)
		}
	}
}
