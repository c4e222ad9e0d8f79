package delayedtasks_test

import (
	"encoding/json"
	"testing"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// A wire null reads as nil, an empty string as "": the two differ as in the other SDKs.
func TestWireNullsAreNil(t *testing.T) {
	var task dt.Task
	if err := json.Unmarshal([]byte(`{"taskId":"t","traceId":null}`), &task); err != nil || task.TraceID != nil {
		t.Errorf("traceId null: %v, %v", task.TraceID, err)
	}
	if err := json.Unmarshal([]byte(`{"taskId":"t","traceId":""}`), &task); err != nil || task.TraceID == nil || *task.TraceID != "" {
		t.Errorf(`traceId "": %v, %v`, task.TraceID, err)
	}
	var s dt.Schedule
	body := `{"scheduleId":"s","cron":null,"every":"1h","phase":null,"jitter":null,"note":null,"task":{"traceId":null}}`
	if err := json.Unmarshal([]byte(body), &s); err != nil || s.Cron != nil || s.Phase != nil || s.Jitter != nil ||
		s.Note != nil || s.Task.TraceID != nil || s.Every == nil || *s.Every != "1h" {
		t.Errorf("schedule nulls: %+v, %v", s, err)
	}
	var page dt.TaskPage
	if err := json.Unmarshal([]byte(`{"tasks":[{"taskId":"t","callbackUrl":null,"priority":null}],"nextPageToken":null}`), &page); err != nil ||
		page.NextPageToken != nil || page.Tasks[0].CallbackURL != nil || page.Tasks[0].Priority != nil {
		t.Errorf("page nulls: %+v, %v", page, err)
	}
	cb, err := dt.ParseCallback([]byte(`{"taskId":"t","taskType":"x","payload":{},"executeAt":"2026-12-05T10:00:00Z","attempt":1,"traceId":null}`))
	if err != nil || cb.TraceID != nil {
		t.Errorf("callback traceId null: %+v, %v", cb, err)
	}
}
