package stores_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
	"github.com/delayed-tasks/delayed-task-service/sdk/go/stores"
)

// A receiver of the fleet test, as its own process: the test binary started again with
// DTS_FLEET_RECEIVER=redis|sql. It serves a CallbackReceiver on loopback with the shared store and
// prints "listening <addr>". Its effect appends "done <taskId>" to its own file
// (DTS_FLEET_EFFECTS); a "fleet.crash" callback's first attempt writes "start <taskId>" and then
// hangs, for the test to kill -9 the process mid-effect.

func TestMain(m *testing.M) {
	if kind := os.Getenv("DTS_FLEET_RECEIVER"); kind != "" {
		if err := runFleetReceiver(kind); err != nil {
			fmt.Fprintln(os.Stderr, "fleet receiver:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fleetClaimTTL is short so that a killed receiver's claim expires within the test.
const fleetClaimTTL = time.Second

func runFleetReceiver(kind string) error {
	var store dt.IdempotencyStore
	switch kind {
	case "redis":
		opts, err := redis.ParseURL(os.Getenv("DTS_REDIS_URL"))
		if err != nil {
			return err
		}
		store = stores.NewRedisIdempotencyStore(redis.NewClient(opts), stores.WithNamespace(os.Getenv("DTS_FLEET_NS")))
	case "sql":
		db, err := sql.Open("pgx", os.Getenv("DTS_POSTGRES_URL"))
		if err != nil {
			return err
		}
		store = stores.NewSQLIdempotencyStore(db)
	default:
		return fmt.Errorf("unknown store %q", kind)
	}
	effects, err := os.OpenFile(os.Getenv("DTS_FLEET_EFFECTS"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	write := func(line string) error { // one write(2) per line
		mu.Lock()
		defer mu.Unlock()
		_, err := effects.WriteString(line + "\n")
		return err
	}
	verifier, err := dt.NewWebhookVerifier([]string{fleetSecret})
	if err != nil {
		return err
	}
	h, err := dt.NewCallbackReceiver(dt.WithVerifier(verifier), dt.WithIdempotencyStore(store),
		dt.WithClaimTTL(fleetClaimTTL), dt.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))))
	if err != nil {
		return err
	}
	h.Handle("fleet.effect", func(_ context.Context, cb *dt.Callback) error { return write("done " + cb.TaskID) })
	h.Handle("fleet.crash", func(_ context.Context, cb *dt.Callback) error {
		if cb.Attempt == 1 {
			if err := write("start " + cb.TaskID); err != nil {
				return err
			}
			select {} // mid-effect until killed
		}
		return write("done " + cb.TaskID)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("listening", ln.Addr().String())
	return http.Serve(ln, h)
}

// fleetProcess is one receiver process the test started.
type fleetProcess struct {
	url     string
	effects string
	proc    *os.Process
	stderr  *syncBuffer
}

type syncBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// startFleet starts n receiver processes sharing the store of kind; they are killed at cleanup.
func startFleet(t *testing.T, kind, ns string, n int) []*fleetProcess {
	t.Helper()
	dir := t.TempDir()
	var fleet []*fleetProcess
	for i := range n {
		p := &fleetProcess{effects: fmt.Sprintf("%s/effects-%d", dir, i), stderr: &syncBuffer{}}
		cmd := execSelf(kind, ns, p.effects)
		cmd.Stderr = p.stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p.proc = cmd.Process
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			if t.Failed() && p.stderr.String() != "" {
				t.Logf("receiver %d stderr:\n%s", i, p.stderr.String())
			}
		})
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("receiver %d did not start: %v\n%s", i, err, p.stderr.String())
		}
		var addr string
		if _, err := fmt.Sscanf(line, "listening %s", &addr); err != nil {
			t.Fatalf("receiver %d: %q", i, line)
		}
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		p.url = "http://" + addr + "/callbacks"
		fleet = append(fleet, p)
	}
	return fleet
}
