#!/usr/bin/env bash
# Prometheus and promtool (Debian's prometheus package) for the alert-rule tests and the
# scrape test: installed when missing. Nothing is started here: the tests start their own
# Prometheus on loopback with a temp config. Writes RLENV_PROMTOOL and RLENV_PROMETHEUS.
set -euo pipefail
cd "$(dirname "$0")/../.."
envfile=.test-artifacts/services/env
mkdir -p .test-artifacts/services
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then echo "cannot install prometheus: need root and apt-get"; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  # The package's service is not wanted (the tests start their own): policy-rc.d keeps
  # it from starting where no init system would stop it again.
  made_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1; fi
  rc=0
  apt-get install -y -q --no-install-recommends prometheus >/dev/null || rc=$?
  if [ -n "$made_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
  if [ $rc -ne 0 ]; then echo "apt-get install prometheus failed ($rc)"; exit 1; fi
fi
printf 'RLENV_PROMTOOL=%q\nRLENV_PROMETHEUS=%q\n' "$(command -v promtool)" "$(command -v prometheus)" >> "$envfile"
echo "$(promtool --version 2>&1 | head -1 | sed 's/ (branch.*//'), prometheus at $(command -v prometheus)"
