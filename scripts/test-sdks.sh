#!/usr/bin/env bash
# Runs every SDK's tests (sdk/<lang>/test.sh: format, lint, unit, conformance, live scenarios), then
# packs its release artifact and installs it into a fresh project (sdk/<lang>/pack.sh, install-test.sh)
# against one live stack (scripts/live-stack.sh), prints each language's summary line and duration, and ends
# with `sdks: N passed, N failed, N skipped`. With a file argument, also writes "passed failed
# skipped" there (scripts/test.sh adds them to vitest's). Exits non-zero when any SDK failed.
# SDK folders that do not exist (yet) are left out.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
totals_file="${1:-}"

langs=()
for lang in typescript go python java; do
  [[ -f "sdk/$lang/test.sh" ]] && langs+=("$lang")
done
write_totals() {
  echo "sdks: $1 passed, $2 failed, $3 skipped"
  [[ -n "$totals_file" ]] && echo "$1 $2 $3" >"$totals_file"
  return 0
}
if [[ ${#langs[@]} -eq 0 ]]; then
  echo "sdks: no sdk/<lang>/test.sh yet"
  write_totals 0 0 0
  exit 0
fi

mkdir -p .data
env_file="$(mktemp)"
stack_log=.data/live-stack.log
scripts/live-stack.sh "$env_file" >"$stack_log" 2>&1 &
stack_pid=$!
stop_stack() {
  if kill -0 "$stack_pid" 2>/dev/null; then
    kill -TERM "$stack_pid"
    wait "$stack_pid" 2>/dev/null
  fi
  rm -f "$env_file"
}
trap stop_stack EXIT
trap 'exit 130' INT TERM

started=$SECONDS
stack_failed=0
until [[ -s "$env_file" ]]; do
  if ! kill -0 "$stack_pid" 2>/dev/null || ((SECONDS - started > 300)); then
    echo "live stack did not start (log: $stack_log):" >&2
    tail -n 30 "$stack_log" >&2
    stack_failed=1
    break
  fi
  sleep 1
done
if [[ -s "$env_file" ]]; then
  set -a
  # shellcheck disable=SC1090
  . "$env_file"
  set +a
  echo "live stack up in $((SECONDS - started)) s at $DTS_URL"
fi

# Runs a command (its output shown and kept in LOG) whose last line says `NAME: N passed, N failed,
# N skipped`, and adds it to the totals: a missing line or a non-zero exit counts as one failure.
run_counted() {
  local name=$1 log=$2 started=$SECONDS rc line p f s
  shift 2
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  line="$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped" "$log" | tail -n 1)"
  # No summary: the script broke before its tests ran.
  [[ -n "$line" ]] || line="$name: 0 passed, 1 failed, 0 skipped (no summary line, exit $rc)"
  read -r p f s < <(sed -E 's/^[a-z-]+: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/' <<<"$line")
  if [[ $rc -ne 0 && $f -eq 0 ]]; then
    f=1
    line="$line (exit $rc)"
  fi
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  ((f > 0)) && status=1
  summary+=("$line in $((SECONDS - started)) s")
}

passed=0 failed=$stack_failed skipped=0 status=$stack_failed
pack_dir="$(pwd)/.data/sdk-dist"
mkdir -p "$pack_dir"
summary=()
for lang in "${langs[@]}"; do
  echo
  echo "==> sdk/$lang"
  log=".data/sdk-$lang.log"
  run_counted "$lang" "$log" bash "sdk/$lang/test.sh"

  # The release artifact, installed into a fresh project outside the repository as a user would,
  # running the README's example against the same live stack.
  if [[ -f "sdk/$lang/pack.sh" && -f "sdk/$lang/install-test.sh" ]]; then
    echo
    echo "==> sdk/$lang: pack and install from the artifact"
    run_counted "$lang-install" ".data/sdk-$lang-install.log" \
      bash -c 'bash "sdk/$1/pack.sh" "$2" && bash "sdk/$1/install-test.sh" "$2"' _ "$lang" "$pack_dir"
  fi
done

echo
for line in "${summary[@]}"; do echo "$line"; done
write_totals "$passed" "$failed" "$skipped"
exit $status
