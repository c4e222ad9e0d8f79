package delayedtasks

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// OverlapPolicy says what happens when a run is due while the previous occurrence still runs.
type OverlapPolicy string

// The overlap policies; the service's default is OverlapSkip (and OverlapAllowAll for trigger and
// backfill).
const (
	OverlapSkip        OverlapPolicy = "skip"
	OverlapBufferOne   OverlapPolicy = "bufferOne"
	OverlapBufferAll   OverlapPolicy = "bufferAll"
	OverlapAllowAll    OverlapPolicy = "allowAll"
	OverlapCancelOther OverlapPolicy = "cancelOther"
)

// Schedule is a recurring task as the service reports it. A field the wire may give as null is a
// pointer (nil for null), so that null and "" differ as in the other SDKs.
type Schedule struct {
	ScheduleID string `json:"scheduleId"`
	Owner      string `json:"owner"`
	// Cron is set for a cron schedule, Every (with its Phase) for an interval.
	Cron     *string    `json:"cron"`
	Every    *string    `json:"every"`
	Phase    *string    `json:"phase"`
	TimeZone string     `json:"timeZone"`
	StartAt  *time.Time `json:"startAt"`
	EndAt    *time.Time `json:"endAt"`
	MaxRuns  *int       `json:"maxRuns"`
	// RemainingRuns is how many runs MaxRuns leaves; nil without a limit.
	RemainingRuns  *int          `json:"remainingRuns"`
	Jitter         *string       `json:"jitter"`
	Overlap        OverlapPolicy `json:"overlap"`
	CatchupWindow  string        `json:"catchupWindow"`
	PauseOnFailure bool          `json:"pauseOnFailure"`
	Paused         bool          `json:"paused"`
	// Note is the note of the last pause or resume.
	Note *string      `json:"note"`
	Task ScheduleTask `json:"task"`
	// NextRunTimes are the next nominal run times as Temporal computes them; listed while paused
	// too (none starts until resumed); empty after the last run.
	NextRunTimes []time.Time `json:"nextRunTimes"`
	// RecentOccurrences are the newest occurrences, oldest first.
	RecentOccurrences   []ScheduleOccurrence `json:"recentOccurrences"`
	OccurrencesStarted  int                  `json:"occurrencesStarted"`
	SkippedByOverlap    int                  `json:"skippedByOverlap"`
	MissedCatchupWindow int                  `json:"missedCatchupWindow"`
	CreatedAt           time.Time            `json:"createdAt"`
	UpdatedAt           *time.Time           `json:"updatedAt"`
}

// ScheduleTask is the task every occurrence runs, defaults applied. Payload and CallbackURL are
// empty in the answer of a write verb when the API key lacks schedules:read.
type ScheduleTask struct {
	TaskType       string         `json:"taskType"`
	Payload        map[string]any `json:"payload,omitempty"`
	PayloadVersion int            `json:"payloadVersion"`
	CallbackURL    string         `json:"callbackUrl,omitempty"`
	Delivery       *Delivery      `json:"delivery,omitempty"`
	MaxRetries     int            `json:"maxRetries"`
	TimeoutMs      int            `json:"timeoutMs"`
	TraceID        *string        `json:"traceId"`
	Priority       int            `json:"priority"`
}

// ScheduleOccurrence is one occurrence the schedule started: a task like any other.
type ScheduleOccurrence struct {
	TaskID string `json:"taskId"`
	// ScheduledAt is the nominal time it runs for; StartedAt when Temporal started it.
	ScheduledAt time.Time `json:"scheduledAt"`
	StartedAt   time.Time `json:"startedAt"`
	// Status is empty while the task list has not caught up with its start.
	Status TaskStatus `json:"status"`
}

// ScheduleSummary is one entry of a schedule list.
type ScheduleSummary struct {
	ScheduleID string  `json:"scheduleId"`
	Owner      string  `json:"owner"`
	TaskType   string  `json:"taskType"`
	Cron       *string `json:"cron"`
	Every      *string `json:"every"`
	TimeZone   string  `json:"timeZone"`
	Paused     bool    `json:"paused"`
	Note       *string `json:"note"`
	// NextRunTime is the next nominal run time (also while paused); nil after the last run.
	NextRunTime *time.Time `json:"nextRunTime"`
}

// SchedulePage is one page of schedules.
type SchedulePage struct {
	Schedules []ScheduleSummary `json:"schedules"`
	// NextPageToken is the PageToken of the next page; nil on the last page.
	NextPageToken *string `json:"nextPageToken"`
}

// ScheduleTaskRequest is what each occurrence runs: a task create without its id and due time.
// Zero fields are not sent.
type ScheduleTaskRequest struct {
	TaskType       string         `json:"taskType,omitempty"`
	Payload        map[string]any `json:"payload"`
	CallbackURL    string         `json:"callbackUrl,omitempty"`
	Delivery       *Delivery      `json:"delivery,omitempty"`
	MaxRetries     *int           `json:"maxRetries,omitempty"`
	TimeoutMs      int            `json:"timeoutMs,omitempty"`
	PayloadVersion int            `json:"payloadVersion,omitempty"`
	TraceID        string         `json:"traceId,omitempty"`
	Priority       int            `json:"priority,omitempty"`
}

// CreateScheduleRequest is a new schedule. Set exactly one of Cron and Every; zero fields are not
// sent, so the service's defaults apply (TimeZone UTC, Overlap skip, CatchupWindow 1h).
type CreateScheduleRequest struct {
	// ScheduleID is chosen by the client, unique per owner: the same request again is an
	// idempotent repeat (created false), another spec under it fails with SCHEDULE_CONFLICT.
	ScheduleID string
	// Cron is five fields or @daily, @hourly ..., read in TimeZone.
	Cron string
	// Every is a fixed interval ("30s", "15m", "1h30m", "1d"), Phase its offset.
	Every    string
	Phase    string
	TimeZone string
	// StartAt and EndAt bound the runs (sent in UTC with milliseconds).
	StartAt time.Time
	EndAt   time.Time
	// MaxRuns stops the schedule after this many runs (1 or more).
	MaxRuns        *int
	Jitter         string
	Overlap        OverlapPolicy
	CatchupWindow  string
	PauseOnFailure bool
	// Paused creates it paused, with Note kept beside the paused state.
	Paused bool
	Note   string
	Task   ScheduleTaskRequest
}

// ScheduleField names a field an update clears (sends as null).
type ScheduleField string

// The fields an update may clear.
const (
	FieldPhase   ScheduleField = "phase"
	FieldStartAt ScheduleField = "startAt"
	FieldEndAt   ScheduleField = "endAt"
	FieldMaxRuns ScheduleField = "maxRuns"
	FieldJitter  ScheduleField = "jitter"
)

// UpdateScheduleRequest changes a schedule: the fields set replace the schedule's (Task as a
// whole), Clear sends the named ones as null. Cron clears Every and Phase; Every clears Cron.
type UpdateScheduleRequest struct {
	Cron           string
	Every          string
	Phase          string
	TimeZone       string
	StartAt        time.Time
	EndAt          time.Time
	MaxRuns        *int
	Jitter         string
	Overlap        OverlapPolicy
	CatchupWindow  string
	PauseOnFailure *bool
	Task           *ScheduleTaskRequest
	Clear          []ScheduleField
}

// ListSchedulesRequest filters a schedule list; zero fields are not sent.
type ListSchedulesRequest struct {
	TaskType string
	// Paused keeps only paused (true) or only active (false) schedules.
	Paused *bool
	// Owner keeps this owner's schedules (admin keys only).
	Owner string
	// PageSize is 1..1000 (service default 50).
	PageSize  int
	PageToken string
}

// BackfillScheduleRequest is a past range whose run times each start one occurrence.
type BackfillScheduleRequest struct {
	// StartAt is exclusive, EndAt inclusive and not in the future.
	StartAt time.Time
	EndAt   time.Time
	// Overlap defaults to the service's allowAll.
	Overlap OverlapPolicy
}

// CreateSchedule creates a recurring task: each occurrence is one task, its id
// "<scheduleId>-<nominal time>". created is false when the same ScheduleID and spec existed.
func (c *Client) CreateSchedule(ctx context.Context, req *CreateScheduleRequest) (schedule *Schedule, created bool, err error) {
	if req == nil {
		return nil, false, invalidArgument([]ErrorDetail{{Field: "body", Reason: "is required"}})
	}
	body, details := specBody(map[string]any{"scheduleId": req.ScheduleID}, &UpdateScheduleRequest{
		Cron: req.Cron, Every: req.Every, Phase: req.Phase, TimeZone: req.TimeZone,
		StartAt: req.StartAt, EndAt: req.EndAt, MaxRuns: req.MaxRuns, Jitter: req.Jitter,
		Overlap: req.Overlap, CatchupWindow: req.CatchupWindow, Task: &req.Task,
	})
	if req.PauseOnFailure {
		body["pauseOnFailure"] = true
	}
	if req.Paused {
		body["paused"] = true
	}
	if req.Note != "" {
		body["note"] = req.Note
	}
	if len(details) > 0 {
		return nil, false, invalidArgument(details)
	}
	schedule = new(Schedule)
	status, err := c.do(ctx, http.MethodPost, "/api/v1/schedules", nil, body, schedule)
	if err != nil {
		return nil, false, err
	}
	return schedule, status == http.StatusCreated, nil
}

// specBody adds the fields of req that are set (and the cleared ones, as null) to body.
func specBody(body map[string]any, req *UpdateScheduleRequest) (map[string]any, []ErrorDetail) {
	var details []ErrorDetail
	set := func(name, value string) {
		if value != "" {
			body[name] = value
		}
	}
	set("cron", req.Cron)
	set("every", req.Every)
	set("phase", req.Phase)
	set("timeZone", req.TimeZone)
	if !req.StartAt.IsZero() {
		body["startAt"] = formatTime(req.StartAt)
	}
	if !req.EndAt.IsZero() {
		body["endAt"] = formatTime(req.EndAt)
	}
	if req.MaxRuns != nil {
		body["maxRuns"] = *req.MaxRuns
	}
	set("jitter", req.Jitter)
	set("overlap", string(req.Overlap))
	set("catchupWindow", req.CatchupWindow)
	if req.PauseOnFailure != nil {
		body["pauseOnFailure"] = *req.PauseOnFailure
	}
	for _, field := range req.Clear {
		body[string(field)] = nil
	}
	if req.Task != nil {
		if req.Task.Payload == nil {
			details = append(details, ErrorDetail{Field: "task.payload", Reason: reasonNotObject})
		} else {
			details = checkPayload(req.Task.Payload, "task.payload", details)
		}
		details = checkTarget(req.Task.CallbackURL, req.Task.Delivery, "task.delivery", details)
		body["task"] = req.Task
	}
	return body, details
}

// GetSchedule returns the schedule with its next run times (from Temporal) and recent occurrences.
func (c *Client) GetSchedule(ctx context.Context, scheduleID string) (*Schedule, error) {
	return c.scheduleCall(ctx, http.MethodGet, scheduleID, "", nil)
}

// ListSchedules returns one page of schedules, by id.
func (c *Client) ListSchedules(ctx context.Context, opts *ListSchedulesRequest) (*SchedulePage, error) {
	q := url.Values{}
	if opts != nil {
		set := func(name, value string) {
			if value != "" {
				q.Set(name, value)
			}
		}
		set("taskType", opts.TaskType)
		if opts.Paused != nil {
			q.Set("paused", strconv.FormatBool(*opts.Paused))
		}
		set("owner", opts.Owner)
		if opts.PageSize != 0 {
			q.Set("pageSize", strconv.Itoa(opts.PageSize))
		}
		set("pageToken", opts.PageToken)
	}
	page := new(SchedulePage)
	if _, err := c.do(ctx, http.MethodGet, "/api/v1/schedules", q, nil, page); err != nil {
		return nil, err
	}
	return page, nil
}

// UpdateSchedule changes a schedule; the service checks the result as a create before it takes
// effect, so a refused update changes nothing.
func (c *Client) UpdateSchedule(ctx context.Context, scheduleID string, req *UpdateScheduleRequest) (*Schedule, error) {
	if req == nil {
		req = &UpdateScheduleRequest{}
	}
	body, details := specBody(map[string]any{}, req)
	if len(details) > 0 {
		return nil, invalidArgument(details)
	}
	return c.scheduleCall(ctx, http.MethodPatch, scheduleID, "", body)
}

// PauseScheduleRequest is the optional part of [Client.PauseSchedule]; nil sends none.
type PauseScheduleRequest struct {
	// Note is kept with the paused state.
	Note string `json:"note,omitempty"`
}

// ResumeScheduleRequest is the optional part of [Client.ResumeSchedule]; nil sends none.
type ResumeScheduleRequest struct {
	// Note is kept with the schedule's state.
	Note string `json:"note,omitempty"`
}

// TriggerScheduleRequest is the optional part of [Client.TriggerSchedule]; nil sends none.
type TriggerScheduleRequest struct {
	// Overlap empty is the service's default for a trigger, allowAll.
	Overlap OverlapPolicy `json:"overlap,omitempty"`
}

// PauseSchedule stops runs until the schedule is resumed; req may be nil.
func (c *Client) PauseSchedule(ctx context.Context, scheduleID string, req *PauseScheduleRequest) (*Schedule, error) {
	if req == nil {
		req = &PauseScheduleRequest{}
	}
	return c.scheduleCall(ctx, http.MethodPost, scheduleID, "/pause", req)
}

// ResumeSchedule resumes a paused schedule; runs missed while paused do not start. req may be nil.
func (c *Client) ResumeSchedule(ctx context.Context, scheduleID string, req *ResumeScheduleRequest) (*Schedule, error) {
	if req == nil {
		req = &ResumeScheduleRequest{}
	}
	return c.scheduleCall(ctx, http.MethodPost, scheduleID, "/resume", req)
}

// TriggerSchedule starts one occurrence now, also when paused; req may be nil.
func (c *Client) TriggerSchedule(ctx context.Context, scheduleID string, req *TriggerScheduleRequest) (*Schedule, error) {
	if req == nil {
		req = &TriggerScheduleRequest{}
	}
	return c.scheduleCall(ctx, http.MethodPost, scheduleID, "/trigger", req)
}

// BackfillSchedule starts one occurrence for each run time of the spec in a past range, each
// with its nominal time.
func (c *Client) BackfillSchedule(ctx context.Context, scheduleID string, req *BackfillScheduleRequest) (*Schedule, error) {
	if req == nil {
		req = &BackfillScheduleRequest{}
	}
	body := map[string]any{"startAt": formatTime(req.StartAt), "endAt": formatTime(req.EndAt)}
	if req.Overlap != "" {
		body["overlap"] = req.Overlap
	}
	return c.scheduleCall(ctx, http.MethodPost, scheduleID, "/backfill", body)
}

// DeleteSchedule deletes a schedule; occurrences already started run on as tasks.
func (c *Client) DeleteSchedule(ctx context.Context, scheduleID string) error {
	if scheduleID == "" {
		return invalidArgument([]ErrorDetail{{Field: "scheduleId", Reason: "is required"}})
	}
	_, err := c.do(ctx, http.MethodDelete, "/api/v1/schedules/"+escapeSegment(scheduleID), nil, nil, nil)
	return err
}

func (c *Client) scheduleCall(ctx context.Context, method, scheduleID, action string, body any) (*Schedule, error) {
	if scheduleID == "" {
		return nil, invalidArgument([]ErrorDetail{{Field: "scheduleId", Reason: "is required"}})
	}
	schedule := new(Schedule)
	if _, err := c.do(ctx, method, "/api/v1/schedules/"+escapeSegment(scheduleID)+action, nil, body, schedule); err != nil {
		return nil, err
	}
	return schedule, nil
}
