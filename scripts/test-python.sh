#!/usr/bin/env bash
# The Python files the product ships (the sandbox agent, the Blender scene server, the audit's
# mutator and tracer): linted with pyflakes and unit tested with pytest, on the interpreter the
# process sandboxes run (Debian's /usr/bin/python3: test/setup/apt.sh installs python3-pytest
# and python3-pyflakes). Writes .test-artifacts/tap/python.tap so scripts/test.sh counts them.
set -uo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ beside the tests or the shipped files
[ -x "$py" ] || py=python3
mapfile -t shipped < <(git ls-files 'src/**/*.py' 'src/*.py')
mkdir -p .test-artifacts/tap
lint=0
if "$py" -m pyflakes --version >/dev/null 2>&1; then
  "$py" -m pyflakes "${shipped[@]}" test/python/*.py || lint=1
else
  echo "pyflakes is not installed for $py (apt-get install python3-pyflakes)"; lint=1
fi
xml=.test-artifacts/python-junit.xml
"$py" -m pytest -q -p no:cacheprovider --junitxml="$xml" test/python
status=$?
# pytest's junit counts as TAP totals (the only lines scripts/test.sh reads).
"$py" - "$xml" > .test-artifacts/tap/python.tap <<'PY' || true
import sys
import xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot()
s = s if s.tag == "testsuite" else s.find("testsuite")
n, f, e, k = (int(s.get(a, 0)) for a in ("tests", "failures", "errors", "skipped"))
print("# pass %d\n# fail %d\n# skipped %d" % (n - f - e - k, f + e, k))
PY
[ "$status" -eq 0 ] && [ "$lint" -eq 0 ]
