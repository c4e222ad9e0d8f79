package delayedtasks_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

func TestLiveSchedule(t *testing.T) {
	c := liveClient(t)
	ctx := context.Background()
	rcv := newReceiver(t, func(context.Context, *dt.Callback) error { return nil })
	id := liveID("schedule")
	req := &dt.CreateScheduleRequest{ScheduleID: id, Every: "1h", Task: dt.ScheduleTaskRequest{
		TaskType: "go.live", Payload: map[string]any{"n": 7}, CallbackURL: rcv.URL + "/callbacks",
	}}
	if _, created, err := c.CreateSchedule(ctx, req); err != nil || !created {
		t.Fatalf("create: created %v, %v", created, err)
	}
	if _, created, err := c.CreateSchedule(ctx, req); err != nil || created {
		t.Fatalf("create again: created %v, %v", created, err)
	}
	s, err := c.GetSchedule(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Every == nil || *s.Every != "1h" || s.Overlap != dt.OverlapSkip || s.CatchupWindow != "1h" || s.Paused || len(s.NextRunTimes) != 10 {
		t.Errorf("get: %+v", s)
	}
	page, err := c.ListSchedules(ctx, &dt.ListSchedulesRequest{TaskType: "go.live", Paused: dt.Ptr(false)})
	if err != nil || !slices.ContainsFunc(page.Schedules, func(s dt.ScheduleSummary) bool { return s.ScheduleID == id }) {
		t.Errorf("list: %+v, %v", page, err)
	}
	if s, err = c.PauseSchedule(ctx, id, &dt.PauseScheduleRequest{Note: "paused by the SDK test"}); err != nil || !s.Paused || s.Note == nil || *s.Note != "paused by the SDK test" ||
		len(s.NextRunTimes) != 10 /* a paused schedule still lists its next run times */ {
		t.Errorf("pause: %+v, %v", s, err)
	}
	if s, err = c.ResumeSchedule(ctx, id, &dt.ResumeScheduleRequest{Note: "resumed by the SDK test"}); err != nil || s.Paused {
		t.Errorf("resume: %+v, %v", s, err)
	}
	if _, err = c.TriggerSchedule(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(45 * time.Second)
	var cb *dt.Callback
	for cb == nil {
		for _, call := range rcv.calls() {
			if call.Schedule != nil && call.Schedule.ScheduleID == id {
				cb = call
			}
		}
		if cb == nil && time.Now().After(deadline) {
			t.Fatal("the triggered occurrence did not call back")
		}
		time.Sleep(200 * time.Millisecond) // polling interval, not synchronisation
	}
	if want := id + "-" + cb.Schedule.ScheduledAt.UTC().Format("2006-01-02T15:04:05Z"); cb.TaskID != want {
		t.Errorf("occurrence task id %s, want %s", cb.TaskID, want)
	}
	if err = c.DeleteSchedule(ctx, id); err != nil {
		t.Fatal(err)
	}
	var apiErr *dt.DelayedTaskError
	if _, err = c.GetSchedule(ctx, id); !errors.As(err, &apiErr) || apiErr.Code != dt.CodeScheduleNotFound || apiErr.Status != 404 {
		t.Errorf("get after delete: %v", err)
	}
}
