package delayedtasks_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// The README shows these examples' bodies (or parts of them) as they are: readme_test.go checks
// that every Go fragment of the README is found here, so the README compiles as shown.

var (
	errBusy        = errors.New("orders: database busy")
	errNoSuchOrder = errors.New("orders: no such order")
)

func closeOrder(context.Context, string) error { return nil }

func ExampleClient_Create() {
	ctx := context.Background()
	client, err := dt.NewClient("https://tasks.internal", dt.WithAPIKey(os.Getenv("DTS_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	task, created, err := client.Create(ctx, &dt.CreateTaskRequest{
		TaskType:    "order.close_timeout",
		TaskID:      "order-10023-close", // optional: a UUID is generated (once, reused on retries)
		Payload:     map[string]any{"orderId": "10023"},
		Delay:       30 * time.Minute, // or ExecuteAt: time.Date(...); zero means not set
		CallbackURL: "https://orders.internal/callbacks",
	})
	var apiErr *dt.DelayedTaskError
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == dt.CodeTaskConflict:
		log.Printf("order-10023-close exists with another spec")
	case err != nil:
		log.Fatal(err) // e.g. "delayedtasks: INVALID_ARGUMENT: delaySeconds must not be negative"
	default:
		fmt.Println(task.TaskID, task.Status, created)
	}
}

func ExampleCallbackHandler() {
	verifier, err := dt.NewWebhookVerifier([]string{os.Getenv("DTS_WEBHOOK_SECRET")}) // "whsec_..."
	if err != nil {
		log.Fatal(err)
	}
	// Without a verifier, NewCallbackReceiver fails unless given dt.AllowUnsigned().
	callbacks, err := dt.NewCallbackReceiver(dt.WithVerifier(verifier))
	if err != nil {
		log.Fatal(err)
	}
	callbacks.Handle("order.close_timeout", func(ctx context.Context, cb *dt.Callback) error {
		orderID, _ := cb.Payload["orderId"].(string) // numbers arrive as json.Number, exact
		switch err := closeOrder(ctx, orderID); {
		case errors.Is(err, errBusy):
			return dt.Retry(err, 10*time.Second) // 503 {"status":"retry"}, Retry-After: 10
		case errors.Is(err, errNoSuchOrder):
			return dt.Permanent(err) // 422 {"status":"failed"}: the task fails now
		default:
			return err // nil: 200 {"status":"handled"}; other errors: 500 {"status":"error"}
		}
	})
	http.Handle("POST /callbacks", callbacks)
}

func ExampleClient_CreateTasks() {
	ctx := context.Background()
	client, err := dt.NewClient("https://tasks.internal", dt.WithAPIKey(os.Getenv("DTS_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	first := &dt.CreateTaskRequest{TaskType: "order.close_timeout", Payload: map[string]any{"orderId": "1"}, Delay: time.Hour}
	second := &dt.CreateTaskRequest{TaskType: "order.close_timeout", Payload: map[string]any{"orderId": "2"}, Delay: time.Hour}
	results, err := client.CreateTasks(ctx, []*dt.CreateTaskRequest{first, second})
	if err != nil { // the whole request failed: 401, 403, 400 for the list, 5xx, retries exhausted
		log.Fatal(err)
	}
	for _, r := range results { // one per request, in order
		var apiErr *dt.DelayedTaskError
		if errors.As(r.Err, &apiErr) { // what Create would have returned for this item
			log.Printf("item %d (%s): %s %d", r.Index, r.TaskID, apiErr.Code, apiErr.Status)
			continue
		}
		log.Printf("item %d: %s created=%v", r.Index, r.Task.TaskID, r.Created)
	}
}

func ExampleClient_ListAll() {
	ctx := context.Background()
	client, err := dt.NewClient("https://tasks.internal", dt.WithAPIKey(os.Getenv("DTS_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	due := &dt.ListTasksRequest{
		Status:    dt.StatusFailed, // the dead letters
		Owner:     "default",       // needed with IDPrefix where the key sees several owners (admin, no auth)
		IDPrefix:  "order-",
		DueAfter:  time.Now().Add(-24 * time.Hour),
		DueBefore: time.Now(),
	}
	for task, err := range client.ListAll(ctx, due) { // page after page
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(task.TaskID, task.LastError)
	}
}
