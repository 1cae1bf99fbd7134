#!/usr/bin/env bash
# Debian's Chromium for the browser suites (apt.sh installs it): check that it exists and
# starts headless with the flags the tests use, by printing the DOM of a data: URL.
set -euo pipefail
bin=/usr/bin/chromium
[ -x "$bin" ] || { echo "$bin is missing (apt.sh installs the chromium package)"; exit 1; }
out=$(timeout 60 "$bin" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --use-angle=swiftshader --enable-unsafe-swiftshader \
  --dump-dom 'data:text/html,<p id=x>chromium-ok</p>' 2>/dev/null || true)
echo "$out" | grep -q chromium-ok || { echo "chromium did not start headless"; exit 1; }
echo "$("$bin" --version 2>/dev/null | head -1) starts headless"
