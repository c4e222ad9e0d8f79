#!/usr/bin/env bash
# A fresh Maven project outside the repository that resolves the SDK from the file repository
# pack.sh filled (and Maven Central for its dependencies), compiles the README's first example and
# runs it against the live stack (DTS_URL, DTS_API_KEY): create, status, cancel; it must print
# "SCHEDULED CANCELLED"; then the README's schedule class (create, pause, delete): "10 true". The
# README's worker class is compiled too.
# Usage: sdk/java/install-test.sh OUT (after pack.sh OUT). Last line: java-install: ...
set -uo pipefail
out="${1:?usage: install-test.sh OUT}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
summary() { echo "java-install: $1 passed, $2 failed, 0 skipped"; }
repo="$(cd "$out/java/repo" 2>/dev/null && pwd)" || { echo "no $out/java/repo: run pack.sh first" >&2; summary 0 1; exit 1; }
version="$(sed -nE 's/.*VERSION = "([^"]+)".*/\1/p' "$here/delayed-tasks-client/src/main/java/dev/delayedtasks/client/Version.java")"
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
mkdir -p "$project/src/main/java"
cat >"$project/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>sdk-install-test</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <repositories>
    <repository><id>sdk</id><url>file://$repo</url></repository>
  </repositories>
  <dependencies>
    <dependency>
      <groupId>dev.delayedtasks</groupId>
      <artifactId>delayed-tasks-client</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.14.0</version>
      </plugin>
    </plugins>
  </build>
</project>
POM
# The README's install block must name what is tested: the client's coordinates and this version.
install_block="$(awk '/^```xml$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md")"
for expected in "<groupId>dev.delayedtasks</groupId>" "<artifactId>delayed-tasks-client</artifactId>" "<version>$version</version>"; do
  grep -qF "$expected" <<<"$install_block" || { echo "README install block lacks $expected" >&2; summary 0 1; exit 1; }
done
# The README's first Java block, as a user copies it (a whole class: Example).
awk '/^```java$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >"$project/src/main/java/Example.java"
# The first Java block under "## Schedules" (a whole class: ScheduleExample).
awk '/^## Schedules/{s=1} s&&/^```java$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >"$project/src/main/java/ScheduleExample.java"
# The first Java block under "## Pull workers" (a whole class: WorkerExample), compiled only: it
# runs until stopped.
awk '/^## Pull workers/{s=1} s&&/^```java$/{f=1;next} /^```$/{if(f){exit}} f' "$here/README.md" >"$project/src/main/java/WorkerExample.java"
cd "$project"
mvn -B -q -Dstyle.color=never compile dependency:build-classpath -Dmdep.outputFile=cp.txt || { summary 0 1; exit 1; }
[[ -n "${DTS_URL:-}" ]] || { echo "DTS_URL is not set: start scripts/live-stack.sh first" >&2; summary 0 1; exit 1; }
printed="$(java -cp "target/classes:$(cat cp.txt)" Example)" || { summary 0 1; exit 1; }
echo "$printed"
[[ "$printed" == "SCHEDULED CANCELLED" ]] || { echo "expected: SCHEDULED CANCELLED" >&2; summary 0 1; exit 1; }
printed="$(java -cp "target/classes:$(cat cp.txt)" ScheduleExample)" || { summary 1 1; exit 1; }
echo "$printed"
if [[ "$printed" == "10 true" ]]; then summary 2 0; else echo "expected: 10 true" >&2; summary 1 1; exit 1; fi
