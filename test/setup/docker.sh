#!/usr/bin/env bash
# Makes sure a Docker engine answers: starts dockerd (no bridge, no iptables: sandboxes use
# NetworkMode none) when its socket is silent, logging to .test-artifacts/services/dockerd.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
answers() { timeout 5 docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }
if answers; then echo "dockerd answers (server $(docker version --format '{{.Server.Version}}'))"; exit 0; fi
command -v dockerd >/dev/null || { echo "dockerd is not installed (apt-get install docker.io)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "dockerd is not running and starting it needs root"; exit 1; }
mkdir -p .test-artifacts/services
log=$PWD/.test-artifacts/services/dockerd.log
nohup dockerd --bridge=none --iptables=false > "$log" 2>&1 &
for _ in $(seq 1 60); do
  if answers; then echo "started dockerd (server $(docker version --format '{{.Server.Version}}'))"; exit 0; fi
  sleep 0.5
done
echo "dockerd did not answer within 30 s: $(tail -3 "$log" | tr '\n' ' ')"
exit 1
