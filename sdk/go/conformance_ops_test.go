package delayedtasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	dt "github.com/delayed-tasks/sdk-go"
)

// invoke calls the operation of a vector with its input (wire names, tags already converted) and
// returns the result in a form whose JSON the vector's expect.result is compared with.
func invoke(ctx context.Context, c *dt.Client, op string, in map[string]any) (any, error) {
	taskID, _ := in["taskId"].(string)
	switch op {
	case "create":
		req := &dt.CreateTaskRequest{
			TaskType:       str(in["taskType"]),
			Payload:        payload(in["payload"]),
			DelaySeconds:   duration(in["delaySeconds"]),
			ExecuteAt:      instant(in["executeAt"]),
			CallbackURL:    str(in["callbackUrl"]),
			TaskID:         taskID,
			MaxRetries:     intPtr(in["maxRetries"]),
			TimeoutMs:      integer(in["timeoutMs"]),
			PayloadVersion: integer(in["payloadVersion"]),
			TraceID:        str(in["traceId"]),
			Priority:       integer(in["priority"]),
		}
		task, created, err := c.Create(ctx, req)
		if err != nil {
			return nil, err
		}
		return createResult{Task: task, Created: created}, nil
	case "get":
		return c.Get(ctx, taskID)
	case "cancel":
		return c.Cancel(ctx, taskID)
	case "reschedule":
		return c.Reschedule(ctx, taskID, &dt.RescheduleRequest{
			DelaySeconds: duration(in["delaySeconds"]),
			ExecuteAt:    instant(in["executeAt"]),
		})
	case "replay":
		return c.Replay(ctx, taskID, &dt.ReplayRequest{
			Payload:        payload(in["payload"]),
			PayloadVersion: integer(in["payloadVersion"]),
			MaxRetries:     intPtr(in["maxRetries"]),
			DelaySeconds:   duration(in["delaySeconds"]),
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
func duration(v any) *time.Duration {
	switch d := v.(type) {
	case time.Duration:
		return &d
	case json.Number:
		f, _ := d.Float64()
		dur := time.Duration(math.Round(f * float64(time.Second)))
		return &dur
	}
	return nil
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
