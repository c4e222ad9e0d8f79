package stores

import (
	"context"
	"errors"
	"fmt"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
	"github.com/redis/go-redis/v9"
)

// DefaultRedisNamespace prefixes every key a [RedisIdempotencyStore] writes.
const DefaultRedisNamespace = "delayed-tasks:idem:"

// claimScript is SET key "claimed:<token>" NX PX ttl, and on failure the value that holds the
// key, in one round trip: 1 claimed, 2 done, 3 another live claim.
var claimScript = redis.NewScript(`
if redis.call('SET', KEYS[1], 'claimed:' .. ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == 'done' then return 2 end
return 3`)

// releaseScript deletes the key only while it still holds this claim (compare-and-delete).
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == 'claimed:' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

// RedisIdempotencyStore is a [dt.IdempotencyStore] shared by every replica that reaches one Redis
// (or one Redis Cluster: each key is one slot). Claim is SET NX PX, complete sets "done" for the
// done TTL, release is a compare-and-delete.
type RedisIdempotencyStore struct {
	client    redis.UniversalClient
	namespace string
	doneTTL   time.Duration
}

// RedisOption configures a [RedisIdempotencyStore].
type RedisOption func(*RedisIdempotencyStore)

// WithNamespace replaces [DefaultRedisNamespace] (e.g. one namespace per application sharing a
// Redis).
func WithNamespace(ns string) RedisOption {
	return func(s *RedisIdempotencyStore) { s.namespace = ns }
}

// WithRedisDoneTTL is how long a completed key is remembered (default [dt.DefaultDoneTTL]).
func WithRedisDoneTTL(d time.Duration) RedisOption {
	return func(s *RedisIdempotencyStore) {
		if d > 0 {
			s.doneTTL = d
		}
	}
}

// NewRedisIdempotencyStore returns a store on client (a *redis.Client, *redis.ClusterClient or
// *redis.Ring), which stays the caller's to close.
func NewRedisIdempotencyStore(client redis.UniversalClient, opts ...RedisOption) *RedisIdempotencyStore {
	s := &RedisIdempotencyStore{client: client, namespace: DefaultRedisNamespace, doneTTL: dt.DefaultDoneTTL}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// redisKey is the namespaced, bounded key.
func (s *RedisIdempotencyStore) redisKey(key string) string { return s.namespace + boundedKey(key) }

// Claim takes key for claimTTL (0: [dt.DefaultClaimTTL]) in one round trip.
func (s *RedisIdempotencyStore) Claim(ctx context.Context, key string, claimTTL time.Duration) (dt.Claim, error) {
	if claimTTL <= 0 {
		claimTTL = dt.DefaultClaimTTL
	}
	token := dt.NewClaimToken()
	n, err := claimScript.Run(ctx, s.client, []string{s.redisKey(key)}, token, claimTTL.Milliseconds()).Int()
	if err != nil {
		return dt.Claim{}, fmt.Errorf("redis idempotency store: claim: %w", err)
	}
	switch n {
	case 1:
		return dt.Claim{Result: dt.ClaimClaimed, Token: token}, nil
	case 2:
		return dt.Claim{Result: dt.ClaimDone}, nil
	case 3:
		return dt.Claim{Result: dt.ClaimInProgress}, nil
	}
	return dt.Claim{}, errors.New("redis idempotency store: claim: unexpected answer")
}

// Complete sets key to done for the done TTL.
func (s *RedisIdempotencyStore) Complete(ctx context.Context, key string) error {
	if err := s.client.Set(ctx, s.redisKey(key), "done", s.doneTTL).Err(); err != nil {
		return fmt.Errorf("redis idempotency store: complete: %w", err)
	}
	return nil
}

// Release deletes key if it still holds the claim with token.
func (s *RedisIdempotencyStore) Release(ctx context.Context, key, token string) error {
	if err := releaseScript.Run(ctx, s.client, []string{s.redisKey(key)}, token).Err(); err != nil {
		return fmt.Errorf("redis idempotency store: release: %w", err)
	}
	return nil
}
