package delayedtasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// invoke calls the operation of a vector with its input (wire names, tags already converted) and
// returns the result in a form whose JSON the vector's expect.result is compared with.
func invoke(ctx context.Context, c *dt.Client, op string, in map[string]any) (any, error) {
	taskID, _ := in["taskId"].(string)
	switch op {
	case "create":
		task, created, err := c.Create(ctx, createRequest(in))
		if err != nil {
			return nil, err
		}
		return createResult{Task: task, Created: created}, nil
	case "createTasks":
		items, _ := in["tasks"].([]any)
		reqs := make([]*dt.CreateTaskRequest, len(items))
		for i, item := range items {
			m, _ := item.(map[string]any)
			reqs[i] = createRequest(m)
		}
		results, err := c.CreateTasks(ctx, reqs)
		if err != nil {
			return nil, err
		}
		out := make([]batchResult, len(results))
		for i, r := range results {
			out[i] = batchResult{Index: r.Index, TaskID: r.TaskID}
			var apiErr *dt.DelayedTaskError
			if errors.As(r.Err, &apiErr) {
				out[i].Error = &apiErrorJSON{apiErr.Code, apiErr.Status, apiErr.Details, apiErr.RequestID}
			} else if r.Err != nil {
				return nil, fmt.Errorf("item %d: not a *DelayedTaskError: %w", i, r.Err)
			} else {
				out[i].Task, out[i].Created = r.Task, &r.Created
			}
		}
		return out, nil
	case "status":
		return c.Status(ctx, taskID)
	case "cancel":
		return c.Cancel(ctx, taskID)
	case "reschedule":
		return c.Reschedule(ctx, taskID, &dt.RescheduleRequest{
			Delay:     duration(in["delaySeconds"]),
			ExecuteAt: instant(in["executeAt"]),
		})
	case "replay":
		return c.Replay(ctx, taskID, &dt.ReplayRequest{
			Payload:        payload(in["payload"]),
			PayloadVersion: integer(in["payloadVersion"]),
			MaxRetries:     intPtr(in["maxRetries"]),
			Delay:          duration(in["delaySeconds"]),
			ExecuteAt:      instant(in["executeAt"]),
		})
	case "list":
		return c.List(ctx, listOptions(in))
	case "listAll":
		tasks := []dt.TaskSummary{}
		for task, err := range c.ListAll(ctx, listOptions(in)) {
			if err != nil {
				return nil, err
			}
			tasks = append(tasks, task)
		}
		return listAllResult{Tasks: tasks}, nil
	}
	if strings.HasSuffix(op, "Schedule") || op == "listSchedules" {
		return invokeSchedule(ctx, c, op, in)
	}
	return nil, fmt.Errorf("unknown operation %q", op)
}

// invokeSchedule calls the schedule verbs (conformance/client/schedules.json).
func invokeSchedule(ctx context.Context, c *dt.Client, op string, in map[string]any) (any, error) {
	id := str(in["scheduleId"])
	switch op {
	case "createSchedule":
		req := &dt.CreateScheduleRequest{ScheduleID: id, PauseOnFailure: in["pauseOnFailure"] == true,
			Paused: in["paused"] == true, Note: str(in["note"])}
		spec := scheduleUpdate(in)
		req.Cron, req.Every, req.Phase, req.TimeZone = spec.Cron, spec.Every, spec.Phase, spec.TimeZone
		req.StartAt, req.EndAt, req.MaxRuns, req.Jitter = spec.StartAt, spec.EndAt, spec.MaxRuns, spec.Jitter
		req.Overlap, req.CatchupWindow = spec.Overlap, spec.CatchupWindow
		if spec.Task != nil {
			req.Task = *spec.Task
		}
		schedule, created, err := c.CreateSchedule(ctx, req)
		if err != nil {
			return nil, err
		}
		return createScheduleResult{Schedule: schedule, Created: created}, nil
	case "getSchedule":
		return c.GetSchedule(ctx, id)
	case "listSchedules":
		opts := &dt.ListSchedulesRequest{TaskType: str(in["taskType"]), Owner: str(in["owner"]),
			PageSize: integer(in["pageSize"]), PageToken: str(in["pageToken"])}
		if paused, ok := in["paused"].(bool); ok {
			opts.Paused = &paused
		}
		return c.ListSchedules(ctx, opts)
	case "updateSchedule":
		return c.UpdateSchedule(ctx, id, scheduleUpdate(in))
	case "pauseSchedule":
		return c.PauseSchedule(ctx, id, &dt.PauseScheduleRequest{Note: str(in["note"])})
	case "resumeSchedule":
		return c.ResumeSchedule(ctx, id, &dt.ResumeScheduleRequest{Note: str(in["note"])})
	case "triggerSchedule":
		return c.TriggerSchedule(ctx, id, &dt.TriggerScheduleRequest{Overlap: dt.OverlapPolicy(str(in["overlap"]))})
	case "backfillSchedule":
		return c.BackfillSchedule(ctx, id, &dt.BackfillScheduleRequest{
			StartAt: instant(in["startAt"]), EndAt: instant(in["endAt"]), Overlap: dt.OverlapPolicy(str(in["overlap"])),
		})
	case "deleteSchedule":
		return nil, c.DeleteSchedule(ctx, id)
	}
	return nil, fmt.Errorf("unknown operation %q", op)
}

// scheduleUpdate reads the spec fields of a schedule vector; a field given as null is cleared.
func scheduleUpdate(in map[string]any) *dt.UpdateScheduleRequest {
	req := &dt.UpdateScheduleRequest{
		Cron: str(in["cron"]), Every: str(in["every"]), Phase: str(in["phase"]), TimeZone: str(in["timeZone"]),
		StartAt: instant(in["startAt"]), EndAt: instant(in["endAt"]), MaxRuns: intPtr(in["maxRuns"]),
		Jitter: str(in["jitter"]), Overlap: dt.OverlapPolicy(str(in["overlap"])), CatchupWindow: str(in["catchupWindow"]),
	}
	if b, ok := in["pauseOnFailure"].(bool); ok {
		req.PauseOnFailure = &b
	}
	for _, field := range []dt.ScheduleField{dt.FieldPhase, dt.FieldStartAt, dt.FieldEndAt, dt.FieldMaxRuns, dt.FieldJitter} {
		if v, ok := in[string(field)]; ok && v == nil {
			req.Clear = append(req.Clear, field)
		}
	}
	if task, ok := in["task"].(map[string]any); ok {
		req.Task = &dt.ScheduleTaskRequest{
			TaskType: str(task["taskType"]), Payload: payload(task["payload"]), CallbackURL: str(task["callbackUrl"]),
			MaxRetries: intPtr(task["maxRetries"]), TimeoutMs: integer(task["timeoutMs"]),
			PayloadVersion: integer(task["payloadVersion"]), TraceID: str(task["traceId"]), Priority: integer(task["priority"]),
		}
	}
	return req
}

// createScheduleResult is CreateSchedule's two results as one value, as the vectors write it.
type createScheduleResult struct {
	Schedule *dt.Schedule `json:"schedule"`
	Created  bool         `json:"created"`
}

func createRequest(in map[string]any) *dt.CreateTaskRequest {
	return &dt.CreateTaskRequest{
		TaskType:       str(in["taskType"]),
		Payload:        payload(in["payload"]),
		Delay:          duration(in["delaySeconds"]),
		ExecuteAt:      instant(in["executeAt"]),
		CallbackURL:    str(in["callbackUrl"]),
		TaskID:         str(in["taskId"]),
		MaxRetries:     intPtr(in["maxRetries"]),
		TimeoutMs:      integer(in["timeoutMs"]),
		PayloadVersion: integer(in["payloadVersion"]),
		TraceID:        str(in["traceId"]),
		Priority:       integer(in["priority"]),
	}
}

// batchResult is one CreateTasksItem as the vectors write it.
type batchResult struct {
	Index   int           `json:"index"`
	TaskID  string        `json:"taskId"`
	Created *bool         `json:"created,omitempty"`
	Task    *dt.Task      `json:"task,omitempty"`
	Error   *apiErrorJSON `json:"error,omitempty"`
}

type apiErrorJSON struct {
	Code      string           `json:"code"`
	Status    int              `json:"status"`
	Details   []dt.ErrorDetail `json:"details"`
	RequestID string           `json:"requestId"`
}

// createResult is Create's two results as one value, as the vectors write it.
type createResult struct {
	Task    *dt.Task `json:"task"`
	Created bool     `json:"created"`
}

type listAllResult struct {
	Tasks []dt.TaskSummary `json:"tasks"`
}

func listOptions(in map[string]any) *dt.ListTasksRequest {
	return &dt.ListTasksRequest{
		Status:    dt.TaskStatus(str(in["status"])),
		TaskType:  str(in["taskType"]),
		IDPrefix:  str(in["idPrefix"]),
		Owner:     str(in["owner"]),
		DueAfter:  instant(in["dueAfter"]),
		DueBefore: instant(in["dueBefore"]),
		PageSize:  integer(in["pageSize"]),
		PageToken: str(in["pageToken"]),
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func payload(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func integer(v any) int {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	case int64:
		return int(n)
	}
	return 0
}

func intPtr(v any) *int {
	if v == nil {
		return nil
	}
	i := integer(v)
	return &i
}

// duration reads delaySeconds given as {"$duration": s} (already converted) or as plain seconds.
func duration(v any) time.Duration {
	switch d := v.(type) {
	case time.Duration:
		return d
	case json.Number:
		f, _ := d.Float64()
		return time.Duration(math.Round(f * float64(time.Second)))
	}
	return 0
}

// instant reads executeAt given as {"$time": ...} (already converted) or as an RFC 3339 string.
func instant(v any) time.Time {
	switch t := v.(type) {
	case time.Time:
		return t
	case string:
		parsed, err := time.Parse(time.RFC3339Nano, t)
		if err == nil {
			return parsed
		}
	}
	return time.Time{}
}
