// Harbor tasks of our own in Terminal-Bench 2.0's format, run as they are (`validate --run
// --sandbox docker`), each on a point where a Harbor task must behave here as under Harbor:
//  - root-powers: solve.sh runs apt-get (a local apt repository baked into the image) and chown,
//    which need Docker's default capabilities; test.sh is the uv venv / uv pip / uv run form;
//  - trixie-apt: FROM debian:13-slim asks its apt for a Debian-13-only version;
//  - planted: the "solution" plants pytest.py (and pytest's deps, and stdlib names) in the
//    working folder and does nothing else: the oracle must score 0, naming the failing test;
//  - solve-fails: solve.sh exits 100 with apt's error, named on the verdict's line;
//  - build-fails: a Dockerfile step fails, named with the step and apt's error.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../support/cli";
import { missing } from "../support/services";

const TOML = 'version = "1.0"\n[agent]\ntimeout_sec = 300.0\n[verifier]\ntimeout_sec = 300.0\n[environment]\nmemory = "1G"\n';

/** test.sh as TB 2.0 writes it: uv from astral.sh, uvx pytest with --ctrf, reward.txt from the exit status. */
const TB_TEST_SH = `#!/bin/bash
apt-get update
apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh
source $HOME/.local/bin/env
uvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5 pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
`;

/** test.sh in the uv project form: a venv made with -p, pytest "installed" with uv pip, run with uv run and --ctrf. */
const UV_TEST_SH = `#!/bin/bash
curl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh
source $HOME/.local/bin/env
cd /tmp && uv venv -p 3.12 .venv && source .venv/bin/activate && uv pip install pytest==8.4.1 pytest-json-ctrf==0.3.5 || { echo 0 > /logs/verifier/reward.txt; exit 0; }
uv run pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
`;

/** A local apt repository of one package, baked into the image: apt-get in the sandbox installs from it with no network. */
const LOCAL_REPO = `set -e
mkdir -p /tmp/pkg/DEBIAN /tmp/pkg/usr/bin /opt/repo
printf 'Package: rlenv-hello\\nVersion: 1.0\\nArchitecture: all\\nMaintainer: t <t@example.org>\\nDescription: test\\n' > /tmp/pkg/DEBIAN/control
printf '#!/bin/sh\\necho hello from a local deb\\n' > /tmp/pkg/usr/bin/rlenv-hello
chmod 755 /tmp/pkg/usr/bin/rlenv-hello
dpkg-deb --build /tmp/pkg /opt/repo/rlenv-hello_1.0_all.deb >/dev/null
cd /opt/repo
{ cat /tmp/pkg/DEBIAN/control; echo "Filename: ./rlenv-hello_1.0_all.deb"; echo "Size: $(stat -c %s rlenv-hello_1.0_all.deb)"; echo "SHA256: $(sha256sum rlenv-hello_1.0_all.deb | cut -d' ' -f1)"; echo; } > Packages
echo 'deb [trusted=yes] file:/opt/repo ./' > /etc/apt/sources.list.d/local.list
rm -rf /tmp/pkg /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list
`;

const TASKS: Record<string, Record<string, string>> = {
  "root-powers": {
    "environment/Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\nCOPY local-repo.sh /tmp/local-repo.sh\nRUN bash /tmp/local-repo.sh\n",
    "environment/local-repo.sh": LOCAL_REPO,
    "solution/solve.sh":
      "#!/bin/bash\nset -e\napt-get update\napt-get install -y rlenv-hello\nrlenv-hello > /app/hello.txt\nmkdir -p /app/data\nchown 1000:1000 /app/data\nsetpriv --reuid 1000 --regid 1000 --clear-groups touch /app/data/mine\n",
    "tests/test.sh": UV_TEST_SH,
    "tests/test_outputs.py":
      "import os\n\ndef test_apt_installed():\n    assert open('/app/hello.txt').read() == 'hello from a local deb\\n'\n\ndef test_chown():\n    assert os.stat('/app/data').st_uid == 1000\n    assert os.stat('/app/data/mine').st_uid == 1000\n",
  },
  "trixie-apt": {
    "environment/Dockerfile": "FROM debian:13-slim\nWORKDIR /app\nRUN apt-get update && apt-get install -y hello=2.10-5\n",
    "solution/solve.sh": "#!/bin/bash\nhello > /app/greeting.txt\n",
    "tests/test.sh": TB_TEST_SH,
    "tests/test_outputs.py":
      "def test_release():\n    assert open('/etc/debian_version').read().startswith('13')\n\ndef test_greeting():\n    assert open('/app/greeting.txt').read().strip() == 'Hello, world!'\n",
  },
  planted: {
    "environment/Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\n",
    "solution/solve.sh":
      "#!/bin/bash\nfor m in pytest _pytest pluggy iniconfig packaging subprocess json inspect; do printf 'import os\\nos._exit(0)\\n' > /app/$m.py; done\n",
    "tests/test.sh": TB_TEST_SH,
    "tests/test_outputs.py": "def test_answer():\n    assert open('/app/answer.txt').read().strip() == '42'\n",
  },
  "solve-fails": {
    "environment/Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\n",
    "solution/solve.sh":
      "#!/bin/bash\necho 'Reading package lists...'\necho 'E: Unable to locate package rlenv-nowhere' >&2\necho 'done trying'\nexit 100\n",
    "tests/test.sh": TB_TEST_SH,
    "tests/test_outputs.py": "def test_answer():\n    assert open('/app/answer.txt').read().strip() == '42'\n",
  },
  "build-fails": {
    "environment/Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\nRUN echo one step\nRUN apt-get install -y rlenv-no-such-package\n",
    "solution/solve.sh": "#!/bin/bash\ntrue\n",
    "tests/test.sh": TB_TEST_SH,
    "tests/test_outputs.py": "def test_nothing():\n    assert False\n",
  },
};

test("Harbor semantics on docker: capabilities, a Debian 13 base, the shim against planted modules, failures named", {
  skip: missing("docker") || missing("image"),
  timeout: 1_500_000,
}, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-fidelity-"));
  try {
    for (const [name, files] of Object.entries(TASKS)) {
      const all = { "task.toml": TOML, "instruction.md": `Task ${name}.\n`, ...files };
      for (const [rel, text] of Object.entries(all)) {
        const to = path.join(root, "tasks", name, rel);
        mkdirSync(path.dirname(to), { recursive: true });
        writeFileSync(to, text, { mode: 0o644 }); // as TB 2.0 ships them: not executable
      }
    }
    const runs = path.join(root, "runs");
    const r = rlenv(["validate", "--run", "--sandbox", "docker", "--runs", runs, path.join(root, "tasks")], {
      timeoutMs: 1_450_000,
      env: { RLENV_BUILD_TIMEOUT_MULTIPLIER: "6" },
    });
    const out = `${r.stdout}\n${r.stderr.slice(-4000)}`;
    assert.equal(r.code, 1, out);
    assert.match(r.stdout, /✓ root-powers\/root-powers: oracle 1, nop 0/, out);
    assert.match(r.stdout, /✓ trixie-apt\/trixie-apt: oracle 1, nop 0/, out);
    assert.match(r.stdout, /base image debian:13-slim .* stand-in rlenv\/standin-debian-trixie:/, out);
    assert.match(r.stdout, /✗ planted\/planted: oracle 0, nop 0 — oracle scored 0.*FAILED test_outputs\.py::test_answer/, out);
    assert.match(r.stdout, /✗ solve-fails\/solve-fails: .*solve\.sh exited 100: E: Unable to locate package rlenv-nowhere/, out);
    assert.match(
      r.stdout,
      /✗ build-fails: building .* failed at Step \d+\/\d+ : RUN apt-get install -y rlenv-no-such-package \(exit 100\) — E: Unable to locate package rlenv-no-such-package/,
      out,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
