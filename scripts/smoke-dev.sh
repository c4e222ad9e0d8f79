#!/usr/bin/env bash
# Starts the README's first command in the background, checks that the API, the worker, the Web UI
# and the Temporal server answer, then stops it with Ctrl-C (SIGINT) and checks that all of it exits.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log=.data/smoke-dev.log
mkdir -p .data
setsid scripts/dev.sh >"$log" 2>&1 &
pid=$!
fail() { echo "smoke: $1"; tail -50 "$log"; kill -INT -- -"$pid" 2>/dev/null || true; exit 1; }
wait_for() {
  for _ in $(seq 1 240); do
    if curl -fsS "$1" >/dev/null 2>&1; then return 0; fi
    kill -0 "$pid" 2>/dev/null || fail "dev.sh exited early"
    sleep 0.5
  done
  fail "$1 did not answer"
}
wait_for http://127.0.0.1:3000/readyz
wait_for http://127.0.0.1:3001/readyz
wait_for http://127.0.0.1:8233/
echo "smoke: API /healthz: $(curl -fsS http://127.0.0.1:3000/healthz)"
# Encryption is on locally: the codec endpoint the Web UI decodes through answers loopback clients.
curl -fsS -X POST http://127.0.0.1:3000/codec/decode -H 'content-type: application/json' \
  -d '{"payloads":[]}' | grep -q '"payloads":\[\]' || fail "codec endpoint did not answer"
echo "smoke: codec endpoint answers (payloads encrypted at rest)"
"$(scripts/temporal-cli.sh)" workflow list --address 127.0.0.1:7233 --limit 1 >/dev/null || fail "temporal workflow list failed"
echo "smoke: temporal workflow list works"
# Read the whole page before looking into it: `grep -q` stops at the first match, and a page larger
# than a pipe's buffer (the charts) would end curl with SIGPIPE, which pipefail counts as a failure.
console_page="$(curl -fsS http://127.0.0.1:3000/console)" || fail "the console at /console does not answer"
grep -q 'Overview' <<<"$console_page" || fail "the console at /console does not show its overview"
echo "smoke: console at http://127.0.0.1:3000/console answers"
kill -INT -- -"$pid"
for _ in $(seq 1 60); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
kill -0 "$pid" 2>/dev/null && fail "still running 30 s after Ctrl-C"
if curl -fsS http://127.0.0.1:3000/healthz >/dev/null 2>&1; then fail "API still answers after Ctrl-C"; fi
echo "smoke: everything stopped cleanly on Ctrl-C"
