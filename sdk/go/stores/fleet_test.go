package stores_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The fleet test (issue 42): three receivers as separate processes share one store; the same
// signed callback is delivered to all of them at once, for 1,000 distinct keys: exactly 1,000
// effects, none twice. Then a receiver is killed (SIGKILL) mid-effect, and the retry, sent to the
// survivors, completes the effect once. Run for the Redis and the SQL store.

var fleetSecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("fleet-test-secret-of-24+bytes"))

const (
	fleetReceivers = 3
	fleetKeys      = 1000
	fleetInFlight  = 8 // keys delivered at once (each to every receiver)
)

func execSelf(kind, ns, effects string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DTS_FLEET_RECEIVER="+kind, "DTS_FLEET_NS="+ns, "DTS_FLEET_EFFECTS="+effects)
	return cmd
}

// fleetDelivery is one signed callback: the same bytes go to every receiver.
type fleetDelivery struct {
	header http.Header
	body   []byte
}

func signFleet(taskType, taskID string, attempt int) fleetDelivery {
	body := fmt.Sprintf(`{"taskId":%q,"taskType":%q,"payload":{},"payloadVersion":1,"executeAt":"2026-12-05T10:00:00.000Z","attempt":%d,"traceId":null}`,
		taskID, taskType, attempt)
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(fleetSecret, "whsec_"))
	id, ts := "msg_"+taskID, strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, raw)
	mac.Write([]byte(id + "." + ts + "." + body))
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return fleetDelivery{header: h, body: []byte(body)}
}

// deliver posts d to url as the service would: a 503 (another receiver holds the claim) is sent
// again until the receiver answers otherwise (bounded). It returns the final body's status field.
func deliver(client *http.Client, url string, d fleetDelivery, retries *atomic.Int64) (string, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(d.body))
		req.Header = d.header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			return "", err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			return fmt.Sprintf("%d %s", resp.StatusCode, bytes.TrimSpace(body)), nil
		}
		retries.Add(1)
		if time.Now().After(deadline) {
			return "", fmt.Errorf("still 503 after 20 s: %s", body)
		}
		time.Sleep(20 * time.Millisecond) // the retry's backoff (the service waits Retry-After)
	}
}

// toAll delivers d to every url at once and returns the answers.
func toAll(client *http.Client, urls []string, d fleetDelivery, retries *atomic.Int64) ([]string, error) {
	answers := make([]string, len(urls))
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, url := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], errs[i] = deliver(client, url, d, retries)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return answers, err
		}
	}
	return answers, nil
}

// effects counts the "done" lines per task id over the receivers' files, and the "start" lines.
func effects(t *testing.T, fleet []*fleetProcess) (done, started map[string]int) {
	t.Helper()
	done, started = map[string]int{}, map[string]int{}
	for _, p := range fleet {
		raw, err := os.ReadFile(p.effects)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if kind, id, ok := strings.Cut(line, " "); ok && kind == "done" {
				done[id]++
			} else if ok && kind == "start" {
				started[id]++
			}
		}
	}
	return done, started
}

func TestFleetRedis(t *testing.T) {
	openRedis(t) // skips without a server
	runFleet(t, "redis")
}

func TestFleetSQL(t *testing.T) {
	openSQL(t) // skips without a server; creates the table
	runFleet(t, "sql")
}

func runFleet(t *testing.T, kind string) {
	ns := "delayed-tasks:fleet:" + runID + ":"
	prefix := "fleet-" + kind + "-" + runID + "-"
	fleet := startFleet(t, kind, ns, fleetReceivers)
	urls := make([]string, len(fleet))
	for i, p := range fleet {
		urls[i] = p.url
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}

	var retries atomic.Int64
	var mu sync.Mutex
	var latencies []time.Duration
	bad := []string{}
	keys := make(chan int)
	start := time.Now()
	var wg sync.WaitGroup
	for range fleetInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keys {
				began := time.Now()
				answers, err := toAll(client, urls, signFleet("fleet.effect", fmt.Sprintf("%s%d", prefix, i), 1), &retries)
				took := time.Since(began)
				handled, dup := 0, 0
				for _, a := range answers {
					switch a {
					case `200 {"status":"handled"}`:
						handled++
					case `200 {"status":"duplicate"}`:
						dup++
					}
				}
				mu.Lock()
				latencies = append(latencies, took)
				if err != nil || handled != 1 || dup != len(urls)-1 {
					bad = append(bad, fmt.Sprintf("key %d: %v %v", i, answers, err))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range fleetKeys {
		keys <- i
	}
	close(keys)
	wg.Wait()
	elapsed := time.Since(start)

	done, _ := effects(t, fleet)
	total, doubles := 0, 0
	for id, n := range done {
		if strings.HasPrefix(id, prefix) {
			total += n
			if n > 1 {
				doubles++
			}
		}
	}
	sort.Slice(latencies, func(a, b int) bool { return latencies[a] < latencies[b] })
	t.Logf("%s: %d receivers, %d keys each delivered to all at once: %d effects, %d keys done twice, %d answers 503 then retried; %.1f s, per key p50 %v p99 %v",
		kind, len(urls), fleetKeys, total, doubles, retries.Load(), elapsed.Seconds(),
		latencies[len(latencies)/2].Round(time.Microsecond), latencies[len(latencies)*99/100].Round(time.Microsecond))
	if total != fleetKeys || doubles != 0 {
		t.Errorf("%d effects with %d doubles, want %d and 0", total, doubles, fleetKeys)
	}
	if len(bad) > 0 {
		t.Errorf("%d keys not answered once handled and otherwise duplicate, e.g. %s", len(bad), bad[0])
	}

	// A receiver killed mid-effect: its claim expires (claim TTL 1 s) and the retry, delivered
	// to the survivors at once, runs the effect once.
	crashID := prefix + "crash"
	victim := fleet[0]
	go func() { _, _ = deliver(client, victim.url, signFleet("fleet.crash", crashID, 1), &retries) }()
	for waited := time.Duration(0); ; waited += 10 * time.Millisecond {
		if _, started := effects(t, fleet[:1]); started[crashID] == 1 {
			break
		}
		if waited > 10*time.Second {
			t.Fatal("the victim did not start the effect")
		}
		time.Sleep(10 * time.Millisecond) // polls the victim's effect file
	}
	if err := victim.proc.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	killedAt := time.Now()
	answers, err := toAll(client, urls[1:], signFleet("fleet.crash", crashID, 2), &retries)
	if err != nil {
		t.Fatal(err)
	}
	done, _ = effects(t, fleet)
	t.Logf("%s: a receiver killed mid-effect; the retry to the %d others answered %v after %v; effect ran %d time(s)",
		kind, len(urls)-1, answers, time.Since(killedAt).Round(time.Millisecond), done[crashID])
	if done[crashID] != 1 {
		t.Errorf("the killed receiver's effect ran %d times after the retry, want 1", done[crashID])
	}
	sort.Strings(answers)
	if answers[0] != `200 {"status":"duplicate"}` || answers[1] != `200 {"status":"handled"}` {
		t.Errorf("retry answers %v, want one handled and one duplicate", answers)
	}
}
