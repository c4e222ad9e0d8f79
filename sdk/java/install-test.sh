#!/usr/bin/env bash
# A fresh Maven project outside the repository, whose pom.xml is the README's install block, resolves
# the SDK from the file repository pack.sh filled (and Maven Central for its dependencies), and
# checks that it came from there; compiles the README's first example and
# runs it against the live stack (DTS_URL, DTS_API_KEY): create, status, cancel; it must print
# "SCHEDULED CANCELLED"; then the README's schedule class (create, pause, delete): "10 true".
# Usage: sdk/java/install-test.sh OUT (after pack.sh OUT). Last line: java-install: ...
set -uo pipefail
out="${1:?usage: install-test.sh OUT}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
summary() { echo "java-install: $1 passed, $2 failed, 0 skipped"; }
[[ -d "$out/java/repo" ]] || { echo "no $out/java/repo: run pack.sh first" >&2; summary 0 1; exit 1; }
out_abs="$(cd "$out" && pwd)"
version="$(sed -nE 's/.*VERSION = "([^"]+)".*/\1/p' "$here/delayed-tasks-client/src/main/java/dev/delayedtasks/client/Version.java")"
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
mkdir -p "$project/src/main/java"
# The README's install block is the whole pom.xml, used as a user copies it: it must build alone.
awk '/^```xml$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >"$project/pom.xml"
for expected in "<groupId>dev.delayedtasks</groupId>" "<artifactId>delayed-tasks-client</artifactId>" "<version>$version</version>"; do
  grep -qF "$expected" "$project/pom.xml" || { echo "README install block lacks $expected" >&2; summary 0 1; exit 1; }
done
export DTS_SDK_DIST="$out_abs"
# The SDK must come from the README's repository: an earlier `mvn install` of this version in the
# local repository would hide a broken one, so that copy goes, and the one resolved must say where
# it came from (Maven's _remote.repositories names the repository id).
local_sdk="${HOME}/.m2/repository/dev/delayedtasks/delayed-tasks-client/$version"
rm -rf "$local_sdk"
# The README's first Java block, as a user copies it (a whole class: Example).
awk '/^```java$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >"$project/src/main/java/Example.java"
# The first Java block under "## Schedules" (a whole class: ScheduleExample).
awk '/^## Schedules/{s=1} s&&/^```java$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >"$project/src/main/java/ScheduleExample.java"
cd "$project"
mvn -B -q -Dstyle.color=never compile dependency:build-classpath -Dmdep.outputFile=cp.txt || { summary 0 1; exit 1; }
grep -q 'delayed-tasks-client-.*\.jar>delayed-tasks=' "$local_sdk/_remote.repositories" ||
  { echo "the SDK did not come from the README's repository (delayed-tasks): $(cat "$local_sdk/_remote.repositories" 2>&1)" >&2; summary 0 1; exit 1; }
[[ -n "${DTS_URL:-}" ]] || { echo "DTS_URL is not set: start scripts/live-stack.sh first" >&2; summary 0 1; exit 1; }
printed="$(java -cp "target/classes:$(cat cp.txt)" Example)" || { summary 0 1; exit 1; }
echo "$printed"
[[ "$printed" == "SCHEDULED CANCELLED" ]] || { echo "expected: SCHEDULED CANCELLED" >&2; summary 0 1; exit 1; }
printed="$(java -cp "target/classes:$(cat cp.txt)" ScheduleExample)" || { summary 1 1; exit 1; }
echo "$printed"
if [[ "$printed" == "10 true" ]]; then summary 2 0; else echo "expected: 10 true" >&2; summary 1 1; exit 1; fi
