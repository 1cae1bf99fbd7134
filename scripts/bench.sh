#!/usr/bin/env bash
# The benchmarks in test/bench/: all of them, or the ones named (`npm run bench -- remote
# scene3d`). One after another, never two at once: each times things against a baseline
# measured in the same run, and a second one beside it would be part of what it measures.
# A benchmark that fails does not stop the others; the end says which failed.
# Docker and the other services are what `npm test` (test/setup/all.sh) brought up;
# a benchmark that needs one that is missing says so and fails.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
[ -f .test-artifacts/services/env ] && set -a && . .test-artifacts/services/env && set +a
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  # A *-server.ts beside a benchmark is its helper process (the benchmark forks it), not a benchmark.
  for f in test/bench/*.ts; do [[ $f == *-server.ts ]] || names+=("$(basename "$f" .ts)"); done
fi
failed=()
for name in "${names[@]}"; do
  file="test/bench/${name%.ts}.ts"
  if [ ! -f "$file" ]; then
    echo "no benchmark $file; there are: $(cd test/bench && ls ./*.ts | sed 's|^\./||; s|\.ts$||' | tr '\n' ' ')"
    failed+=("$name")
    continue
  fi
  echo "━━ bench $name"
  t0=$SECONDS
  if npx tsx "$file"; then echo "━━ bench $name: done ($((SECONDS - t0)) s)"; else echo "━━ bench $name: FAILED ($((SECONDS - t0)) s)"; failed+=("$name"); fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}"
  exit 1
fi
