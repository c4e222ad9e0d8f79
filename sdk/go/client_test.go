package delayedtasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// stubServer answers with the handlers in order and records every request body.
type stubServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	bodies   []string
}

func newStub(t *testing.T, answers ...http.HandlerFunc) *stubServer {
	t.Helper()
	s := &stubServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, r)
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()
		if n >= len(answers) {
			t.Errorf("unexpected request %d: %s %s", n+1, r.Method, r.URL)
			w.WriteHeader(http.StatusTeapot)
			return
		}
		answers[n](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *stubServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func answer(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func dropConnection(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

const taskJSON = `{"taskId":"t-1","taskType":"order.close","status":"SCHEDULED",
"executeAt":"2026-12-03T10:00:00.000Z","createdAt":"2026-12-03T09:00:00.000Z",
"payload":{"orderId":"10023","amount":12345678901234567890.5,"n":9007199254740991},"payloadVersion":1,
"callbackUrl":"http://127.0.0.1:9/cb","maxRetries":3,"timeoutMs":30000,"traceId":null,"priority":3,
"attempts":0,"lastError":null,"nextAttemptAt":null,"firedAt":null,"completedAt":null}`

func newClient(t *testing.T, url string, opts ...dt.ClientOption) *dt.Client {
	t.Helper()
	opts = append([]dt.ClientOption{dt.WithRetryPolicy(dt.RetryPolicy{MaxRetries: 3})}, opts...)
	c, err := dt.NewClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCreateRetriesWithTheSameGeneratedTaskID(t *testing.T) {
	s := newStub(t,
		answer(503, `{"error":{"code":"UNAVAILABLE","message":"temporal down"}}`),
		dropConnection,
		answer(201, taskJSON),
	)
	c := newClient(t, s.URL, dt.WithAPIKey("dts_k1_secret"), dt.WithUserAgent("billing/1.4"))
	task, created, err := c.Create(context.Background(), &dt.CreateTaskRequest{
		TaskType: "order.close",
		Payload:  map[string]any{"orderId": "10023"},
		Delay:    1500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !created || task.TaskID != "t-1" || !task.ExecuteAt.Equal(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("created=%v task=%+v", created, task)
	}
	if got := task.Payload["amount"]; got != json.Number("12345678901234567890.5") {
		t.Errorf("payload number lost precision: %#v", got)
	}
	if s.count() != 3 {
		t.Fatalf("%d requests, want 3", s.count())
	}
	var ids []string
	for i, body := range s.bodies {
		var sent map[string]any
		if err := json.Unmarshal([]byte(body), &sent); err != nil {
			t.Fatalf("request %d body %q: %v", i, body, err)
		}
		if sent["delaySeconds"] != 1.5 {
			t.Errorf("delaySeconds %v, want 1.5", sent["delaySeconds"])
		}
		if len(sent) != 4 {
			t.Errorf("body sends fields the caller did not set: %s", body)
		}
		ids = append(ids, sent["taskId"].(string))
	}
	if !uuidV4.MatchString(ids[0]) || ids[0] != ids[1] || ids[1] != ids[2] {
		t.Errorf("task ids %v: want one UUID v4 reused on every retry", ids)
	}
	r := s.requests[0]
	if r.Header.Get("Authorization") != "Bearer dts_k1_secret" ||
		r.Header.Get("User-Agent") != "billing/1.4 delayed-tasks-go/"+dt.Version ||
		r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", r.Header)
	}
}

func TestCreateSendsExecuteAtInUTCWithMilliseconds(t *testing.T) {
	s := newStub(t, answer(200, taskJSON))
	c := newClient(t, s.URL)
	at := time.Date(2026, 12, 3, 18, 30, 0, 0, time.FixedZone("CST", 8*3600))
	_, created, err := c.Create(context.Background(), &dt.CreateTaskRequest{
		TaskType: "order.close", Payload: map[string]any{}, ExecuteAt: at, TaskID: "order-1",
		MaxRetries: dt.Ptr(0), Priority: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if created {
		t.Error("a 200 answer is an idempotent repeat: created must be false")
	}
	want := `{"taskType":"order.close","payload":{},"executeAt":"2026-12-03T10:30:00.000Z","taskId":"order-1","maxRetries":0,"priority":1}`
	if s.bodies[0] != want {
		t.Errorf("body\n got %s\nwant %s", s.bodies[0], want)
	}
}

func TestChecksBeforeSending(t *testing.T) {
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		req    dt.CreateTaskRequest
		fields []string
	}{
		{"NaN nested", dt.CreateTaskRequest{Payload: map[string]any{"a": map[string]any{"b": math.NaN()}}, Delay: time.Second}, []string{"payload.a.b"}},
		{"Inf in array", dt.CreateTaskRequest{Payload: map[string]any{"items": []any{1, 2, math.Inf(-1)}}, Delay: time.Second}, []string{"payload.items.2"}},
		{"typed slice", dt.CreateTaskRequest{Payload: map[string]any{"xs": []float64{0, math.Inf(1)}}, Delay: time.Second}, []string{"payload.xs.1"}},
		{"big int64", dt.CreateTaskRequest{Payload: map[string]any{"id": int64(1 << 53)}, Delay: time.Second}, []string{"payload.id"}},
		{"big json.Number", dt.CreateTaskRequest{Payload: map[string]any{"id": json.Number("-9007199254740993")}, Delay: time.Second}, []string{"payload.id"}},
		{"integral float beyond", dt.CreateTaskRequest{Payload: map[string]any{"x": 1e20}, Delay: time.Second}, []string{"payload.x"}},
		{"nil payload", dt.CreateTaskRequest{Delay: time.Second}, []string{"payload"}},
		{"neither", dt.CreateTaskRequest{Payload: map[string]any{}}, []string{"delaySeconds"}},
		{"both", dt.CreateTaskRequest{Payload: map[string]any{}, Delay: time.Second, ExecuteAt: at}, []string{"delaySeconds"}},
		{"negative", dt.CreateTaskRequest{Payload: map[string]any{}, Delay: -time.Second}, []string{"delaySeconds"}},
		{"callback and delivery", dt.CreateTaskRequest{Payload: map[string]any{}, Delay: time.Second, CallbackURL: "http://127.0.0.1:9/cb", Delivery: &dt.Delivery{Mode: "pull"}}, []string{"delivery"}},
	}
	s := newStub(t)
	c := newClient(t, s.URL)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.TaskType = "x"
			_, _, err := c.Create(context.Background(), &tc.req)
			var apiErr *dt.DelayedTaskError
			if !errors.As(err, &apiErr) || apiErr.Code != dt.CodeInvalidArgument || apiErr.Status != 0 {
				t.Fatalf("want INVALID_ARGUMENT with status 0, got %v", err)
			}
			var fields []string
			for _, d := range apiErr.Details {
				fields = append(fields, d.Field)
			}
			if strings.Join(fields, ",") != strings.Join(tc.fields, ",") {
				t.Errorf("fields %v, want %v", fields, tc.fields)
			}
		})
	}
	if s.count() != 0 {
		t.Errorf("%d requests were sent; refused input must send none", s.count())
	}
}

func TestSafeIntegersAndFiniteFloatsPass(t *testing.T) {
	s := newStub(t, answer(201, taskJSON))
	c := newClient(t, s.URL)
	_, _, err := c.Create(context.Background(), &dt.CreateTaskRequest{
		TaskType: "x", Delay: time.Millisecond,
		Payload: map[string]any{"max": int64(1<<53 - 1), "f": 1.5, "n": json.Number("1e400")},
	})
	var apiErr *dt.DelayedTaskError
	if !errors.As(err, &apiErr) || apiErr.Details[0].Field != "payload.n" {
		t.Fatalf("1e400 overflows a double and must be refused, got %v", err)
	}
	_, _, err = c.Create(context.Background(), &dt.CreateTaskRequest{
		TaskType: "x", Delay: 1400 * time.Microsecond,
		Payload: map[string]any{"max": int64(1<<53 - 1), "min": -(1<<53 - 1), "f": 1e15 + 0.5, "g": json.Number("0.1"), "s": "NaN"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.bodies[0], `"delaySeconds":0.001,`) {
		t.Errorf("a delay is sent in seconds rounded to the millisecond: %s", s.bodies[0])
	}
}

func TestErrorsAreNotRetriedExceptUnavailableAndRateLimits(t *testing.T) {
	s := newStub(t, answer(409, `{"error":{"code":"TASK_CONFLICT","message":"other spec","details":[{"field":"taskId","reason":"exists"}]}}`, "X-Request-Id", "req-7"))
	c := newClient(t, s.URL)
	_, _, err := c.Create(context.Background(), &dt.CreateTaskRequest{TaskType: "x", Payload: map[string]any{}, Delay: time.Second})
	var apiErr *dt.DelayedTaskError
	if !errors.As(err, &apiErr) || apiErr.Code != dt.CodeTaskConflict || apiErr.Status != 409 ||
		apiErr.RequestID != "req-7" || apiErr.Details[0].Field != "taskId" {
		t.Fatalf("got %#v", err)
	}
	if s.count() != 1 {
		t.Errorf("%d requests: a 409 must not be retried", s.count())
	}
}

func TestUnknownCodePassesThroughAndNonJSONIsUnknown(t *testing.T) {
	s := newStub(t,
		answer(418, `{"error":{"code":"BRAND_NEW_CODE","message":"from a newer server"}}`),
		answer(502, `<html>bad gateway</html>`),
	)
	c := newClient(t, s.URL)
	_, err := c.Status(context.Background(), "a")
	var apiErr *dt.DelayedTaskError
	if !errors.As(err, &apiErr) || apiErr.Code != "BRAND_NEW_CODE" || apiErr.Status != 418 {
		t.Fatalf("got %v", err)
	}
	_, err = c.Status(context.Background(), "a")
	if !errors.As(err, &apiErr) || apiErr.Code != dt.CodeUnknown || apiErr.Status != 502 {
		t.Fatalf("got %v", err)
	}
}

func TestNetworkFailureAfterRetriesIsUnavailableWithStatusZero(t *testing.T) {
	s := newStub(t, dropConnection, dropConnection, answer(429, `{"error":{"code":"RESOURCE_EXHAUSTED","message":"slow down"}}`), dropConnection)
	c := newClient(t, s.URL)
	_, err := c.Cancel(context.Background(), "order:1")
	var apiErr *dt.DelayedTaskError
	if !errors.As(err, &apiErr) || apiErr.Code != dt.CodeUnavailable || apiErr.Status != 0 || apiErr.Err == nil {
		t.Fatalf("got %#v", err)
	}
	if s.count() != 4 {
		t.Errorf("%d attempts, want 4", s.count())
	}
	if got := s.requests[0].RequestURI; got != "/api/v1/tasks/order%3A1/cancel" {
		t.Errorf("path %s: a task id is percent-encoded as one segment", got)
	}
	if s.bodies[0] != "" {
		t.Errorf("cancel sends no body, sent %q", s.bodies[0])
	}
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := newStub(t,
		func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
		answer(200, taskJSON),
	)
	c := newClient(t, s.URL, dt.WithTimeout(50*time.Millisecond))
	if _, err := c.Status(context.Background(), "t-1"); err != nil {
		t.Fatal(err)
	}
}

func TestCallerCancellationStopsRetries(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s := newStub(t, answer(503, `{"error":{"code":"UNAVAILABLE","message":"x"}}`))
	c := newClient(t, s.URL, dt.WithRetryPolicy(dt.RetryPolicy{MaxRetries: 3, InitialBackoff: time.Hour, MaxBackoff: time.Hour}))
	_, err := c.Status(ctx, "t-1")
	var apiErr *dt.DelayedTaskError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 {
		t.Fatalf("got %v", err)
	}
	if s.count() != 1 {
		t.Errorf("%d requests after the caller gave up", s.count())
	}
}

func TestListAllFollowsPages(t *testing.T) {
	s := newStub(t,
		answer(200, `{"tasks":[{"taskId":"a","taskType":"x","status":"FAILED","executeAt":null,"createdAt":null,"callbackUrl":null,"priority":null,"attempts":4,"lastError":{"message":"HTTP 422","statusCode":422},"completedAt":"2026-12-03T10:00:00.000Z"}],"nextPageToken":"p2"}`),
		answer(200, `{"tasks":[{"taskId":"b","taskType":"x","status":"FAILED","attempts":1}],"nextPageToken":null}`),
	)
	c := newClient(t, s.URL)
	var ids []string
	for task, err := range c.ListAll(context.Background(), &dt.ListTasksRequest{Status: dt.StatusFailed, PageSize: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.TaskID)
		if task.TaskID == "a" && (task.LastError == nil || task.LastError.StatusCode != 422 || task.ExecuteAt != nil) {
			t.Errorf("summary %+v", task)
		}
	}
	if strings.Join(ids, ",") != "a,b" {
		t.Errorf("ids %v", ids)
	}
	if q := s.requests[1].URL.RawQuery; q != "pageSize=1&pageToken=p2&status=FAILED" {
		t.Errorf("second page query %s", q)
	}
}

func TestListAllYieldsErrorOnce(t *testing.T) {
	s := newStub(t, answer(400, `{"error":{"code":"INVALID_ARGUMENT","message":"bad status"}}`))
	c := newClient(t, s.URL)
	n := 0
	for _, err := range c.ListAll(context.Background(), nil) {
		n++
		if err == nil {
			t.Fatal("want error")
		}
	}
	if n != 1 {
		t.Errorf("%d elements, want one error", n)
	}
}

func TestReplaySendsOnlyWhatIsSet(t *testing.T) {
	s := newStub(t, answer(200, taskJSON), answer(200, taskJSON), answer(200, taskJSON))
	c := newClient(t, s.URL)
	if _, err := c.Replay(context.Background(), "t-1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Replay(context.Background(), "t-1", &dt.ReplayRequest{Payload: map[string]any{"v": 2}, MaxRetries: dt.Ptr(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Replay(context.Background(), "t-1", &dt.ReplayRequest{Payload: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if s.bodies[0] != `{}` || s.bodies[1] != `{"payload":{"v":2},"maxRetries":1}` || s.bodies[2] != `{"payload":{}}` {
		t.Errorf("bodies %q", s.bodies)
	}
	_, err := c.Replay(context.Background(), "t-1", &dt.ReplayRequest{Delay: time.Second, ExecuteAt: time.Now()})
	if !isInvalid(err, "delaySeconds") {
		t.Errorf("both delaySeconds and executeAt: %v", err)
	}
	if _, err := c.Status(context.Background(), ""); !isInvalid(err, "taskId") {
		t.Errorf("empty task id: %v", err)
	}
}

func isInvalid(err error, field string) bool {
	var apiErr *dt.DelayedTaskError
	return errors.As(err, &apiErr) && apiErr.Code == dt.CodeInvalidArgument && apiErr.Details[0].Field == field
}

func TestNewClientRefusesRelativeURL(t *testing.T) {
	for _, u := range []string{"", "localhost:3000", "/api", "ftp://x"} {
		if _, err := dt.NewClient(u); err == nil {
			t.Errorf("NewClient(%q) accepted", u)
		}
	}
}

func TestErrorMessageStatesEachFaultOnce(t *testing.T) {
	s := newStub(t, answer(400, `{"error":{"code":"INVALID_ARGUMENT","message":"taskType must match pattern","details":[{"field":"taskType","reason":"must match pattern"},{"field":"priority","reason":"must be <= 5"}]}}`))
	c := newClient(t, s.URL)
	_, _, err := c.Create(context.Background(), &dt.CreateTaskRequest{TaskType: "x", Payload: map[string]any{}, Delay: -time.Second})
	if want := "delayedtasks: INVALID_ARGUMENT: delaySeconds must not be negative"; err == nil || err.Error() != want {
		t.Errorf("refused before sending:\n got %v\nwant %s", err, want)
	}
	_, _, err = c.Create(context.Background(), &dt.CreateTaskRequest{TaskType: "X", Payload: map[string]any{}, Delay: time.Second})
	if want := "delayedtasks: INVALID_ARGUMENT (HTTP 400): taskType must match pattern; priority must be <= 5"; err == nil || err.Error() != want {
		t.Errorf("answered by the service:\n got %v\nwant %s", err, want)
	}
}
