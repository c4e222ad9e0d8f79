#!/usr/bin/env bash
# Obtains the tools that check the Helm chart and prints their paths, one a line:
#   helm        (lint, template)                 .tools/helm-<version>/helm
#   kube-score  (best-practice checks)           .tools/kube-score-<version>/kube-score
# Both are built from the Go module proxy once and cached in .tools/; a second run only prints the
# paths. $HELM_PATH and $KUBE_SCORE_PATH win when set. Built, not fetched: no package on a registry
# we reach (PyPI, npm, Debian) carries helm's or kube-score's release binary (looked for 2026-12-05).
# The strict decoder (deploy/helm/validate) is this repository's own Go module and is built by
# scripts/chart-check.sh.
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-4.3.2}"
KUBE_SCORE_VERSION="${KUBE_SCORE_VERSION:-1.20.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# build NAME VERSION PACKAGE LDFLAGS: go install PACKAGE@vVERSION into .tools/NAME-VERSION/.
build() {
  local name="$1" version="$2" package="$3" ldflags="$4"
  local dir="$root/.tools/$name-$version"
  if [[ -x "$dir/$name" ]]; then
    echo "$dir/$name"
    return
  fi
  command -v go >/dev/null 2>&1 || {
    echo "No Go toolchain to build $name $version; install $name and set the path variable." >&2
    exit 1
  }
  echo "Building $name v$version from the Go module proxy (first run only)..." >&2
  local started=$SECONDS
  mkdir -p "$dir"
  GOBIN="$dir" GOFLAGS=-buildvcs=false CGO_ENABLED=0 go install -ldflags "-s -w $ldflags" "$package@v$version" >&2
  echo "$name ready in $((SECONDS - started)) s: $dir/$name" >&2
  echo "$dir/$name"
}

if [[ -n "${HELM_PATH:-}" ]]; then
  echo "$HELM_PATH"
else
  build helm "$HELM_VERSION" helm.sh/helm/v4/cmd/helm \
    "-X helm.sh/helm/v4/internal/version.version=v$HELM_VERSION"
fi
if [[ -n "${KUBE_SCORE_PATH:-}" ]]; then
  echo "$KUBE_SCORE_PATH"
else
  build kube-score "$KUBE_SCORE_VERSION" github.com/zegl/kube-score/cmd/kube-score \
    "-X main.version=$KUBE_SCORE_VERSION"
fi
