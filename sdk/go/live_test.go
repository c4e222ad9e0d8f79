package delayedtasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// Live scenarios against the real service (API, worker, Temporal): run when DTS_URL is set
// (DTS_API_KEY and DTS_WEBHOOK_SECRET when the stack has them); a failure under CI=true without it.

func liveClient(t *testing.T) *dt.Client {
	t.Helper()
	base := os.Getenv("DTS_URL")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DTS_URL is not set: the live scenarios must run in CI")
		}
		t.Skip("DTS_URL is not set: live scenarios skipped")
	}
	var opts []dt.ClientOption
	if key := os.Getenv("DTS_API_KEY"); key != "" {
		opts = append(opts, dt.WithAPIKey(key))
	}
	c, err := dt.NewClient(base, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var runID = time.Now().UTC().Format("20060102T150405.000000000")

func liveID(name string) string { return "go-" + name + "-" + runID }

// waitFor polls the task until it has status want (bounded: 90 s). Another final status fails
// at once, after a grace of 5 s for a replay's new run to show.
func waitFor(ctx context.Context, t *testing.T, c *dt.Client, taskID string, want dt.TaskStatus) *dt.Task {
	t.Helper()
	start := time.Now()
	deadline := start.Add(90 * time.Second)
	for {
		task, err := c.Status(ctx, taskID)
		if err != nil {
			t.Fatalf("get %s: %v", taskID, err)
		}
		if task.Status == want {
			return task
		}
		final := task.Status == dt.StatusSucceeded || task.Status == dt.StatusFailed || task.Status == dt.StatusCancelled
		if time.Now().After(deadline) || (final && time.Since(start) > 5*time.Second) {
			t.Fatalf("task %s is %s after 90 s, want %s (last error %+v)", taskID, task.Status, want, task.LastError)
		}
		time.Sleep(200 * time.Millisecond) // polling interval, not synchronisation
	}
}

func TestLiveCreateStatusCancel(t *testing.T) {
	c := liveClient(t)
	ctx := context.Background()
	task, created, err := c.Create(ctx, &dt.CreateTaskRequest{
		TaskType:    "go.live",
		Payload:     map[string]any{"orderId": "10023"},
		Delay:       time.Hour,
		CallbackURL: "http://127.0.0.1:9/never",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !created || !uuidV4.MatchString(task.TaskID) || task.Status != dt.StatusScheduled {
		t.Fatalf("created=%v %+v", created, task)
	}
	if d := time.Until(task.ExecuteAt); d < 59*time.Minute || d > 61*time.Minute {
		t.Errorf("executeAt %v is not an hour from now", task.ExecuteAt)
	}
	got, err := c.Status(ctx, task.TaskID)
	if err != nil || got.TaskID != task.TaskID || got.Payload["orderId"] != "10023" {
		t.Fatalf("get: %+v %v", got, err)
	}
	cancelled, err := c.Cancel(ctx, task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if cancelled.Status != dt.StatusCancelled {
		waitFor(ctx, t, c, task.TaskID, dt.StatusCancelled)
	}
	_, err = c.Status(ctx, liveID("absent"))
	var apiErr *dt.DelayedTaskError
	if !errors.As(err, &apiErr) || apiErr.Code != dt.CodeTaskNotFound || apiErr.Status != 404 {
		t.Errorf("get of an absent task: %v", err)
	}
}

func TestLiveIdempotentCreateAndConflict(t *testing.T) {
	c := liveClient(t)
	ctx := context.Background()
	req := &dt.CreateTaskRequest{
		TaskID:      liveID("idem"),
		TaskType:    "go.live",
		Payload:     map[string]any{"n": 1},
		Delay:       time.Hour,
		CallbackURL: "http://127.0.0.1:9/never",
	}
	first, created, err := c.Create(ctx, req)
	if err != nil || !created {
		t.Fatalf("first create: created=%v %v", created, err)
	}
	again, created, err := c.Create(ctx, req)
	if err != nil || created || again.TaskID != first.TaskID {
		t.Fatalf("repeat: created=%v %+v %v", created, again, err)
	}
	other := *req
	other.Payload = map[string]any{"n": 2}
	_, _, err = c.Create(ctx, &other)
	var apiErr *dt.DelayedTaskError
	if !errors.As(err, &apiErr) || apiErr.Code != dt.CodeTaskConflict || apiErr.Status != 409 {
		t.Fatalf("other spec: want TASK_CONFLICT, got %v", err)
	}
	if _, err := c.Cancel(ctx, req.TaskID); err != nil {
		t.Fatal(err)
	}
}

func TestLiveReschedule(t *testing.T) {
	c := liveClient(t)
	ctx := context.Background()
	task, _, err := c.Create(ctx, &dt.CreateTaskRequest{
		TaskID: liveID("resched"), TaskType: "go.live", Payload: map[string]any{},
		Delay: time.Hour, CallbackURL: "http://127.0.0.1:9/never",
	})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(3 * time.Hour).Truncate(time.Millisecond).In(time.FixedZone("+08:00", 8*3600))
	moved, err := c.Reschedule(ctx, task.TaskID, &dt.RescheduleRequest{ExecuteAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if !moved.ExecuteAt.Equal(at) {
		// The answer may predate the workflow applying the signal: read it back.
		deadline := time.Now().Add(30 * time.Second)
		for !moved.ExecuteAt.Equal(at) && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			if moved, err = c.Status(ctx, task.TaskID); err != nil {
				t.Fatal(err)
			}
		}
		if !moved.ExecuteAt.Equal(at) {
			t.Fatalf("executeAt %v, want %v", moved.ExecuteAt, at)
		}
	}
	if _, err := c.Cancel(ctx, task.TaskID); err != nil {
		t.Fatal(err)
	}
}

// receiver is a callback endpoint written with the SDK's receiving helpers.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	received []*dt.Callback
}

func newReceiver(t *testing.T, fn dt.CallbackHandler) *receiver {
	t.Helper()
	r := &receiver{}
	opts := []dt.ReceiverOption{dt.AllowUnsigned()} // a stack that signs nothing
	if secret := os.Getenv("DTS_WEBHOOK_SECRET"); secret != "" {
		v, err := dt.NewWebhookVerifier([]string{secret})
		if err != nil {
			t.Fatal(err)
		}
		opts = []dt.ReceiverOption{dt.WithVerifier(v)}
	}
	opts = append(opts, dt.WithLogger(slog.New(slog.NewTextHandler(testLog{t}, nil))))
	h, err := dt.NewCallbackReceiver(opts...)
	if err != nil {
		t.Fatal(err)
	}
	h.Handle("go.live", func(ctx context.Context, cb *dt.Callback) error {
		r.mu.Lock()
		r.received = append(r.received, cb)
		r.mu.Unlock()
		return fn(ctx, cb)
	})
	r.Server = httptest.NewServer(h)
	t.Cleanup(r.Close)
	return r
}

// testLog writes the receiver's log into the test's output (shown when it fails or with -v).
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func (r *receiver) calls() []*dt.Callback {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*dt.Callback(nil), r.received...)
}

func TestLiveDueTaskDeliveredToHandler(t *testing.T) {
	c := liveClient(t)
	ctx := context.Background()
	rcv := newReceiver(t, func(context.Context, *dt.Callback) error { return nil })
	id := liveID("due")
	_, _, err := c.Create(ctx, &dt.CreateTaskRequest{
		TaskID: id, TaskType: "go.live", CallbackURL: rcv.URL + "/callbacks", TraceID: "trace-" + id,
		Payload: map[string]any{"orderId": "10023", "amount": 12.5, "max": int64(1<<53 - 1), "items": []any{"a", "b"}},
		Delay:   500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, c, id, dt.StatusSucceeded)
	calls := rcv.calls()
	if len(calls) != 1 {
		t.Fatalf("handler ran %d times, want 1", len(calls))
	}
	cb := calls[0]
	if cb.TaskID != id || cb.Attempt != 1 || cb.TraceID == nil || *cb.TraceID != "trace-"+id ||
		cb.Payload["amount"] != json.Number("12.5") || cb.Payload["max"] != json.Number("9007199254740991") ||
		fmt.Sprint(cb.Payload["items"]) != "[a b]" {
		t.Errorf("callback %+v", cb)
	}
}

func TestLivePermanentFailureThenReplayWithEditedPayload(t *testing.T) {
	c := liveClient(t)
	ctx := context.Background()
	rcv := newReceiver(t, func(_ context.Context, cb *dt.Callback) error {
		if cb.Payload["fixed"] != true {
			return dt.Permanent(errors.New("order unknown"))
		}
		return nil
	})
	id := liveID("replay")
	_, _, err := c.Create(ctx, &dt.CreateTaskRequest{
		TaskID: id, TaskType: "go.live", CallbackURL: rcv.URL,
		Payload: map[string]any{"fixed": false}, ExecuteAt: time.Now(), MaxRetries: dt.Ptr(3),
	})
	if err != nil {
		t.Fatal(err)
	}
	failed := waitFor(ctx, t, c, id, dt.StatusFailed)
	if failed.Attempts != 1 || failed.LastError == nil || failed.LastError.StatusCode != 422 {
		t.Errorf("a 422 fails the task at once: attempts %d, last error %+v", failed.Attempts, failed.LastError)
	}
	if _, err := c.Replay(ctx, id, &dt.ReplayRequest{Payload: map[string]any{"fixed": true}}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, c, id, dt.StatusSucceeded)
	calls := rcv.calls()
	if len(calls) != 2 || calls[1].Payload["fixed"] != true {
		t.Errorf("deliveries %+v, want the failed one then the edited payload", calls)
	}
}

func TestLiveCreateTasks(t *testing.T) {
	c := liveClient(t)
	ctx := context.Background()
	item := func(id string, payload map[string]any) *dt.CreateTaskRequest {
		return &dt.CreateTaskRequest{TaskID: id, TaskType: "go.live", Payload: payload,
			Delay: time.Hour, CallbackURL: "http://127.0.0.1:9/never"}
	}
	invalid := item(liveID("batch-c"), map[string]any{})
	invalid.TaskType = "Not A Type!"
	results, err := c.CreateTasks(ctx, []*dt.CreateTaskRequest{
		item(liveID("batch-a"), map[string]any{"n": 1}),
		item("", map[string]any{"n": 1}),
		invalid,
		item(liveID("batch-a"), map[string]any{"n": 2}),
	})
	if err != nil {
		t.Fatal(err)
	}
	codes := make([]string, len(results))
	for i, r := range results {
		var apiErr *dt.DelayedTaskError
		switch {
		case r.Index != i:
			t.Errorf("result %d has index %d", i, r.Index)
		case errors.As(r.Err, &apiErr):
			codes[i] = fmt.Sprintf("%s %d", apiErr.Code, apiErr.Status)
		case r.Created && r.Task != nil && r.Task.TaskID == r.TaskID:
			codes[i] = "created"
		}
	}
	if want := []string{"created", "created", "INVALID_ARGUMENT 400", "TASK_CONFLICT 409"}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Fatalf("results %v, want %v", codes, want)
	}
	generated := results[1].TaskID
	if task, err := c.Status(ctx, generated); err != nil || !uuidV4.MatchString(generated) || task.Status != dt.StatusScheduled {
		t.Fatalf("generated %q: %+v %v", generated, task, err)
	}
	var apiErr *dt.DelayedTaskError
	if _, err := c.Status(ctx, invalid.TaskID); !errors.As(err, &apiErr) || apiErr.Code != dt.CodeTaskNotFound {
		t.Errorf("the refused item created something: %v", err)
	}
	again, err := c.CreateTasks(ctx, []*dt.CreateTaskRequest{item(liveID("batch-a"), map[string]any{"n": 1})})
	if err != nil || again[0].Err != nil || again[0].Created {
		t.Fatalf("repeat: %+v %v", again, err)
	}
	for _, id := range []string{liveID("batch-a"), generated} {
		if _, err := c.Cancel(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLiveListAllFilters(t *testing.T) {
	c := liveClient(t)
	ctx := context.Background()
	prefix := "go-list-" + runID + "-"
	now := time.Now()
	for i := range 3 {
		_, _, err := c.Create(ctx, &dt.CreateTaskRequest{
			TaskID: prefix + strconv.Itoa(i), TaskType: "go.live", Payload: map[string]any{},
			Delay: time.Duration(i+1) * time.Hour, CallbackURL: "http://127.0.0.1:9/never",
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for i := range 3 {
			_, _ = c.Cancel(ctx, prefix+strconv.Itoa(i))
		}
	})
	ids := func(opts *dt.ListTasksRequest) []string {
		var out []string
		for task, err := range c.ListAll(ctx, opts) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, task.TaskID)
		}
		slices.Sort(out)
		return out
	}
	// The list reads the visibility store, which follows the tasks within moments: poll.
	deadline := time.Now().Add(30 * time.Second)
	all := &dt.ListTasksRequest{IDPrefix: prefix, Status: dt.StatusScheduled, PageSize: 2}
	for got := ids(all); len(got) != 3; got = ids(all) {
		if time.Now().After(deadline) {
			t.Fatalf("ListAll by prefix %s: %v after 30 s, want 3 tasks over 2 pages", prefix, got)
		}
		time.Sleep(200 * time.Millisecond) // polling interval, not synchronisation
	}
	due := ids(&dt.ListTasksRequest{IDPrefix: prefix, DueAfter: now.Add(90 * time.Minute), DueBefore: now.Add(150 * time.Minute)})
	if want := []string{prefix + "1"}; !slices.Equal(due, want) {
		t.Errorf("due between 1.5 h and 2.5 h from now: %v, want %v", due, want)
	}
}
