package stores_test

import (
	"context"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
	"github.com/delayed-tasks/delayed-task-service/sdk/go/stores"
)

// The inbox under concurrency (conformance/stores/README.md): a duplicate whose transaction runs
// while the first is still open waits on the key's row, then finds it done and runs nothing; had
// the first rolled back, the duplicate would run the effect.
func TestInboxConcurrentDuplicateWaitsThenSeesDone(t *testing.T) {
	db := openSQL(t)
	ctx := context.Background()
	store := stores.NewSQLIdempotencyStore(db)
	for _, firstCommits := range []bool{true, false} {
		key := "inbox-concurrent-" + runID + map[bool]string{true: "-commit", false: "-rollback"}[firstCommits]
		first, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := store.RunInTransaction(ctx, first, key, func(context.Context) error { return nil }); err != nil || r != dt.ClaimClaimed {
			t.Fatalf("first: %s %v", r, err)
		}
		type outcome struct {
			result dt.ClaimResult
			ran    bool
			err    error
		}
		second := make(chan outcome, 1)
		go func() {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				second <- outcome{err: err}
				return
			}
			defer func() { _ = tx.Rollback() }()
			ran := false
			r, err := store.RunInTransaction(ctx, tx, key, func(context.Context) error { ran = true; return nil })
			if err == nil {
				err = tx.Commit()
			}
			second <- outcome{r, ran, err}
		}()
		select {
		case o := <-second:
			t.Fatalf("the duplicate did not wait for the open transaction: %+v", o)
		case <-time.After(300 * time.Millisecond): // it waits on the row (nothing to poll for)
		}
		if firstCommits {
			err = first.Commit()
		} else {
			err = first.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		o := <-second
		switch {
		case o.err != nil:
			t.Fatal(o.err)
		case firstCommits && (o.result != dt.ClaimDone || o.ran):
			t.Errorf("after the first committed: %s, effect ran %v; want DONE and not run", o.result, o.ran)
		case !firstCommits && (o.result != dt.ClaimClaimed || !o.ran):
			t.Errorf("after the first rolled back: %s, effect ran %v; want CLAIMED and run", o.result, o.ran)
		}
	}
}
