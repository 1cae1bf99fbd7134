#!/usr/bin/env bash
# Between test stages: when the setup started a Docker engine and it no longer answers, says so
# loudly with what may tell why (the end of dockerd's log, the disk, the memory, the kernel's OOM
# lines), then starts it again so the next stage's Docker tests run instead of failing or waiting
# for an engine that is gone. Prints nothing while the engine answers.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=.test-artifacts/services
grep -q '^✓ docker' "$out/summary" 2>/dev/null || exit 0 # no engine was brought up: its tests skip
timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1 && exit 0
stage=${1:-the next stage}
echo "!! the Docker engine stopped answering before $stage"
echo "   dockerd: $(pgrep -x dockerd >/dev/null && echo 'running, not answering' || echo 'not running')"
echo "   disk: $(df -h /var/lib/docker 2>/dev/null | tail -1)"
echo "   memory: $(free -m 2>/dev/null | awk '/^Mem:/ {print $7 " MiB available of " $2}')"
dmesg 2>/dev/null | grep -iE 'out of memory|killed process' | grep -iE 'dockerd|containerd' | tail -3 | sed 's/^/   kernel: /'
[ -f "$out/dockerd.log" ] && tail -5 "$out/dockerd.log" | sed 's/^/   dockerd.log: /'
echo "dockerd stopped answering before $stage" >> "$out/docker-restarts"
# Keep the log of the engine that stopped: docker.sh writes a new one.
[ -f "$out/dockerd.log" ] && mv "$out/dockerd.log" "$out/dockerd.$(date +%s).log"
if bash test/setup/docker.sh; then echo "   started again"; else echo "   could not start it again: its tests will say so"; fi
