package delayedtasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
			var apiErr *dt.APIError
			if errors.As(r.Err, &apiErr) {
				out[i].Error = &apiErrorJSON{apiErr.Code, apiErr.Status, apiErr.Details, apiErr.RequestID}
			} else if r.Err != nil {
				return nil, fmt.Errorf("item %d: not an *APIError: %w", i, r.Err)
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
	return nil, fmt.Errorf("unknown operation %q", op)
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

// batchResult is one CreateTaskResult as the vectors write it.
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

func listOptions(in map[string]any) *dt.ListOptions {
	return &dt.ListOptions{
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
