package delayedtasks

import (
	"maps"
	"slices"
	"testing"
	"time"
)

// The schedule types and bodies against docs/openapi.json, both ways (see openapi_internal_test.go).
func TestScheduleTypesMatchOpenAPI(t *testing.T) {
	doc := loadOpenAPI(t)
	const one = "/api/v1/schedules/{scheduleId}"
	get := doc.op(t, "get", one).responseSchema(t, "200")
	t.Run("Schedule", func(t *testing.T) {
		sameFields(t, "get", get, typeOf[Schedule]())
		sameFields(t, "task", get.prop(t, "task"), typeOf[ScheduleTask]())
		sameFields(t, "recentOccurrences", get.prop(t, "recentOccurrences").Items, typeOf[ScheduleOccurrence]())
		for _, status := range []string{"200", "201"} {
			sameFields(t, "create "+status, doc.op(t, "post", "/api/v1/schedules").responseSchema(t, status), typeOf[Schedule]())
		}
		for _, verb := range []string{"pause", "resume", "trigger", "backfill"} {
			sameFields(t, verb, doc.op(t, "post", one+"/"+verb).responseSchema(t, "200"), typeOf[Schedule]())
		}
		sameFields(t, "update", doc.op(t, "patch", one).responseSchema(t, "200"), typeOf[Schedule]())
	})
	list := doc.op(t, "get", "/api/v1/schedules")
	t.Run("SchedulePage", func(t *testing.T) {
		page := list.responseSchema(t, "200")
		sameFields(t, "list page", page, typeOf[SchedulePage]())
		sameFields(t, "ScheduleSummary", page.prop(t, "schedules").Items, typeOf[ScheduleSummary]())
		var params []string
		for _, p := range list.Parameters {
			if p.In == "query" {
				params = append(params, p.Name)
			}
		}
		slices.Sort(params)
		if want := []string{"owner", "pageSize", "pageToken", "paused", "taskType"}; !slices.Equal(params, want) {
			t.Errorf("ListSchedulesRequest sends %v; the document's list parameters are %v", want, params)
		}
	})
	t.Run("request bodies", func(t *testing.T) {
		create := doc.op(t, "post", "/api/v1/schedules").requestSchema(t)
		sameFields(t, "create body task", create.prop(t, "task"), typeOf[ScheduleTaskRequest]())
		full, _ := specBody(map[string]any{"scheduleId": "s", "paused": true, "note": "n"}, everyScheduleField())
		delete(full, "clear")
		sameKeys(t, "create body", create, full)
		update, _ := specBody(map[string]any{}, everyScheduleField())
		sameKeys(t, "update body", doc.op(t, "patch", one).requestSchema(t), update)
		sameKeys(t, "backfill body", doc.op(t, "post", one+"/backfill").requestSchema(t),
			map[string]any{"startAt": 1, "endAt": 1, "overlap": 1})
		sameFields(t, "pause body", doc.op(t, "post", one+"/pause").requestSchema(t), typeOf[PauseScheduleRequest]())
		sameFields(t, "resume body", doc.op(t, "post", one+"/resume").requestSchema(t), typeOf[ResumeScheduleRequest]())
		sameFields(t, "trigger body", doc.op(t, "post", one+"/trigger").requestSchema(t), typeOf[TriggerScheduleRequest]())
	})
	t.Run("OverlapPolicy", func(t *testing.T) {
		got := constants(t, func(typ, _ string) bool { return typ == "OverlapPolicy" })
		if want := get.prop(t, "overlap").enum(); !slices.Equal(got, want) {
			t.Errorf("OverlapPolicy constants %v; the document's overlap policies %v", got, want)
		}
	})
}

func everyScheduleField() *UpdateScheduleRequest {
	return &UpdateScheduleRequest{
		Cron: "x", Every: "x", Phase: "x", TimeZone: "x", StartAt: time.Now(), EndAt: time.Now(),
		MaxRuns: Ptr(1), Jitter: "x", Overlap: OverlapSkip, CatchupWindow: "x", PauseOnFailure: Ptr(true),
		Task: &ScheduleTaskRequest{Payload: map[string]any{}},
	}
}

func sameKeys(t *testing.T, what string, s *schema, body map[string]any) {
	t.Helper()
	props := slices.Sorted(maps.Keys(s.Properties))
	sent := slices.Sorted(maps.Keys(body))
	if !slices.Equal(props, sent) {
		t.Errorf("%s: the SDK sends %v; the document's properties are %v", what, sent, props)
	}
}
