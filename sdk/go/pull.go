package delayedtasks

import (
	"context"
	"net/http"
	"time"
)

// Error codes of the lease verbs.
const (
	// CodeLeaseNotFound: a token of another owner, or of no lease the service knows.
	CodeLeaseNotFound ErrorCode = "LEASE_NOT_FOUND"
	// CodeLeaseExpired: the lease ran out (the task was retried or leased to another worker).
	CodeLeaseExpired ErrorCode = "LEASE_EXPIRED"
	// CodeTaskCancelled: the task was cancelled while leased.
	CodeTaskCancelled ErrorCode = "TASK_CANCELLED"
)

// LeaseRequest asks for due tasks of pull queues ([Client.Lease]).
type LeaseRequest struct {
	// Queues are 1 to 10 queue names (a task's queue is its type unless it names one).
	Queues []string `json:"queues"`
	// Max is how many tasks at most, 1 to 10 (0: the service's default, 1).
	Max int `json:"max,omitempty"`
	// WaitSeconds is how long the call waits for a task, 0 to 20 (nil: the service's default, 20;
	// Ptr(0) answers at once).
	WaitSeconds *int `json:"waitSeconds,omitempty"`
	// WorkerIdentity is shown in the leased task's status (at most 200 characters; empty: not sent).
	WorkerIdentity string `json:"workerIdentity,omitempty"`
}

// Lease is one leased task: ack, nack, extend or release it with its LeaseToken before
// LeaseExpiresAt.
type Lease struct {
	LeaseToken     string     `json:"leaseToken"`
	LeaseExpiresAt time.Time  `json:"leaseExpiresAt"`
	Task           LeasedTask `json:"task"`
}

// LeasedTask is the task of a lease. Payload numbers are [encoding/json.Number].
type LeasedTask struct {
	TaskID         string         `json:"taskId"`
	TaskType       string         `json:"taskType"`
	Queue          string         `json:"queue"`
	Payload        map[string]any `json:"payload"`
	PayloadVersion int            `json:"payloadVersion"`
	ExecuteAt      time.Time      `json:"executeAt"`
	// Attempt is 1 on the first lease and grows on every retry.
	Attempt int `json:"attempt"`
	// IdempotencyKey is the same on every attempt, after a replay too: dedupe effects on it.
	IdempotencyKey string `json:"idempotencyKey"`
	// TraceID is the task's trace id; nil when it has none.
	TraceID *string `json:"traceId"`
	// Schedule is set when the task is an occurrence of a schedule; nil for a one-shot task.
	Schedule *CallbackSchedule `json:"schedule"`
	// LeaseExpiresAt is when the lease runs out unless extended (a [PullWorker] extends it while
	// the handler runs). Not a field of the wire's task: the lease's.
	LeaseExpiresAt time.Time `json:"-"`
}

// NackRequest says why a leased task failed ([Client.Nack]).
type NackRequest struct {
	// Retryable false (Ptr(false)) dead-letters the task at once; nil (not sent) and true let the
	// task's retry policy and backoff apply.
	Retryable *bool
	// Reason becomes the task's lastError.message (at most 2,000 characters).
	Reason string
}

// LeaseResult is the service's answer to ack, nack and release: the task and its status then
// (SUCCEEDED after an ack; RUNNING or FAILED after a nack; RUNNING after a release).
type LeaseResult struct {
	TaskID string     `json:"taskId"`
	Status TaskStatus `json:"status"`
}

type leaseTokenBody struct {
	LeaseToken string `json:"leaseToken"`
}

type nackBody struct {
	LeaseToken string `json:"leaseToken"`
	Retryable  *bool  `json:"retryable,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

type extendAnswer struct {
	LeaseExpiresAt time.Time `json:"leaseExpiresAt"`
}

// leaseSlack is how much longer than its wait a lease call may take (per attempt).
const leaseSlack = 10 * time.Second

// Lease long-polls the queues: it answers as soon as one task is leased (with what else is ready,
// up to Max), or with none after WaitSeconds. Each attempt may take WaitSeconds plus 10 s, beyond
// the client's timeout.
func (c *Client) Lease(ctx context.Context, req *LeaseRequest) ([]Lease, error) {
	var out struct {
		Leases []Lease `json:"leases"`
	}
	wait := 20 * time.Second
	if req.WaitSeconds != nil {
		wait = time.Duration(*req.WaitSeconds) * time.Second
	}
	timeout := max(c.timeout, wait+leaseSlack)
	if _, _, err := c.call(ctx, http.MethodPost, "/api/v1/leases", nil, req, &out, timeout); err != nil {
		return nil, err
	}
	for i := range out.Leases {
		out.Leases[i].Task.LeaseExpiresAt = out.Leases[i].LeaseExpiresAt
	}
	return out.Leases, nil
}

// Ack completes a leased task: it succeeded.
func (c *Client) Ack(ctx context.Context, leaseToken string) (*LeaseResult, error) {
	return c.leaseCall(ctx, "ack", leaseTokenBody{leaseToken})
}

// Nack fails the attempt of a leased task: retried with its backoff, or dead-lettered when
// req.Retryable is false (req nil: the token only, retryable, no reason).
func (c *Client) Nack(ctx context.Context, leaseToken string, req *NackRequest) (*LeaseResult, error) {
	body := nackBody{LeaseToken: leaseToken}
	if req != nil {
		body.Retryable, body.Reason = req.Retryable, req.Reason
	}
	return c.leaseCall(ctx, "nack", body)
}

// Extend renews a lease for the task's leaseSeconds from now and returns the new expiry.
func (c *Client) Extend(ctx context.Context, leaseToken string) (time.Time, error) {
	var out extendAnswer
	if _, err := c.do(ctx, http.MethodPost, "/api/v1/leases/extend", nil, leaseTokenBody{leaseToken}, &out); err != nil {
		return time.Time{}, err
	}
	return out.LeaseExpiresAt, nil
}

// Release hands a leased task back unhandled: no attempt is spent and it can be leased again at
// once.
func (c *Client) Release(ctx context.Context, leaseToken string) (*LeaseResult, error) {
	return c.leaseCall(ctx, "release", leaseTokenBody{leaseToken})
}

func (c *Client) leaseCall(ctx context.Context, verb string, body any) (*LeaseResult, error) {
	var out LeaseResult
	if _, err := c.do(ctx, http.MethodPost, "/api/v1/leases/"+verb, nil, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
