package stores_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
	"github.com/delayed-tasks/delayed-task-service/sdk/go/stores"
)

// The shared store vectors (conformance/stores/vectors.json) against every store of this SDK:
// the in-memory one, Redis and PostgreSQL on the real servers.

type vectorStep struct {
	Op         string          `json:"op"`
	Key        string          `json:"key"`
	N          int             `json:"n"`
	ClaimTTLMs int64           `json:"claimTtlMs"`
	Ms         int64           `json:"ms"`
	Expect     json.RawMessage `json:"expect"`
	As         string          `json:"as"`
	Holder     string          `json:"holder"`
	Effect     string          `json:"effect"`
}

type vectorCase struct {
	Name    string       `json:"name"`
	SQLOnly bool         `json:"sqlOnly"`
	Steps   []vectorStep `json:"steps"`
}

func loadVectors(t *testing.T) []vectorCase {
	t.Helper()
	raw, err := os.ReadFile("../../../conformance/stores/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []vectorCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases in vectors.json")
	}
	return file.Cases
}

// vectorKey is the key of a step: "long:N" is N characters 'x' followed by N.
func vectorKey(ns, key string) string {
	if n, ok := strings.CutPrefix(key, "long:"); ok {
		count, _ := strconv.Atoi(n)
		return ns + strings.Repeat("x", count) + n
	}
	return ns + key
}

// vectorStore is one store under test; db is set for the SQL store (the inbox steps).
type vectorStore struct {
	name  string
	store func(ns string) dt.IdempotencyStore
	db    *sql.DB
}

func TestStoreVectors(t *testing.T) {
	cases := loadVectors(t)
	all := []vectorStore{{name: "memory", store: func(string) dt.IdempotencyStore { return dt.NewInMemoryIdempotencyStore(0) }}}
	t.Run("redis", func(t *testing.T) {
		client := openRedis(t)
		runVectors(t, cases, vectorStore{name: "redis", store: func(ns string) dt.IdempotencyStore {
			return stores.NewRedisIdempotencyStore(client, stores.WithNamespace("delayed-tasks:vectors:"+ns))
		}})
	})
	t.Run("sql", func(t *testing.T) {
		db := openSQL(t)
		if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS delayed_tasks_vector_effects (ns text NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		store := stores.NewSQLIdempotencyStore(db)
		runVectors(t, cases, vectorStore{name: "sql", db: db, store: func(string) dt.IdempotencyStore { return store }})
	})
	t.Run("memory", func(t *testing.T) { runVectors(t, cases, all[0]) })
}

func runVectors(t *testing.T, cases []vectorCase, vs vectorStore) {
	for i, tc := range cases {
		if tc.SQLOnly && vs.db == nil {
			continue
		}
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			ns := fmt.Sprintf("%s-%d-", runID, i)
			runVectorCase(t, vs, vs.store(ns), ns, tc)
		})
	}
}

func runVectorCase(t *testing.T, vs vectorStore, store dt.IdempotencyStore, ns string, tc vectorCase) {
	ctx := context.Background()
	holders := map[string]string{} // "as" name → token
	last := map[string]string{}    // key → token of its last claim that won
	for i, step := range tc.Steps {
		key := vectorKey(ns, step.Key)
		where := fmt.Sprintf("step %d (%s %s)", i+1, step.Op, step.Key)
		ttl := time.Duration(step.ClaimTTLMs) * time.Millisecond
		switch step.Op {
		case "claim":
			var want dt.ClaimResult
			mustUnmarshal(t, step.Expect, &want)
			c, err := store.Claim(ctx, key, ttl)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if c.Result != want {
				t.Fatalf("%s: %s, want %s", where, c.Result, want)
			}
			if c.Result == dt.ClaimClaimed {
				last[key] = c.Token
				if step.As != "" {
					holders[step.As] = c.Token
				}
			}
		case "claimConcurrently":
			var want map[dt.ClaimResult]int
			mustUnmarshal(t, step.Expect, &want)
			got := map[dt.ClaimResult]int{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for range step.N {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, err := store.Claim(ctx, key, ttl)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						got["error: "+dt.ClaimResult(err.Error())]++
						return
					}
					got[c.Result]++
					if c.Result == dt.ClaimClaimed {
						last[key] = c.Token
					}
				}()
			}
			wg.Wait()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: %v, want %v", where, got, want)
			}
		case "release":
			token := last[key]
			if step.Holder != "" {
				token = holders[step.Holder]
			}
			if err := store.Release(ctx, key, token); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		case "complete":
			if err := store.Complete(ctx, key); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		case "waitMs":
			// The vectors' passage of time past a claim TTL: nothing to poll for without
			// changing the store's state.
			time.Sleep(time.Duration(step.Ms) * time.Millisecond)
		case "inbox":
			var want string
			mustUnmarshal(t, step.Expect, &want)
			if got := runInbox(t, vs, ns, key, step.Effect); got != want {
				t.Fatalf("%s: %s, want %s", where, got, want)
			}
		case "countRows":
			var want, got int
			mustUnmarshal(t, step.Expect, &want)
			if err := vs.db.QueryRow(`SELECT count(*) FROM delayed_tasks_vector_effects WHERE ns = $1`, ns).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%s: %d business rows, want %d", where, got, want)
			}
		default:
			t.Fatalf("%s: unknown op", where)
		}
	}
}

// runInbox runs one business transaction through the inbox: COMMITTED, ROLLED_BACK or DUPLICATE.
func runInbox(t *testing.T, vs vectorStore, ns, key, effect string) string {
	ctx := context.Background()
	store := vs.store(ns).(*stores.SQLIdempotencyStore)
	tx, err := vs.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	result, err := store.RunInTransaction(ctx, tx, key, func(ctx context.Context) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO delayed_tasks_vector_effects (ns) VALUES ($1)`, ns); err != nil {
			return err
		}
		if effect == "insertRowThenFail" {
			return errors.New("the effect failed after its write")
		}
		return nil
	})
	switch {
	case result == dt.ClaimClaimed && err != nil:
		return "ROLLED_BACK" // the deferred rollback takes the row and the mark
	case err != nil:
		t.Fatal(err)
	case result == dt.ClaimDone:
		return "DUPLICATE"
	case result == dt.ClaimClaimed:
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return "COMMITTED"
	}
	return string(result)
}

func mustUnmarshal(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("expect %s: %v", raw, err)
	}
}
