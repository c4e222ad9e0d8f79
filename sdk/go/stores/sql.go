package stores

import (
	"context"
	"database/sql"
	_ "embed" // schema.sql
	"errors"
	"fmt"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// Schema creates the table of [SQLIdempotencyStore] (PostgreSQL); [SQLIdempotencyStore.Migrate]
// runs it. It is also shipped as schema.sql, for a migration tool.
//
//go:embed schema.sql
var Schema string

const (
	// claimSQL takes a key that is absent or expired; one row affected wins.
	claimSQL = `INSERT INTO delayed_tasks_idempotency AS t (key, state, token, expires_at)
VALUES ($1, 'claimed', $2, now() + $3::bigint * interval '1 millisecond')
ON CONFLICT (key) DO UPDATE SET state = 'claimed', token = excluded.token, expires_at = excluded.expires_at
WHERE t.expires_at < now()`
	// markDoneSQL writes the done mark, over any row (complete) ...
	markDoneSQL = `INSERT INTO delayed_tasks_idempotency AS t (key, state, token, expires_at)
VALUES ($1, 'done', NULL, now() + $2::bigint * interval '1 millisecond')
ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL, expires_at = excluded.expires_at`
	// ... or only over an expired one (the inbox: a live claim or mark makes it a duplicate).
	inboxSQL   = markDoneSQL + ` WHERE t.expires_at < now()`
	stateSQL   = `SELECT state FROM delayed_tasks_idempotency WHERE key = $1 AND expires_at >= now()`
	releaseSQL = `DELETE FROM delayed_tasks_idempotency WHERE key = $1 AND state = 'claimed' AND token = $2`
)

// SQLIdempotencyStore is a [dt.IdempotencyStore] in a PostgreSQL table
// (delayed_tasks_idempotency, see [Schema]) through database/sql and any driver of PostgreSQL
// (pgx's stdlib, lib/pq). Claim is an insert-on-conflict that only an absent or expired row lets
// through. [SQLIdempotencyStore.RunInTransaction] is the inbox: the done mark is written in the
// caller's transaction, with the business write.
type SQLIdempotencyStore struct {
	db      *sql.DB
	doneTTL time.Duration
}

// SQLOption configures a [SQLIdempotencyStore].
type SQLOption func(*SQLIdempotencyStore)

// WithSQLDoneTTL is how long a completed key is remembered (default [dt.DefaultDoneTTL]).
func WithSQLDoneTTL(d time.Duration) SQLOption {
	return func(s *SQLIdempotencyStore) {
		if d > 0 {
			s.doneTTL = d
		}
	}
}

// NewSQLIdempotencyStore returns a store on db, which stays the caller's to close. Create the
// table first: [SQLIdempotencyStore.Migrate], or [Schema] in your migrations.
func NewSQLIdempotencyStore(db *sql.DB, opts ...SQLOption) *SQLIdempotencyStore {
	s := &SQLIdempotencyStore{db: db, doneTTL: dt.DefaultDoneTTL}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// Migrate creates the table if it does not exist.
func (s *SQLIdempotencyStore) Migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, Schema); err != nil {
		return fmt.Errorf("sql idempotency store: migrate: %w", err)
	}
	return nil
}

// Claim takes key for claimTTL (0: [dt.DefaultClaimTTL]): one statement when it wins, two when
// it does not (the second reads what holds the key).
func (s *SQLIdempotencyStore) Claim(ctx context.Context, key string, claimTTL time.Duration) (dt.Claim, error) {
	if claimTTL <= 0 {
		claimTTL = dt.DefaultClaimTTL
	}
	key = boundedKey(key)
	for range 3 { // a holder that released between the two statements: try again
		token := dt.NewClaimToken()
		res, err := s.db.ExecContext(ctx, claimSQL, key, token, claimTTL.Milliseconds())
		if err != nil {
			return dt.Claim{}, fmt.Errorf("sql idempotency store: claim: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return dt.Claim{}, fmt.Errorf("sql idempotency store: claim: %w", err)
		} else if n == 1 {
			return dt.Claim{Result: dt.ClaimClaimed, Token: token}, nil
		}
		result, err := holder(ctx, s.db, key)
		if err != nil {
			return dt.Claim{}, fmt.Errorf("sql idempotency store: claim: %w", err)
		}
		if result != "" {
			return dt.Claim{Result: result}, nil
		}
	}
	return dt.Claim{}, errors.New("sql idempotency store: claim: the key changed hands three times")
}

// Complete marks key done for the done TTL.
func (s *SQLIdempotencyStore) Complete(ctx context.Context, key string) error {
	if _, err := s.db.ExecContext(ctx, markDoneSQL, boundedKey(key), s.doneTTL.Milliseconds()); err != nil {
		return fmt.Errorf("sql idempotency store: complete: %w", err)
	}
	return nil
}

// Release deletes key's row if it still holds the claim with token.
func (s *SQLIdempotencyStore) Release(ctx context.Context, key, token string) error {
	if _, err := s.db.ExecContext(ctx, releaseSQL, boundedKey(key), token); err != nil {
		return fmt.Errorf("sql idempotency store: release: %w", err)
	}
	return nil
}

// RunInTransaction is the inbox: it writes key's done mark in tx, the caller's transaction, then
// runs effect, which does its business writes in the same tx. The caller commits (the writes and
// the mark together) or rolls back (both gone: a retry runs the effect again). A concurrent
// transaction with the same key waits on the row and then finds it done.
//
// It returns [dt.ClaimClaimed] and effect's error when effect ran, [dt.ClaimDone] when key was
// done before (effect not run: commit or roll back, nothing was written), and
// [dt.ClaimInProgress] when a live [SQLIdempotencyStore.Claim] holds key.
func (s *SQLIdempotencyStore) RunInTransaction(ctx context.Context, tx *sql.Tx, key string, effect func(ctx context.Context) error) (dt.ClaimResult, error) {
	key = boundedKey(key)
	res, err := tx.ExecContext(ctx, inboxSQL, key, s.doneTTL.Milliseconds())
	if err != nil {
		return "", fmt.Errorf("sql idempotency store: inbox: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return "", fmt.Errorf("sql idempotency store: inbox: %w", err)
	}
	if n == 1 {
		return dt.ClaimClaimed, effect(ctx)
	}
	result, err := holder(ctx, tx, key)
	if err != nil {
		return "", fmt.Errorf("sql idempotency store: inbox: %w", err)
	}
	if result == "" { // the row was not there: another transaction rolled back after we looked
		return "", errors.New("sql idempotency store: inbox: the key changed hands, run the transaction again")
	}
	return result, nil
}

// holder is what holds key now: DONE, IN_PROGRESS or "" (nothing).
func holder(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, key string) (dt.ClaimResult, error) {
	var state string
	switch err := q.QueryRowContext(ctx, stateSQL, key).Scan(&state); {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", err
	case state == "done":
		return dt.ClaimDone, nil
	default:
		return dt.ClaimInProgress, nil
	}
}
