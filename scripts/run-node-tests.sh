#!/usr/bin/env bash
# Runs node:test files (*.test.ts) under the given folders through tsx.
# Writes a TAP copy to .test-artifacts/tap/<name>.tap so scripts/test.sh can total the counts.
set -uo pipefail
name=$(echo "$*" | tr ' /' '__')
mkdir -p .test-artifacts/tap
mapfile -t files < <(find "$@" -name '*.test.ts' -type f 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then echo "no test files under $*"; exit 0; fi
# A test that hangs (an engine gone mid-run, a child that never exits) is cut after
# RLENV_TEST_TIMEOUT_S (15 min) and fails there, instead of holding the whole run until CI's limit.
exec node --import tsx --test --test-concurrency="${RLENV_TEST_CONCURRENCY:-2}" \
  --test-timeout="$(( ${RLENV_TEST_TIMEOUT_S:-900} * 1000 ))" \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination=".test-artifacts/tap/${name}.tap" \
  "${files[@]}"
