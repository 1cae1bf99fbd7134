#!/usr/bin/env bash
# Builds the sandbox base images (scripts/image/recipes/*.txt) with `rlenv image build`:
# instant when the images carry their recipe's hash; otherwise imports the cached rootfs
# (~/.cache/rlenv/rootfs) or runs debootstrap from Debian's mirror (a few minutes, once).
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ -n "${RLENV_MISSING_docker:-}" ] || ! timeout 5 docker version >/dev/null 2>&1; then echo "no Docker engine, so no images"; exit 1; fi
npx tsx src/cli/main.ts image build 2>&1 | tail -20
exit "${PIPESTATUS[0]}"
