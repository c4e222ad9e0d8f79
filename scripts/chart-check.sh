#!/usr/bin/env bash
# Checks the Helm chart (deploy/helm/delayed-tasks) without a cluster:
#   1. the strict decoder's own tests (deploy/helm/chartcheck: misspelled fields must be refused);
#   2. for values.yaml alone and each file of deploy/helm/values/: `helm lint --strict`, `helm
#      template`, every rendered object decoded strictly against the Kubernetes API types, and
#      kube-score over the output (the checks it skips are listed below, each with why);
#   3. each file of deploy/helm/tests/broken/ must be refused, at the stage its header names
#      (schema, render or decoder) and with the text it names.
# Tools: scripts/chart-tools.sh (helm, kube-score, built once into .tools/). Rendered manifests and
# kube-score reports are left in .data/chart-check/ for reading.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
chart=deploy/helm/delayed-tasks
out=.data/chart-check
rm -rf "$out"
mkdir -p "$out"

started=$SECONDS
mapfile -t tools < <(scripts/chart-tools.sh)
helm="${tools[0]}"
kube_score="${tools[1]}"
echo "tools ready in $((SECONDS - started)) s: $("$helm" version --short), kube-score $("$kube_score" version | head -1)"

started=$SECONDS
(cd deploy/helm/chartcheck && go test -count=1 ./... && go build -o "$root/.tools/chartcheck/chartcheck" .)
chartcheck="$root/.tools/chartcheck/chartcheck"
echo "strict decoder tested and built in $((SECONDS - started)) s"

# kube-score: every default check plus two optional ones (seccomp profile, container ports), less
# one, and why (docs/operating.md, "What the chart's checks leave alone"):
#  - container-image-pull-policy wants Always; the chart pins a tag or a digest, where IfNotPresent
#    runs the same image without a registry round trip at every pod start.
# A values file may skip more for itself on a line `# kube-score-ignore: <test> (<why>)`.
kube_score_args=(
  score
  --kubernetes-version v1.30
  --output-format ci
  --enable-optional-test container-seccomp-profile
  --enable-optional-test container-ports-check
  --ignore-test container-image-pull-policy
)

passed=0
failed=0
fail() {
  echo "FAIL $1" >&2
  failed=$((failed + 1))
}

render() { # render NAME VALUES_FILE...: lint, template into $out/NAME.yaml
  local name="$1"
  shift
  local flags=()
  for file in "$@"; do flags+=(-f "$file"); done
  "$helm" lint --strict "$chart" "${flags[@]}" >"$out/$name.lint.txt" 2>&1 || return 1
  "$helm" template delayed-tasks "$chart" --namespace delayed-tasks "${flags[@]}" >"$out/$name.yaml" 2>"$out/$name.template.txt"
}

values_files=(deploy/helm/values/*.yaml)
for file in "" "${values_files[@]}"; do
  name="$(basename "${file:-values.yaml}" .yaml)"
  if ! render "$name" ${file:+"$file"}; then
    fail "$name: helm lint or template refused it"
    cat "$out/$name".*.txt >&2
    continue
  fi
  if ! "$chartcheck" "$out/$name.yaml"; then
    fail "$name: the strict decoder refused an object"
    continue
  fi
  ignores=()
  while read -r test; do ignores+=(--ignore-test "$test"); done < <(sed -n 's/^# kube-score-ignore: \([a-z-]*\).*/\1/p' "${file:-$chart/values.yaml}")
  if ! "$kube_score" "${kube_score_args[@]}" "${ignores[@]}" "$out/$name.yaml" >"$out/$name.kube-score.txt" 2>&1; then
    fail "$name: kube-score found a critical problem"
    grep -E '^\[(CRITICAL|WARNING)\]' "$out/$name.kube-score.txt" >&2 || cat "$out/$name.kube-score.txt" >&2
    continue
  fi
  warnings="$(grep -c '^\[WARNING\]' "$out/$name.kube-score.txt" || true)"
  echo "ok   $name: lint, template, strict decoding, kube-score ($warnings warnings)"
  grep '^\[WARNING\]' "$out/$name.kube-score.txt" | sed 's/^/       /' || true
  passed=$((passed + 1))
done

# The broken cases: each must be refused at its stage, with its text.
for file in deploy/helm/tests/broken/*.yaml; do
  name="broken-$(basename "$file" .yaml)"
  stage="$(sed -n 's/^# refused-by: //p' "$file")"
  text="$(sed -n 's/^# refused-with: //p' "$file")"
  log="$out/$name.log"
  refused_at=none
  if ! render "$name" "$file" >"$log" 2>&1; then
    cat "$out/$name".*.txt >>"$log" 2>/dev/null || true
    if grep -q 'values don.t meet the specifications of the schema' "$log"; then refused_at=schema; else refused_at=render; fi
  elif ! "$chartcheck" "$out/$name.yaml" >>"$log" 2>&1; then
    refused_at=decoder
  fi
  if [[ "$refused_at" != "$stage" ]]; then
    fail "$name: want it refused by the $stage, it was refused by: $refused_at"
    cat "$log" >&2
  elif ! grep -qF -- "$text" "$log"; then
    fail "$name: refused by the $stage, but the message does not name \"$text\""
    cat "$log" >&2
  else
    echo "ok   $name: refused by the $stage ($(grep -F -m1 -- "$text" "$log" | cut -c1-140))"
    passed=$((passed + 1))
  fi
done

echo "chart-check: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
