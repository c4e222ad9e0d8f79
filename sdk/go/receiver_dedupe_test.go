package delayedtasks_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// From the attacker's side: someone who captured a signed callback sends it again within the
// tolerance with the unsigned Idempotency-Key header removed, changed, or set to another task's
// key. The handler deduplicates on the signed webhook-id, so the handler does not run a second
// time, and another task's genuine callback is never taken for a duplicate.

// dedupeReceiver serves a CallbackReceiver on loopback; ran lists the task ids it ran for.
type dedupeReceiver struct {
	t   *testing.T
	url string
	mu  sync.Mutex
	ran []string
}

func newDedupeReceiver(t *testing.T, opts ...dt.ReceiverOption) *dedupeReceiver {
	t.Helper()
	d := &dedupeReceiver{t: t}
	h := newHandler(t, opts...)
	h.Handle("order.close", func(_ context.Context, cb *dt.Callback) error {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.ran = append(d.ran, cb.TaskID)
		return nil
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	d.url = srv.URL + "/callbacks"
	return d
}

// captured is a delivery as an eavesdropper recorded it: its headers and raw body.
type captured struct {
	header http.Header
	body   string
}

// capture records a signed request as it went over the wire.
func capture(t *testing.T, r *http.Request) captured {
	t.Helper()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return captured{header: r.Header.Clone(), body: string(body)}
}

// withKey is the same delivery with its Idempotency-Key changed ("": removed).
func (c captured) withKey(key string) captured {
	c.header = c.header.Clone()
	if key == "" {
		c.header.Del("Idempotency-Key")
	} else {
		c.header.Set("Idempotency-Key", key)
	}
	return c
}

// send posts a delivery and returns the answer's status and body.
func (d *dedupeReceiver) send(c captured) string {
	d.t.Helper()
	req, err := http.NewRequest(http.MethodPost, d.url, strings.NewReader(c.body))
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header = c.header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.Status[:3] + " " + strings.TrimSpace(string(answer))
}

func (d *dedupeReceiver) ranFor() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.ran)
}

const (
	handledAnswer   = `200 {"status":"handled"}`
	duplicateAnswer = `200 {"status":"duplicate"}`
)

var dedupeSecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("dedupe-test-secret-of-24+bytes"))

func dedupeVerifier(t *testing.T) dt.ReceiverOption {
	t.Helper()
	v, err := dt.NewWebhookVerifier([]string{dedupeSecret})
	if err != nil {
		t.Fatal(err)
	}
	return dt.WithVerifier(v)
}

func TestReplayWithTamperedIdempotencyKeyIsADuplicate(t *testing.T) {
	for name, key := range map[string]string{"removed": "", "changed": "replayed-1", "another task's": "order-b"} {
		t.Run(name, func(t *testing.T) {
			d := newDedupeReceiver(t, dedupeVerifier(t))
			a := capture(t, signed(t, dedupeSecret, "order.close", "order-a", time.Now()))
			if got := d.send(a); got != handledAnswer {
				t.Fatalf("genuine A: %s", got)
			}
			if got := d.send(a.withKey(key)); got != duplicateAnswer {
				t.Errorf("A replayed with its Idempotency-Key %s: %s, want a duplicate", name, got)
			}
			if got := d.ranFor(); !slices.Equal(got, []string{"order-a"}) {
				t.Errorf("handler ran for %v, want once for order-a", got)
			}
		})
	}
}

func TestGenuineCallbackRunsAfterAReplayCarryingItsKey(t *testing.T) {
	d := newDedupeReceiver(t, dedupeVerifier(t))
	a := capture(t, signed(t, dedupeSecret, "order.close", "order-a", time.Now()))
	b := capture(t, signed(t, dedupeSecret, "order.close", "order-b", time.Now()))
	for i, step := range []struct {
		req  captured
		want string
	}{
		{a, handledAnswer},
		{a.withKey("order-b"), duplicateAnswer},
		{b, handledAnswer},
		{b.withKey(""), duplicateAnswer},
	} {
		if got := d.send(step.req); got != step.want {
			t.Errorf("delivery %d: %s, want %s", i+1, got, step.want)
		}
	}
	if got := d.ranFor(); !slices.Equal(got, []string{"order-a", "order-b"}) {
		t.Errorf("handler ran for %v, want order-a then order-b", got)
	}
}

func TestForgedCallbackWithAnotherTasksIDRecordsNothing(t *testing.T) {
	d := newDedupeReceiver(t, dedupeVerifier(t))
	attacker := "whsec_" + base64.StdEncoding.EncodeToString([]byte("the attacker's own secret!"))
	forged := capture(t, signed(t, attacker, "order.close", "order-b", time.Now()))
	if got := d.send(forged); got != `401 {"status":"refused","reason":"no_matching_signature"}` {
		t.Errorf("forged: %s", got)
	}
	if got := d.send(capture(t, signed(t, dedupeSecret, "order.close", "order-b", time.Now()))); got != handledAnswer {
		t.Errorf("genuine B after a forged B: %s, want handled", got)
	}
	if got := d.ranFor(); !slices.Equal(got, []string{"order-b"}) {
		t.Errorf("handler ran for %v, want once for order-b", got)
	}
}

func TestUnsignedReceiverKeysOnTheBodysTaskID(t *testing.T) {
	d := newDedupeReceiver(t, dt.AllowUnsigned())
	unsigned := func(taskID, key string) captured {
		c := capture(t, signed(t, dedupeSecret, "order.close", taskID, time.Now()))
		for _, h := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			c.header.Del(h)
		}
		return c.withKey(key)
	}
	for i, step := range []struct {
		req  captured
		want string
	}{
		{unsigned("order-a", "order-a"), handledAnswer},
		{unsigned("order-a", "replayed-1"), duplicateAnswer},
		{unsigned("order-b", "order-a"), handledAnswer},
	} {
		if got := d.send(step.req); got != step.want {
			t.Errorf("delivery %d: %s, want %s", i+1, got, step.want)
		}
	}
	if got := d.ranFor(); !slices.Equal(got, []string{"order-a", "order-b"}) {
		t.Errorf("handler ran for %v, want order-a then order-b", got)
	}
}
