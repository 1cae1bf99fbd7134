// A Harbor task run as it is on Docker: its Dockerfile on the ubuntu stand-in, solve.sh as the
// oracle, tests/ copied in only after the agent, test.sh fetching pytest the TB 2.0 way (curl
// astral.sh | sh, uvx … pytest) through the offline shim, and a multi-key reward.json whose
// keys are each a reward component.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { rlenv } from "../support/cli";
import { missing } from "../support/services";

const TEST_SH = `#!/bin/bash
apt-get update
apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh
source $HOME/.local/bin/env
if [ "$PWD" = "/" ]; then echo "no WORKDIR"; exit 1; fi
correctness=0
quick=0
uvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5 pytest --ctrf /logs/verifier/ctrf.json /tests/test_answer.py -rA && correctness=1
[ -f /app/notes.txt ] && quick=1
python3 -c "import json; json.dump({'correctness': $correctness, 'notes': $quick}, open('/logs/verifier/reward.json', 'w'))"
`;

test("a Harbor task on docker: oracle scores 1 on both reward.json keys, nop 0, tests unseen by the agent", {
  skip: missing("docker") || missing("image"),
  timeout: 900_000,
}, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "rlenv-harbor-docker-"));
  try {
    const task = path.join(root, "tasks", "answer-file");
    const files: Record<string, string> = {
      "task.toml": 'version = "1.0"\n[agent]\ntimeout_sec = 120.0\n[verifier]\ntimeout_sec = 300.0\n[environment]\nmemory = "1G"\n',
      "instruction.md": "Write 42 to /app/answer.txt and anything to /app/notes.txt.\n",
      "environment/Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\nCOPY seed.txt /app/seed.txt\n",
      "environment/seed.txt": "seed\n",
      // notes.txt only when /tests is not there yet (tests go in after the agent) and the image's seed.txt is.
      "solution/solve.sh": "#!/bin/bash\necho 42 > answer.txt\n[ -e /tests ] || cp seed.txt notes.txt\n",
      "tests/test.sh": TEST_SH,
      "tests/test_answer.py":
        "from pathlib import Path\n\ndef test_answer():\n    assert Path('/app/answer.txt').read_text().strip() == '42'\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(task, rel)), { recursive: true });
      writeFileSync(path.join(task, rel), text);
    }
    const runs = path.join(root, "runs");
    const r = rlenv(["validate", "--run", "--sandbox", "docker", "--runs", runs, path.join(root, "tasks")], {
      timeoutMs: 880_000,
      env: { RLENV_BUILD_TIMEOUT_MULTIPLIER: "4" },
    });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr.slice(-3000)}`);
    assert.match(r.stdout, /✓ answer-file\/answer-file: oracle 1, nop 0/);
    assert.match(r.stdout, /base image ubuntu:24\.04 is not pulled .* stand-in rlenv\/standin-ubuntu:/);
    const rewards = readdirSync(runs).flatMap((run) =>
      readdirSync(path.join(runs, run, "rollouts")).flatMap((f) =>
        readFileSync(path.join(runs, run, "rollouts", f), "utf8")
          .split("\n")
          .filter((l) => l.includes('"type":"reward"'))
          .map((l) => JSON.parse(l) as { total: number; components: Array<{ name: string; score: number }> }),
      ),
    );
    const oracle = rewards.find((x) => x.total === 1);
    const nop = rewards.find((x) => x.total === 0);
    assert.deepEqual(
      oracle?.components.map((c) => [c.name, c.score]),
      [
        ["correctness", 1],
        ["notes", 1],
      ],
    );
    assert.deepEqual(
      nop?.components.map((c) => [c.name, c.score]),
      [
        ["correctness", 0],
        ["notes", 0],
      ],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
