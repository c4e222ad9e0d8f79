package delayedtasks_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// Live scenarios of pull delivery: a PullWorker against the real service (DTS_URL). Skipped, with
// the reason, when the service has no lease routes yet (a stack from before issue 40).

// pullClient is liveClient for a service with the lease routes.
func pullClient(t *testing.T) *dt.Client {
	t.Helper()
	c := liveClient(t)
	_, err := c.Lease(context.Background(), &dt.LeaseRequest{Queues: []string{liveQueue("probe")}, WaitSeconds: dt.Ptr(0)})
	var apiErr *dt.DelayedTaskError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound && apiErr.Code == dt.CodeNotFound {
		t.Skip("the service has no lease routes (POST /api/v1/leases is 404): pull scenarios skipped")
	}
	if err != nil {
		t.Fatalf("lease probe: %v", err)
	}
	return c
}

// liveQueue is a queue (and task type) of this run: lowercase, as queue names are.
func liveQueue(name string) string { return strings.ToLower("go.pull." + name + "." + runID) }

// createPullTask creates a task with pull delivery on queue, due now, through Create.
func createPullTask(t *testing.T, taskID, queue string, payload map[string]any, maxRetries int) {
	t.Helper()
	task, created, err := liveClient(t).Create(context.Background(), &dt.CreateTaskRequest{
		TaskID: taskID, TaskType: queue, Payload: payload, MaxRetries: dt.Ptr(maxRetries),
		ExecuteAt: time.Now(),
		Delivery:  &dt.Delivery{Mode: "pull", Queue: queue, LeaseSeconds: 6},
	})
	if err != nil {
		t.Fatalf("create pull task: %v", err)
	}
	if !created || task.Delivery == nil || task.Delivery.Queue != queue || task.Delivery.LeaseSeconds != 6 || task.CallbackURL != "" {
		t.Fatalf("create pull task: created %v, delivery %+v, callbackUrl %q", created, task.Delivery, task.CallbackURL)
	}
}

// runLiveWorker runs a worker until the test ends.
func runLiveWorker(t *testing.T, c *dt.Client, setup func(*dt.PullWorker), opts ...dt.PullWorkerOption) *dt.PullWorker {
	t.Helper()
	w, err := dt.NewPullWorker(c, append([]dt.PullWorkerOption{dt.WithWaitSeconds(2), dt.WithWorkerLogger(quietLogger())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	setup(w)
	returned := make(chan struct{})
	go func() {
		if err := w.Run(context.Background()); err != nil {
			t.Errorf("Run: %v", err)
		}
		close(returned)
	}()
	t.Cleanup(func() {
		_ = w.Shutdown(context.Background())
		<-returned
	})
	return w
}

func TestLivePullWorkerAcksAndRetries(t *testing.T) {
	c := pullClient(t)
	ctx := context.Background()
	queue := liveQueue("pull")
	var mu sync.Mutex
	seen := map[string][]dt.LeasedTask{}
	runLiveWorker(t, c, func(w *dt.PullWorker) {
		w.Handle(queue, func(_ context.Context, task *dt.LeasedTask) error {
			mu.Lock()
			seen[task.TaskID] = append(seen[task.TaskID], *task)
			attempts := len(seen[task.TaskID])
			mu.Unlock()
			switch {
			case task.Payload["kind"] == "flaky" && attempts == 1:
				return errors.New("database unreachable")
			case task.Payload["kind"] == "broken":
				return dt.Permanent(errors.New("order does not exist"))
			}
			return nil
		})
	})
	ok, flaky, broken := liveID("pull-ok"), liveID("pull-flaky"), liveID("pull-broken")
	createPullTask(t, ok, queue, map[string]any{"kind": "ok"}, 3)
	createPullTask(t, flaky, queue, map[string]any{"kind": "flaky"}, 3)
	createPullTask(t, broken, queue, map[string]any{"kind": "broken"}, 3)
	waitFor(ctx, t, c, ok, dt.StatusSucceeded)
	waitFor(ctx, t, c, flaky, dt.StatusSucceeded)
	failed := waitFor(ctx, t, c, broken, dt.StatusFailed)
	if failed.LastError == nil || failed.LastError.Message != "order does not exist" {
		t.Errorf("a PermanentError's task: last error %+v", failed.LastError)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := len(seen[ok]); n != 1 || seen[ok][0].IdempotencyKey == "" {
		t.Errorf("the acked task ran %d times: %+v", n, seen[ok])
	}
	if r := seen[flaky]; len(r) != 2 || r[1].Attempt != 2 || r[0].IdempotencyKey != r[1].IdempotencyKey {
		t.Errorf("the retried task: %+v, want two attempts with one idempotency key", r)
	}
	if n := len(seen[broken]); n != 1 {
		t.Errorf("the permanently failed task ran %d times, want 1", n)
	}
}

func TestLivePullWorkerShutdownReleasesWorkInFlight(t *testing.T) {
	c := pullClient(t)
	ctx := context.Background()
	queue := liveQueue("shutdown")
	started := make(chan *dt.LeasedTask, 1)
	first, err := dt.NewPullWorker(c, dt.WithWaitSeconds(2), dt.WithShutdownTimeout(200*time.Millisecond), dt.WithWorkerLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	first.Handle(queue, func(ctx context.Context, task *dt.LeasedTask) error {
		started <- task
		<-ctx.Done() // runs until the shutdown gives up on it
		return ctx.Err()
	})
	returned := make(chan error, 1)
	go func() { returned <- first.Run(ctx) }()
	id := liveID("pull-shutdown")
	createPullTask(t, id, queue, map[string]any{}, 3)
	var task *dt.LeasedTask
	select {
	case task = <-started:
	case <-time.After(90 * time.Second):
		t.Fatal("the task was not leased")
	}
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-returned; err != nil {
		t.Fatal(err)
	}
	// Released, not failed: a second worker gets it at once, on the same attempt.
	again := make(chan *dt.LeasedTask, 1)
	runLiveWorker(t, c, func(w *dt.PullWorker) {
		w.Handle(queue, func(_ context.Context, task *dt.LeasedTask) error {
			again <- task
			return nil
		})
	})
	select {
	case second := <-again:
		if second.TaskID != id || second.Attempt != task.Attempt {
			t.Errorf("leased again: %s attempt %d, want %s attempt %d (a release spends no attempt)", second.TaskID, second.Attempt, id, task.Attempt)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the released task was not leased again")
	}
	waitFor(ctx, t, c, id, dt.StatusSucceeded)
}
