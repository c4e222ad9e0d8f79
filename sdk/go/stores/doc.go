// Package stores holds the idempotency stores that several processes share, in a module of their
// own so that the core module stays standard library only: [RedisIdempotencyStore] (go-redis) and
// [SQLIdempotencyStore] (database/sql on PostgreSQL, with the inbox
// [SQLIdempotencyStore.RunInTransaction]). Both implement
// [github.com/delayed-tasks/delayed-task-service/sdk/go.IdempotencyStore] and are given to a
// CallbackReceiver (WithIdempotencyStore) or a PullWorker.
package stores

import (
	"crypto/sha256"
	"encoding/hex"
)

// maxKeyBytes bounds a stored key: a longer one is replaced by its SHA-256 hex.
const maxKeyBytes = 200

// boundedKey is key, or its SHA-256 hex when it is longer than 200 bytes.
func boundedKey(key string) string {
	if len(key) <= maxKeyBytes {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
