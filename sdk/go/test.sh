#!/usr/bin/env bash
# Go SDK checks: gofmt, go vet, staticcheck, then unit, conformance and live tests (live ones when
# DTS_URL is set; under CI=true a missing DTS_URL fails them), of the core module and of the stores
# module (stores/: Redis and PostgreSQL from scripts/local-server.sh, which installs and starts them
# when missing and this script stops again; the store vectors, the fleet test). Last line:
# "go: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
modules=(. stores)

STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2 # 2026.2.2
failed=0

if ! command -v go >/dev/null; then
  echo "go: the Go toolchain is not installed"
  echo "go: 0 passed, 1 failed, 0 skipped"
  exit 1
fi

unformatted="$(gofmt -l .)"
if [[ -n "$unformatted" ]]; then
  echo "gofmt: not formatted:"
  echo "$unformatted"
  failed=1
fi
for m in "${modules[@]}"; do
  (cd "$m" && go vet ./...) || failed=1
  (cd "$m" && go run "$STATICCHECK" ./...) || failed=1
done

# The real servers of the store tests, unless given: started here, stopped on exit if this run
# started them.
local_server=../../scripts/local-server.sh
stop_servers=()
start_server() { # start_server NAME VAR
  local name=$1 var=$2 url
  [[ -n "${!var:-}" ]] && return
  if [[ ! -x "$local_server" ]]; then
    echo "no $local_server: the store tests are skipped (or fail under CI=true)"
    return
  fi
  [[ -f "../../.data/servers/$name/pid" ]] && kill -0 "$(cat "../../.data/servers/$name/pid")" 2>/dev/null || stop_servers+=("$name")
  if url="$("$local_server" "$name")"; then
    export "$var=$url"
  else
    echo "local-server $name failed: the store tests are skipped (or fail under CI=true)"
  fi
}
start_server redis DTS_REDIS_URL
start_server postgres DTS_POSTGRES_URL

json="$(mktemp)"
cleanup() {
  rm -f "$json"
  for name in "${stop_servers[@]}"; do "$local_server" stop "$name"; done
}
trap cleanup EXIT
start=$SECONDS
test_status=0
for m in "${modules[@]}"; do
  (cd "$m" && go test -count=1 -json ./...) >>"$json" || test_status=1
done

# Show what matters: failures, skips with their reasons and the package result, not every RUN/PASS.
awk '
  /"Action":"output"/ {
    line = $0
    sub(/.*"Output":"/, "", line); sub(/"}$/, "", line)
    gsub(/\\n/, "", line); gsub(/\\t/, "\t", line); gsub(/\\"/, "\"", line); gsub(/\\\\/, "\\", line)
    if (line ~ /^(=== (RUN|PAUSE|CONT|NAME)|[ \t]*--- PASS|PASS$)/) next
    print line
  }' "$json"

# Count leaf tests only (a test with subtests is counted through its subtests).
read -r passed failed_tests skipped < <(awk '
  /"Test":/ && /"Action":"(pass|fail|skip)"/ {
    pkg = $0; sub(/.*"Package":"/, "", pkg); sub(/".*/, "", pkg)
    name = $0; sub(/.*"Test":"/, "", name); sub(/".*/, "", name)
    name = pkg " " name
    action = $0; sub(/.*"Action":"/, "", action); sub(/".*/, "", action)
    result[name] = action
  }
  END {
    for (n in result) for (m in result) if (index(m, n "/") == 1) { parent[n] = 1; break }
    for (n in result) if (!(n in parent)) count[result[n]]++
    printf "%d %d %d\n", count["pass"], count["fail"], count["skip"]
  }' "$json")
if [[ $test_status -ne 0 && $failed_tests -eq 0 ]]; then
  failed_tests=1 # a build failure or panic outside any test
fi
echo "go test: $((SECONDS - start)) s"
if [[ $failed -ne 0 && $failed_tests -eq 0 ]]; then
  failed_tests=1 # gofmt, vet or staticcheck
fi
echo "go: $passed passed, $failed_tests failed, $skipped skipped"
[[ $failed -eq 0 && $test_status -eq 0 ]]
