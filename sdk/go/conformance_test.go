package delayedtasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dt "github.com/delayed-tasks/delayed-task-service/sdk/go"
)

// The shared conformance vectors (conformance/README in the repository root describes them).
const conformanceDir = "../../conformance"

type clientCase struct {
	Name      string            `json:"name"`
	Operation string            `json:"operation"`
	Options   map[string]any    `json:"options"`
	Input     map[string]any    `json:"input"`
	Requests  []expectedRequest `json:"requests"`
	Responses []stubResponse    `json:"responses"`
	Expect    struct {
		Result       any            `json:"result"`
		Error        *expectedError `json:"error"`
		MinElapsedMs *json.Number   `json:"minElapsedMs"`
		MaxElapsedMs *json.Number   `json:"maxElapsedMs"`
	} `json:"expect"`
}

type expectedRequest struct {
	Method string            `json:"method"`
	Path   string            `json:"path"`
	Query  map[string]string `json:"query"`
	// Headers is a subset: a string value exact, null absent, {"$match":"userAgent"} this SDK's.
	Headers map[string]any `json:"headers"`
	Body    any            `json:"body"`
}

type stubResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    any               `json:"body"`
	// BodyText is sent as given (non-JSON bodies).
	BodyText *string `json:"bodyText"`
}

type expectedError struct {
	Code    string `json:"code"`
	Status  *int   `json:"status"`
	Details []struct {
		Field string `json:"field"`
		// Reason, when given, is compared word for word.
		Reason *string `json:"reason"`
	} `json:"details"`
	RequestID *string `json:"requestId"`
}

// userAgent is {"$match": "userAgent"} for Go.
var userAgent = regexp.MustCompile(`^delayed-tasks-go/\S+$`)

type recordedRequest struct {
	method, path string
	query        map[string]string
	header       http.Header
	body         []byte
}

// vectorFiles lists the vector files of dir (client or callbacks).
func vectorFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(conformanceDir, dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no vectors in %s/%s", conformanceDir, dir)
		}
		t.Skipf("no vectors in %s/%s yet", conformanceDir, dir)
	}
	return files
}

// loadCases decodes one vector file into cases of type T, with numbers as json.Number.
func loadCases[T any](t *testing.T, file string) []T {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.DisallowUnknownFields() // a field this runner does not know is a vector it would misread
	if err := dec.Decode(&cases); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cases
}

func TestConformanceClient(t *testing.T) {
	for _, file := range vectorFiles(t, "client") {
		for _, tc := range loadCases[clientCase](t, file) {
			t.Run(filepath.Base(file)+"/"+tc.Name, func(t *testing.T) { runClientCase(t, tc) })
		}
	}
}

func runClientCase(t *testing.T, tc clientCase) {
	if reason := unrepresentable(tc.Input); reason != "" {
		t.Skip(reason)
	}
	if p, ok := tc.Input["payload"]; ok {
		if _, isObject := p.(map[string]any); !isObject {
			t.Skip("compile-time: Payload is a map[string]any, a non-object payload does not compile")
		}
	}
	var (
		mu       sync.Mutex
		recorded []recordedRequest
	)
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		query := map[string]string{}
		for k, v := range r.URL.Query() {
			query[k] = v[0]
		}
		path, _, _ := strings.Cut(r.RequestURI, "?")
		mu.Lock()
		n := len(recorded)
		recorded = append(recorded, recordedRequest{r.Method, path, query, r.Header.Clone(), body})
		mu.Unlock()
		if n >= len(tc.Responses) {
			http.Error(w, "no response left in the vector", http.StatusTeapot)
			return
		}
		serve(w, tc.Responses[n])
	}))
	defer stub.Close()

	// Backoff zero; Retry-After is still honoured up to the default 30 s (vectors with
	// minElapsedMs check that it is).
	retry := dt.RetryPolicy{MaxRetries: 3, MaxRetryAfter: dt.DefaultRetryPolicy().MaxRetryAfter}
	opts := []dt.ClientOption{dt.WithTimeout(5 * time.Second)}
	if key, ok := tc.Options["apiKey"].(string); ok {
		opts = append(opts, dt.WithAPIKey(key))
	}
	if n, ok := tc.Options["maxRetries"].(json.Number); ok {
		retries, _ := n.Int64()
		retry.MaxRetries = int(retries)
	}
	opts = append(opts, dt.WithRetryPolicy(retry))
	client, err := dt.NewClient(stub.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	input, _ := convertTags(tc.Input).(map[string]any)
	if input == nil {
		input = map[string]any{}
	}
	start := time.Now()
	result, err := invoke(ctx, client, tc.Operation, input)
	elapsed := time.Since(start)
	if tc.Expect.MinElapsedMs != nil {
		ms, _ := tc.Expect.MinElapsedMs.Float64()
		if elapsed < time.Duration(ms*float64(time.Millisecond)) {
			t.Errorf("took %v, want at least %vms", elapsed, ms)
		}
	}
	if tc.Expect.MaxElapsedMs != nil {
		ms, _ := tc.Expect.MaxElapsedMs.Float64()
		if elapsed > time.Duration(ms*float64(time.Millisecond)) {
			t.Errorf("took %v, want at most %vms", elapsed, ms)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	m := &matcher{}
	if len(recorded) != len(tc.Requests) {
		t.Errorf("made %d requests, want %d", len(recorded), len(tc.Requests))
	}
	for i := range min(len(recorded), len(tc.Requests)) {
		checkRequest(t, m, i, tc.Requests[i], recorded[i])
	}
	switch {
	case tc.Expect.Error != nil:
		checkError(t, tc.Expect.Error, err)
	case err != nil:
		t.Fatalf("unexpected error: %v", err)
	case tc.Expect.Result != nil:
		rm := &matcher{subset: true}
		if mErr := rm.match("result", tc.Expect.Result, toJSONValue(result)); mErr != nil {
			t.Errorf("%v\n got %s", mErr, mustJSON(result))
		}
	}
}

func serve(w http.ResponseWriter, resp stubResponse) {
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	var body []byte
	switch {
	case resp.BodyText != nil:
		body = []byte(*resp.BodyText)
	case resp.Body != nil:
		body = []byte(mustJSON(resp.Body))
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(body)
}

func checkRequest(t *testing.T, m *matcher, i int, want expectedRequest, got recordedRequest) {
	t.Helper()
	if got.method != want.Method || got.path != want.Path {
		t.Errorf("request %d: %s %s, want %s %s", i, got.method, got.path, want.Method, want.Path)
	}
	if want.Query != nil {
		if fmt.Sprint(got.query) != fmt.Sprint(want.Query) {
			t.Errorf("request %d: query %v, want %v", i, got.query, want.Query)
		}
	}
	for name, value := range want.Headers {
		g, present := got.header.Get(name), len(got.header.Values(name)) > 0
		switch v := value.(type) {
		case nil:
			if present {
				t.Errorf("request %d: header %s = %q, want it absent", i, name, g)
			}
		case string:
			if g != v {
				t.Errorf("request %d: header %s = %q, want %q", i, name, g, v)
			}
		case map[string]any:
			if v["$match"] != "userAgent" || !userAgent.MatchString(g) {
				t.Errorf("request %d: header %s = %q, want %v", i, name, g, v)
			}
		default:
			t.Errorf("request %d: header %s: unknown expectation %v", i, name, v)
		}
	}
	if want.Body == nil {
		if len(got.body) != 0 {
			t.Errorf("request %d: body %s, want none", i, got.body)
		}
		return
	}
	body, err := decodeJSON(got.body)
	if err != nil {
		t.Errorf("request %d: body %q is not JSON: %v", i, got.body, err)
		return
	}
	if err := m.match("body", want.Body, body); err != nil {
		t.Errorf("request %d: %v\n got %s", i, err, got.body)
	}
}

func checkError(t *testing.T, want *expectedError, err error) {
	t.Helper()
	var apiErr *dt.DelayedTaskError
	if !errors.As(err, &apiErr) {
		t.Fatalf("want *DelayedTaskError %s, got %v", want.Code, err)
	}
	if apiErr.Code != want.Code {
		t.Errorf("code %s, want %s (%v)", apiErr.Code, want.Code, err)
	}
	if want.Status != nil && apiErr.Status != *want.Status {
		t.Errorf("status %d, want %d", apiErr.Status, *want.Status)
	}
	if want.RequestID != nil && apiErr.RequestID != *want.RequestID {
		t.Errorf("request id %q, want %q", apiErr.RequestID, *want.RequestID)
	}
	if want.Details != nil {
		var got, exp []string
		for _, d := range apiErr.Details {
			got = append(got, d.Field)
		}
		for _, d := range want.Details {
			exp = append(exp, d.Field)
		}
		if strings.Join(got, ",") != strings.Join(exp, ",") {
			t.Errorf("detail fields %v, want %v", got, exp)
		}
		for i, d := range want.Details {
			if d.Reason != nil && i < len(apiErr.Details) && apiErr.Details[i].Reason != *d.Reason {
				t.Errorf("detail %s: reason %q, want %q", d.Field, apiErr.Details[i].Reason, *d.Reason)
			}
		}
		if apiErr.Status == 0 && apiErr.Code == dt.CodeInvalidArgument {
			// Refused before sending: the message states each fault once, as "<field> <reason>".
			for _, d := range apiErr.Details {
				if n := strings.Count(err.Error(), d.String()); n != 1 {
					t.Errorf("message %q states %q %d times, want once", err, d.String(), n)
				}
			}
		}
	}
}

// unrepresentable says why a case cannot be written in Go, or "".
func unrepresentable(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["$localtime"]; ok && len(x) == 1 {
			return "a time without an offset cannot be represented: time.Time always has a location (compile-time)"
		}
		if d, ok := x["$duration"]; ok && len(x) == 1 {
			switch d := d.(type) {
			case map[string]any:
				return "not representable: a time.Duration cannot hold a NaN or infinite delay"
			case json.Number:
				if f, err := d.Float64(); err == nil && f == 0 {
					return "not representable: a zero Delay means not set in Go (the contract's choice; run now with ExecuteAt: time.Now())"
				}
			}
		}
		for _, child := range x {
			if r := unrepresentable(child); r != "" {
				return r
			}
		}
	case []any:
		for _, child := range x {
			if r := unrepresentable(child); r != "" {
				return r
			}
		}
	}
	return ""
}

// convertTags turns the vectors' tagged values into native Go values.
func convertTags(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			for tag, val := range x {
				s, _ := val.(string)
				switch tag {
				case "$float":
					switch s {
					case "NaN":
						return math.NaN()
					case "Infinity":
						return math.Inf(1)
					case "-Infinity":
						return math.Inf(-1)
					}
					f, err := strconv.ParseFloat(s, 64)
					if err != nil {
						panic(err)
					}
					return f
				case "$int":
					if i, err := strconv.ParseInt(s, 10, 64); err == nil {
						return i
					}
					b, _ := new(big.Int).SetString(s, 10)
					return b
				case "$time":
					tm, err := time.Parse(time.RFC3339Nano, s)
					if err != nil {
						panic(err)
					}
					return tm
				case "$duration":
					f, _ := val.(json.Number).Float64()
					return time.Duration(math.Round(f * float64(time.Second)))
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, child := range x {
			out[k] = convertTags(child)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, child := range x {
			out[i] = convertTags(child)
		}
		return out
	}
	return v
}

func mustJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(raw)
}

type callbackCase struct {
	Name             string            `json:"name"`
	Secrets          []string          `json:"secrets"`
	Now              json.Number       `json:"now"`
	ToleranceSeconds *json.Number      `json:"toleranceSeconds"`
	Headers          map[string]string `json:"headers"`
	Body             string            `json:"body"`
	Expect           struct {
		Callback any    `json:"callback"`
		Error    string `json:"error"`
	} `json:"expect"`
}

// TestConformanceCallbacks runs every file of callbacks/: receiver.json through a whole
// CallbackReceiver, the others through WebhookVerifier and ParseCallback.
func TestConformanceCallbacks(t *testing.T) {
	for _, file := range vectorFiles(t, "callbacks") {
		name := filepath.Base(file)
		if name == "receiver.json" {
			for _, tc := range loadCases[receiverCase](t, file) {
				t.Run(name+"/"+tc.Name, func(t *testing.T) { runReceiverCase(t, tc) })
			}
			continue
		}
		for _, tc := range loadCases[callbackCase](t, file) {
			t.Run(name+"/"+tc.Name, func(t *testing.T) { runCallbackCase(t, tc) })
		}
	}
}

func runCallbackCase(t *testing.T, tc callbackCase) {
	header := http.Header{}
	for k, v := range tc.Headers {
		header.Set(k, v)
	}
	cb, err := verifyAndParse(tc, header)
	if tc.Expect.Error != "" {
		var we *dt.CallbackRejectedError
		if !errors.As(err, &we) {
			t.Fatalf("want rejection %s, got %v (callback %+v)", tc.Expect.Error, err, cb)
		}
		if we.Reason != tc.Expect.Error {
			t.Errorf("reason %s, want %s (%v)", we.Reason, tc.Expect.Error, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected rejection: %v", err)
	}
	m := &matcher{subset: true}
	if err := m.match("callback", tc.Expect.Callback, toJSONValue(cb)); err != nil {
		t.Errorf("%v\n got %s", err, mustJSON(cb))
	}
}

// verifyAndParse verifies when the case has secrets, then parses.
func verifyAndParse(tc callbackCase, header http.Header) (*dt.Callback, error) {
	if tc.Secrets == nil {
		return dt.ParseCallback([]byte(tc.Body))
	}
	now, err := tc.Now.Int64()
	if err != nil {
		return nil, fmt.Errorf("vector: now %q: %w", tc.Now, err)
	}
	opts := []dt.VerifierOption{dt.WithClock(func() time.Time { return time.Unix(now, 0) })}
	if tc.ToleranceSeconds != nil {
		secs, _ := tc.ToleranceSeconds.Float64()
		opts = append(opts, dt.WithTolerance(time.Duration(secs*float64(time.Second))))
	}
	v, err := dt.NewWebhookVerifier(tc.Secrets, opts...)
	if err != nil {
		return nil, err
	}
	return v.VerifyAndParse(header, []byte(tc.Body))
}
