package delayedtasks_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// The receiver's claim semantics, through a whole CallbackHandler with the in-memory store:
// CLAIMED → handler → complete; handler error → release; IN_PROGRESS → 503 Retry-After: 5;
// DONE → 200 duplicate.

func answerOf(t *testing.T, h *dt.CallbackReceiver, key string) string {
	t.Helper()
	resp := serveOnce(h, signed(t, dedupeSecret, "order.close", key, time.Now()))
	body, _ := io.ReadAll(resp.Body)
	out := resp.Status[:3] + " " + strings.TrimSpace(string(body))
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		out += " Retry-After: " + ra
	}
	return out
}

func TestReceiverAnswersInProgressWhileAnotherHandlerRuns(t *testing.T) {
	store := dt.NewInMemoryIdempotencyStore(0)
	entered, finish := make(chan struct{}), make(chan struct{})
	runs := 0
	h := newHandler(t, dedupeVerifier(t), dt.WithIdempotencyStore(store))
	h.Handle("order.close", func(context.Context, *dt.Callback) error {
		runs++
		close(entered)
		<-finish
		return nil
	})
	var first string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		first = answerOf(t, h, "order-a")
	}()
	<-entered
	if got := answerOf(t, h, "order-a"); got != `503 {"status":"retry"} Retry-After: 5` {
		t.Errorf("while the first runs: %s", got)
	}
	close(finish)
	wg.Wait()
	if first != handledAnswer {
		t.Errorf("first: %s", first)
	}
	if got := answerOf(t, h, "order-a"); got != duplicateAnswer {
		t.Errorf("after: %s", got)
	}
	if runs != 1 {
		t.Errorf("handler ran %d times, want 1", runs)
	}
}

func TestReceiverReleasesTheClaimWhenTheHandlerFails(t *testing.T) {
	for name, fail := range map[string]func() error{
		"error":     func() error { return errors.New("db down") },
		"retry":     func() error { return dt.Retry(errors.New("busy"), time.Second) },
		"permanent": func() error { return dt.Permanent(errors.New("no such order")) },
		"panic":     func() error { panic("boom") },
	} {
		t.Run(name, func(t *testing.T) {
			runs := 0
			h := newHandler(t, dedupeVerifier(t), dt.WithIdempotencyStore(dt.NewInMemoryIdempotencyStore(0)))
			h.Handle("order.close", func(context.Context, *dt.Callback) error {
				runs++
				if runs == 1 {
					return fail()
				}
				return nil
			})
			if got := answerOf(t, h, "order-a"); strings.HasPrefix(got, "200") {
				t.Fatalf("failing handler answered %s", got)
			}
			if got := answerOf(t, h, "order-a"); got != handledAnswer {
				t.Errorf("the retry after a %s: %s, want handled", name, got)
			}
			if runs != 2 {
				t.Errorf("handler ran %d times, want 2", runs)
			}
		})
	}
}

func TestReceiverWithoutHandlerClaimsNothing(t *testing.T) {
	store := dt.NewInMemoryIdempotencyStore(0)
	h := newHandler(t, dedupeVerifier(t), dt.WithIdempotencyStore(store))
	if got := answerOf(t, h, "order-a"); got != `422 {"status":"failed","reason":"no handler for task type"}` {
		t.Errorf("no handler: %s", got)
	}
	if c, _ := store.Claim(context.Background(), "msg-order-a", time.Minute); c.Result != dt.ClaimClaimed {
		t.Errorf("the key is %s after a callback without handler, want free", c.Result)
	}
}

func TestInMemoryStoreClaimSemantics(t *testing.T) {
	ctx := context.Background()
	s := dt.NewInMemoryIdempotencyStore(0)
	results := make(chan dt.ClaimResult, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, _ := s.Claim(ctx, "k", time.Minute)
			results <- c.Result
		}()
	}
	wg.Wait()
	close(results)
	counts := map[dt.ClaimResult]int{}
	for r := range results {
		counts[r]++
	}
	if counts[dt.ClaimClaimed] != 1 || counts[dt.ClaimInProgress] != 15 {
		t.Errorf("16 concurrent claims: %v", counts)
	}

	first, _ := s.Claim(ctx, "expiring", 20*time.Millisecond)
	var second dt.Claim
	for second.Result != dt.ClaimClaimed { // polls until the first claim expired
		second, _ = s.Claim(ctx, "expiring", time.Minute)
		time.Sleep(5 * time.Millisecond)
	}
	_ = s.Release(ctx, "expiring", first.Token) // late: must not free the second claim
	if c, _ := s.Claim(ctx, "expiring", time.Minute); c.Result != dt.ClaimInProgress {
		t.Errorf("after a stale release: %s, want IN_PROGRESS", c.Result)
	}
	_ = s.Complete(ctx, "expiring")
	if c, _ := s.Claim(ctx, "expiring", time.Minute); c.Result != dt.ClaimDone {
		t.Errorf("after complete: %s, want DONE", c.Result)
	}
}
