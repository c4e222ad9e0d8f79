package stores_test

import (
	"context"
	"database/sql"
	"log"
	"net/http"
	"os"

	"github.com/redis/go-redis/v9"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
	"github.com/delayed-tasks/delayed-task-service/sdk/go/stores"
)

// The README (../README.md) shows these examples' bodies as they are: its readme_test.go finds
// every Go fragment of it here or in ../example_test.go, so the README compiles as shown.

var verifier *dt.WebhookVerifier

func ExampleRedisIdempotencyStore() {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")}) // every replica, one Redis
	callbacks, err := dt.NewCallbackReceiver(dt.WithVerifier(verifier),
		dt.WithIdempotencyStore(stores.NewRedisIdempotencyStore(rdb)))
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("POST /callbacks", callbacks)
}

func ExampleSQLIdempotencyStore_RunInTransaction() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL")) // any PostgreSQL driver of database/sql
	if err != nil {
		log.Fatal(err)
	}
	inbox := stores.NewSQLIdempotencyStore(db)
	if err := inbox.Migrate(context.Background()); err != nil { // or schema.sql in your migrations
		log.Fatal(err)
	}
	// The receiver's own store is off: the inbox in the handler's transaction dedupes.
	callbacks, err := dt.NewCallbackReceiver(dt.WithVerifier(verifier), dt.WithIdempotencyStore(nil))
	if err != nil {
		log.Fatal(err)
	}
	callbacks.Handle("order.close", func(ctx context.Context, cb *dt.Callback) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		result, err := inbox.RunInTransaction(ctx, tx, cb.TaskID, func(ctx context.Context) error {
			_, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'closed' WHERE id = $1`, cb.Payload["orderId"])
			return err
		})
		if err != nil || result != dt.ClaimClaimed {
			return err // DONE: a duplicate, nothing written; IN_PROGRESS does not happen here
		}
		return tx.Commit() // the order and the mark together
	})
}
