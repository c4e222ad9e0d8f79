package delayedtasks

import (
	"testing"
	"time"
)

func TestBackoffIsFullJitterDoublingAndCapped(t *testing.T) {
	p := DefaultRetryPolicy()
	for retry, ceiling := range []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second} {
		var maxSeen time.Duration
		for range 200 {
			d := p.wait(retry, 0)
			if d < 0 || d > ceiling {
				t.Fatalf("retry %d: wait %v outside [0, %v]", retry, d, ceiling)
			}
			maxSeen = max(maxSeen, d)
		}
		if maxSeen < ceiling/2 {
			t.Errorf("retry %d: 200 waits all below %v: no jitter over the whole range", retry, ceiling/2)
		}
	}
}

func TestRetryAfterIsHonouredWhenLongerAndCapped(t *testing.T) {
	p := DefaultRetryPolicy()
	if d := p.wait(0, 7*time.Second); d != 7*time.Second {
		t.Errorf("Retry-After 7s: waited %v", d)
	}
	if d := p.wait(0, time.Hour); d != 30*time.Second {
		t.Errorf("Retry-After 1h: waited %v, want the 30 s cap", d)
	}
	if d := (RetryPolicy{}).wait(5, 0); d != 0 {
		t.Errorf("zero policy waited %v", d)
	}
	if got := parseRetryAfter(" 3 "); got != 3*time.Second {
		t.Errorf("parseRetryAfter: %v", got)
	}
	if got := parseRetryAfter("Wed, 21 Oct 2026 07:28:00 GMT"); got != 0 {
		t.Errorf("an HTTP date is not read: %v", got)
	}
}

func TestEscapeSegment(t *testing.T) {
	if got := escapeSegment("a:b/c d~_.-Z9"); got != "a%3Ab%2Fc%20d~_.-Z9" {
		t.Errorf("got %s", got)
	}
}
