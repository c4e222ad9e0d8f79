#!/usr/bin/env bash
# Builds every SDK's release artifacts into one folder (default .data/sdk-dist): the npm tarball, the
# Python wheel and sdist, the Java jars (client and Spring Boot starter, with sources and javadoc, in
# a file Maven repository) and the Go module (a file GOPROXY). Each sdk/<lang>/pack.sh writes OUT/<lang>/.
# Usage: scripts/sdk-pack.sh [OUT] [LANG ...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="$(mkdir -p "${1:-.data/sdk-dist}" && cd "${1:-.data/sdk-dist}" && pwd)"
shift || true
langs=("$@")
((${#langs[@]})) || langs=(typescript go python java)
explicit=$#
for lang in "${langs[@]}"; do
  if [[ ! -f "sdk/$lang/pack.sh" ]]; then
    # Named on the command line: an error. By default: a language not packaged yet is said and skipped.
    ((explicit)) && { echo "sdk/$lang/pack.sh missing" >&2; exit 1; }
    echo "sdk/$lang: no pack.sh yet, not packed"
    continue
  fi
  started=$SECONDS
  rm -rf "${out:?}/$lang"
  mkdir -p "$out/$lang"
  bash "sdk/$lang/pack.sh" "$out"
  echo "sdk/$lang packed into $out/$lang in $((SECONDS - started)) s"
done
