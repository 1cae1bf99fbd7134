#!/usr/bin/env bash
# Brings up what the suites need, each part in its own script. A part that cannot come
# up says why; its tests then skip with that reason. Writes .test-artifacts/services/env
# (variables the tests read) and .test-artifacts/services/summary (one line a part).
#
#   all.sh               every part; env and summary start afresh
#   all.sh PART...       those parts only, added to env and summary (scripts/test.sh builds
#                        code-server this way while the integration suite runs)
# RLENV_SETUP_DEFER="PART..." leaves those parts out of a full run, saying so.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=.test-artifacts/services
mkdir -p "$out"
if [ $# -gt 0 ]; then
  parts=("$@")
else
  parts=(apt docker image chromium slurm code-server prometheus s3)
  : > "$out/env"; : > "$out/summary"
fi
deferred=" ${RLENV_SETUP_DEFER:-} "
for part in "${parts[@]}"; do
  script="test/setup/$part.sh"
  [ -f "$script" ] || continue
  if [ $# -eq 0 ] && [[ $deferred == *" $part "* ]]; then echo "… $part: later, beside the tests"; continue; fi
  t0=$SECONDS
  bash "$script" > "$out/$part.log" 2>&1; rc=$?
  msg=$(grep -v '^\s*$' "$out/$part.log" | tail -1)
  if [ $rc -eq 0 ]; then
    echo "✓ $part ($((SECONDS - t0)) s): $msg" | tee -a "$out/summary"
  else
    echo "✗ $part missing: $msg (log: $out/$part.log)" | tee -a "$out/summary"
    printf 'RLENV_MISSING_%s=%q\n' "${part//-/_}" "$msg" >> "$out/env"
  fi
done
exit 0
