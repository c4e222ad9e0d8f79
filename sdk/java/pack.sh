#!/usr/bin/env bash
# Deploys the Java SDK into a file Maven repository as a release would publish it: the parent POM,
# the client and the Spring Boot starter, each jar with its -sources.jar and -javadoc.jar.
# Usage: sdk/java/pack.sh OUT -> OUT/java/repo (dev/delayedtasks/...). Tests run in test.sh, not here.
set -euo pipefail
out="${1:?usage: pack.sh OUT}"
cd "$(dirname "${BASH_SOURCE[0]}")"
rm -rf "$out/java" && mkdir -p "$out/java/repo"
repo="$(cd "$out/java/repo" && pwd)"
# deploy runs the install phase too: skipped, so that nothing lands in ~/.m2 where a user's project
# would resolve it instead of from the repository its README names.
mvn -B -q -Dstyle.color=never -Prelease -DskipTests -Dspotless.check.skip=true -Dmaven.install.skip=true \
  -DaltDeploymentRepository="local::file://$repo" deploy
find "$repo" -name '*.jar' | sort
