package stores_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
	"github.com/delayed-tasks/delayed-task-service/sdk/go/stores"
)

// What a store adds to one callback: a signed callback with a new key through a whole
// CallbackReceiver (verify, parse, claim, handler, complete), timed per call; p50/p99 in µs and the
// store's round trips per callback (commands to Redis, statements to PostgreSQL) are reported as
// metrics. The "none" run (no store) is the baseline the others add to. Prints numbers, asserts
// none:
//
//	DTS_REDIS_URL=... DTS_POSTGRES_URL=... go test -run '^$' -bench Overhead -benchtime 2000x .
func BenchmarkOverhead(b *testing.B) {
	b.Run("none", func(b *testing.B) { benchStore(b, nil, nil) })
	b.Run("memory", func(b *testing.B) { benchStore(b, dt.NewInMemoryIdempotencyStore(0), nil) })
	b.Run("redis", func(b *testing.B) {
		client := openRedis(b)
		var trips atomic.Int64
		client.AddHook(countingHook{&trips})
		benchStore(b, stores.NewRedisIdempotencyStore(client, stores.WithNamespace("delayed-tasks:bench:"+runID+":")), &trips)
	})
	b.Run("sql", func(b *testing.B) {
		openSQL(b) // creates the table
		cfg, err := pgx.ParseConfig(serverURL(b, "DTS_POSTGRES_URL"))
		if err != nil {
			b.Fatal(err)
		}
		var trips atomic.Int64
		cfg.Tracer = countingTracer{&trips}
		db := stdlib.OpenDB(*cfg)
		b.Cleanup(func() { _ = db.Close() })
		benchStore(b, stores.NewSQLIdempotencyStore(db), &trips)
	})
}

func benchStore(b *testing.B, store dt.IdempotencyStore, trips *atomic.Int64) {
	verifier, err := dt.NewWebhookVerifier([]string{fleetSecret})
	if err != nil {
		b.Fatal(err)
	}
	opts := []dt.ReceiverOption{dt.WithVerifier(verifier), dt.WithIdempotencyStore(store),
		dt.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}
	h, err := dt.NewCallbackReceiver(opts...)
	if err != nil {
		b.Fatal(err)
	}
	h.Handle("bench", func(context.Context, *dt.Callback) error { return nil })
	prefix := fmt.Sprintf("bench-%s-%s-", b.Name(), runID)
	latencies := make([]time.Duration, 0, b.N)
	if trips != nil {
		trips.Store(0)
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		d := signFleet("bench", fmt.Sprintf("%s%d", prefix, i), 1)
		req := httptest.NewRequest(http.MethodPost, "/callbacks", bytes.NewReader(d.body))
		req.Header = d.header
		w := httptest.NewRecorder()
		b.StartTimer()
		began := time.Now()
		h.ServeHTTP(w, req)
		latencies = append(latencies, time.Since(began))
		if w.Code != http.StatusOK {
			b.Fatalf("answer %d %s", w.Code, w.Body)
		}
	}
	b.StopTimer()
	sort.Slice(latencies, func(x, y int) bool { return latencies[x] < latencies[y] })
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds()), "p99-µs")
	if trips != nil {
		b.ReportMetric(float64(trips.Load())/float64(b.N), "roundtrips/callback")
	}
}

// countingHook counts the commands go-redis sends (a script run is one EVALSHA).
type countingHook struct{ n *atomic.Int64 }

func (h countingHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// countingTracer counts the statements pgx sends.
type countingTracer struct{ n *atomic.Int64 }

func (c countingTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c countingTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
