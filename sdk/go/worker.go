package delayedtasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// LeaseHandler handles one leased task. Returning nil acks it; [Permanent] nacks it without retry
// (the task fails now); any other error (or a panic) nacks it for a retry, with the error's
// message as the task's lastError. ctx is cancelled when the lease is lost (expired, cancelled)
// or when a shutdown gives up waiting.
type LeaseHandler func(ctx context.Context, task *LeasedTask) error

// PullWorker leases due tasks of pull queues and runs a [LeaseHandler] per task type: at most
// Concurrency at once, the lease extended every third of its length while the handler runs,
// acked when it returns nil, nacked when it fails. With an [IdempotencyStore], the task's
// IdempotencyKey is claimed first: a key done before is acked without running the handler, a key
// another worker holds is released (no attempt spent) for later.
type PullWorker struct {
	client          *Client
	handlers        map[string]LeaseHandler
	types           []string // registered, in order: the default queues
	queues          []string
	concurrency     int
	waitSeconds     int
	identity        string
	store           IdempotencyStore
	claimTTL        time.Duration
	shutdownTimeout time.Duration
	logger          *slog.Logger

	mu       sync.Mutex
	started  bool
	jobs     map[*job]struct{}
	stopping chan struct{} // closed by Shutdown: stop leasing
	force    chan struct{} // closed when Shutdown's ctx ends: stop waiting for handlers
	done     chan struct{} // closed when Run returned
	stopOnce sync.Once
	forceOne sync.Once
}

// PullWorkerOption configures a [PullWorker] in [NewPullWorker].
type PullWorkerOption func(*PullWorker)

// WithQueues names the queues to lease from (1 to 10; default: the registered task types, in
// the order registered).
func WithQueues(queues ...string) PullWorkerOption {
	return func(w *PullWorker) { w.queues = queues }
}

// WithConcurrency bounds the handlers running at once (default 10).
func WithConcurrency(n int) PullWorkerOption {
	return func(w *PullWorker) { w.concurrency = n }
}

// WithWaitSeconds is how long one lease call waits for a task, 0 to 20 (default 20).
func WithWaitSeconds(n int) PullWorkerOption {
	return func(w *PullWorker) { w.waitSeconds = n }
}

// WithWorkerIdentity is shown in a leased task's status (default host/pid).
func WithWorkerIdentity(id string) PullWorkerOption {
	return func(w *PullWorker) { w.identity = id }
}

// WithWorkerIdempotencyStore makes the worker claim each task's IdempotencyKey before running its
// handler (default none: the handler dedupes by itself). claimTTL (0: [DefaultClaimTTL]) bounds
// how long a crashed worker's claim blocks the retries.
func WithWorkerIdempotencyStore(s IdempotencyStore, claimTTL time.Duration) PullWorkerOption {
	return func(w *PullWorker) { w.store, w.claimTTL = s, claimTTL }
}

// WithShutdownTimeout is how long a shutdown waits for running handlers before it releases their
// leases (default 30 s).
func WithShutdownTimeout(d time.Duration) PullWorkerOption {
	return func(w *PullWorker) { w.shutdownTimeout = d }
}

// WithWorkerLogger receives lease errors and failed handlers (default slog.Default()).
func WithWorkerLogger(l *slog.Logger) PullWorkerOption {
	return func(w *PullWorker) { w.logger = l }
}

// NewPullWorker returns a worker with no task types registered; [PullWorker.Handle] them, then
// [PullWorker.Run].
func NewPullWorker(client *Client, opts ...PullWorkerOption) (*PullWorker, error) {
	host, _ := os.Hostname()
	w := &PullWorker{
		client:          client,
		handlers:        make(map[string]LeaseHandler),
		concurrency:     10,
		waitSeconds:     20,
		identity:        host + "/" + strconv.Itoa(os.Getpid()),
		claimTTL:        DefaultClaimTTL,
		shutdownTimeout: 30 * time.Second,
		logger:          slog.Default(),
		jobs:            make(map[*job]struct{}),
		stopping:        make(chan struct{}),
		force:           make(chan struct{}),
		done:            make(chan struct{}),
	}
	for _, opt := range opts {
		opt(w)
	}
	switch {
	case client == nil:
		return nil, errors.New("delayedtasks: NewPullWorker: nil client")
	case w.concurrency < 1:
		return nil, fmt.Errorf("delayedtasks: WithConcurrency: %d is not positive", w.concurrency)
	case w.waitSeconds < 0 || w.waitSeconds > 20:
		return nil, fmt.Errorf("delayedtasks: WithWaitSeconds: %d is not within 0 to 20", w.waitSeconds)
	case len(w.queues) > 10:
		return nil, fmt.Errorf("delayedtasks: WithQueues: %d queues, at most 10", len(w.queues))
	case w.shutdownTimeout < 0:
		return nil, errors.New("delayedtasks: WithShutdownTimeout: negative")
	}
	if w.claimTTL <= 0 {
		w.claimTTL = DefaultClaimTTL
	}
	return w, nil
}

// Handle registers fn for taskType. It panics when taskType is already registered; register every
// type before Run.
func (w *PullWorker) Handle(taskType string, fn LeaseHandler) {
	if _, dup := w.handlers[taskType]; dup {
		panic(fmt.Sprintf("delayedtasks: task type %q registered twice", taskType))
	}
	w.handlers[taskType] = fn
	w.types = append(w.types, taskType)
}

// Run leases and handles tasks until [PullWorker.Shutdown] or until ctx ends (which shuts down
// the same way, waiting up to the shutdown timeout). It returns nil after a shutdown, and an error
// when the worker cannot start (no handler, more than 10 queues, Run called twice).
func (w *PullWorker) Run(ctx context.Context) error {
	queues := w.queues
	if len(queues) == 0 {
		queues = w.types
	}
	switch {
	case len(w.handlers) == 0:
		return errors.New("delayedtasks: PullWorker.Run: no handler registered")
	case len(queues) > 10:
		return fmt.Errorf("delayedtasks: PullWorker.Run: %d task types: name at most 10 queues with WithQueues", len(queues))
	}
	w.mu.Lock()
	if w.started {
		w.mu.Unlock()
		return errors.New("delayedtasks: PullWorker.Run called twice")
	}
	w.started = true
	w.mu.Unlock()
	defer close(w.done)

	pollCtx, stopPolling := context.WithCancel(ctx)
	defer stopPolling()
	go func() {
		select {
		case <-w.stopping:
			stopPolling() // a long poll in flight is abandoned: the service releases what it took
		case <-pollCtx.Done():
		}
	}()

	slots := make(chan struct{}, w.concurrency) // a send takes a slot, a receive frees it
	var running sync.WaitGroup
	backoff := time.Duration(0)
	for pollCtx.Err() == nil {
		select {
		case slots <- struct{}{}:
		case <-pollCtx.Done():
			continue
		}
		free := 1
		for free < 10 && trySend(slots) {
			free++
		}
		leases, err := w.client.Lease(pollCtx, &LeaseRequest{
			Queues: queues, Max: free, WaitSeconds: &w.waitSeconds, WorkerIdentity: w.identity,
		})
		for range free - min(len(leases), free) {
			<-slots
		}
		if err != nil {
			if pollCtx.Err() != nil {
				break
			}
			backoff = min(max(2*backoff, time.Second), 30*time.Second)
			w.logger.ErrorContext(ctx, "lease failed", "error", err, "retryIn", backoff)
			sleepCtx(pollCtx, backoff)
			continue
		}
		backoff = 0
		for i, lease := range leases {
			if i >= free { // more than asked for: hand it back
				w.release(lease, "more leases than asked for")
				continue
			}
			j := w.track(lease)
			running.Add(1)
			go func() {
				defer running.Done()
				defer func() { <-slots }()
				w.process(j)
			}()
		}
	}
	w.drain(&running)
	return nil
}

// Shutdown stops leasing, waits for running handlers up to the shutdown timeout or until ctx
// ends, whichever comes first, then releases the leases of those still running (another worker
// gets them at once, without spending an attempt) and cancels their contexts. It returns when Run
// has returned (nil), or ctx's error when ctx ended first.
func (w *PullWorker) Shutdown(ctx context.Context) error {
	w.stopOnce.Do(func() { close(w.stopping) })
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if !started {
		return nil
	}
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		w.forceOne.Do(func() { close(w.force) })
		<-w.done
		return ctx.Err()
	}
}

// job is one leased task in this worker. state: 0 running, 1 settling (the handler returned; the
// worker acks or nacks it), 2 abandoned (a shutdown released its lease).
type job struct {
	lease   Lease
	ctx     context.Context
	cancel  context.CancelFunc
	state   atomic.Int32
	lost    atomic.Bool   // the service answered that the lease is gone
	settled chan struct{} // closed once settling or abandoning is over
}

func (w *PullWorker) track(lease Lease) *job {
	ctx, cancel := context.WithCancel(context.Background())
	j := &job{lease: lease, ctx: ctx, cancel: cancel, settled: make(chan struct{})}
	w.mu.Lock()
	w.jobs[j] = struct{}{}
	w.mu.Unlock()
	return j
}

func (w *PullWorker) untrack(j *job) {
	w.mu.Lock()
	delete(w.jobs, j)
	w.mu.Unlock()
}

// drain waits for the running handlers up to the shutdown timeout (or a forced shutdown), then
// releases the leases of the handlers still running.
func (w *PullWorker) drain(running *sync.WaitGroup) {
	finished := make(chan struct{})
	go func() {
		running.Wait()
		close(finished)
	}()
	timer := time.NewTimer(w.shutdownTimeout)
	defer timer.Stop()
	select {
	case <-finished:
		return
	case <-timer.C:
	case <-w.force:
	}
	w.mu.Lock()
	jobs := make([]*job, 0, len(w.jobs))
	for j := range w.jobs {
		jobs = append(jobs, j)
	}
	w.mu.Unlock()
	var releases sync.WaitGroup
	for _, j := range jobs {
		if !j.state.CompareAndSwap(0, 2) {
			<-j.settled // its ack or nack is on the way
			continue
		}
		releases.Add(1)
		go func() {
			defer releases.Done()
			defer close(j.settled)
			j.cancel()
			w.release(j.lease, "shutdown: the handler did not finish in time")
		}()
	}
	releases.Wait()
}

// process runs one leased task: the store's claim, the handler with the lease extended, then ack
// or nack.
func (w *PullWorker) process(j *job) {
	defer w.untrack(j)
	defer j.cancel()
	task := j.lease.Task
	fn, ok := w.handlers[task.TaskType]
	if !ok {
		w.logger.Warn("leased a task type without handler", "taskId", task.TaskID, "taskType", task.TaskType)
		w.settle(j, &PermanentError{Err: errors.New("no handler for task type")})
		return
	}
	var claim Claim
	key := task.IdempotencyKey
	useStore := w.store != nil && key != ""
	if useStore {
		var err error
		if claim, err = w.store.Claim(j.ctx, key, w.claimTTL); err != nil {
			w.settle(j, fmt.Errorf("idempotency store: %w", err))
			return
		}
		switch claim.Result {
		case ClaimDone:
			w.settle(j, nil) // done before: ack, run nothing
			return
		case ClaimInProgress:
			if j.state.CompareAndSwap(0, 1) {
				w.release(j.lease, "another worker holds the idempotency key")
				close(j.settled)
			}
			return
		}
	}
	if j.state.Load() == 2 { // a shutdown released the lease while the key was being claimed
		if useStore {
			_ = w.store.Release(context.Background(), key, claim.Token)
		}
		return
	}
	stopExtending := w.extendWhileRunning(j)
	err := w.callHandler(j.ctx, fn, &task)
	stopExtending()
	if useStore {
		// The store says what happened to the effect, even when the lease was lost meanwhile.
		storeCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err == nil {
			if serr := w.store.Complete(storeCtx, key); serr != nil {
				w.logger.Error("idempotency store: complete", "taskId", task.TaskID, "error", serr)
			}
		} else if serr := w.store.Release(storeCtx, key, claim.Token); serr != nil {
			w.logger.Error("idempotency store: release", "taskId", task.TaskID, "error", serr)
		}
		cancel()
	}
	w.settle(j, err)
}

// settle acks (err nil) or nacks the job's lease, unless a shutdown released it already or the
// service said it is gone.
func (w *PullWorker) settle(j *job, err error) {
	if !j.state.CompareAndSwap(0, 1) {
		return
	}
	defer close(j.settled)
	if j.lost.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	task := j.lease.Task
	attrs := []any{"taskId", task.TaskID, "taskType", task.TaskType, "attempt", task.Attempt}
	var permanent *PermanentError
	var callErr error
	switch {
	case err == nil:
		_, callErr = w.client.Ack(ctx, j.lease.LeaseToken)
	case errors.As(err, &permanent):
		w.logger.Warn("task failed permanently", append(attrs, "error", err)...)
		_, callErr = w.client.Nack(ctx, j.lease.LeaseToken, &NackRequest{Retryable: Ptr(false), Reason: reasonText(permanent.Err)})
	default:
		w.logger.Error("task failed", append(attrs, "error", err)...)
		_, callErr = w.client.Nack(ctx, j.lease.LeaseToken, &NackRequest{Retryable: Ptr(true), Reason: reasonText(err)})
	}
	if callErr != nil {
		w.logger.Error("ack or nack failed", append(attrs, "error", callErr)...)
	}
}

// reasonText is err's message within the 2,000 characters a nack's reason may have.
func reasonText(err error) string {
	s := errString(err)
	if r := []rune(s); len(r) > 2000 {
		s = string(r[:2000])
	}
	return s
}

func (w *PullWorker) release(lease Lease, why string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := w.client.Release(ctx, lease.LeaseToken); err != nil {
		w.logger.Error("release failed", "taskId", lease.Task.TaskID, "why", why, "error", err)
	}
}

// minExtendInterval keeps a lease whose expiry is already near (or a skewed clock) from being
// extended in a tight loop.
const minExtendInterval = 200 * time.Millisecond

// extendWhileRunning extends the job's lease every third of its length until the returned stop is
// called. A lease the service says is gone (expired, cancelled, unknown) cancels the handler's
// context.
func (w *PullWorker) extendWhileRunning(j *job) (stop func()) {
	every := max(time.Until(j.lease.LeaseExpiresAt)/3, minExtendInterval)
	quit := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		timer := time.NewTimer(every)
		defer timer.Stop()
		for {
			select {
			case <-quit:
				return
			case <-j.ctx.Done():
				return
			case <-timer.C:
			}
			expires, err := w.client.Extend(j.ctx, j.lease.LeaseToken)
			var apiErr *DelayedTaskError
			switch {
			case err == nil:
				every = max(time.Until(expires)/3, minExtendInterval)
			case errors.As(err, &apiErr) && (apiErr.Code == CodeLeaseExpired || apiErr.Code == CodeLeaseNotFound || apiErr.Code == CodeTaskCancelled):
				w.logger.Warn("lease lost: the handler's context is cancelled", "taskId", j.lease.Task.TaskID, "error", err)
				j.lost.Store(true)
				j.cancel()
				return
			case j.ctx.Err() == nil:
				w.logger.Error("extend failed", "taskId", j.lease.Task.TaskID, "error", err)
			}
			timer.Reset(every)
		}
	}()
	return func() {
		close(quit)
		<-exited
	}
}

// callHandler runs fn, turning a panic into an error (the stack goes to the log, not the task).
func (w *PullWorker) callHandler(ctx context.Context, fn LeaseHandler, task *LeasedTask) (err error) {
	defer func() {
		if v := recover(); v != nil {
			w.logger.Error("handler panicked", "taskId", task.TaskID, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("handler panicked: %v", v)
		}
	}()
	return fn(ctx, task)
}

func trySend(slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
