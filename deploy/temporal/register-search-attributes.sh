#!/bin/sh
# Registers the custom search attributes the service writes and lists by: ALL_SEARCH_ATTRIBUTES of
# src/shared/constants.ts, as the `for spec in` line below lists them (test/deploy/compose.test.ts
# fails, naming the line to write, when the two differ).
# Runs in temporalio/admin-tools after the namespace exists; safe to run on every `up`:
# an attribute that already exists with the same type counts as registered, one that exists with
# another type fails the run, since the service could not use it.
set -eu

: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS must be host:port of the Temporal frontend}"
NAMESPACE="${NAMESPACE:-default}"
MAX_ATTEMPTS="${MAX_ATTEMPTS:-30}"
RETRY_DELAY="${RETRY_DELAY:-2}"

# Returns 0 when registered, 1 on a failure worth retrying, 2 on a conflict that retrying cannot fix.
register() {
  name="$1"
  type="$2"
  if out=$(temporal operator search-attribute create --namespace "$NAMESPACE" --address "$TEMPORAL_ADDRESS" \
    --name "$name" --type "$type" 2>&1); then
    echo "search attribute $name ($type) registered"
    return 0
  fi
  case "$out" in
    *"different type"*)
      echo "$out" >&2
      return 2
      ;;
    *"already exists"*)
      echo "search attribute $name ($type) already registered"
      return 0
      ;;
  esac
  echo "$out" >&2
  return 1
}

for spec in TaskType:Keyword TaskStatus:Keyword ExecuteAt:Datetime Owner:Keyword; do
  attempt=1
  while :; do
    status=0
    register "${spec%%:*}" "${spec##*:}" || status=$?
    [ "$status" -eq 0 ] && break
    [ "$status" -eq 2 ] && exit 1
    if [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
      echo "could not register ${spec%%:*} after $attempt attempts" >&2
      exit 1
    fi
    attempt=$((attempt + 1))
    sleep "$RETRY_DELAY"
  done
done
