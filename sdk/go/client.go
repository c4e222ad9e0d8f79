package delayedtasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Version is the version of this SDK, sent in the User-Agent header.
const Version = "0.4.0"

const (
	defaultUserAgent = "delayed-tasks-go/" + Version
	defaultTimeout   = 10 * time.Second
	maxResponseBytes = 16 << 20
)

// RetryPolicy says how often and how long the client waits before retrying a request that failed
// with 503 UNAVAILABLE, 429 RESOURCE_EXHAUSTED or a network error. Nothing else is retried.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// InitialBackoff is the cap of the first wait; it doubles on every retry (full jitter).
	InitialBackoff time.Duration
	// MaxBackoff caps the doubling.
	MaxBackoff time.Duration
	// MaxRetryAfter caps a Retry-After header, which is honoured when it asks for longer.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is 3 retries, backoff from 250 ms doubling to at most 5 s with full jitter,
// and Retry-After honoured up to 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxRetries:     3,
		InitialBackoff: 250 * time.Millisecond,
		MaxBackoff:     5 * time.Second,
		MaxRetryAfter:  30 * time.Second,
	}
}

// wait is the pause before retry number retry (0-based), given the server's Retry-After.
func (p RetryPolicy) wait(retry int, retryAfter time.Duration) time.Duration {
	ceiling := p.InitialBackoff
	for i := 0; i < retry && ceiling < p.MaxBackoff; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, p.MaxBackoff)
	var d time.Duration
	if ceiling > 0 {
		d = rand.N(ceiling + 1)
	}
	return max(d, min(retryAfter, p.MaxRetryAfter))
}

// Client calls the delayed-task service. It is safe for concurrent use.
type Client struct {
	baseURL    string
	httpClient *http.Client
	apiKey     string
	userAgent  string
	timeout    time.Duration
	retry      RetryPolicy
}

// ClientOption configures a [Client] in [NewClient].
type ClientOption func(*Client) error

// WithAPIKey sends key as "Authorization: Bearer <key>" on every request.
func WithAPIKey(key string) ClientOption {
	return func(c *Client) error {
		c.apiKey = key
		return nil
	}
}

// WithHTTPClient makes the client send its requests through hc (its transport, proxies, TLS).
func WithHTTPClient(hc *http.Client) ClientOption {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("delayedtasks: WithHTTPClient: nil *http.Client")
		}
		c.httpClient = hc
		return nil
	}
}

// WithTimeout limits each HTTP attempt (default 10 s). The context given to a call bounds the
// whole call, retries included.
func WithTimeout(d time.Duration) ClientOption {
	return func(c *Client) error {
		if d <= 0 {
			return fmt.Errorf("delayedtasks: WithTimeout: %v is not positive", d)
		}
		c.timeout = d
		return nil
	}
}

// WithUserAgent puts product (e.g. "billing/1.4") in front of the SDK's own User-Agent.
func WithUserAgent(product string) ClientOption {
	return func(c *Client) error {
		if product != "" {
			c.userAgent = product + " " + defaultUserAgent
		}
		return nil
	}
}

// WithRetryPolicy replaces [DefaultRetryPolicy].
func WithRetryPolicy(p RetryPolicy) ClientOption {
	return func(c *Client) error {
		if p.MaxRetries < 0 || p.InitialBackoff < 0 || p.MaxBackoff < 0 || p.MaxRetryAfter < 0 {
			return errors.New("delayedtasks: WithRetryPolicy: negative value")
		}
		c.retry = p
		return nil
	}
}

// NewClient returns a client of the service at baseURL, e.g. "https://tasks.internal".
func NewClient(baseURL string, opts ...ClientOption) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("delayedtasks: base URL %q is not an absolute http(s) URL", baseURL)
	}
	c := &Client{
		baseURL:    strings.TrimSuffix(u.String(), "/"),
		httpClient: http.DefaultClient,
		userAgent:  defaultUserAgent,
		timeout:    defaultTimeout,
		retry:      DefaultRetryPolicy(),
	}
	for _, opt := range opts {
		if err := opt(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// do sends one logical request, retrying as the policy says, and decodes a 2xx body into out.
// It returns the final HTTP status.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) (int, error) {
	status, _, err := c.doWithHeader(ctx, method, path, query, in, out)
	return status, err
}

// doWithHeader is do that also returns the final response's headers (nil without a response).
func (c *Client) doWithHeader(ctx context.Context, method, path string, query url.Values, in, out any) (int, http.Header, error) {
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var body []byte
	if in != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(in); err != nil {
			return 0, nil, invalidArgument([]ErrorDetail{{Field: "body", Reason: err.Error()}})
		}
		body = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	for retry := 0; ; retry++ {
		resp, respBody, err := c.attempt(ctx, method, target, body)
		var retryAfter time.Duration
		if err != nil {
			err = &DelayedTaskError{Code: CodeUnavailable, Message: "request failed", Err: err}
			if ctx.Err() != nil {
				return 0, nil, err
			}
		} else {
			if err = checkResponse(resp, respBody); err == nil {
				return resp.StatusCode, resp.Header, decodeJSON(resp, respBody, out)
			}
			if resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode != http.StatusTooManyRequests {
				return resp.StatusCode, resp.Header, err
			}
			retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
		}
		if retry >= c.retry.MaxRetries {
			return statusOf(err), nil, err
		}
		if d := c.retry.wait(retry, retryAfter); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return statusOf(err), nil, err
			case <-t.C:
			}
		}
	}
}

// attempt makes one HTTP exchange bounded by the per-attempt timeout and reads the whole body.
func (c *Client) attempt(ctx context.Context, method, target string, body []byte) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, nil, err
	}
	return resp, respBody, nil
}

func decodeJSON(resp *http.Response, body []byte, out any) error {
	if out == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return &DelayedTaskError{
			Code:      CodeUnknown,
			Message:   "response body is not the expected JSON: " + err.Error(),
			Status:    resp.StatusCode,
			RequestID: resp.Header.Get(requestIDHeader),
		}
	}
	return nil
}

func statusOf(err error) int {
	var apiErr *DelayedTaskError
	if errors.As(err, &apiErr) {
		return apiErr.Status
	}
	return 0
}

// parseRetryAfter reads a Retry-After header given in seconds; anything else counts as absent.
func parseRetryAfter(v string) time.Duration {
	secs, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || secs <= 0 || secs > 24*3600 {
		return 0
	}
	return time.Duration(secs * float64(time.Second))
}

// escapeSegment percent-encodes everything but RFC 3986 unreserved characters, so a path segment
// is sent the same way by every SDK (":" becomes "%3A").
func escapeSegment(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if 'A' <= ch && ch <= 'Z' || 'a' <= ch && ch <= 'z' || '0' <= ch && ch <= '9' ||
			ch == '-' || ch == '.' || ch == '_' || ch == '~' {
			b.WriteByte(ch)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[ch>>4])
		b.WriteByte(hex[ch&15])
	}
	return b.String()
}
