#!/usr/bin/env bash
# Runs node:test files (*.test.ts) under the given folders through tsx.
# Writes a TAP copy to .test-artifacts/tap/<name>.tap so scripts/test.sh can total the counts.
set -uo pipefail
name=$(echo "$*" | tr ' /' '__')
mkdir -p .test-artifacts/tap
mapfile -t files < <(find "$@" -name '*.test.ts' -type f 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then echo "no test files under $*"; exit 0; fi
exec node --import tsx --test --test-concurrency="${RLENV_TEST_CONCURRENCY:-2}" \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination=".test-artifacts/tap/${name}.tap" \
  "${files[@]}"
