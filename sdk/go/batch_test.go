package delayedtasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

func TestCreateTasksRetriesADroppedConnectionWithTheSameGeneratedIDs(t *testing.T) {
	s := newStub(t, dropConnection, answer(200, `{"results":[{"index":0,"status":201,"task":`+taskJSON+`}]}`))
	c := newClient(t, s.URL)
	results, err := c.CreateTasks(context.Background(), []*dt.CreateTaskRequest{
		{TaskType: "order.close", Payload: map[string]any{}, Delay: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.count() != 2 || s.bodies[0] != s.bodies[1] {
		t.Fatalf("%d requests, bodies %q: want the same body twice", s.count(), s.bodies)
	}
	var sent struct {
		Tasks []struct {
			TaskID string `json:"taskId"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(s.bodies[0]), &sent); err != nil || len(sent.Tasks) != 1 {
		t.Fatalf("body %q: %v", s.bodies[0], err)
	}
	r := results[0]
	if r.Err != nil || !r.Created || r.TaskID != sent.Tasks[0].TaskID || !uuidV4.MatchString(r.TaskID) {
		t.Fatalf("result %+v, sent id %q", r, sent.Tasks[0].TaskID)
	}
}

func TestCreateTasksGivesAnItemTheResponseLeftOutAnUnknownError(t *testing.T) {
	s := newStub(t, answer(200, `{"results":[{"index":1,"status":409,"error":{"code":"TASK_CONFLICT"}}]}`,
		"X-Request-Id", "r-1"))
	c := newClient(t, s.URL)
	item := func(id string) *dt.CreateTaskRequest {
		return &dt.CreateTaskRequest{TaskType: "t", Payload: map[string]any{}, Delay: time.Second, TaskID: id}
	}
	results, err := c.CreateTasks(context.Background(), []*dt.CreateTaskRequest{item("a"), item("b"), nil})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, code  string
		status    int
		requestID string
	}{{"a", dt.CodeUnknown, 200, "r-1"}, {"b", dt.CodeTaskConflict, 409, "r-1"}, {"", dt.CodeInvalidArgument, 0, ""}}
	for i, w := range want {
		var apiErr *dt.DelayedTaskError
		if !errors.As(results[i].Err, &apiErr) || results[i].TaskID != w.id || apiErr.Code != w.code ||
			apiErr.Status != w.status || apiErr.RequestID != w.requestID {
			t.Errorf("result %d: %+v (%v), want %+v", i, results[i], results[i].Err, w)
		}
	}
}
