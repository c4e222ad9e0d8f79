package delayedtasks

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// TaskStatus is where a task is in its life.
type TaskStatus string

// The task statuses.
const (
	StatusScheduled TaskStatus = "SCHEDULED"
	StatusRunning   TaskStatus = "RUNNING" // callback in progress or waiting to retry
	StatusSucceeded TaskStatus = "SUCCEEDED"
	StatusFailed    TaskStatus = "FAILED" // dead letter
	StatusCancelled TaskStatus = "CANCELLED"
)

// TaskError is the last failed callback attempt of a task.
type TaskError struct {
	Message string `json:"message"`
	// StatusCode is the HTTP status the callback answered; 0 when it did not answer.
	StatusCode int `json:"statusCode,omitempty"`
}

// Delivery is how a due task is delivered instead of a callback (a task names CallbackURL or
// Delivery, not both). Mode "pull" waits on Queue (default: the task type) until a worker leases
// it ([Client.Lease], [PullWorker]), LeaseSeconds long (default 60). Mode "broker" publishes it to
// Broker, a broker the operator declared: Redis Streams (Stream, MaxLen), RabbitMQ (Exchange,
// RoutingKey) or Kafka (Topic, Key); a task read back names the broker's Kind. A task read back
// may carry a mode this version does not know: its Mode says which, the fields it knows are set.
type Delivery struct {
	Mode         string `json:"mode"`
	Queue        string `json:"queue,omitempty"`
	LeaseSeconds int    `json:"leaseSeconds,omitempty"`
	Broker       string `json:"broker,omitempty"`
	Stream       string `json:"stream,omitempty"`
	MaxLen       int    `json:"maxLen,omitempty"`
	Exchange     string `json:"exchange,omitempty"`
	RoutingKey   string `json:"routingKey,omitempty"`
	Topic        string `json:"topic,omitempty"`
	Key          string `json:"key,omitempty"`
	// Kind is the broker's kind on a task read back (redis-streams, rabbitmq, kafka); not sent.
	Kind string `json:"kind,omitempty"`
}

// Task is a task as the service reports it. Owner is the team or service it belongs to (the owner
// of the API key that created it). Payload numbers are [encoding/json.Number].
type Task struct {
	TaskID         string         `json:"taskId"`
	Owner          string         `json:"owner"`
	TaskType       string         `json:"taskType"`
	Status         TaskStatus     `json:"status"`
	ExecuteAt      time.Time      `json:"executeAt"`
	CreatedAt      time.Time      `json:"createdAt"`
	Payload        map[string]any `json:"payload"`
	PayloadVersion int            `json:"payloadVersion"`
	// CallbackURL is empty for a pull or broker task (see Delivery).
	CallbackURL string `json:"callbackUrl"`
	// Delivery is a pull or broker task's delivery, defaults applied; nil for a callback task.
	Delivery *Delivery `json:"delivery,omitempty"`
	// Lease is set while a worker holds a pull task: when the lease runs out unless extended, and
	// who holds it (nil when the worker gave no identity).
	Lease *struct {
		ExpiresAt      time.Time `json:"expiresAt"`
		WorkerIdentity *string   `json:"workerIdentity"`
	} `json:"lease,omitempty"`
	MaxRetries int     `json:"maxRetries"`
	TimeoutMs  int     `json:"timeoutMs"`
	TraceID    *string `json:"traceId"`
	Priority   int     `json:"priority"`
	// Attempts is the number of callback attempts made so far.
	Attempts  int        `json:"attempts"`
	LastError *TaskError `json:"lastError"`
	// NextAttemptAt is when the next retry is due, while retrying.
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	FiredAt       *time.Time `json:"firedAt"`
	CompletedAt   *time.Time `json:"completedAt"`
	// AttemptHistory is the newest 50 callback attempts of the current run, oldest first; empty
	// when the answer has none (a create, a key without tasks:read).
	AttemptHistory []TaskAttempt `json:"attemptHistory,omitempty"`
}

// AttemptOutcome is how one callback attempt ended.
type AttemptOutcome string

// The attempt outcomes.
const (
	OutcomeSucceeded      AttemptOutcome = "SUCCEEDED"       // 2xx
	OutcomeRetryableError AttemptOutcome = "RETRYABLE_ERROR" // 408, 425, 429, 5xx, timeout, network
	OutcomePermanentError AttemptOutcome = "PERMANENT_ERROR" // other 4xx, 3xx, refused
	OutcomeCancelled      AttemptOutcome = "CANCELLED"       // cancelled in flight
)

// TaskAttempt is one callback attempt of a task.
type TaskAttempt struct {
	// Attempt is 1 for the first attempt.
	Attempt    int            `json:"attempt"`
	StartedAt  time.Time      `json:"startedAt"`
	FinishedAt time.Time      `json:"finishedAt"`
	Outcome    AttemptOutcome `json:"outcome"`
	// StatusCode is the HTTP status the callback answered; 0 when it did not answer.
	StatusCode int `json:"statusCode,omitempty"`
	// Error is why the attempt failed; empty when it succeeded.
	Error string `json:"error,omitempty"`
}

// TaskSummary is one entry of a list: the task without its payload.
type TaskSummary struct {
	TaskID      string     `json:"taskId"`
	Owner       string     `json:"owner"`
	TaskType    string     `json:"taskType"`
	Status      TaskStatus `json:"status"`
	ExecuteAt   *time.Time `json:"executeAt"`
	CreatedAt   *time.Time `json:"createdAt"`
	CallbackURL *string    `json:"callbackUrl"`
	// DeliveryMode is "pull" or "broker" (or a newer mode) for a task without a callback; empty
	// for a callback task.
	DeliveryMode string     `json:"deliveryMode,omitempty"`
	Priority     *int       `json:"priority"`
	Attempts     int        `json:"attempts"`
	LastError    *TaskError `json:"lastError"`
	CompletedAt  *time.Time `json:"completedAt"`
}

// TaskPage is one page of a list.
type TaskPage struct {
	Tasks []TaskSummary `json:"tasks"`
	// NextPageToken is the PageToken of the next page; nil on the last page.
	NextPageToken *string `json:"nextPageToken"`
}

// Ptr returns a pointer to v, for the optional fields that need one (MaxRetries, where 0 is a
// value of its own).
func Ptr[T any](v T) *T { return &v }

// CreateTaskRequest is a new task. Set exactly one of Delay and ExecuteAt; zero values of the
// other fields are not sent, so the service's defaults (or the task type's policy) apply.
type CreateTaskRequest struct {
	TaskType string
	// Payload is given to the callback unchanged. It must not be nil; numbers must be finite and
	// integers within ±(2^53-1) (send larger ones as strings).
	Payload map[string]any
	// Delay runs the task this long from now (millisecond precision), sent as delaySeconds. Zero
	// means not set: to run a task now, set ExecuteAt to time.Now().
	Delay time.Duration
	// ExecuteAt runs the task at this time (sent in UTC with milliseconds).
	ExecuteAt time.Time
	// CallbackURL may be empty when the task type's policy names one, or when Delivery is set.
	CallbackURL string
	// Delivery delivers the task by pull or broker instead of a callback; not with CallbackURL.
	Delivery *Delivery
	// TaskID is generated (UUID v4) when empty, once, so that retries of the create cannot
	// create two tasks.
	TaskID         string
	MaxRetries     *int
	TimeoutMs      int
	PayloadVersion int
	TraceID        string
	Priority       int
}

type createBody struct {
	TaskType       string         `json:"taskType,omitempty"`
	Payload        map[string]any `json:"payload"`
	DelaySeconds   *float64       `json:"delaySeconds,omitempty"`
	ExecuteAt      string         `json:"executeAt,omitempty"`
	CallbackURL    string         `json:"callbackUrl,omitempty"`
	Delivery       *Delivery      `json:"delivery,omitempty"`
	TaskID         string         `json:"taskId"`
	MaxRetries     *int           `json:"maxRetries,omitempty"`
	TimeoutMs      int            `json:"timeoutMs,omitempty"`
	PayloadVersion int            `json:"payloadVersion,omitempty"`
	TraceID        string         `json:"traceId,omitempty"`
	Priority       int            `json:"priority,omitempty"`
}

// Create schedules a task. created is true when the service made it (201) and false when a task
// with the same TaskID and the same spec already existed (200); another spec with the same
// TaskID fails with TASK_CONFLICT.
func (c *Client) Create(ctx context.Context, req *CreateTaskRequest) (task *Task, created bool, err error) {
	body, err := newCreateBody(req)
	if err != nil {
		return nil, false, err
	}
	task = new(Task)
	status, err := c.do(ctx, http.MethodPost, "/api/v1/tasks", nil, body, task)
	if err != nil {
		return nil, false, err
	}
	return task, status == http.StatusCreated, nil
}

// newCreateBody checks req as every SDK does before sending and returns its wire body, with a
// generated TaskID when req has none.
func newCreateBody(req *CreateTaskRequest) (createBody, error) {
	if req == nil {
		return createBody{}, invalidArgument([]ErrorDetail{{Field: "body", Reason: "is required"}})
	}
	var details []ErrorDetail
	if req.Payload == nil {
		details = append(details, ErrorDetail{Field: "payload", Reason: reasonNotObject})
	} else {
		details = checkPayload(req.Payload, "payload", details)
	}
	details = checkTarget(req.CallbackURL, req.Delivery, "delivery", details)
	delay, executeAt, details := checkWhen(req.Delay, req.ExecuteAt, true, details)
	if len(details) > 0 {
		return createBody{}, invalidArgument(details)
	}
	body := createBody{
		TaskType:       req.TaskType,
		Payload:        req.Payload,
		DelaySeconds:   delay,
		ExecuteAt:      executeAt,
		CallbackURL:    req.CallbackURL,
		Delivery:       req.Delivery,
		TaskID:         req.TaskID,
		MaxRetries:     req.MaxRetries,
		TimeoutMs:      req.TimeoutMs,
		PayloadVersion: req.PayloadVersion,
		TraceID:        req.TraceID,
		Priority:       req.Priority,
	}
	if body.TaskID == "" {
		body.TaskID = newUUID()
	}
	return body, nil
}

// Status returns the task (its status, attempts and last error), closed tasks included.
func (c *Client) Status(ctx context.Context, taskID string) (*Task, error) {
	return c.taskCall(ctx, http.MethodGet, taskID, "", nil)
}

// Cancel cancels a task that has not completed; cancelling a CANCELLED task again is a no-op, a
// SUCCEEDED or FAILED one fails with FAILED_PRECONDITION.
func (c *Client) Cancel(ctx context.Context, taskID string) (*Task, error) {
	return c.taskCall(ctx, http.MethodPost, taskID, "/cancel", nil)
}

// RescheduleRequest moves a SCHEDULED task. Set exactly one of Delay (from now; zero means not
// set) and ExecuteAt.
type RescheduleRequest struct {
	Delay     time.Duration
	ExecuteAt time.Time
}

type whenBody struct {
	DelaySeconds *float64 `json:"delaySeconds,omitempty"`
	ExecuteAt    string   `json:"executeAt,omitempty"`
}

// Reschedule moves a SCHEDULED task to another time.
func (c *Client) Reschedule(ctx context.Context, taskID string, req *RescheduleRequest) (*Task, error) {
	if req == nil {
		req = &RescheduleRequest{}
	}
	delay, executeAt, details := checkWhen(req.Delay, req.ExecuteAt, true, nil)
	if len(details) > 0 {
		return nil, invalidArgument(details)
	}
	return c.taskCall(ctx, http.MethodPost, taskID, "/reschedule", whenBody{delay, executeAt})
}

// ReplayRequest overrides parts of a task for its new run; nil or zero fields keep the task's
// own. Without Delay and ExecuteAt the new run fires now; set at most one of them.
type ReplayRequest struct {
	Payload        map[string]any
	PayloadVersion int
	MaxRetries     *int
	Delay          time.Duration
	ExecuteAt      time.Time
}

type replayBody struct {
	Payload        any  `json:"payload,omitempty"` // nil interface when not overridden; {} is sent
	PayloadVersion int  `json:"payloadVersion,omitempty"`
	MaxRetries     *int `json:"maxRetries,omitempty"`
	whenBody
}

// Replay runs a FAILED or CANCELLED task again as a new run. req may be nil.
func (c *Client) Replay(ctx context.Context, taskID string, req *ReplayRequest) (*Task, error) {
	if req == nil {
		req = &ReplayRequest{}
	}
	var details []ErrorDetail
	if req.Payload != nil {
		details = checkPayload(req.Payload, "payload", details)
	}
	delay, executeAt, details := checkWhen(req.Delay, req.ExecuteAt, false, details)
	if len(details) > 0 {
		return nil, invalidArgument(details)
	}
	body := replayBody{
		PayloadVersion: req.PayloadVersion,
		MaxRetries:     req.MaxRetries,
		whenBody:       whenBody{delay, executeAt},
	}
	if req.Payload != nil {
		body.Payload = req.Payload
	}
	return c.taskCall(ctx, http.MethodPost, taskID, "/replay", body)
}

func (c *Client) taskCall(ctx context.Context, method, taskID, action string, body any) (*Task, error) {
	if taskID == "" {
		return nil, invalidArgument([]ErrorDetail{{Field: "taskId", Reason: "is required"}})
	}
	task := new(Task)
	if _, err := c.do(ctx, method, "/api/v1/tasks/"+escapeSegment(taskID)+action, nil, body, task); err != nil {
		return nil, err
	}
	return task, nil
}

// ListTasksRequest filters a list; zero fields are not sent.
type ListTasksRequest struct {
	Status   TaskStatus
	TaskType string
	// IDPrefix keeps tasks whose id starts with it (case-sensitive). Task ids are unique per owner:
	// with an admin key (or with authentication off) set Owner too, or the service answers 400.
	IDPrefix string
	// Owner keeps this owner's tasks (admin keys only; default for admin: every owner's).
	Owner string
	// DueAfter keeps tasks due at or after it; DueBefore those due before it. Sent in UTC with
	// milliseconds.
	DueAfter  time.Time
	DueBefore time.Time
	// PageSize is 1..1000 (service default 50).
	PageSize int
	// PageToken is the NextPageToken of the previous page.
	PageToken string
}

func (o *ListTasksRequest) query() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	set := func(name, value string) {
		if value != "" {
			q.Set(name, value)
		}
	}
	set("status", string(o.Status))
	set("taskType", o.TaskType)
	set("idPrefix", o.IDPrefix)
	set("owner", o.Owner)
	if !o.DueAfter.IsZero() {
		q.Set("dueAfter", formatTime(o.DueAfter))
	}
	if !o.DueBefore.IsZero() {
		q.Set("dueBefore", formatTime(o.DueBefore))
	}
	if o.PageSize != 0 {
		q.Set("pageSize", strconv.Itoa(o.PageSize))
	}
	set("pageToken", o.PageToken)
	return q
}

// List returns one page of tasks, newest first. Status FAILED is the dead-letter list.
func (c *Client) List(ctx context.Context, opts *ListTasksRequest) (*TaskPage, error) {
	page := new(TaskPage)
	if _, err := c.do(ctx, http.MethodGet, "/api/v1/tasks", opts.query(), nil, page); err != nil {
		return nil, err
	}
	return page, nil
}

// ListAll iterates over every task matching opts, fetching page after page until the last. An
// error is yielded once, as the last element.
//
//	for task, err := range client.ListAll(ctx, &delayedtasks.ListTasksRequest{Status: delayedtasks.StatusFailed}) {
//		if err != nil { return err }
//		...
//	}
func (c *Client) ListAll(ctx context.Context, opts *ListTasksRequest) iter.Seq2[TaskSummary, error] {
	return func(yield func(TaskSummary, error) bool) {
		var page ListTasksRequest
		if opts != nil {
			page = *opts
		}
		for {
			list, err := c.List(ctx, &page)
			if err != nil {
				yield(TaskSummary{}, err)
				return
			}
			for _, t := range list.Tasks {
				if !yield(t, nil) {
					return
				}
			}
			if list.NextPageToken == nil {
				return
			}
			page.PageToken = *list.NextPageToken
		}
	}
}
