package delayedtasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// The shared scripts of the worker shell (conformance/pull/shell-vectors.json, format in
// conformance/pull/README.md): each case plays a PullWorker against a fake server of the lease
// wire that answers only when a step says so. A unit test of the shell's behaviour.

type shellCase struct {
	Name   string `json:"name"`
	Worker struct {
		Handlers       []string          `json:"handlers"`
		Concurrency    int               `json:"concurrency"`
		Queues         []string          `json:"queues"`
		WorkerIdentity string            `json:"workerIdentity"`
		Store          map[string]string `json:"store"`
	} `json:"worker"`
	Steps  []shellStep `json:"steps"`
	Expect struct {
		HandlerCalls int `json:"handlerCalls"`
	} `json:"expect"`
}

type shellStep struct {
	Op         string          `json:"op"`
	Body       any             `json:"body"`
	Answer     json.RawMessage `json:"answer"`
	Verb       string          `json:"verb"`
	LeaseToken string          `json:"leaseToken"`
	Task       map[string]any  `json:"task"`
	Outcome    string          `json:"outcome"`
	Message    string          `json:"message"`
	Ms         int             `json:"ms"`
	TimeoutMs  int             `json:"timeoutMs"`
	Key        string          `json:"key"`
	Expect     dt.ClaimResult  `json:"expect"`
}

// shellRequest is one request the worker made, waiting for the step that answers it.
type shellRequest struct {
	verb   string
	body   any
	answer chan shellAnswer
	gone   <-chan struct{} // the worker hung up
}

type shellAnswer struct {
	status int
	body   any
}

type shellFake struct {
	arrived  chan *shellRequest // every request, as it arrives
	mu       sync.Mutex
	leaseFor map[string]time.Duration // token → the lease's N
}

func (f *shellFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body any
	_ = json.Unmarshal(raw, &body)
	verb := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/api/v1/leases"), "/")
	if verb == "" {
		verb = "lease"
	}
	req := &shellRequest{verb: verb, body: body, answer: make(chan shellAnswer, 1), gone: r.Context().Done()}
	f.arrived <- req
	select {
	case a := <-req.answer:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_ = json.NewEncoder(w).Encode(a.body)
	case <-r.Context().Done():
	}
}

type gatedHandler struct {
	task   *dt.LeasedTask
	finish chan error
}

func TestConformancePullShell(t *testing.T) {
	file := filepath.Join(conformanceDir, "pull", "shell-vectors.json")
	if _, err := os.Stat(file); err != nil && os.Getenv("CI") != "true" {
		t.Skipf("no %s yet", file)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []shellCase
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			runShellCase(t, tc)
		})
	}
}

func runShellCase(t *testing.T, tc shellCase) {
	ctx := context.Background()
	fake := &shellFake{arrived: make(chan *shellRequest, 100), leaseFor: map[string]time.Duration{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	client, err := dt.NewClient(srv.URL, dt.WithRetryPolicy(dt.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	opts := []dt.PullWorkerOption{dt.WithWorkerLogger(quietLogger())}
	if tc.Worker.Concurrency > 0 {
		opts = append(opts, dt.WithConcurrency(tc.Worker.Concurrency))
	}
	if len(tc.Worker.Queues) > 0 {
		opts = append(opts, dt.WithQueues(tc.Worker.Queues...))
	}
	if tc.Worker.WorkerIdentity != "" {
		opts = append(opts, dt.WithWorkerIdentity(tc.Worker.WorkerIdentity))
	}
	var store *dt.InMemoryIdempotencyStore
	if tc.Worker.Store != nil {
		store = dt.NewInMemoryIdempotencyStore(0)
		for key, state := range tc.Worker.Store {
			if _, err := store.Claim(ctx, key, time.Hour); err != nil {
				t.Fatal(err)
			}
			if state == string(dt.ClaimDone) {
				_ = store.Complete(ctx, key)
			}
		}
		opts = append(opts, dt.WithWorkerIdempotencyStore(store, time.Minute))
	}
	worker, err := dt.NewPullWorker(client, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	handlers := map[string]*gatedHandler{}
	started := make(chan string, 100)
	for _, taskType := range tc.Worker.Handlers {
		worker.Handle(taskType, func(_ context.Context, task *dt.LeasedTask) error {
			g := &gatedHandler{task: task, finish: make(chan error, 1)}
			token := "t" + strings.TrimPrefix(task.TaskID, "task-t")
			mu.Lock()
			handlers[token] = g
			mu.Unlock()
			started <- token
			return <-g.finish
		})
	}
	runDone := make(chan struct{})
	go func() {
		if err := worker.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
		close(runDone)
	}()
	shutdownDone := make(chan struct{})
	shutdownStarted := false
	var leases, others []*shellRequest // arrived, not yet taken by a step
	handlerCalls := 0
	startedTokens := map[string]bool{}

	// take waits (5 s) for the next request of the lease queue or of the other queue. Of the other
	// requests it takes the first that fits (verb and body), else the first: two handlers finished
	// one after the other run on goroutines, and their acks may cross on the wire.
	take := func(lease bool, fits func(*shellRequest) bool) *shellRequest {
		deadline := time.After(5 * time.Second)
		for {
			if lease && len(leases) > 0 {
				r := leases[0]
				leases = leases[1:]
				return r
			}
			for i, r := range others {
				if fits(r) {
					others = append(others[:i:i], others[i+1:]...)
					return r
				}
			}
			select {
			case r := <-fake.arrived:
				if r.verb == "lease" {
					leases = append(leases, r)
				} else {
					others = append(others, r)
				}
			case token := <-started:
				handlerCalls++
				startedTokens[token] = true
			case <-deadline:
				if !lease && len(others) > 0 {
					r := others[0]
					others = others[1:]
					return r
				}
				t.Fatalf("no %s request within 5 s", map[bool]string{true: "lease", false: "other"}[lease])
			}
		}
	}
	endAll := func() { // answers whatever is still waiting, so that the worker can stop
		for _, g := range handlers {
			select {
			case g.finish <- nil:
			default:
			}
		}
	}
	defer func() {
		if !shutdownStarted {
			go func() { _ = worker.Shutdown(ctx) }()
		}
		mu.Lock()
		endAll()
		mu.Unlock()
		for _, r := range append(leases, others...) {
			r.answer <- defaultShellAnswer(fake, r)
		}
		for {
			select {
			case <-runDone:
				return
			case r := <-fake.arrived:
				r.answer <- defaultShellAnswer(fake, r)
			case <-time.After(10 * time.Second):
				t.Error("the worker did not stop")
				return
			}
		}
	}()

	for i, step := range tc.Steps {
		where := fmt.Sprintf("step %d (%s)", i+1, step.Op)
		switch step.Op {
		case "expectLease":
			r := take(true, nil)
			if err := matchBody(step.Body, r.body); err != nil {
				t.Fatalf("%s: lease body %v: %v", where, r.body, err)
			}
			if len(step.Answer) == 0 {
				continue // pending until the worker hangs up
			}
			r.answer <- leaseAnswer(t, fake, step.Answer)
		case "expectCall":
			r := take(false, func(r *shellRequest) bool { return r.verb == step.Verb && matchBody(step.Body, r.body) == nil })
			if r.verb != step.Verb {
				t.Fatalf("%s: a %s call, want %s (body %v)", where, r.verb, step.Verb, r.body)
			}
			if err := matchBody(step.Body, r.body); err != nil {
				t.Fatalf("%s: %s body %v: %v", where, r.verb, r.body, err)
			}
			if len(step.Answer) > 0 {
				r.answer <- errorAnswer(t, step.Answer)
			} else {
				r.answer <- defaultShellAnswer(fake, r)
			}
		case "expectHandler":
			deadline := time.After(5 * time.Second)
			for !startedTokens[step.LeaseToken] {
				select {
				case token := <-started:
					handlerCalls++
					startedTokens[token] = true
				case r := <-fake.arrived:
					if r.verb == "lease" {
						leases = append(leases, r)
					} else {
						others = append(others, r)
					}
				case <-deadline:
					t.Fatalf("%s: the handler of %s did not start", where, step.LeaseToken)
				}
			}
			mu.Lock()
			task := handlers[step.LeaseToken].task
			mu.Unlock()
			for field, want := range step.Task {
				if err := matchTaskField(task, field, want); err != nil {
					t.Errorf("%s: %v", where, err)
				}
			}
		case "finish":
			mu.Lock()
			g := handlers[step.LeaseToken]
			mu.Unlock()
			if g == nil {
				t.Fatalf("%s: no handler of %s started", where, step.LeaseToken)
			}
			switch step.Outcome {
			case "return":
				g.finish <- nil
			case "throw":
				g.finish <- errors.New(step.Message)
			case "permanent":
				g.finish <- dt.Permanent(errors.New(step.Message))
			}
		case "expectIdle":
			select {
			case r := <-fake.arrived:
				t.Fatalf("%s: a %s request %v while idle", where, r.verb, r.body)
			case token := <-started:
				t.Fatalf("%s: the handler of %s started while idle", where, token)
			case <-time.After(time.Duration(step.Ms) * time.Millisecond):
			}
			if len(others) > 0 {
				t.Fatalf("%s: a %s request is waiting", where, others[0].verb)
			}
		case "shutdown":
			shutdownStarted = true
			go func() {
				sctx, cancel := context.WithTimeout(ctx, time.Duration(step.TimeoutMs)*time.Millisecond)
				defer cancel()
				_ = worker.Shutdown(sctx)
				close(shutdownDone)
			}()
		case "expectStopped":
			deadline := time.After(5 * time.Second)
			for stopped := false; !stopped; {
				select {
				case <-runDone:
					stopped = true
				case r := <-fake.arrived:
					if r.verb == "lease" {
						leases = append(leases, r)
					} else {
						others = append(others, r)
					}
				case <-deadline:
					t.Fatalf("%s: Run did not return", where)
				}
			}
			select {
			case <-shutdownDone:
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: Shutdown did not return", where)
			}
		case "claim":
			c, err := store.Claim(ctx, step.Key, time.Minute)
			if err != nil || c.Result != step.Expect {
				t.Errorf("%s: claim %s: %s %v, want %s", where, step.Key, c.Result, err, step.Expect)
			}
		default:
			t.Fatalf("%s: unknown op", where)
		}
	}
	for _, r := range others {
		t.Errorf("a %s request %v was not taken by a step", r.verb, r.body)
	}
	if handlerCalls != tc.Expect.HandlerCalls {
		t.Errorf("%d handlers started, want %d", handlerCalls, tc.Expect.HandlerCalls)
	}
}

// leaseAnswer is {"leases": answer} with each {"$inMs": N} made a time N ms from now, or the error
// envelope of {status, code}.
func leaseAnswer(t *testing.T, f *shellFake, raw json.RawMessage) shellAnswer {
	var leases []map[string]any
	if err := json.Unmarshal(raw, &leases); err != nil {
		return errorAnswer(t, raw)
	}
	for _, l := range leases {
		ms, _ := l["leaseExpiresAt"].(map[string]any)["$inMs"].(float64)
		d := time.Duration(ms) * time.Millisecond
		l["leaseExpiresAt"] = time.Now().Add(d).UTC().Format("2006-01-02T15:04:05.000Z")
		f.mu.Lock()
		f.leaseFor[l["leaseToken"].(string)] = d
		f.mu.Unlock()
	}
	return shellAnswer{200, map[string]any{"leases": leases}}
}

func errorAnswer(t *testing.T, raw json.RawMessage) shellAnswer {
	var e struct {
		Status int    `json:"status"`
		Code   string `json:"code"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || e.Status == 0 {
		t.Fatalf("answer %s is neither leases nor {status, code}", raw)
	}
	return shellAnswer{e.Status, map[string]any{"error": map[string]any{"code": e.Code, "message": "scripted"}}}
}

// defaultShellAnswer is the wire's answer to a call no step scripted.
func defaultShellAnswer(f *shellFake, r *shellRequest) shellAnswer {
	if r.verb == "lease" {
		return shellAnswer{200, map[string]any{"leases": []any{}}}
	}
	body, _ := r.body.(map[string]any)
	token, _ := body["leaseToken"].(string)
	taskID := "task-" + token
	switch r.verb {
	case "ack":
		return shellAnswer{200, map[string]any{"taskId": taskID, "status": "SUCCEEDED"}}
	case "nack":
		status := "RUNNING"
		if body["retryable"] == false {
			status = "FAILED"
		}
		return shellAnswer{200, map[string]any{"taskId": taskID, "status": status}}
	case "extend":
		f.mu.Lock()
		d := f.leaseFor[token]
		f.mu.Unlock()
		return shellAnswer{200, map[string]any{"leaseExpiresAt": time.Now().Add(d).UTC().Format("2006-01-02T15:04:05.000Z")}}
	}
	return shellAnswer{200, map[string]any{"taskId": taskID, "status": "RUNNING"}}
}

// matchBody compares a request body with the script's exactly; {"$match": "nonEmptyString"}
// matches any non-empty string.
func matchBody(want, got any) error {
	switch w := want.(type) {
	case map[string]any:
		if m, ok := w["$match"]; ok && m == "nonEmptyString" {
			if s, ok := got.(string); ok && s != "" {
				return nil
			}
			return fmt.Errorf("%v is not a non-empty string", got)
		}
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("got %v, want %v", got, want)
		}
		for k, v := range w {
			if err := matchBody(v, g[k]); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Errorf("got %v, want %v", got, want)
		}
		return nil
	}
}

// matchTaskField compares one listed field of the script's task with the handler's LeasedTask,
// through its JSON.
func matchTaskField(task *dt.LeasedTask, field string, want any) error {
	raw, _ := json.Marshal(task)
	var got map[string]any
	_ = json.Unmarshal(raw, &got)
	if err := matchBody(want, got[field]); err != nil {
		return fmt.Errorf("task.%s: %w", field, err)
	}
	return nil
}
