package stores_test

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, in tests only
	"github.com/redis/go-redis/v9"

	"github.com/delayed-tasks/delayed-task-service/sdk/go/stores"
)

// The real servers: DTS_REDIS_URL (redis://127.0.0.1:6379/0) and DTS_POSTGRES_URL
// (postgres://user@127.0.0.1:5432/db), which test.sh sets from scripts/local-server.sh. Without
// them the tests that need them are skipped, and fail under CI=true.

// runID keeps one run's keys apart from another's on the same servers.
var runID = time.Now().UTC().Format("150405.000000")

func serverURL(t testing.TB, name string) string {
	t.Helper()
	url := os.Getenv(name)
	if url == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: the store tests must run in CI", name)
		}
		t.Skipf("%s is not set: store tests on the real server skipped", name)
	}
	return url
}

func openRedis(t testing.TB) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(serverURL(t, "DTS_REDIS_URL"))
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { _ = client.Close() })
	if err := client.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis: %v", err)
	}
	return client
}

// openSQL opens PostgreSQL through pgx's stdlib driver and creates the store's table.
func openSQL(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", serverURL(t, "DTS_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := stores.NewSQLIdempotencyStore(db).Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}
