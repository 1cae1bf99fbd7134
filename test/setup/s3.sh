#!/usr/bin/env bash
# An S3-compatible server on loopback for the object-storage tests: s3rver (npm, a dev
# dependency, so `npm ci` brings it) on 127.0.0.1, its data in a temp folder. Chosen as the
# most faithful S3 server a reachable registry ships: see docs/object-storage.md.
# Idempotent: a server already answering on the port is kept.
# Writes RLENV_S3_ENDPOINT, RLENV_S3_ACCESS_KEY, RLENV_S3_SECRET_KEY.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=${RLENV_S3_PORT:-16830}
base=${RLENV_S3_DIR:-/tmp/rlenv-s3}
envfile=.test-artifacts/services/env
mkdir -p .test-artifacts/services "$base/data"
bin=node_modules/s3rver/bin/s3rver.js
[ -f "$bin" ] || { echo "s3: $bin missing (npm ci installs the dev dependency s3rver)"; exit 1; }
url="http://127.0.0.1:$port"
answers() { curl -s -m 2 -o /dev/null -w '%{http_code}' "$url/" | grep -q 200; }
if ! answers; then
  # The legacy provider: s3rver makes ListObjectsV2 continuation tokens with DES, which
  # OpenSSL 3 leaves out, so a listing past 1000 keys would fail with a 500.
  setsid nohup node --openssl-legacy-provider "$bin" -d "$base/data" -a 127.0.0.1 -p "$port" -s > "$base/s3rver.log" 2>&1 < /dev/null &
  for _ in $(seq 1 100); do answers && break; sleep 0.1; done
  answers || { echo "s3: s3rver did not answer on $url (log: $base/s3rver.log)"; exit 1; }
fi
# s3rver's one fixed key pair.
printf 'RLENV_S3_ENDPOINT=%q\nRLENV_S3_ACCESS_KEY=S3RVER\nRLENV_S3_SECRET_KEY=S3RVER\n' "$url" >> "$envfile"
echo "s3rver $(node -p 'require("./node_modules/s3rver/package.json").version') on $url (data $base/data)"
