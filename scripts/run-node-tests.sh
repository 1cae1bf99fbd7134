#!/usr/bin/env bash
# Runs node:test files (*.test.ts) under the given folders through tsx.
# Writes a TAP copy to .test-artifacts/tap/<name>.tap so scripts/test.sh can total the counts.
#
# RLENV_TEST_FILES_PER_PROCESS=N (default 1) runs N files in one process. Each process pays
# ~0.7 s of CPU to start tsx and then loads the modules its files share; for a folder of many
# short files (the unit tests: 170 files, ~1.5 s of tests each) that start-up is a third of
# the stage. Files are dealt round-robin so one folder's heavy files spread over the groups,
# and each file's tests sit in a suite named by its path, so a failure still names its file
# and a file's top-level before/after hooks still run around that file's tests alone.
set -uo pipefail
name=$(echo "$*" | tr ' /' '__')
mkdir -p .test-artifacts/tap
mapfile -t files < <(find "$@" -name '*.test.ts' -type f 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then echo "no test files under $*"; exit 0; fi
per=${RLENV_TEST_FILES_PER_PROCESS:-1}
if [ "$per" -gt 1 ] && [ ${#files[@]} -gt "$per" ]; then
  groups_dir=".test-artifacts/groups/$name"
  rm -rf "$groups_dir" && mkdir -p "$groups_dir"
  n=$(( (${#files[@]} + per - 1) / per ))
  for i in "${!files[@]}"; do
    f=${files[$i]}
    g="$groups_dir/group-$(printf '%03d' $(( i % n ))).ts"
    [ -f "$g" ] || echo 'import { describe, test } from "node:test";' > "$g"
    # A file that throws while loading is a failing test (as it is when it has its own process).
    printf 'describe(%s, () => { try { require(%s); } catch (e) { test("loads", () => { throw e; }); } });\n' "\"$f\"" "\"$(realpath "$f")\"" >> "$g"
  done
  mapfile -t files < <(find "$groups_dir" -name 'group-*.ts' | sort)
fi
# A test that hangs (an engine gone mid-run, a child that never exits) is cut after
# RLENV_TEST_TIMEOUT_S (15 min) and fails there, instead of holding the whole run until CI's limit.
exec node --import tsx --test --test-concurrency="${RLENV_TEST_CONCURRENCY:-2}" \
  --test-timeout="$(( ${RLENV_TEST_TIMEOUT_S:-900} * 1000 ))" \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination=".test-artifacts/tap/${name}.tap" \
  "${files[@]}"
