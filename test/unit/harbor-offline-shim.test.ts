// The offline Harbor test shim run for real (bash and Debian's python3-pytest on this host), as
// a Terminal-Bench test.sh calls it: uvx/uv/pytest/pip with the options TB 2.0 tasks pass, in a
// working folder where the agent has planted modules that would pass every test if imported.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { shimFiles } from "../../src/core/reward/harbor/offline-shim";
import { missing } from "../support/services";

const skip = missing("apt") || (!existsSync("/usr/bin/python3") && "no /usr/bin/python3");
const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-shim-"));
after(() => rmSync(root, { recursive: true, force: true }));

const bin = path.join(root, "bin");
const work = path.join(root, "app");
const tests = path.join(root, "tests");
const logs = path.join(root, "logs");
mkdirSync(bin);
mkdirSync(work);
mkdirSync(tests);
mkdirSync(logs);
for (const [name, text] of Object.entries(shimFiles(bin))) {
  writeFileSync(path.join(bin, name), text);
  chmodSync(path.join(bin, name), 0o755);
}
// One test that fails, one that passes: a shim that runs them gives exit 1 and names the failure.
writeFileSync(
  path.join(tests, "test_outputs.py"),
  "import subprocess\n\ndef test_ok():\n    assert subprocess.run(['true']).returncode == 0\n\ndef test_answer():\n    assert open('answer.txt').read() == '42'\n",
);
writeFileSync(path.join(work, "answer.txt"), "41");
// What an agent plants in the working folder: each ends the process with status 0 when imported.
const PASS = "import os\nos._exit(0)\n";
for (const m of ["pytest.py", "_pytest.py", "pluggy.py", "iniconfig.py", "subprocess.py", "json.py", "inspect.py"])
  writeFileSync(path.join(work, m), PASS);
mkdirSync(path.join(work, "packaging"));
writeFileSync(path.join(work, "packaging", "__init__.py"), PASS);

function sh(script: string) {
  const r = spawnSync("bash", ["-c", script], {
    cwd: work,
    encoding: "utf8",
    timeout: 120_000,
    env: { PATH: `${bin}:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin`, HOME: path.join(root, "home"), LANG: "C.UTF-8" },
  });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

test("the TB 2.0 uvx line runs the tests, not the modules planted in the working folder, and writes --ctrf", { skip }, () => {
  const r = sh(
    `curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh && source $HOME/.local/bin/env && uvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5 pytest --ctrf ${logs}/ctrf.json ${tests}/test_outputs.py -rA`,
  );
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /FAILED .*test_outputs\.py::test_answer/);
  const ctrf = JSON.parse(readFileSync(path.join(logs, "ctrf.json"), "utf8")) as {
    results: { summary: { tests: number; passed: number; failed: number }; tests: Array<{ name: string; status: string }> };
  };
  assert.deepEqual(ctrf.results.summary.tests, 2);
  assert.deepEqual(
    ctrf.results.tests.map((t) => [t.name.split("::")[1], t.status]),
    [
      ["test_ok", "passed"],
      ["test_answer", "failed"],
    ],
  );
});

test("uv run pytest, uv tool run pytest and a bare pytest take --ctrf and ignore the planted modules", { skip }, () => {
  for (const line of [
    `uv run --with pytest pytest --ctrf ${logs}/a.json ${tests}/test_outputs.py`,
    `uv run python -m pytest --ctrf=${logs}/b.json ${tests}/test_outputs.py`,
    `uv tool run pytest --ctrf ${logs}/c.json ${tests}/test_outputs.py`,
    `pytest --ctrf ${logs}/d.json ${tests}/test_outputs.py`,
    `py.test ${tests}/test_outputs.py`,
  ]) {
    const r = sh(line);
    assert.equal(r.code, 1, `${line}\n${r.out}`);
    assert.match(r.out, /1 failed, 1 passed/, line);
  }
  writeFileSync(path.join(work, "answer.txt"), "42");
  try {
    const r = sh(`uv run pytest --ctrf ${logs}/e.json ${tests}/test_outputs.py`);
    assert.equal(r.code, 0, r.out);
    assert.match(readFileSync(path.join(logs, "e.json"), "utf8"), /"failed": 0/);
  } finally {
    writeFileSync(path.join(work, "answer.txt"), "41");
  }
});

test("uv venv -p 3.12 makes a venv that sees the image's packages; the shim's pytest runs in it", { skip }, () => {
  const made = sh("uv venv -p 3.12 --seed venv1");
  assert.equal(made.code, 0, made.out);
  assert.ok(existsSync(path.join(work, "venv1", "bin", "python3")), made.out);
  const r = sh(`source venv1/bin/activate && uv pip install pytest && pytest ${tests}/test_outputs.py; echo "exit $?"`);
  assert.match(r.out, /1 failed, 1 passed/);
  assert.match(r.out, /exit 1/);
  const bare = sh("uv venv --python=3.12 && test -x .venv/bin/python3");
  assert.equal(bare.code, 0, bare.out);
});

test("pip install and uv pip install: what the image has is satisfied offline, what it lacks fails naming it", { skip }, () => {
  const present = sh("pip install pytest==8.4.1 pytest-json-ctrf==0.3.5 && pip3 install -q pytest && uv pip install --system pytest");
  assert.equal(present.code, 0, present.out);
  assert.match(present.out, /pytest ==8\.4\.1 asked, 7\.\d+\.\d+ installed is used/);
  writeFileSync(path.join(work, "requirements.txt"), "pytest>=7\nrlenv-no-such-package==1.0\n");
  for (const line of ["pip install rlenv-no-such-package", "uv pip install -r requirements.txt"]) {
    const r = sh(line);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /cannot install rlenv-no-such-package.*no network to fetch it/, line);
  }
});
