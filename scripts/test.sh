#!/usr/bin/env bash
# The whole test suite: typecheck, lint, build, bring up services (Docker, the sandbox
# image, Chromium, Slurm, code-server) where this machine allows, then unit, integration,
# extension-host and browser suites. Missing services are named plainly and their
# tests skip with that reason. Exit status is non-zero if any stage fails.
set -uo pipefail
cd "$(dirname "$0")/.."
rm -rf .test-artifacts/tap && mkdir -p .test-artifacts/tap .test-artifacts/services
failed=()
stage() {
  local name=$1; shift
  local t0=$SECONDS
  echo "━━ $name"
  if "$@"; then echo "━━ $name: ok ($((SECONDS - t0)) s)"; else echo "━━ $name: FAILED ($((SECONDS - t0)) s)"; failed+=("$name"); fi
}
# A stage that runs beside the next ones (2 cores: only beside stages that leave one mostly
# idle). Its output is held in a file and printed, with its result and time, by `finish`.
declare -A bg_pid bg_t0
mkdir -p .test-artifacts/stages
begin() {
  local name=$1; shift
  bg_t0[$name]=$SECONDS
  "$@" > ".test-artifacts/stages/$name.log" 2>&1 &
  bg_pid[$name]=$!
}
finish() {
  local name=$1 rc=0
  wait "${bg_pid[$name]}" || rc=$?
  echo "━━ $name (ran beside the stages above)"
  cat ".test-artifacts/stages/$name.log"
  local took=$((SECONDS - bg_t0[$name]))
  if [ $rc -eq 0 ]; then echo "━━ $name: ok ($took s)"; else echo "━━ $name: FAILED ($took s)"; failed+=("$name"); fi
}

# tsc (one core, ~22 s) beside the other checks and the build (~20 s together, mostly one core).
begin typecheck npm run --silent typecheck
stage lint npm run --silent lint
stage architecture npx tsx scripts/architecture.ts --check
stage build npm run --silent build
stage schema-fresh npx tsx scripts/write-schemas.ts --check
stage docs-fresh npx tsx scripts/write-docs.ts --check
finish typecheck
# code-server is built later, beside the integration stage (see there).
stage services env RLENV_SETUP_DEFER=code-server bash test/setup/all.sh
services_env() {
  # shellcheck disable=SC1091
  [ -f .test-artifacts/services/env ] && set -a && . .test-artifacts/services/env && set +a
}
services_env
# A Docker engine that died (in the setup's image builds, or under a stage's load) is named and
# started again before each stage, so one death does not fail or stall every later Docker test.
healthy() { bash test/setup/docker-health.sh "$1"; }
# 20 files to a process: the unit files are short, so starting tsx for each was a third of the stage.
healthy unit; stage unit env RLENV_TEST_FILES_PER_PROCESS=20 bash scripts/run-node-tests.sh test/unit
stage python bash scripts/test-python.sh
healthy integration
# Only the extension-host stage needs code-server. On a clean clone its setup compiles native
# modules (~135 s of CPU); the integration stage mostly waits on containers and child
# processes, so the build runs beside it rather than alone before the unit stage, at the
# lowest CPU priority (and idle I/O class, which only the BFQ I/O scheduler honours): it
# takes the CPU the tests leave idle, so a test's sandbox is not slowed past its timeout. Its line still goes to the services summary, and a failure
# is named in the env the later stages read.
idle=(nice -n 19); command -v ionice >/dev/null && idle+=(ionice -c 3)
begin code-server "${idle[@]}" bash test/setup/all.sh code-server
stage integration bash scripts/run-node-tests.sh test/integration
finish code-server; services_env
healthy extension-host; [ -f test/extension/run.mjs ] && stage extension-host node test/extension/run.mjs
healthy e2e; [ -d test/e2e ] && stage e2e bash scripts/run-node-tests.sh test/e2e

echo
echo "services:"; cat .test-artifacts/services/summary 2>/dev/null | sed 's/^/  /'
[ -f .test-artifacts/services/docker-restarts ] && sed 's/^/  !! /' .test-artifacts/services/docker-restarts
pass=0; fail=0; skip=0
for f in .test-artifacts/tap/*.tap; do
  [ -f "$f" ] || continue
  p=$(grep -E '^# pass ' "$f" | tail -1 | awk '{print $3}'); pass=$((pass + ${p:-0}))
  x=$(grep -E '^# fail ' "$f" | tail -1 | awk '{print $3}'); fail=$((fail + ${x:-0}))
  s=$(grep -E '^# skipped ' "$f" | tail -1 | awk '{print $3}'); skip=$((skip + ${s:-0}))
done
if [ -f .test-artifacts/extension-counts ]; then
  read -r ep ef < .test-artifacts/extension-counts; pass=$((pass + ep)); fail=$((fail + ef))
fi
# Why each failed test failed, last, where a CI log's tail is read.
# (The extension host's failures are printed by its own runner, above.)
if [ "$fail" -gt 0 ]; then node scripts/tap-failures.mjs .test-artifacts/tap/*.tap; fi
if [ ${#failed[@]} -gt 0 ]; then echo "failed stages: ${failed[*]}"; fi
echo "$pass passed, $fail failed, $skip skipped"
[ ${#failed[@]} -eq 0 ] && [ "$fail" -eq 0 ]
