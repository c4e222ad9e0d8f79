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

func ExampleClient_Create() {
	client, err := dt.NewClient("https://tasks.internal", dt.WithAPIKey(os.Getenv("DTS_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	task, created, err := client.Create(context.Background(), &dt.CreateTaskRequest{
		TaskType:    "order.close_timeout",
		TaskID:      "order-10023-close",
		Payload:     map[string]any{"orderId": "10023"},
		Delay:       30 * time.Minute,
		CallbackURL: "https://orders.internal/callbacks",
	})
	var apiErr *dt.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == dt.CodeTaskConflict:
		log.Printf("order-10023-close exists with another spec")
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(task.TaskID, task.Status, created)
	}
}

func ExampleClient_ListAll() {
	client, _ := dt.NewClient("https://tasks.internal")
	for task, err := range client.ListAll(context.Background(), &dt.ListOptions{Status: dt.StatusFailed}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(task.TaskID, task.LastError)
	}
}

func ExampleCallbackHandler() {
	verifier, err := dt.NewWebhookVerifier([]string{os.Getenv("DTS_WEBHOOK_SECRET")})
	if err != nil {
		log.Fatal(err)
	}
	callbacks, err := dt.NewCallbackHandler(dt.WithVerifier(verifier))
	if err != nil {
		log.Fatal(err)
	}
	callbacks.Handle("order.close_timeout", func(ctx context.Context, cb *dt.Callback) error {
		orderID, ok := cb.Payload["orderId"].(string)
		if !ok {
			return dt.Permanent(fmt.Errorf("task %s: no orderId", cb.TaskID))
		}
		log.Printf("closing order %s (attempt %d)", orderID, cb.Attempt)
		return nil
	})
	http.Handle("POST /callbacks", callbacks)
}
