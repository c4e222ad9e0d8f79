#!/bin/sh
# Waits until the Temporal cluster answers health checks, then creates the namespace if it is missing.
# Runs in temporalio/admin-tools; safe to run on every `up`.
set -eu

: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS must be host:port of the Temporal frontend}"
NAMESPACE="${NAMESPACE:-default}"
RETENTION="${NAMESPACE_RETENTION:-7d}"
MAX_ATTEMPTS="${MAX_ATTEMPTS:-60}"
RETRY_DELAY="${RETRY_DELAY:-2}"

attempt=1
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do
  if [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
    echo "Temporal at $TEMPORAL_ADDRESS not healthy after $attempt attempts" >&2
    exit 1
  fi
  attempt=$((attempt + 1))
  sleep "$RETRY_DELAY"
done
echo "Temporal at $TEMPORAL_ADDRESS is healthy"

attempt=1
while :; do
  if temporal operator namespace describe --namespace "$NAMESPACE" --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; then
    echo "namespace $NAMESPACE exists"
    exit 0
  fi
  if temporal operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION" \
    --address "$TEMPORAL_ADDRESS"; then
    echo "namespace $NAMESPACE created (retention $RETENTION)"
    exit 0
  fi
  if [ "$attempt" -ge "$MAX_ATTEMPTS" ]; then
    echo "could not create namespace $NAMESPACE after $attempt attempts" >&2
    exit 1
  fi
  attempt=$((attempt + 1))
  sleep "$RETRY_DELAY"
done
