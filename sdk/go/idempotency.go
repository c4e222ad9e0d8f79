package delayedtasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// Defaults of every [IdempotencyStore].
const (
	// DefaultClaimTTL is how long a claim holds when neither completed nor released: a crashed
	// handler's key can be claimed again after it.
	DefaultClaimTTL = 5 * time.Minute
	// DefaultDoneTTL is how long a completed key is remembered.
	DefaultDoneTTL = 7 * 24 * time.Hour
)

// ClaimResult is the answer to [IdempotencyStore.Claim].
type ClaimResult string

// The claim results, the same in every SDK of the service.
const (
	// ClaimClaimed: the caller holds the key and runs the effect, then completes or releases it.
	ClaimClaimed ClaimResult = "CLAIMED"
	// ClaimInProgress: another holder's claim is alive; answer "retry later".
	ClaimInProgress ClaimResult = "IN_PROGRESS"
	// ClaimDone: the key was completed before; answer "duplicate" and run nothing.
	ClaimDone ClaimResult = "DONE"
)

// Claim is what [IdempotencyStore.Claim] returns. Token identifies this claim (set when Result is
// [ClaimClaimed]) and is given back to Release.
type Claim struct {
	Result ClaimResult
	Token  string
}

// IdempotencyStore lets a fleet of receivers (or pull workers) run each business effect once. Its
// keys are the signed webhook-id of a callback (the task id when the handler accepts unsigned
// callbacks) or the idempotencyKey of a leased task. Implementations: [InMemoryIdempotencyStore]
// for one process, RedisIdempotencyStore and SQLIdempotencyStore (module
// github.com/delayed-tasks/delayed-task-service/sdk/go/stores) for replicas.
type IdempotencyStore interface {
	// Claim takes key for claimTTL. Of any number of concurrent claims of one key exactly one is
	// [ClaimClaimed]. A claim neither completed nor released within claimTTL expires.
	Claim(ctx context.Context, key string, claimTTL time.Duration) (Claim, error)
	// Complete marks key done: later claims answer [ClaimDone] for the store's done TTL.
	Complete(ctx context.Context, key string) error
	// Release drops the claim with this token, and only it, so that a retry can run (the handler
	// failed). A claim that expired and was taken by another holder is left alone.
	Release(ctx context.Context, key, token string) error
}

// NewClaimToken returns a random token that identifies one claim (32 hex digits).
func NewClaimToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}

// InMemoryIdempotencyStore is an [IdempotencyStore] of one process: replicas each have their own,
// so use a shared store (Redis, SQL) when several processes receive.
type InMemoryIdempotencyStore struct {
	doneTTL   time.Duration
	now       func() time.Time
	mu        sync.Mutex
	keys      map[string]memoryEntry
	nextPrune time.Time
}

type memoryEntry struct {
	done    bool
	token   string
	expires time.Time
}

// NewInMemoryIdempotencyStore returns a store that remembers completed keys for doneTTL
// (0: [DefaultDoneTTL]).
func NewInMemoryIdempotencyStore(doneTTL time.Duration) *InMemoryIdempotencyStore {
	if doneTTL <= 0 {
		doneTTL = DefaultDoneTTL
	}
	return &InMemoryIdempotencyStore{doneTTL: doneTTL, now: time.Now, keys: make(map[string]memoryEntry)}
}

// Claim takes key unless a live claim or a done mark holds it (claimTTL 0: [DefaultClaimTTL]).
func (s *InMemoryIdempotencyStore) Claim(_ context.Context, key string, claimTTL time.Duration) (Claim, error) {
	if claimTTL <= 0 {
		claimTTL = DefaultClaimTTL
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.prune(now)
	if e, ok := s.keys[key]; ok && now.Before(e.expires) {
		if e.done {
			return Claim{Result: ClaimDone}, nil
		}
		return Claim{Result: ClaimInProgress}, nil
	}
	token := NewClaimToken()
	s.keys[key] = memoryEntry{token: token, expires: now.Add(claimTTL)}
	return Claim{Result: ClaimClaimed, Token: token}, nil
}

// Complete marks key done for the store's done TTL.
func (s *InMemoryIdempotencyStore) Complete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[key] = memoryEntry{done: true, expires: s.now().Add(s.doneTTL)}
	return nil
}

// Release drops key's claim if it is still the one with token.
func (s *InMemoryIdempotencyStore) Release(_ context.Context, key, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.keys[key]; ok && !e.done && e.token == token {
		delete(s.keys, key)
	}
	return nil
}

// prune drops expired keys, at most once a minute; called with mu held.
func (s *InMemoryIdempotencyStore) prune(now time.Time) {
	if now.Before(s.nextPrune) {
		return
	}
	for k, e := range s.keys {
		if !now.Before(e.expires) {
			delete(s.keys, k)
		}
	}
	s.nextPrune = now.Add(time.Minute)
}
