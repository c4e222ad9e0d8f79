package delayedtasks

import (
	"context"
	"sync"
	"time"
)

// IdempotencyStore remembers the key of every callback handled successfully: its signed webhook-id
// (the task id when the handler accepts unsigned callbacks), never the unsigned Idempotency-Key
// header.
type IdempotencyStore interface {
	// Seen reports whether key was recorded.
	Seen(ctx context.Context, key string) (bool, error)
	// Record records key; it is called only after the handler succeeded.
	Record(ctx context.Context, key string) error
}

// InMemoryIdempotencyStore is an in-process [IdempotencyStore] that forgets keys after a TTL.
// Use a shared store (a database table, Redis) when several processes receive callbacks.
type InMemoryIdempotencyStore struct {
	ttl       time.Duration
	mu        sync.Mutex
	keys      map[string]time.Time
	nextPrune time.Time
}

// NewInMemoryIdempotencyStore returns a store that remembers keys for ttl (0: 24 hours).
func NewInMemoryIdempotencyStore(ttl time.Duration) *InMemoryIdempotencyStore {
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	return &InMemoryIdempotencyStore{ttl: ttl, keys: make(map[string]time.Time)}
}

// Seen reports whether key was recorded less than the TTL ago.
func (s *InMemoryIdempotencyStore) Seen(_ context.Context, key string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	expires, ok := s.keys[key]
	return ok && time.Now().Before(expires), nil
}

// Record remembers key; expired keys are dropped at most once a minute.
func (s *InMemoryIdempotencyStore) Record(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if now.After(s.nextPrune) {
		for k, expires := range s.keys {
			if !now.Before(expires) {
				delete(s.keys, k)
			}
		}
		s.nextPrune = now.Add(time.Minute)
	}
	s.keys[key] = now.Add(s.ttl)
	return nil
}
