package delayedtasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// Unit tests of the PullWorker shell's behaviour against an in-process fake of the lease wire
// (conformance/pull/README.md): the fake hands out the leases a test queues and records every
// call; the live tests (live_pull_test.go) run the shell against the real service.

type wireCall struct {
	Verb      string
	Token     string
	Retryable *bool
	Reason    string
}

type fakeLeaseServer struct {
	t        *testing.T
	url      string
	leaseFor time.Duration // a lease's length: leaseExpiresAt = now + leaseFor

	ready       chan dt.Lease // leases the next lease calls hand out
	mu          sync.Mutex
	calls       []wireCall
	leaseBodies []dt.LeaseRequest
	extendErr   map[string]string // token → error code answered to extend
	changed     chan struct{}     // closed and renewed on every recorded call
	leasing     atomic.Int32      // lease calls open now
}

func newFakeLeaseServer(t *testing.T) *fakeLeaseServer {
	f := &fakeLeaseServer{t: t, leaseFor: time.Minute, ready: make(chan dt.Lease, 100),
		extendErr: map[string]string{}, changed: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// add queues a lease of a task of taskType; its token is "tok-<taskID>".
func (f *fakeLeaseServer) add(taskType, taskID string) {
	f.ready <- dt.Lease{
		LeaseToken: "tok-" + taskID,
		Task: dt.LeasedTask{TaskID: taskID, TaskType: taskType, Queue: taskType, Payload: map[string]any{"id": taskID},
			PayloadVersion: 1, Attempt: 1, IdempotencyKey: "key-" + taskID},
	}
}

func (f *fakeLeaseServer) record(c wireCall) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
	close(f.changed)
	f.changed = make(chan struct{})
}

// waitUntil returns once cond holds over the recorded calls (bounded: 10 s).
func (f *fakeLeaseServer) waitUntil(what string, cond func(calls []wireCall) bool) []wireCall {
	f.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		f.mu.Lock()
		calls, changed := slices.Clone(f.calls), f.changed
		f.mu.Unlock()
		if cond(calls) {
			return calls
		}
		select {
		case <-changed:
		case <-deadline:
			f.t.Fatalf("timed out waiting for %s; calls: %+v", what, calls)
		}
	}
}

func (f *fakeLeaseServer) callsOf(verb string) []wireCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []wireCall
	for _, c := range f.calls {
		if c.Verb == verb {
			out = append(out, c)
		}
	}
	return out
}

func count(calls []wireCall, verb, token string) int {
	n := 0
	for _, c := range calls {
		if c.Verb == verb && (token == "" || c.Token == token) {
			n++
		}
	}
	return n
}

func (f *fakeLeaseServer) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path == "/api/v1/leases" {
		var req dt.LeaseRequest
		_ = json.Unmarshal(body, &req)
		f.mu.Lock()
		f.leaseBodies = append(f.leaseBodies, req)
		f.mu.Unlock()
		f.leasing.Add(1)
		defer f.leasing.Add(-1)
		f.record(wireCall{Verb: "lease"})
		var leases []dt.Lease
		wait := time.NewTimer(time.Duration(*req.WaitSeconds) * time.Second)
		defer wait.Stop()
		select {
		case l := <-f.ready:
			leases = append(leases, l)
		case <-wait.C:
		case <-r.Context().Done(): // the worker hung up
			return
		}
		for len(leases) < max(req.Max, 1) {
			select {
			case l := <-f.ready:
				leases = append(leases, l)
				continue
			default:
			}
			break
		}
		for i := range leases {
			leases[i].LeaseExpiresAt = time.Now().Add(f.leaseFor)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"leases": leases})
		return
	}
	verb := strings.TrimPrefix(r.URL.Path, "/api/v1/leases/")
	var c struct {
		LeaseToken string `json:"leaseToken"`
		Retryable  *bool  `json:"retryable"`
		Reason     string `json:"reason"`
	}
	_ = json.Unmarshal(body, &c)
	f.mu.Lock()
	code := f.extendErr[c.LeaseToken]
	f.mu.Unlock()
	f.record(wireCall{Verb: verb, Token: c.LeaseToken, Retryable: c.Retryable, Reason: c.Reason})
	taskID := strings.TrimPrefix(c.LeaseToken, "tok-")
	switch {
	case verb == "extend" && code != "":
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintf(w, `{"error":{"code":%q,"message":"lease gone"}}`, code)
	case verb == "extend":
		fmt.Fprintf(w, `{"leaseExpiresAt":%q}`, time.Now().Add(f.leaseFor).UTC().Format(time.RFC3339Nano))
	case verb == "ack":
		fmt.Fprintf(w, `{"taskId":%q,"status":"SUCCEEDED"}`, taskID)
	default:
		fmt.Fprintf(w, `{"taskId":%q,"status":"RUNNING"}`, taskID)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startWorker runs a worker on the fake until the test ends (then shuts it down).
func startWorker(t *testing.T, f *fakeLeaseServer, setup func(*dt.PullWorker), opts ...dt.PullWorkerOption) (*dt.PullWorker, func() error) {
	t.Helper()
	client, err := dt.NewClient(f.url, dt.WithRetryPolicy(dt.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	w, err := dt.NewPullWorker(client, append([]dt.PullWorkerOption{dt.WithWaitSeconds(1), dt.WithWorkerLogger(quietLogger())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	setup(w)
	var runErr error
	returned := make(chan struct{})
	go func() {
		runErr = w.Run(context.Background())
		close(returned)
	}()
	wait := func() error { // Run's result, once it returned
		<-returned
		return runErr
	}
	t.Cleanup(func() {
		_ = w.Shutdown(context.Background())
		_ = wait()
	})
	return w, wait
}

func TestPullWorkerAcksWhatTheHandlerReturnedAndNacksWhatFailed(t *testing.T) {
	f := newFakeLeaseServer(t)
	var mu sync.Mutex
	seen := map[string]dt.LeasedTask{}
	startWorker(t, f, func(w *dt.PullWorker) {
		w.Handle("order.close", func(_ context.Context, task *dt.LeasedTask) error {
			mu.Lock()
			seen[task.TaskID] = *task
			mu.Unlock()
			switch task.TaskID {
			case "fails":
				return errors.New("db down")
			case "permanent":
				return dt.Permanent(errors.New("no such order"))
			case "panics":
				panic("boom")
			}
			return nil
		})
	}, dt.WithWorkerIdentity("host-1/42"))
	for _, id := range []string{"ok", "fails", "permanent", "panics"} {
		f.add("order.close", id)
	}
	calls := f.waitUntil("four settled", func(c []wireCall) bool { return count(c, "ack", "")+count(c, "nack", "") == 4 })
	if count(calls, "ack", "tok-ok") != 1 {
		t.Errorf("no ack of the task whose handler returned nil: %+v", calls)
	}
	want := map[string]struct {
		retryable bool
		reason    string
	}{"tok-fails": {true, "db down"}, "tok-permanent": {false, "no such order"}, "tok-panics": {true, "handler panicked: boom"}}
	for _, c := range f.callsOf("nack") {
		w, ok := want[c.Token]
		if !ok || c.Retryable == nil || *c.Retryable != w.retryable || c.Reason != w.reason {
			t.Errorf("nack %s: retryable %v reason %q, want %+v", c.Token, *c.Retryable, c.Reason, w)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got := seen["ok"]; got.IdempotencyKey != "key-ok" || got.LeaseExpiresAt.IsZero() || got.Payload["id"] != "ok" {
		t.Errorf("the handler got %+v, want the task with its idempotency key and lease expiry", got)
	}
	f.mu.Lock()
	first := f.leaseBodies[0]
	f.mu.Unlock()
	if !slices.Equal(first.Queues, []string{"order.close"}) || first.WorkerIdentity != "host-1/42" || *first.WaitSeconds != 1 || first.Max < 1 || first.Max > 10 {
		t.Errorf("lease request %+v", first)
	}
}

func TestPullWorkerExtendsTheLeaseWhileTheHandlerRuns(t *testing.T) {
	f := newFakeLeaseServer(t)
	f.leaseFor = 900 * time.Millisecond // extended every 300 ms
	startWorker(t, f, func(w *dt.PullWorker) {
		w.Handle("slow", func(context.Context, *dt.LeasedTask) error {
			f.waitUntil("two extends", func(c []wireCall) bool { return count(c, "extend", "tok-s") >= 2 })
			return nil
		})
	})
	f.add("slow", "s")
	calls := f.waitUntil("ack", func(c []wireCall) bool { return count(c, "ack", "tok-s") == 1 })
	var order []string
	for _, c := range calls {
		if c.Token == "tok-s" {
			order = append(order, c.Verb)
		}
	}
	if len(order) < 3 || order[len(order)-1] != "ack" || count(calls, "extend", "tok-s") < 2 {
		t.Errorf("calls for the lease: %v, want extends then one ack", order)
	}
	extends := count(calls, "extend", "tok-s")
	f.waitUntil("nothing else", func(c []wireCall) bool { return count(c, "lease", "") >= 3 }) // two more polls
	if got := count(f.callsOf("extend"), "extend", "tok-s"); got != extends {
		t.Errorf("extended after the ack: %d extends, then %d", extends, got)
	}
}

func TestPullWorkerCancelsTheHandlerWhenTheLeaseIsLost(t *testing.T) {
	f := newFakeLeaseServer(t)
	f.leaseFor = 600 * time.Millisecond
	f.extendErr["tok-lost"] = dt.CodeLeaseExpired
	cancelled := make(chan error, 1)
	startWorker(t, f, func(w *dt.PullWorker) {
		w.Handle("t", func(ctx context.Context, _ *dt.LeasedTask) error {
			<-ctx.Done()
			cancelled <- ctx.Err()
			return ctx.Err()
		})
	})
	f.add("t", "lost")
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler ctx: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was not cancelled after LEASE_EXPIRED")
	}
	f.waitUntil("the next poll", func(c []wireCall) bool { return count(c, "lease", "") >= 2 })
	if n := count(f.callsOf("ack"), "ack", "") + count(f.callsOf("nack"), "nack", ""); n != 0 {
		t.Errorf("a lost lease was acked or nacked (%d calls)", n)
	}
}

func TestPullWorkerRunsAtMostConcurrencyHandlers(t *testing.T) {
	f := newFakeLeaseServer(t)
	var running, peak atomic.Int32
	release := make(chan struct{})
	startWorker(t, f, func(w *dt.PullWorker) {
		w.Handle("t", func(context.Context, *dt.LeasedTask) error {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			<-release
			running.Add(-1)
			return nil
		})
	}, dt.WithConcurrency(2))
	for i := range 5 {
		f.add("t", fmt.Sprint(i))
	}
	// Two handlers run; the worker does not lease a third while both slots are taken.
	for running.Load() < 2 {
		f.waitUntil("a lease call", func(c []wireCall) bool { return count(c, "lease", "") >= 1 })
		time.Sleep(5 * time.Millisecond) // polls the handler count
	}
	if len(f.ready) != 3 {
		t.Errorf("%d leases left on the server with two slots taken, want 3", len(f.ready))
	}
	close(release)
	f.waitUntil("five acks", func(c []wireCall) bool { return count(c, "ack", "") == 5 })
	if peak.Load() != 2 {
		t.Errorf("peak concurrency %d, want 2", peak.Load())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.leaseBodies {
		if b.Max > 2 {
			t.Errorf("asked for %d leases with concurrency 2", b.Max)
		}
	}
}

func TestPullWorkerShutdownFinishesOrReleasesInFlightWork(t *testing.T) {
	f := newFakeLeaseServer(t)
	stuckCtx := make(chan context.Context, 1)
	quickGo := make(chan struct{})
	w, wait := startWorker(t, f, func(w *dt.PullWorker) {
		w.Handle("t", func(ctx context.Context, task *dt.LeasedTask) error {
			if task.TaskID == "stuck" {
				stuckCtx <- ctx
				<-make(chan struct{}) // never returns by itself
			}
			<-quickGo
			return nil
		})
	}, dt.WithShutdownTimeout(300*time.Millisecond))
	f.add("t", "quick")
	f.add("t", "stuck")
	ctx := <-stuckCtx
	for f.leasing.Load() != 1 { // the worker's next poll is open
		time.Sleep(5 * time.Millisecond) // polls the fake's open calls
	}
	polls := len(f.callsOf("lease"))
	shut := make(chan error, 1)
	go func() { shut <- w.Shutdown(context.Background()) }()
	// The poll in flight is abandoned at once: no lease call stays open.
	for f.leasing.Load() != 0 {
		time.Sleep(5 * time.Millisecond) // polls the fake's open calls
	}
	close(quickGo) // the quick handler finishes within the timeout
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatalf("Run after Shutdown: %v", err)
	}
	if ctx.Err() == nil {
		t.Error("the stuck handler's context is not cancelled")
	}
	f.mu.Lock()
	calls := slices.Clone(f.calls)
	f.mu.Unlock()
	if count(calls, "ack", "tok-quick") != 1 || count(calls, "release", "tok-stuck") != 1 || count(calls, "ack", "tok-stuck")+count(calls, "nack", "") != 0 {
		t.Errorf("after shutdown: %+v; want quick acked, stuck released", calls)
	}
	if got := len(f.callsOf("lease")); got != polls {
		t.Errorf("%d lease calls after Shutdown", got-polls)
	}
}

// recordingStore is an IdempotencyStore whose answer to a claim the test sets per key.
type recordingStore struct {
	mu      sync.Mutex
	answers map[string]dt.ClaimResult
	log     []string
}

func (s *recordingStore) Claim(_ context.Context, key string, _ time.Duration) (dt.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, "claim "+key)
	if r, ok := s.answers[key]; ok {
		return dt.Claim{Result: r}, nil
	}
	return dt.Claim{Result: dt.ClaimClaimed, Token: "t-" + key}, nil
}

func (s *recordingStore) Complete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, "complete "+key)
	return nil
}

func (s *recordingStore) Release(_ context.Context, key, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, "release "+key+" "+token)
	return nil
}

func TestPullWorkerConsultsTheStore(t *testing.T) {
	f := newFakeLeaseServer(t)
	store := &recordingStore{answers: map[string]dt.ClaimResult{"key-done": dt.ClaimDone, "key-busy": dt.ClaimInProgress}}
	var ran sync.Map
	startWorker(t, f, func(w *dt.PullWorker) {
		w.Handle("t", func(_ context.Context, task *dt.LeasedTask) error {
			ran.Store(task.TaskID, true)
			if task.TaskID == "fails" {
				return errors.New("no")
			}
			return nil
		})
	}, dt.WithWorkerIdempotencyStore(store, time.Minute))
	for _, id := range []string{"done", "busy", "new", "fails"} {
		f.add("t", id)
	}
	calls := f.waitUntil("four settled", func(c []wireCall) bool {
		return count(c, "ack", "")+count(c, "nack", "")+count(c, "release", "") == 4
	})
	if count(calls, "ack", "tok-done") != 1 || count(calls, "release", "tok-busy") != 1 ||
		count(calls, "ack", "tok-new") != 1 || count(calls, "nack", "tok-fails") != 1 {
		t.Errorf("calls %+v: want done acked, busy released, new acked, fails nacked", calls)
	}
	for _, id := range []string{"done", "busy"} {
		if _, ok := ran.Load(id); ok {
			t.Errorf("the handler ran for %s", id)
		}
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	for _, want := range []string{"complete key-new", "release key-fails t-key-fails"} {
		if !slices.Contains(store.log, want) {
			t.Errorf("store log %v lacks %q", store.log, want)
		}
	}
}

func TestPullWorkerNacksATaskTypeWithoutHandler(t *testing.T) {
	f := newFakeLeaseServer(t)
	startWorker(t, f, func(w *dt.PullWorker) {
		w.Handle("known", func(context.Context, *dt.LeasedTask) error { return nil })
	}, dt.WithQueues("shared"))
	f.add("unknown", "u")
	calls := f.waitUntil("nack", func(c []wireCall) bool { return count(c, "nack", "tok-u") == 1 })
	for _, c := range calls {
		if c.Verb == "nack" && (c.Retryable == nil || *c.Retryable || c.Reason != "no handler for task type") {
			t.Errorf("nack %+v, want not retryable with the reason", c)
		}
	}
}

func TestPullWorkerRefusesToRunWithoutHandlers(t *testing.T) {
	client, _ := dt.NewClient("http://127.0.0.1:9")
	w, err := dt.NewPullWorker(client)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(context.Background()); err == nil {
		t.Error("Run without handlers returned nil")
	}
	for _, opt := range []dt.PullWorkerOption{dt.WithConcurrency(0), dt.WithWaitSeconds(21), dt.WithQueues(strings.Split("a b c d e f g h i j k", " ")...)} {
		if _, err := dt.NewPullWorker(client, opt); err == nil {
			t.Error("an option out of bounds was accepted")
		}
	}
}
